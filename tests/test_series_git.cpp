// Series with renames, deletions and additions, made by git: each test commits a few steps,
// exports them with `git format-patch` and checks, on a copy of every state k (the tree of
// commit k), that `verify` reads patches 1..k applied and the others applicable, that `apply`
// gives the last state byte for byte, and `apply --reverse` on the last state the first (the
// checks of bench/random_series.py, on the shapes of the hostile review's findings).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace sm120check {
namespace {

namespace fs = std::filesystem;
using Files = std::map<std::string, std::string>;

/// Every regular file under `root` (no .git): path -> bytes.
Files read_tree(const fs::path& root) {
  Files out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    if (it->path().filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file())
      out[fs::relative(it->path(), root).string()] = test::read_file(it->path());
  }
  return out;
}

/// A git repository whose commits are `steps` (shell commands run in it, on top of a base
/// commit made by the first step), exported as patches 1..N with `git format-patch
/// <format_options>`; state k is the tree of commit k, extracted to its own folder.
class GitSeries {
 public:
  GitSeries(const std::vector<std::string>& steps, const std::string& format_options = "") {
    const fs::path repo = dir_.path() / "repo";
    fs::create_directories(repo);
    std::string script =
        "export HOME='" + dir_.path().string() +
        "' GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t "
        "GIT_COMMITTER_EMAIL=t@e; set -e; git init -q -b main .; "
        "lines() { for i in $(seq 1 12); do echo \"line $i\"; done; }; ";
    for (std::size_t i = 0; i < steps.size(); ++i)
      script += steps[i] + "; git add -A; git commit -q -m 'step " + std::to_string(i) + "'; ";
    script += "git format-patch -q -o ../patches " + format_options + " HEAD~" +
              std::to_string(steps.size() - 1) + "..HEAD; k=0; for r in $(git rev-list --reverse "
              "HEAD); do mkdir ../s$k; git archive $r | tar -x -C ../s$k; k=$((k+1)); done";
    const test::RunResult r = test::run_shell(script, repo);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    count_ = steps.size() - 1;
  }
  std::size_t patches() const { return count_; }
  /// Takes the `index` lines out of the patches (plain diffs: no blob ids to place a file).
  void drop_index_lines() {
    const test::RunResult r = test::run_shell("sed -i '/^index /d' *.patch", dir_.path() / "patches");
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  std::string patch_dir() const { return dir_ / "patches"; }
  fs::path state(std::size_t k) const { return dir_.path() / ("s" + std::to_string(k)); }
  /// A fresh copy of state k to write into.
  fs::path copy_of(std::size_t k) {
    const fs::path to = dir_.path() / ("copy" + std::to_string(copies_++));
    fs::copy(state(k), to, fs::copy_options::recursive);
    return to;
  }

 private:
  test::TempDir dir_;
  std::size_t count_ = 0;
  int copies_ = 0;
};

/// The statuses `verify` gives the series' patches on `tree`.
std::vector<std::string> verdicts(const GitSeries& s, const fs::path& tree,
                                  const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"verify", "--no-gpu", "--no-repo", "--format", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(s.patch_dir());
  args.push_back(tree.string());
  const test::RunResult r = test::run_sm120check(args);
  std::vector<std::string> out;
  try {
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    for (const auto& p : doc.at("patches")) out.push_back(p.at("status").get<std::string>());
  } catch (const nlohmann::json::exception&) {
    ADD_FAILURE() << "no JSON (exit " << r.exit_code << "): " << r.out << r.err;
  }
  if (out.empty()) ADD_FAILURE() << "no patch (exit " << r.exit_code << "): " << r.out << r.err;
  return out;
}

/// Patches 1..k applied, the others applicable.
std::vector<std::string> linear(std::size_t k, std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t j = 1; j <= n; ++j) out.push_back(j <= k ? "applied" : "applicable");
  return out;
}

/// `apply` (or --reverse) on a copy of state `from`: exit 0 and the tree of state `to`, and a
/// second run changes nothing.
void expect_apply(GitSeries& s, std::size_t from, std::size_t to, bool reverse) {
  const fs::path tree = s.copy_of(from);
  std::vector<std::string> args = {"apply"};
  if (reverse) args.push_back("--reverse");
  args.push_back(s.patch_dir());
  args.push_back(tree.string());
  const test::RunResult r = test::run_sm120check(args);
  EXPECT_EQ(r.exit_code, 0) << "from state " << from << ":\n" << r.out << r.err;
  EXPECT_EQ(read_tree(tree), read_tree(s.state(to))) << "from state " << from << ":\n" << r.out;
  const test::RunResult again = test::run_sm120check(args);
  EXPECT_EQ(again.exit_code, 0) << "again from state " << from << ":\n" << again.out << again.err;
}

/// verify's whole JSON report of the series on `tree` with `-j threads`.
std::string report_with_threads(const GitSeries& s, const fs::path& tree, int threads) {
  const test::RunResult r =
      test::run_sm120check({"verify", "--no-gpu", "--no-repo", "--format", "json", "-j",
                            std::to_string(threads), s.patch_dir(), tree.string()});
  return std::to_string(r.exit_code) + "\n" + r.out;
}

/// Every state: verify reads it as git made it, the same report on one thread as on eight
/// (the series passes judge units on unrelated paths on threads of their own); apply gives the
/// last state, --reverse on the last state the first.
void expect_like_git(GitSeries& s) {
  const std::size_t n = s.patches();
  for (std::size_t k = 0; k <= n; ++k) {
    EXPECT_EQ(verdicts(s, s.state(k)), linear(k, n)) << "state " << k;
    EXPECT_EQ(report_with_threads(s, s.state(k), 8), report_with_threads(s, s.state(k), 1))
        << "state " << k;
    expect_apply(s, k, n, false);
  }
  expect_apply(s, n, 0, true);
}

// Units on unrelated paths are judged on threads of their own; a rename with its later edit
// stays together. Each state as git made it, the same report on one thread and on eight.
TEST(SeriesGit, UnrelatedFilesAreJudgedApartTheSameOnEightThreads) {
  GitSeries s({"lines > a.py; lines > b.py; lines > c.py; lines > e.py",
               "sed -i 's/line 3$/line three/' a.py; sed -i 's/line 5$/line five/' b.py",
               "git mv c.py d.py; sed -i 's/line 2$/line two/' d.py",
               "sed -i 's/line 7$/line seven/' a.py; sed -i 's/line 6$/line six/' e.py",
               "sed -i 's/line 9$/line nine/' b.py; sed -i 's/line 11$/line eleven/' d.py",
               "sed -i 's/line 8$/line eight/' e.py; sed -i 's/line 1$/line one/' a.py"});
  ASSERT_EQ(s.patches(), 5u);
  expect_like_git(s);
}

// A file renamed into a folder of its own name (x -> x/y.py), then edited there. On the trees
// after the rename, `x` is a folder: it holds no file to move, and the rename reads applied
// (it read conflict: "'x/y.py' already exists and is not the post-image"). The series' passes
// keep x and x/y.py together (a path below another's). verify only: apply refuses to write a
// file below a path another change of the run names as a file (exit 3).
TEST(SeriesGit, AFileRenamedIntoAFolderOfItsOwnNameReadsApplied) {
  GitSeries s({"lines > a.py; lines > x",
               "sed -i 's/line 3$/line three/' a.py",
               "rm x; mkdir x; lines > x/y.py",  // git: rename x => x/y.py (100%)
               "sed -i 's/line 4$/line four/' x/y.py; sed -i 's/line 5$/line five/' a.py"});
  ASSERT_EQ(s.patches(), 3u);
  for (std::size_t k = 0; k <= s.patches(); ++k) {
    EXPECT_EQ(verdicts(s, s.state(k)), linear(k, s.patches())) << "state " << k;
    EXPECT_EQ(report_with_threads(s, s.state(k), 8), report_with_threads(s, s.state(k), 1))
        << "state " << k;
  }
}

// Hostile review: rename a.py -> b.py, then delete b.py. On the base tree (a.py there, b.py
// not) the deletion read applied (b.py is missing, but it was never made) and apply said done
// while a.py remained.
TEST(SeriesGit, ARenameThenADeletionOnTheBaseTree) {
  GitSeries s({"lines > a.py; echo keep > k.py", "git mv a.py b.py", "git rm -q b.py"});
  ASSERT_EQ(s.patches(), 2u);
  EXPECT_EQ(verdicts(s, s.state(0)), linear(0, 2));
  expect_like_git(s);
}

// Hostile review: add a file, then rename it; on the last state verify read the add
// applicable (the tree lacks a.py) while apply read it applied.
TEST(SeriesGit, AnAddThenARenameOnTheLastTree) {
  GitSeries s({"echo keep > k.py", "lines > a.py", "git mv a.py b.py"});
  EXPECT_EQ(verdicts(s, s.state(2)), linear(2, 2));
  expect_like_git(s);
}

// Hostile review: a file moved, then edited twice near the same lines. On the base tree the
// last edit's file (lib/a.py) is missing, relocation found src/a.py by its name before the
// series was judged, and the edit read conflict there.
TEST(SeriesGit, AMoveThenTwoEditsAreJudgedWhereTheSeriesPutsTheFile) {
  GitSeries s({"mkdir -p src; lines > src/a.py; echo keep > k.py",
               "mkdir -p lib; git mv src/a.py lib/a.py",
               "sed -i 's/line 3/line three/' lib/a.py", "sed -i 's/line 4/line four/' lib/a.py"});
  EXPECT_EQ(verdicts(s, s.state(0)), linear(0, 3));
  expect_like_git(s);
}

// Hostile review: a 6-patch chain of edits, a rename and a delete; apply left moved.py in
// place with exit 0.
TEST(SeriesGit, ASixPatchChainWithARenameAndADeletion) {
  GitSeries s({"lines > a.py; lines > b.py; echo keep > k.py",
               "sed -i 's/line 2/line two/' a.py", "git mv a.py moved.py",
               "sed -i 's/line 5/line five/' moved.py", "sed -i 's/line 5/line 5b/' b.py",
               "sed -i 's/line 9/line nine/' moved.py", "git rm -q moved.py"});
  ASSERT_EQ(s.patches(), 6u);
  expect_like_git(s);
}

// The series adds x.py, changes it and deletes it; a tree without x.py is both the state
// before and the state after: nothing may read applied on the deletion's word, and apply
// gives git's tree (no x.py) either way.
TEST(SeriesGit, AFileAddedChangedAndDeletedIsNeverAppliedOnItsAbsence) {
  GitSeries s({"echo keep > k.py", "lines > x.py", "sed -i 's/line 2/line two/' x.py",
               "git rm -q x.py"});
  for (std::size_t k : {0u, 3u})
    for (const std::string& v : std::vector<std::string>(verdicts(s, s.state(k))))
      EXPECT_NE(v, "applied") << "state " << k;
  for (std::size_t k = 0; k <= 3; ++k) expect_apply(s, k, 3, false);
  // In between, the states are clear.
  EXPECT_EQ(verdicts(s, s.state(1)), linear(1, 3));
  EXPECT_EQ(verdicts(s, s.state(2)), linear(2, 3));
}

// An edit, then the file's deletion: the file existed before the series, so its absence is
// the deletion's, which only applies to the edited file: both applied (not unknown).
TEST(SeriesGit, AnEditThenADeletionOfAFileThatWasThere) {
  GitSeries s({"lines > a.py; echo keep > k.py", "sed -i 's/line 2/line two/' a.py",
               "git rm -q a.py"});
  expect_like_git(s);
}

// Random series (bench/random_series.py seed 130): edit, edit, revert of the second, checked
// on the tree before all three. The revert's own lines are the tree's there, with one context
// line differing (the first edit's), so the tree alone read it applied (drifted); the series,
// with the first two put in, finds its pre-image exactly: applicable, as git says (the revert
// cannot be in a tree that lacks what it reverts). States 1 and 3 hold the same tree (git
// cannot tell them apart) and are left out.
TEST(SeriesGit, ARevertOfAMissingEditIsNotAppliedByItsOwnLines) {
  GitSeries s({"lines > a.py; echo keep > k.py", "sed -i 's/line 5/line five/' a.py",
               "sed -i 's/line 7/line seven/' a.py", "sed -i 's/line seven/line 7/' a.py"});
  ASSERT_EQ(s.patches(), 3u);
  EXPECT_EQ(verdicts(s, s.state(0)), linear(0, 3));
  EXPECT_EQ(verdicts(s, s.state(2)), linear(2, 3));
  for (std::size_t k : {0u, 2u}) expect_apply(s, k, 3, false);
}

// Hostile review (F1): add X, change another line, remove X, checked on the tree before all
// three. "remove X" read applied by its own lines (X is absent), although the file is byte for
// byte patch 1's pre-image (index lines): the three are out. (lmdeploy HEAD~260..HEAD~60 on
// its base read patch 49 applied so.)
TEST(SeriesGit, ARemovalOfLinesAnEarlierPatchAddsIsNotInTheTreeBeforeBoth) {
  GitSeries s({"seq 1 40 | sed 's/^/line /' > f.py; echo keep > k.py",
               "sed -i 's/^line 10$/line 10\\nadded X/' f.py",
               "sed -i 's/^line 30$/line 30 changed/' f.py", "sed -i '/^added X$/d' f.py"});
  ASSERT_EQ(s.patches(), 3u);
  EXPECT_EQ(verdicts(s, s.state(0)), linear(0, 3));
  EXPECT_EQ(verdicts(s, s.state(1)), linear(1, 3));
  EXPECT_EQ(verdicts(s, s.state(2)), linear(2, 3));
  for (std::size_t k : {0u, 1u, 2u}) expect_apply(s, k, 3, false);
}

// Hostile review (F2): a patch that adds python/LICENSE, checked where only the top-level
// LICENSE exists: strip detection took -p2 (the added path "LICENSE" exists there) and read
// the add applied. An added file's own path is no evidence of a level: -p1, applicable.
TEST(SeriesGit, AnAddedCopyOfATopLevelFileIsNotTheTopLevelFile) {
  GitSeries s({"printf 'MIT\\nCopyright\\n' > LICENSE", "mkdir python; cp LICENSE python/"});
  ASSERT_EQ(s.patches(), 1u);
  EXPECT_EQ(verdicts(s, s.state(0)), linear(0, 1));
  EXPECT_EQ(verdicts(s, s.state(1)), linear(1, 1));
}

// Hostile review (session 34): two added files whose paths end alike (lmdeploy d3e2cee41e adds
// docs/en/benchmark/guide.md and docs/zh_cn/benchmark/guide.md to a tree with benchmark/):
// -p2 was taken for the benchmark/ folder, both named benchmark/guide.md, and the second read
// "conflict (file already exists)". And a file added under a new python/ whose older copy
// stands at the top read applied at -p3. A one-folder parent is no evidence away from -p1.
TEST(SeriesGit, AddedFilesAreNotTakenForAOneFolderParentDeeperDown) {
  GitSeries s({"mkdir benchmark kernels; echo run > benchmark/run.py; "
               "printf 'if major == 12:\\n    BLOCK = 64\\n' > kernels/sm120_config.py",
               "mkdir -p docs/en/benchmark docs/zh_cn/benchmark python/pkg/kernels; "
               "echo guide > docs/en/benchmark/guide.md; echo zh > docs/zh_cn/benchmark/guide.md; "
               "cp kernels/sm120_config.py python/pkg/kernels/"});
  ASSERT_EQ(s.patches(), 1u);
  EXPECT_EQ(verdicts(s, s.state(0)), linear(0, 1));
  EXPECT_EQ(verdicts(s, s.state(1)), linear(1, 1));
}

// Hostile review (F3): a file fixed, then deleted, while a look-alike of the same name stands
// elsewhere. On the last state the fix's file is missing, relocation found the look-alike by
// name and the fix read conflict there (lmdeploy #4392 relocated to lmdeploy/cli/utils.py
// after a later patch deleted tool_parser/utils.py). The later deletion, taken out, gives
// the file back where the patch names it: judged there.
TEST(SeriesGit, AFixToAFileALaterPatchDeletesIsNotJudgedOnALookAlike) {
  GitSeries s({"mkdir a b; printf 'import json\\nfrom typing import List, Optional\\n' > a/utils.py; "
               "seq 30 | sed 's/^/alpha /' >> a/utils.py; "
               "printf 'import json\\nfrom typing import Optional\\n' > b/utils.py; "
               "seq 30 | sed 's/^/beta /' >> b/utils.py",
               "sed -i 's/List, Optional/Optional/; s/^alpha 20$/alpha 20 fixed/' a/utils.py",
               "git rm -q a/utils.py"});
  ASSERT_EQ(s.patches(), 2u);
  expect_like_git(s);
}

/// `verify` on state `k` of `s`: patches whose numbers (1-based) are in `decided` read as git
/// decides them (1..k applied, the others applicable); the others, which git's own content
/// cannot place (a patch and its revert both on one side of k), read anything but conflict or
/// partial.
void expect_decided(const GitSeries& s, std::size_t k, const std::vector<std::size_t>& decided) {
  const std::vector<std::string> got = verdicts(s, s.state(k));
  const std::vector<std::string> want = linear(k, s.patches());
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t j = 1; j <= got.size(); ++j) {
    if (std::find(decided.begin(), decided.end(), j) != decided.end())
      EXPECT_EQ(got[j - 1], want[j - 1]) << "state " << k << ", patch " << j;
    else
      EXPECT_TRUE(got[j - 1] == "applied" || got[j - 1] == "applicable" ||
                  got[j - 1] == "unknown")
          << "state " << k << ", patch " << j << ": " << got[j - 1];
  }
}

// Random series (bench/random_series.py seed 88): delete a.py, revert that (a.py back), edit,
// edit, revert the second edit. On state 0 (and 2, the same tree) the last revert read applied
// by its own lines (drifted: the first edit's line stands in its context), and apply wrote a
// tree without it. a.py's blob id names states 0 and 2 (the delete's pre-image, the re-add's
// and the first edit's): every patch on it after the last of them is out. Patches 1 and 2 are
// a patch and its revert: git's content cannot place them.
TEST(SeriesGit, ARevertAfterADeletionAndItsRevertIsNotAppliedByItsOwnLines) {
  GitSeries s({"lines > a.py; echo keep > k.py", "git rm -q a.py", "git revert --no-commit HEAD",
               "sed -i 's/^line 9$/changed 9/' a.py",
               "sed -i 's/^line 6$/changed 6/; s/^line 12$/changed 12/' a.py",
               "git revert --no-commit HEAD"});
  ASSERT_EQ(s.patches(), 5u);
  for (std::size_t k : {0u, 2u}) {
    expect_decided(s, k, {3, 4, 5});
    expect_apply(s, k, 5, false);
  }
  expect_decided(s, 1, {1, 2, 3, 4, 5});
  expect_decided(s, 4, {3, 4, 5});
  expect_apply(s, 5, 0, true);
}

// Hostile review (F4), as plain diffs (no index lines, so no blob id places the file): p1
// changes line 12 and deletes line 18, p2 deletes line 16, p3 reverts p2, p4 deletes line 13
// (line 12 as p1 left it and line 16 in its context). On the base tree p3 read applied by its
// own lines (drifted: line 18 stands in its context) and could not be taken out, so the series
// left it out of the tree it builds: line 16 was missing there and p4 read conflict, and apply
// refused. With p1 and p2 put in, p3's pre-image stands where it belongs: it is put in, and p4
// is applicable.
TEST(SeriesGit, ARevertThatReadsAppliedByDriftIsPutInWhenTheSeriesShowsItsPreImage) {
  GitSeries s({"seq 1 30 | sed 's/^/v = /' > f.py",
               "sed -i '/^v = 18$/d; s/^v = 12$/v = 12 x/' f.py", "sed -i '/^v = 16$/d' f.py",
               "git revert --no-commit HEAD", "sed -i '/^v = 13$/d' f.py"});
  ASSERT_EQ(s.patches(), 4u);
  s.drop_index_lines();
  for (std::size_t k = 0; k <= 4; ++k) {
    // States 1, 3 and 4 hold p2 and p3 both or neither (git cannot tell); on state 0 git
    // cannot apply p2 (line 18 stands in its context) and on state 2 p3 would add line 16.
    expect_decided(s, k, k == 0 || k == 2 ? std::vector<std::size_t>{1, 2, 3, 4}
                                          : std::vector<std::size_t>{1, 4});
    expect_apply(s, k, 4, false);
  }
  expect_apply(s, 4, 0, true);
}

// Random series with --no-renames (bench/random_series.py seed 4's shape): a.py edited and
// moved to b.py, written as a deletion and an addition, then that reverted, then a.py edited.
// On the states before the move and after the revert (0, 2, 3) the tree holds the move and
// its revert both or neither: b.py is missing before and after, a.py there before and after.
// The revert read partial (its addition of a.py applied by the file, its deletion of b.py
// judged as not made), which neither reading is; the patch goes as one.
TEST(SeriesGit, AMoveAndItsRevertAsDeletionsAndAdditionsAreNeverPartial) {
  GitSeries s({"lines > a.py; echo keep > k.py",
               "sed -i 's/^line 2$/line two/' a.py; git mv a.py b.py",
               "git revert --no-commit HEAD", "sed -i 's/^line 9$/line nine/' a.py"},
              "--no-renames");
  ASSERT_EQ(s.patches(), 3u);
  for (std::size_t k : {0u, 2u, 3u}) {
    expect_decided(s, k, {3});
    const std::vector<std::string> got = verdicts(s, s.state(k));
    EXPECT_EQ(got[0], got[1]) << "state " << k << ": the move and its revert go together";
    expect_apply(s, k, 3, false);
  }
  expect_decided(s, 1, {1, 2, 3});
  expect_apply(s, 3, 0, true);
}

}  // namespace
}  // namespace sm120check
