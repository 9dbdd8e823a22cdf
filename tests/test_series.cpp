// A run's patches as an ordered series: every state of a linear series, patches applied out of
// order or left out, repeated sections for one file, and dependencies named.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sm120check/patch.hpp"
#include "sm120check/report.hpp"
#include "sm120check/spare_threads.hpp"
#include "sm120check/tree.hpp"
#include "sm120check/verify.hpp"
#include "test_util.hpp"

namespace sm120check {
namespace {

using Lines = std::vector<std::string>;

std::string join(const Lines& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

/// A unified diff of `a` -> `b` for `path` (git form, 3 lines of context), from a longest
/// common subsequence: enough for the small files of these tests.
std::string make_diff(const std::string& path, const Lines& a, const Lines& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> lcs(n + 1, std::vector<std::size_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  struct Op {
    char kind;
    std::string text;
    std::size_t ai, bi;  // lines before it on each side
  };
  std::vector<Op> ops;
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      ops.push_back({' ', a[i], i, j});
      ++i, ++j;
    } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      ops.push_back({'+', b[j], i, j});
      ++j;
    } else {
      ops.push_back({'-', a[i], i, j});
      ++i;
    }
  }
  std::string out = "diff --git a/" + path + " b/" + path + "\n--- a/" + path + "\n+++ b/" +
                    path + "\n";
  constexpr std::size_t kContext = 3;
  std::size_t k = 0;
  while (k < ops.size()) {
    while (k < ops.size() && ops[k].kind == ' ') ++k;
    if (k == ops.size()) break;
    std::size_t begin = k >= kContext ? k - kContext : 0, end = k;
    // Extend over changes closer than 2 * context lines apart.
    while (end < ops.size()) {
      std::size_t run = end;
      while (run < ops.size() && ops[run].kind != ' ') ++run;
      std::size_t same = run;
      while (same < ops.size() && ops[same].kind == ' ' && same - run < 2 * kContext) ++same;
      if (same < ops.size() && ops[same].kind != ' ') {
        end = same;
        continue;
      }
      end = std::min(run + kContext, ops.size());
      break;
    }
    std::size_t old_len = 0, new_len = 0;
    for (std::size_t x = begin; x < end; ++x) {
      if (ops[x].kind != '+') ++old_len;
      if (ops[x].kind != '-') ++new_len;
    }
    const std::size_t old_start = old_len ? ops[begin].ai + 1 : ops[begin].ai;
    const std::size_t new_start = new_len ? ops[begin].bi + 1 : ops[begin].bi;
    out += "@@ -" + std::to_string(old_start) + "," + std::to_string(old_len) + " +" +
           std::to_string(new_start) + "," + std::to_string(new_len) + " @@\n";
    for (std::size_t x = begin; x < end; ++x) out += std::string(1, ops[x].kind) + ops[x].text + "\n";
    k = end;
  }
  return out;
}

/// State k of a linear series of 8 fixes to k.py: fix j retunes `tile` (j-1 -> j: each needs
/// the one before) and, for odd j, adds a call far below (independent of the others).
Lines state(std::size_t k) {
  Lines lines;
  for (int i = 1; i <= 40; ++i) {
    if (i == 5) lines.push_back("tile = " + std::to_string(k));
    else lines.push_back("line " + std::to_string(i));
    for (std::size_t j = 1; j <= k; j += 2)
      if (i == static_cast<int>(18 + 2 * j)) lines.push_back("feature_" + std::to_string(j) + "()");
  }
  return lines;
}

std::vector<Patch> linear_series() {
  std::vector<Patch> out;
  for (std::size_t j = 1; j <= 8; ++j) {
    std::string text = "Subject: [PATCH " + std::to_string(j) + "/8] fix " + std::to_string(j) +
                       "\n\n---\n" + make_diff("k.py", state(j - 1), state(j));
    std::vector<Patch> one = parse_patches(text, "000" + std::to_string(j) + ".patch");
    out.push_back(std::move(one.at(0)));
  }
  return out;
}

/// An empty directory seen through an overlay holding `files`.
struct Fixture {
  test::TempDir dir;
  std::unique_ptr<Tree> disk = open_disk_tree(dir.path().string());
  OverlayTree tree{*disk};
};

TEST(Series, EveryStateOfALinearSeries) {
  const std::vector<Patch> series = linear_series();
  for (std::size_t k = 0; k <= 8; ++k) {
    Fixture f;
    f.tree.write("k.py", join(state(k)));
    VerifyReport r = verify(series, f.tree, {});
    ASSERT_EQ(r.patches.size(), 8u);
    for (std::size_t j = 1; j <= 8; ++j) {
      const PatchReport& p = r.patches[j - 1];
      EXPECT_EQ(p.status, j <= k ? Status::kApplied : Status::kApplicable)
          << "state " << k << ", patch " << j << ": " << p.files[0].reason;
      EXPECT_EQ(p.presence, j <= k ? Presence::kPresent : Presence::kAbsent);
      // A fix after the next one needs the ones before it, not in the tree.
      if (j > k + 1) {
        EXPECT_EQ(p.depends_on, (std::vector<std::size_t>{j - 2})) << "state " << k << " patch " << j;
      } else {
        EXPECT_TRUE(p.depends_on.empty()) << "state " << k << " patch " << j;
      }
    }
    EXPECT_EQ(r.exit_code(), k == 8 ? 0 : 1) << "state " << k;
  }
}

TEST(Series, DependencyIsNamedInTheReason) {
  const std::vector<Patch> series = linear_series();
  Fixture f;
  f.tree.write("k.py", join(state(2)));
  VerifyReport r = verify(series, f.tree, {});
  EXPECT_NE(r.patches[4].files[0].reason.find("applicable once patch 4 (fix 4) is applied"),
            std::string::npos)
      << r.patches[4].files[0].reason;
}

TEST(Series, IndependentJudgementKeepsTheOldBehaviour) {
  const std::vector<Patch> series = linear_series();
  Fixture f;
  f.tree.write("k.py", join(state(8)));
  VerifyOptions alone;
  alone.series = false;
  VerifyReport r = verify(series, f.tree, alone);
  EXPECT_EQ(r.patches[7].status, Status::kApplied);
  EXPECT_NE(r.patches[0].status, Status::kApplied);  // its tile line was retuned since
}

/// Three fixes to separate places of one file.
Lines independent_state(bool a, bool b, bool c) {
  Lines lines;
  for (int i = 1; i <= 40; ++i) lines.push_back("line " + std::to_string(i));
  if (a) lines[2] = "fixed_a = True";
  if (b) lines[17] = "fixed_b = True";
  if (c) lines[32] = "fixed_c = True";
  return lines;
}

std::vector<Patch> independent_series() {
  std::vector<Patch> out;
  const Lines none = independent_state(false, false, false);
  const Lines one[3] = {independent_state(true, false, false),
                        independent_state(false, true, false),
                        independent_state(false, false, true)};
  for (int j = 0; j < 3; ++j) {
    std::vector<Patch> p = parse_patches(make_diff("k.py", none, one[j]), "p" + std::to_string(j));
    out.push_back(std::move(p.at(0)));
  }
  return out;
}

TEST(Series, OutOfOrderAndGaps) {
  const std::vector<Patch> series = independent_series();
  for (int mask = 0; mask < 8; ++mask) {
    const bool in[3] = {(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0};
    Fixture f;
    f.tree.write("k.py", join(independent_state(in[0], in[1], in[2])));
    VerifyReport r = verify(series, f.tree, {});
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(r.patches[j].status, in[j] ? Status::kApplied : Status::kApplicable)
          << "mask " << mask << " patch " << j + 1;
      EXPECT_TRUE(r.patches[j].depends_on.empty());
    }
  }
}

TEST(Series, RepeatedSectionsForOneFileApplyInOrder) {
  const Lines a = {"x = 1", "y = 1", "z = 1", "w = 1", "v = 1"};
  Lines b = a, c = a;
  b[2] = "z = 2";
  c[2] = "z = 3";
  const std::string text = make_diff("k.py", a, b) + make_diff("k.py", b, c);
  const std::vector<Patch> patch = parse_patches(text, "two-sections.patch");
  ASSERT_EQ(patch.size(), 1u);
  ASSERT_EQ(patch[0].files.size(), 2u);
  struct Case {
    const Lines* tree;
    Status status;
  } cases[] = {{&a, Status::kApplicable}, {&b, Status::kPartial}, {&c, Status::kApplied}};
  for (const Case& tc : cases) {
    Fixture f;
    f.tree.write("k.py", join(*tc.tree));
    VerifyReport r = verify(patch, f.tree, {});
    EXPECT_EQ(r.patches[0].status, tc.status) << r.patches[0].files[0].reason << " | "
                                              << r.patches[0].files[1].reason;
  }
}

TEST(Series, AConflictStaysAConflict) {
  const std::vector<Patch> series = linear_series();
  Fixture f;
  Lines other = state(3);
  other[4] = "tile = 99";  // retuned some other way
  f.tree.write("k.py", join(other));
  VerifyReport r = verify(series, f.tree, {});
  for (const PatchReport& p : r.patches) EXPECT_NE(p.status, Status::kApplied);
  EXPECT_EQ(r.exit_code(), 2);
}

/// `tree` with `plan`'s changes made (in memory).
void put(OverlayTree& tree, const ApplyPlan& plan) {
  for (const FileChange& c : plan.changes) {
    if (c.kind == FileChange::Kind::kDelete) tree.remove(c.path);
    else tree.write(c.path, c.content, c.mode && *c.mode == kModeExecutable);
  }
}

TEST(ApplyPlan, EveryStateForwardGivesTheLastStateAndReverseTheFirst) {
  const std::vector<Patch> series = linear_series();
  for (std::size_t k = 0; k <= 8; ++k) {
    Fixture f;
    f.tree.write("k.py", join(state(k)));
    const ApplyPlan fwd = plan_apply(series, f.tree, {}, Direction::kForward);
    EXPECT_TRUE(fwd.blockers.empty()) << "state " << k << ": " << fwd.blockers.front();
    if (k == 8) {
      EXPECT_TRUE(fwd.changes.empty());
    } else {
      ASSERT_EQ(fwd.changes.size(), 1u) << "state " << k;
      EXPECT_EQ(fwd.changes[0].content, join(state(8))) << "state " << k;
      EXPECT_FALSE(fwd.changes[0].mode.has_value());
    }
    const ApplyPlan rev = plan_apply(series, f.tree, {}, Direction::kReverse);
    EXPECT_TRUE(rev.blockers.empty()) << "state " << k;
    if (k == 0) {
      EXPECT_TRUE(rev.changes.empty());
    } else {
      ASSERT_EQ(rev.changes.size(), 1u) << "state " << k;
      EXPECT_EQ(rev.changes[0].content, join(state(0))) << "state " << k;
    }
    // Twice is once.
    Fixture g;
    g.tree.write("k.py", join(state(k)));
    put(g.tree, fwd);
    const ApplyPlan again = plan_apply(series, g.tree, {}, Direction::kForward);
    EXPECT_TRUE(again.changes.empty())
        << "state " << k << ": " << again.changes.front().path << " "
        << (again.changes.front().content == join(state(8))) << " "
        << again.changes.front().mode.value_or(0);
  }
}

TEST(ApplyPlan, AGapIsFilledWithoutTouchingWhatIsIn) {
  const std::vector<Patch> series = independent_series();
  Fixture f;
  f.tree.write("k.py", join(independent_state(true, false, true)));
  const ApplyPlan plan = plan_apply(series, f.tree, {}, Direction::kForward);
  ASSERT_TRUE(plan.blockers.empty());
  ASSERT_EQ(plan.changes.size(), 1u);
  EXPECT_EQ(plan.changes[0].content, join(independent_state(true, true, true)));
}

TEST(ApplyPlan, AConflictBlocksEverything) {
  const std::vector<Patch> series = linear_series();
  Fixture f;
  Lines other = state(3);
  other[4] = "tile = 99";
  f.tree.write("k.py", join(other));
  const ApplyPlan plan = plan_apply(series, f.tree, {}, Direction::kForward);
  EXPECT_FALSE(plan.blockers.empty());
  EXPECT_NE(plan.blockers.front().find("k.py"), std::string::npos) << plan.blockers.front();
}

TEST(ApplyPlan, AddsDeletesRenamesAndModes) {
  const char* patch =
      "diff --git a/new.py b/new.py\nnew file mode 100755\n--- /dev/null\n+++ b/new.py\n"
      "@@ -0,0 +1,2 @@\n+#!/usr/bin/env python3\n+print(1)\n"
      "diff --git a/old.py b/old.py\ndeleted file mode 100644\n--- a/old.py\n+++ /dev/null\n"
      "@@ -1 +0,0 @@\n-gone\n"
      "diff --git a/a.py b/b.py\nsimilarity index 80%\nrename from a.py\nrename to b.py\n"
      "--- a/a.py\n+++ b/b.py\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n"
      "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n";
  const std::vector<Patch> patches = parse_patches(patch, "mixed.patch");
  Fixture f;
  f.tree.write("old.py", "gone\n");
  f.tree.write("a.py", "x\ny\nz\n");
  f.tree.write("run.sh", "echo hi\n");
  const ApplyPlan plan = plan_apply(patches, f.tree, {}, Direction::kForward);
  ASSERT_TRUE(plan.blockers.empty()) << plan.blockers.front();
  std::map<std::string, const FileChange*> by;
  for (const FileChange& c : plan.changes) by[c.path] = &c;
  ASSERT_EQ(by.size(), 5u);
  EXPECT_EQ(by["new.py"]->content, "#!/usr/bin/env python3\nprint(1)\n");
  EXPECT_EQ(by["new.py"]->mode, kModeExecutable);
  EXPECT_EQ(by["old.py"]->kind, FileChange::Kind::kDelete);
  EXPECT_EQ(by["a.py"]->kind, FileChange::Kind::kDelete);
  EXPECT_EQ(by["b.py"]->content, "x\nY\nz\n");
  EXPECT_EQ(by["run.sh"]->content, "echo hi\n");
  EXPECT_EQ(by["run.sh"]->mode, kModeExecutable);
  // And back out again, from the result.
  Fixture g;
  g.tree.write("new.py", "#!/usr/bin/env python3\nprint(1)\n", true);
  g.tree.write("b.py", "x\nY\nz\n");
  g.tree.write("run.sh", "echo hi\n", true);
  const ApplyPlan rev = plan_apply(patches, g.tree, {}, Direction::kReverse);
  ASSERT_TRUE(rev.blockers.empty()) << rev.blockers.front();
  std::map<std::string, const FileChange*> back;
  for (const FileChange& c : rev.changes) back[c.path] = &c;
  ASSERT_EQ(back.size(), 5u);
  EXPECT_EQ(back["new.py"]->kind, FileChange::Kind::kDelete);
  EXPECT_EQ(back["old.py"]->content, "gone\n");
  EXPECT_EQ(back["a.py"]->content, "x\ny\nz\n");
  EXPECT_EQ(back["b.py"]->kind, FileChange::Kind::kDelete);
  EXPECT_EQ(back["run.sh"]->mode, kModeRegular);
}

// Fresh-user review: the same patch twice in a run (an mbox holding it twice, or a folder and a
// copy). Its change is in the tree or it is not: one copy never decides for the other.
TEST(Series, ThePatchGivenTwiceIsJudgedByTheTree) {
  const std::vector<Patch> one = independent_series();
  const std::vector<Patch> twice = {one[1], one[1]};
  {
    Fixture f;  // the fix is in
    f.tree.write("k.py", join(independent_state(false, true, false)));
    VerifyReport r = verify(twice, f.tree, {});
    EXPECT_EQ(r.patches[0].status, Status::kApplied) << r.patches[0].files[0].reason;
    EXPECT_EQ(r.patches[1].status, Status::kApplied) << r.patches[1].files[0].reason;
    EXPECT_TRUE(plan_apply(twice, f.tree, {}, Direction::kForward).changes.empty());
  }
  {
    Fixture f;  // the fix is not in: never applied, whatever the copy would do
    f.tree.write("k.py", join(independent_state(false, false, false)));
    VerifyReport r = verify(twice, f.tree, {});
    EXPECT_EQ(r.patches[0].status, Status::kApplicable);
    EXPECT_EQ(r.patches[1].status, Status::kApplicable);
    const ApplyPlan plan = plan_apply(twice, f.tree, {}, Direction::kForward);
    ASSERT_EQ(plan.changes.size(), 1u);
    EXPECT_EQ(plan.changes[0].content, join(independent_state(false, true, false)));
  }
}

// Patch 1 adds a function, patch 2 edits a line inside it (lines patch 1 wrote): a series, so
// patch 2 is applicable on those lines, never "applied" there nor a conflict (the series passes
// refuse a file patch that reads applied on lines an earlier one wrote with another change).
// Every state of the pair, as two patches and as two sections of one patch.
Lines function_state(int k) {  // 0: before, 1: the function added, 2: a line of it edited
  Lines lines = {"import os", "", "def main():", "    return 0", ""};
  if (k >= 1)
    lines.insert(lines.begin() + 2, {"def helper(x):", "    y = x + 1",
                                     k == 2 ? "    return y * 2" : "    return y", ""});
  return lines;
}

TEST(Series, ALaterPatchEditingLinesAnEarlierOneAddedIsASeries) {
  const std::string one = make_diff("m.py", function_state(0), function_state(1));
  const std::string two = make_diff("m.py", function_state(1), function_state(2));
  const std::vector<Patch> as_two = {parse_patches(one, "1.patch").at(0),
                                     parse_patches(two, "2.patch").at(0)};
  const std::vector<Patch> as_one = parse_patches(one + two, "both.patch");
  ASSERT_EQ(as_one.size(), 1u);
  ASSERT_EQ(as_one[0].files.size(), 2u);
  for (const std::vector<Patch>* run : {&as_two, &as_one}) {
    for (int k = 0; k <= 2; ++k) {
      Fixture f;
      f.tree.write("m.py", join(function_state(k)));
      const ApplyPlan plan = plan_apply(*run, f.tree, {}, Direction::kForward);
      ASSERT_TRUE(plan.blockers.empty()) << "state " << k << ": " << plan.blockers.front();
      if (k == 2) {
        EXPECT_TRUE(plan.changes.empty()) << "state " << k;
      } else {
        ASSERT_EQ(plan.changes.size(), 1u) << "state " << k;
        EXPECT_EQ(plan.changes[0].content, join(function_state(2))) << "state " << k;
      }
      const ApplyPlan back = plan_apply(*run, f.tree, {}, Direction::kReverse);
      ASSERT_TRUE(back.blockers.empty()) << "state " << k << ": " << back.blockers.front();
      if (k == 0) {
        EXPECT_TRUE(back.changes.empty());
      } else {
        ASSERT_EQ(back.changes.size(), 1u) << "state " << k;
        EXPECT_EQ(back.changes[0].content, join(function_state(0))) << "state " << k;
      }
      const VerifyReport r = verify(*run, f.tree, {});
      for (const PatchReport& p : r.patches)
        for (const FileReport& fr : p.files)
          EXPECT_TRUE(fr.status == Status::kApplied || fr.status == Status::kApplicable)
              << "state " << k << ": " << to_string(fr.status) << " " << fr.reason;
    }
  }
}

// A later copy of an earlier patch, with a patch between that the tree does not have: the copy
// reads applied only if the tree has the change.
TEST(Series, ACopyIsNotAppliedByAnEarlierPatchPutInInMemory) {
  const std::vector<Patch> chain = linear_series();
  const std::vector<Patch> run = {chain[0], chain[1], chain[1]};
  Fixture f;
  f.tree.write("k.py", join(state(0)));
  VerifyReport r = verify(run, f.tree, {});
  for (const PatchReport& p : r.patches) EXPECT_NE(p.status, Status::kApplied);
}

// The shape of FlashInfer b1d9585167 in a 199-patch series: patch 1 changes conf.py in place
// (two hunks); patch 2 moves the file to another folder as git format-patch --no-renames writes
// it (delete + add) and reworks the second hunk's lines on the way. In the tree the series
// ends at, the old path is gone, so the tree alone relocates patch 1 to the moved file (the
// same file name, 1 of 2 hunks found): a conflict. As a series, patch 2's move is in the tree
// (its new file is byte for byte its post-image): taken out, it gives the old path back as
// patch 1 left it, so patch 1 is judged there.
Lines conf_state(int k) {  // 0: before the series, 1: after patch 1, 2: patch 2's new file
  Lines lines = {"# tile configuration", "import os", "", "def tile_m(cap):"};
  if (k >= 1) lines.insert(lines.end(), {"    if cap == 12:", "        return 64"});
  lines.push_back("    return 128");
  for (int i = 1; i <= 12; ++i) lines.push_back("PARAM_" + std::to_string(i) + " = " + std::to_string(i));
  lines.insert(lines.end(), {"", "def stages(cap):"});
  if (k == 1) lines.insert(lines.end(), {"    if cap == 12:", "        return 2"});
  if (k == 2) lines.push_back("    return {12: 2, 10: 3}.get(cap, 4)");
  lines.insert(lines.end(), {"    return 4", "", "# end"});
  return lines;
}

/// `make_diff` with an `index` line, as git writes it.
std::string with_index(const std::string& diff, const std::string& pre, const std::string& post) {
  const std::size_t eol = diff.find('\n') + 1;
  return diff.substr(0, eol) + "index " + git_blob_id(pre).substr(0, 9) + ".." +
         git_blob_id(post).substr(0, 9) + " 100644\n" + diff.substr(eol);
}

std::vector<Patch> move_series() {
  const std::string old_path = "pkg/kernel/mxfp8/conf.py";
  const std::string new_path = "pkg/kernel/sm100/mxfp8_bf16/conf.py";
  const std::string a = join(conf_state(0)), p1 = join(conf_state(1)), n2 = join(conf_state(2));
  std::string one = "Subject: [PATCH 1/2] smaller tiles on SM120\n\n---\n" +
                    with_index(make_diff(old_path, conf_state(0), conf_state(1)), a, p1);
  std::string two = "Subject: [PATCH 2/2] move conf under sm100\n\n---\n";
  two += "diff --git a/" + old_path + " b/" + old_path + "\ndeleted file mode 100644\nindex " +
         git_blob_id(p1).substr(0, 9) + "..000000000\n--- a/" + old_path + "\n+++ /dev/null\n" +
         "@@ -1," + std::to_string(conf_state(1).size()) + " +0,0 @@\n";
  for (const std::string& l : conf_state(1)) two += "-" + l + "\n";
  two += "diff --git a/" + new_path + " b/" + new_path + "\nnew file mode 100644\nindex " +
         "000000000.." + git_blob_id(n2).substr(0, 9) + "\n--- /dev/null\n+++ b/" + new_path +
         "\n@@ -0,0 +1," + std::to_string(conf_state(2).size()) + " @@\n";
  for (const std::string& l : conf_state(2)) two += "+" + l + "\n";
  std::vector<Patch> out = parse_patches(one, "0001.patch");
  std::vector<Patch> second = parse_patches(two, "0002.patch");
  out.push_back(std::move(second.at(0)));
  return out;
}

// Hostile review: add x.py, fix it, delete it; the tree has no x.py. Taking out the deletion
// wrote x.py back from the patch itself, and the fix read applied on that (a false `applied`:
// the fix's file is not in the tree). A tree without x.py is both the state before the series
// and the state after it: nothing reads applied, each patch is judged as not made (applicable,
// in order), with the reason.
TEST(Series, AFixToAFileALaterPatchDeletesIsNotAppliedOnTheDeletionsWord) {
  const std::string dir = std::string(SM120CHECK_CASES_DIR) + "/series-add-fix-delete";
  std::vector<Patch> series;
  for (const char* name : {"0001-add.patch", "0002-fix.patch", "0003-del.patch"}) {
    const std::string path = dir + "/" + name;
    for (Patch& p : parse_patches(test::read_file(path), path)) series.push_back(std::move(p));
  }
  ASSERT_EQ(series.size(), 3u);
  test::TempDir tree_dir;
  test::write_file(tree_dir.path() / "keep", "k\n");
  std::unique_ptr<Tree> tree = open_disk_tree(tree_dir.path().string());
  VerifyOptions options;
  options.search_root = tree_dir.path().string();
  const VerifyReport r = verify(series, *tree, options);
  for (const PatchReport& p : r.patches) EXPECT_EQ(p.status, Status::kApplicable);
  EXPECT_NE(r.patches[1].files[0].reason.find("the tree cannot tell whether this change was made"),
            std::string::npos)
      << r.patches[1].files[0].reason;
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(Series, AFileMovedByALaterPatchIsJudgedWhereTheSeriesHasIt) {
  const std::vector<Patch> series = move_series();
  ASSERT_EQ(series.size(), 2u);
  ASSERT_EQ(series[1].files.size(), 2u);
  test::TempDir dir;
  test::write_file(dir.path() / "pkg/kernel/sm100/mxfp8_bf16/conf.py", join(conf_state(2)));
  test::write_file(dir.path() / "pkg/kernel/other.py", "def other():\n    return 1\n");
  std::unique_ptr<Tree> tree = open_disk_tree(dir.path().string());
  VerifyOptions options;
  options.search_root = dir.path().string();
  {
    // The tree alone (or a run without patch 2): relocated to the moved file, a conflict.
    VerifyOptions alone = options;
    alone.series = false;
    const FileReport f = verify(series, *tree, alone).patches[0].files[0];
    EXPECT_EQ(f.status, Status::kConflict);
    EXPECT_TRUE(f.relocated);
    EXPECT_EQ(f.target_path, "pkg/kernel/sm100/mxfp8_bf16/conf.py");
    EXPECT_EQ(verify({series[0]}, *tree, options).patches[0].status, Status::kConflict);
  }
  const VerifyReport r = verify(series, *tree, options);
  const FileReport& f = r.patches[0].files[0];
  EXPECT_EQ(r.patches[1].status, Status::kApplied);
  EXPECT_EQ(r.patches[0].status, Status::kApplied) << f.reason << " | " << f.relocation;
  EXPECT_EQ(f.status, Status::kApplied);
  EXPECT_EQ(f.target_path, "pkg/kernel/mxfp8/conf.py");
  EXPECT_FALSE(f.relocated);
  EXPECT_EQ(f.reason,
            "blob id matches the post-image; applied once patch 2 (move conf under sm100) is "
            "taken out (it changes these lines again)");
  EXPECT_EQ(f.relocation,
            "'pkg/kernel/mxfp8/conf.py' does not exist; found at "
            "'pkg/kernel/sm100/mxfp8_bf16/conf.py': same file name, 1/2 hunks found; not used: "
            "patch 2 (move conf under sm100) of this run moves the file there, so it is judged "
            "where the series has it");
  EXPECT_EQ(f.candidates, (std::vector<std::string>{"pkg/kernel/sm100/mxfp8_bf16/conf.py"}));
  ASSERT_EQ(f.hunks.size(), 2u);
  EXPECT_EQ(f.hunks[1].match.status, HunkStatus::kApplied);
  EXPECT_EQ(r.exit_code(), 0);
  // apply: nothing to write, nothing in the way; reverse: the tree before the series.
  const ApplyPlan plan = plan_apply(series, *tree, options, Direction::kForward);
  EXPECT_TRUE(plan.blockers.empty()) << plan.blockers.front();
  EXPECT_TRUE(plan.changes.empty());
  const ApplyPlan back = plan_apply(series, *tree, options, Direction::kReverse);
  EXPECT_TRUE(back.blockers.empty()) << back.blockers.front();
  std::map<std::string, std::optional<std::string>> wrote;
  for (const FileChange& c : back.changes)
    wrote[c.path] = c.kind == FileChange::Kind::kWrite ? std::optional<std::string>(c.content)
                                                       : std::nullopt;
  EXPECT_EQ(wrote, (std::map<std::string, std::optional<std::string>>{
                       {"pkg/kernel/mxfp8/conf.py", join(conf_state(0))},
                       {"pkg/kernel/sm100/mxfp8_bf16/conf.py", std::nullopt}}));
}

// Never applied on that ground alone: the later patch's move must be in the tree. Here the
// moved file is not patch 2's (a line was changed after): patch 2 is not in the tree as the
// series reads it, and patch 1 stays relocated to the moved file, in conflict.
TEST(Series, ARelocatedFileIsNotTakenBackWithoutTheMove) {
  const std::vector<Patch> series = move_series();
  test::TempDir dir;
  Lines moved = conf_state(2);
  moved.back() = "# end, tuned by hand";
  test::write_file(dir.path() / "pkg/kernel/sm100/mxfp8_bf16/conf.py", join(moved));
  std::unique_ptr<Tree> tree = open_disk_tree(dir.path().string());
  VerifyOptions options;
  options.search_root = dir.path().string();
  const VerifyReport r = verify(series, *tree, options);
  const FileReport& f = r.patches[0].files[0];
  EXPECT_EQ(f.status, Status::kConflict) << f.reason;
  EXPECT_TRUE(f.relocated);
  EXPECT_EQ(f.target_path, "pkg/kernel/sm100/mxfp8_bf16/conf.py");
  EXPECT_NE(r.patches[0].status, Status::kApplied);
}

// The same series on the states before the move: nothing is relocated.
TEST(Series, TheMoveSeriesOnItsEarlierStates) {
  const std::vector<Patch> series = move_series();
  for (int k = 0; k <= 1; ++k) {
    test::TempDir dir;
    test::write_file(dir.path() / "pkg/kernel/mxfp8/conf.py", join(conf_state(k)));
    std::unique_ptr<Tree> tree = open_disk_tree(dir.path().string());
    VerifyOptions options;
    options.search_root = dir.path().string();
    const VerifyReport r = verify(series, *tree, options);
    EXPECT_EQ(r.patches[0].status, k == 1 ? Status::kApplied : Status::kApplicable) << k;
    EXPECT_EQ(r.patches[1].status, Status::kApplicable) << k;
    EXPECT_FALSE(r.patches[0].files[0].relocated);
  }
}

/// A disk tree that counts the handles opened on it (open_again()), each one counted too.
class CountingTree final : public Tree {
 public:
  CountingTree(std::unique_ptr<Tree> tree, int& opened) : tree_(std::move(tree)), opened_(opened) {}
  std::string name() const override { return tree_->name(); }
  Entry stat(const std::string& path) const override { return tree_->stat(path); }
  std::string read(const std::string& path) const override { return tree_->read(path); }
  std::string read_link(const std::string& path) const override { return tree_->read_link(path); }
  std::unique_ptr<Tree> open_again() const override {
    std::unique_ptr<Tree> again = tree_->open_again();
    if (!again) return nullptr;
    ++opened_;
    return std::make_unique<CountingTree>(std::move(again), opened_);
  }

 private:
  std::unique_ptr<Tree> tree_;
  int& opened_;
};

// The first pass shares the patches out among threads (-j); the report must not depend on how
// many: the linear series at every state, with a relocated file, evidence and the series
// passes, gives the same JSON with 1, 2, 3 and 8 threads, and more than one thread was used.
TEST(Series, ThreadsShareThePatchesAndTheReportIsTheSameForAnyCount) {
  std::vector<Patch> series = linear_series();
  // Two more patches: one for a file that moved (relocated by name), one for a missing file.
  const Lines other = {"alpha = 1", "beta = 2", "gamma = 3", "delta = 4", "eps = 5", "zeta = 6"};
  Lines other_fixed = other;
  other_fixed[2] = "gamma = 30  # SM120: smaller tile";
  for (const std::string& path : {std::string("pkg/moved.py"), std::string("pkg/gone.py")}) {
    std::vector<Patch> p =
        parse_patches("Subject: [PATCH] fix " + path + "\n\n---\n" + make_diff(path, other, other_fixed),
                      path + ".patch");
    series.push_back(std::move(p.at(0)));
  }
  for (std::size_t k = 0; k <= 8; k += 4) {
    test::TempDir dir;
    test::write_file(dir.path() / "k.py", join(state(k)));
    test::write_file(dir.path() / "lib/pkg/moved.py", join(k % 8 == 0 ? other : other_fixed));
    std::optional<std::string> first;
    for (unsigned threads : {1u, 2u, 3u, 8u}) {
      int opened = 0;
      CountingTree tree(open_disk_tree(dir.path().string()), opened);
      VerifyOptions options;
      options.search_root = dir.path().string();
      options.threads = threads;
      const VerifyReport r = verify(series, tree, options);
      // A handle per extra thread the work keeps busy: three groups of file patches (k.py,
      // moved.py, gone.py), at most three threads.
      EXPECT_EQ(opened, static_cast<int>(std::min(threads, 3u)) - 1) << "threads " << threads;
      ASSERT_EQ(r.patches.size(), 10u);
      EXPECT_TRUE(r.patches[8].files.at(0).relocated) << r.patches[8].files[0].relocation;
      for (std::size_t j = 0; j < 8; ++j)
        EXPECT_EQ(r.patches[j].status, j < k ? Status::kApplied : Status::kApplicable)
            << "state " << k << " patch " << j + 1 << " threads " << threads;
      const std::string json = verify_to_json(r).dump(1);
      if (!first)
        first = json;
      else
        EXPECT_EQ(json, *first) << "state " << k << " threads " << threads;
    }
  }
}

// One patch of many files: the files are shared out among threads too (one per file at most),
// and the patch's evidence, found file by file, is joined in file order: the same JSON with
// 1, 2 and 6 threads, 5 more handles opened for 6 files.
TEST(Series, ThreadsShareOnePatchsFilesAndItsEvidenceIsJoinedInOrder) {
  std::string text = "Subject: [PATCH] SM120: smaller tiles everywhere\n\n---\n";
  test::TempDir dir;
  for (int f = 0; f < 6; ++f) {
    Lines before, after;
    for (int i = 0; i < 30; ++i) before.push_back("k" + std::to_string(f) + "_line_" + std::to_string(i) + " = " + std::to_string(i));
    after = before;
    after[10] = "if CUDA_CAPABILITY[0] == 12: tile_" + std::to_string(f) + " = 64";
    after[20] = "num_stages_" + std::to_string(f) + " = 1  # SM120 shared memory";
    const std::string path = "pkg/m" + std::to_string(f) + ".py";
    text += make_diff(path, before, after);
    // Files 0-2 applied, 3-4 not, 5 absent.
    if (f < 3) test::write_file(dir.path() / path, join(after));
    else if (f < 5) test::write_file(dir.path() / path, join(before));
  }
  const std::vector<Patch> one = parse_patches(text, "many.patch");
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(one[0].files.size(), 6u);
  std::optional<std::string> first;
  for (unsigned threads : {1u, 2u, 6u}) {
    int opened = 0;
    CountingTree tree(open_disk_tree(dir.path().string()), opened);
    VerifyOptions options;
    options.search_root = dir.path().string();
    options.threads = threads;
    const VerifyReport r = verify(one, tree, options);
    EXPECT_EQ(opened, static_cast<int>(threads) - 1);
    ASSERT_EQ(r.patches.size(), 1u);
    ASSERT_EQ(r.patches[0].files.size(), 6u);
    EXPECT_EQ(r.patches[0].files[0].status, Status::kApplied);
    EXPECT_EQ(r.patches[0].files[3].status, Status::kApplicable);
    EXPECT_EQ(r.patches[0].files[5].status, Status::kConflict);
    EXPECT_FALSE(r.patches[0].evidence.empty());
    const std::string json = verify_to_json(r).dump(1);
    if (!first)
      first = json;
    else
      EXPECT_EQ(json, *first) << "threads " << threads;
  }
  // Threads started ahead (SpareThreads, as the CLI starts them on hosts of many cores) take
  // the pool's work where some wait, the rest is started as before: the same JSON, and the
  // spares retired afterwards.
  for (const unsigned spare : {1u, 2u, 5u, 8u}) {
    int opened = 0;
    CountingTree tree(open_disk_tree(dir.path().string()), opened);
    VerifyOptions options;
    options.search_root = dir.path().string();
    options.threads = 6;
    options.spare_threads = std::make_shared<SpareThreads>();
    options.spare_threads->start(spare, std::chrono::milliseconds(500));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // all of them waiting
    const VerifyReport r = verify(one, tree, options);
    EXPECT_EQ(opened, 5);
    // The first pool thread's work at least; one per pool thread and the main thread's first
    // file's evidence search (EarlyEvidence) at most (a spare done with its task may take the
    // next). With more spares than that, each is handed to a spare.
    EXPECT_GE(options.spare_threads->taken(), 1u) << "spares " << spare;
    EXPECT_LE(options.spare_threads->taken(), 6u) << "spares " << spare;
    if (spare == 8) EXPECT_EQ(options.spare_threads->taken(), 6u);
    EXPECT_FALSE(options.spare_threads->run([] {})) << "retired";
    EXPECT_EQ(verify_to_json(r).dump(1), *first) << "spares " << spare;
  }
  // One verifying thread: a spare searches the first file's evidence while it is verified,
  // the same hits as searched after; none without evidence, or when -j 1 gives no spares.
  for (const bool evidence : {true, false}) {
    int opened = 0;
    CountingTree tree(open_disk_tree(dir.path().string()), opened);
    VerifyOptions options;
    options.search_root = dir.path().string();
    options.threads = 1;
    options.evidence = evidence;
    options.spare_threads = std::make_shared<SpareThreads>();
    options.spare_threads->start(2, std::chrono::milliseconds(500));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const VerifyReport r = verify(one, tree, options);
    EXPECT_EQ(options.spare_threads->taken(), evidence ? 1u : 0u);
    EXPECT_FALSE(options.spare_threads->run([] {})) << "retired";
    if (evidence) EXPECT_EQ(verify_to_json(r).dump(1), *first);
    else EXPECT_TRUE(r.patches[0].evidence.empty());
  }
}

TEST(Series, EarlyEvidenceOnlyForAFileModifiedInPlaceThatExists) {
  // The first (largest) file patch's file is missing, so there is nothing to search ahead; the
  // second's file exists but is not the first job. Nothing is handed to the spare, and the
  // report is the one without spares.
  test::TempDir dir;
  Lines before, after;
  for (int i = 0; i < 30; ++i) before.push_back("row_" + std::to_string(i) + " = " + std::to_string(i));
  after = before;
  after[10] = "if CUDA_CAPABILITY[0] == 12: tile = 64";
  Lines small_after = before;
  small_after[5] = "num_stages = 1  # SM120";
  std::string text = "Subject: [PATCH] SM120 tiles\n\n---\n";
  Lines big_after = after;
  big_after[20] = "num_warps = 4  # SM120";
  text += make_diff("pkg/gone.py", before, big_after);
  text += make_diff("pkg/here.py", before, small_after);
  test::write_file(dir.path() / "pkg/here.py", join(small_after));
  const std::vector<Patch> one = parse_patches(text, "two.patch");
  ASSERT_EQ(one.size(), 1u);
  std::optional<std::string> plain;
  for (const bool spares : {false, true}) {
    const std::unique_ptr<Tree> tree = open_disk_tree(dir.path().string());
    VerifyOptions options;
    options.search_root = dir.path().string();
    options.threads = 1;
    options.relocate = false;
    if (spares) {
      options.spare_threads = std::make_shared<SpareThreads>();
      options.spare_threads->start(1, std::chrono::milliseconds(500));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const VerifyReport r = verify(one, *tree, options);
    ASSERT_EQ(r.patches[0].files.size(), 2u);
    EXPECT_EQ(r.patches[0].files[0].status, Status::kConflict);
    EXPECT_EQ(r.patches[0].files[1].status, Status::kApplied);
    if (spares) {
      EXPECT_EQ(options.spare_threads->taken(), 0u);
      EXPECT_FALSE(options.spare_threads->run([] {})) << "retired";
      EXPECT_EQ(verify_to_json(r).dump(1), *plain);
    } else {
      plain = verify_to_json(r).dump(1);
    }
  }
}

/// A flag patch 1 turns off and patch 2 turns on again, along with another change (the shape of
/// Liger-Kernel's 8e727635b2..998f4e4cad, orpo_loss.py: patch 2 of 5 sets `compiled=False`,
/// patch 4 sets it back and adds a class). `extra`: patch 2's other change is in.
Lines flag_state(bool on, bool extra) {
  Lines lines;
  for (int i = 1; i <= 30; ++i) lines.push_back("line " + std::to_string(i));
  lines[4] = on ? "compiled = True" : "compiled = False";
  if (extra) lines.insert(lines.end(), {"", "class Loss:", "    pass"});
  return lines;
}

/// Patch 1 (S0 -> S1) and patch 2 (S1 -> S2), with `index` lines or without; `pure`: patch 2
/// only reverts patch 1 (S2 is S0).
std::vector<Patch> flag_series(bool index, bool pure) {
  const Lines s0 = flag_state(true, false), s1 = flag_state(false, false),
              s2 = flag_state(true, !pure);
  std::vector<Patch> out;
  int j = 0;
  for (const auto& [a, b] : {std::pair{s0, s1}, std::pair{s1, s2}}) {
    std::string diff = make_diff("k.py", a, b);
    if (index) diff = with_index(diff, join(a), join(b));
    ++j;
    std::vector<Patch> one = parse_patches(
        "Subject: [PATCH " + std::to_string(j) + "/2] flag " + std::to_string(j) + "\n\n---\n" +
            diff,
        "000" + std::to_string(j) + ".patch");
    out.push_back(std::move(one.at(0)));
  }
  return out;
}

// Liger-Kernel, state 4 of 8e727635b2..998f4e4cad: the tree alone reads patch 1 applicable
// (its pre-image line is back), and the series kept that verdict: patch 1 read applicable
// under an applied patch 2 that could not have been made without it (the README's "on state k,
// patches 1..k read applied"). Where the file's blob id is patch 2's post-image and no earlier
// state's, both are in.
TEST(Series, APatchWhoseLineALaterOneTurnsBackIsAppliedWhereTheBlobIdPlacesTheFile) {
  const std::vector<Patch> series = flag_series(true, false);
  const Status kIn = Status::kApplied, kOut = Status::kApplicable;
  const std::vector<std::pair<Lines, std::vector<Status>>> states = {
      {flag_state(true, false), {kOut, kOut}},
      {flag_state(false, false), {kIn, kOut}},
      {flag_state(true, true), {kIn, kIn}}};
  for (std::size_t k = 0; k < states.size(); ++k) {
    Fixture f;
    f.tree.write("k.py", join(states[k].first));
    const VerifyReport r = verify(series, f.tree, {});
    for (std::size_t j = 0; j < 2; ++j)
      EXPECT_EQ(r.patches[j].status, states[k].second[j])
          << "state " << k << ", patch " << j + 1 << ": " << r.patches[j].files[0].reason;
    const ApplyPlan plan = plan_apply(series, f.tree, {}, Direction::kForward);
    EXPECT_TRUE(plan.blockers.empty()) << "state " << k << ": " << plan.blockers.front();
    if (k == 2) {
      EXPECT_TRUE(plan.changes.empty());
      EXPECT_EQ(r.exit_code(), 0);
      EXPECT_NE(r.patches[0].files[0].reason.find(
                    "applied once patch 2 (flag 2) is taken out (it changes these lines again)"),
                std::string::npos)
          << r.patches[0].files[0].reason;
    } else {
      ASSERT_EQ(plan.changes.size(), 1u) << "state " << k;
      EXPECT_EQ(plan.changes[0].content, join(flag_state(true, true))) << "state " << k;
    }
  }
  // A pure revert: the tree before both is also the tree after both (one blob id), git's own
  // content cannot tell; nothing is placed in by the id, patch 1 keeps the tree's verdict.
  Fixture f;
  f.tree.write("k.py", join(flag_state(true, false)));
  const VerifyReport r = verify(flag_series(true, true), f.tree, {});
  EXPECT_EQ(r.patches[0].status, Status::kApplicable) << r.patches[0].files[0].reason;
}

// Hostile review hv16 (ninja 52c1d0c8 and its revert 4baea2b8, with index lines): the fix
// touches build.cc and build.h; the revert takes both out; build.cc changed in between, build.h
// did not. On the tree after both, build.h's id is both the fix's pre-image and the revert's
// post-image (no state told), build.cc's only the revert's post-image (the fix is in, then
// reverted). The fix read partial (build.cc applied once the revert is taken out, build.h
// applicable), exit 2. A patch is one change: its files are pinned together.
TEST(Series, AFixAndItsRevertArePinnedByTheFileThatTellsTheState) {
  const Lines h0 = {"struct B {", "  int a;", "};"};
  const Lines h1 = {"struct B {", "  int a;", "  int fix;", "};"};
  const Lines c0 = {"int f() {", "  return 0;", "}", "", "int g() {", "  return 1;", "}"};
  const Lines c1 = {"int f() {", "  fix();", "  return 0;", "}", "", "int g() {", "  return 1;",
                    "}"};
  Lines c1b = c1;  // an unrelated change to g() between the fix and its revert
  c1b[6] = "  return 2;";
  Lines c2 = c1b;  // the revert of the fix on top of it
  c2.erase(c2.begin() + 1);
  const std::string fix =
      "Subject: [PATCH] fix\n\n---\n" +
      with_index(make_diff("build.cc", c0, c1), join(c0), join(c1)) +
      with_index(make_diff("build.h", h0, h1), join(h0), join(h1));
  const std::string revert =
      "Subject: [PATCH] Revert fix\n\n---\n" +
      with_index(make_diff("build.cc", c1b, c2), join(c1b), join(c2)) +
      with_index(make_diff("build.h", h1, h0), join(h1), join(h0));
  const std::vector<Patch> run = {parse_patches(fix, "1.patch").at(0),
                                  parse_patches(revert, "2.patch").at(0)};
  {
    Fixture f;  // after both
    f.tree.write("build.cc", join(c2));
    f.tree.write("build.h", join(h0));
    const VerifyReport r = verify(run, f.tree, {});
    EXPECT_EQ(r.patches[0].status, Status::kApplied) << r.patches[0].files[1].reason;
    EXPECT_EQ(r.patches[1].status, Status::kApplied);
  }
  {
    Fixture f;  // before both
    f.tree.write("build.cc", join(c0));
    f.tree.write("build.h", join(h0));
    const VerifyReport r = verify(run, f.tree, {});
    EXPECT_EQ(r.patches[0].status, Status::kApplicable);
    EXPECT_EQ(r.patches[1].status, Status::kApplicable) << r.patches[1].files[1].reason;
  }
}

// Hostile review hv16 (lmdeploy 6e01560e then d15fcf87, without index lines): the first adds a
// `MAP = {` block after a `MAP.update({ ... })` one, the second turns it into `MAP.update({`
// too. On the tree after both, the first's pre-image (the end of the block before, a blank
// line, the block after) stands again at the end of the block the first added: applicable at
// an offset, a `partial` fix, exit 2. With the second taken out the first reads applied
// exactly where its header says: the series decides.
TEST(Series, AnApplicableAtAnOffsetOnLinesALaterPatchMadeIsTheSeries) {
  const Lines s0 = {"MAP = {}", "", "# a", "MAP.update({", "    'a': A,", "})", "", "# c",
                    "MAP.update({", "    'c': C,", "})"};
  Lines s1 = s0;  // the new block ends with the entry the block before ends with
  s1.insert(s1.begin() + 7, {"# b", "MAP = {", "    'b': B,", "    'a': A,", "}", ""});
  Lines s2 = s1;
  s2[8] = "MAP.update({";
  s2[11] = "})";
  const std::vector<Patch> run = {parse_patches(make_diff("map.py", s0, s1), "1.patch").at(0),
                                  parse_patches(make_diff("map.py", s1, s2), "2.patch").at(0)};
  for (int k = 0; k <= 2; ++k) {
    Fixture f;
    f.tree.write("map.py", join(k == 0 ? s0 : k == 1 ? s1 : s2));
    const VerifyReport r = verify(run, f.tree, {});
    EXPECT_EQ(r.patches[0].status, k >= 1 ? Status::kApplied : Status::kApplicable)
        << "state " << k << ": " << r.patches[0].files[0].reason;
    EXPECT_EQ(r.patches[1].status, k == 2 ? Status::kApplied : Status::kApplicable)
        << "state " << k << ": " << r.patches[1].files[0].reason;
  }
}

// Hostile review hv17 (lightllm 76096187, f80ad720, a7ab39b5 on pre_and_post_layer_weight.py,
// without index lines): a block added in one branch, moved into verify(), moved again into
// another branch. On state 0 the third's deletion of the block from verify() read applied (a
// pure deletion's context meets before the block ever existed); taking the third out wrote the
// block, and the second read applied: a false applied. On state 2 the first read applicable
// (its lines gone again, moved by the second). Every state of the series now reads as it is.
Lines moved_block_state(int k) {
  Lines lines = {"class W:",
                 "    def load(self, w):",
                 "        if 'a' in w:",
                 "            self.a = w['a']",
                 "        if 'b' in w:",
                 "            self.b = w['b']",
                 "        if 'c' in w:",
                 "            self.c = w['c']",
                 "",
                 "    def verify(self):",
                 "        errors = 'weights not ok'",
                 "        ws = [self.a, self.b, self.c]",
                 "        for x in ws:",
                 "            assert x is not None, errors"};
  const std::string tie = "tie = self.cfg.get('tie_word_embeddings', False)";
  if (k == 1) lines.insert(lines.begin() + 6, {"            " + tie, "            if tie:",
                                               "                self.b = self.a"});
  if (k == 2) lines.insert(lines.begin() + 11, {"        " + tie, "        if tie:",
                                                "            self.b = self.a"});
  if (k == 3) lines.insert(lines.begin() + 4, {"            " + tie, "            if tie:",
                                               "                self.b = self.a"});
  return lines;
}

TEST(Series, ABlockMovedTwiceReadsAsEachStateHasIt) {
  std::vector<Patch> run;
  for (int j = 0; j < 3; ++j)
    run.push_back(parse_patches(make_diff("w.py", moved_block_state(j), moved_block_state(j + 1)),
                                std::to_string(j + 1) + ".patch")
                      .at(0));
  for (int k = 0; k <= 3; ++k) {
    Fixture f;
    f.tree.write("w.py", join(moved_block_state(k)));
    const VerifyReport r = verify(run, f.tree, {});
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(r.patches[static_cast<std::size_t>(j)].status,
                j < k ? Status::kApplied : Status::kApplicable)
          << "state " << k << ", patch " << j + 1 << ": "
          << r.patches[static_cast<std::size_t>(j)].files[0].reason;
  }
}

}  // namespace
}  // namespace sm120check
