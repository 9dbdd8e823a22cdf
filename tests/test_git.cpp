// Git-native verification: `verify --rev` on several revisions, unknown revisions, a target in
// a subfolder, dirty files, blob-id decisions (text and binary), `log` (timelines of fixes,
// reverts, re-fixes and changed lines, `--in`, the JSON shape, path histories against git), the
// built-in SHA-1 against libgit2, and a cross-check with libgit2's own apply. Repositories are
// built with the git CLI in temporary folders (HOME and config isolated).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <nettle/sha1.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "../src/git/index_scan.hpp"
#include "../src/git/libgit2.hpp"
#include "sm120check/error.hpp"
#include "sm120check/git.hpp"
#include "sm120check/patch.hpp"
#include "sm120check/tree.hpp"
#include "sm120check/verify.hpp"
#include "test_util.hpp"

namespace sm120check {
namespace {

using test::RunResult;
using test::TempDir;
using json = nlohmann::json;

/// A git repository in a temporary folder, driven by the git CLI.
class Repo {
 public:
  Repo() {
    std::filesystem::create_directories(dir());
    git("init -q -b main . && git config core.autocrlf false");
  }
  std::string dir() const { return tmp_ / "repo"; }
  std::string path(const std::string& rel) const { return dir() + "/" + rel; }
  void write(const std::string& rel, const std::string& content) {
    test::write_file(path(rel), content);
  }
  /// Runs "git ARGS" (and anything chained after it) in the repository.
  std::string git(const std::string& args) {
    RunResult r =
        test::run_shell("export HOME='" + tmp_.path().string() +
                            "' GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e "
                            "GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e; git " +
                            args,
                        dir());
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
    return r.out;
  }
  /// Commits everything with `message`; returns the new commit id.
  std::string commit(const std::string& message) {
    git("add -A && git commit -q --allow-empty -m '" + message + "'");
    return head();
  }
  std::string head() {
    std::string id = git("rev-parse HEAD");
    return id.substr(0, 40);
  }
  /// The patch from `from` to `to` (git diff --binary, full index ids).
  std::string diff(const std::string& from, const std::string& to, const std::string& paths = "") {
    std::string out = git("diff --binary --full-index " + from + " " + to + paths);
    test::write_file(tmp_ / "fix.patch", out);
    return out;
  }
  std::string patch_file() const { return tmp_ / "fix.patch"; }

 private:
  TempDir tmp_;
};

std::string lines(int from, int to, const std::string& tag = "line") {
  std::string out;
  for (int i = from; i <= to; ++i) out += tag + " " + std::to_string(i) + "\n";
  return out;
}

/// base: a.txt with 30 lines; fix: line 15 changed; then an unrelated commit.
struct FixRepo {
  Repo repo;
  std::string base, fix, later;
  FixRepo() {
    repo.write("a.txt", lines(1, 30));
    repo.write("b.txt", "other\n");
    base = repo.commit("base");
    repo.git("tag v1 && git branch old");
    repo.write("a.txt", lines(1, 14) + "line 15 fixed\n" + lines(16, 30));
    fix = repo.commit("fix");
    repo.write("b.txt", "other changed\n");
    later = repo.commit("later");
    repo.git("tag v2");
    repo.diff(base, fix);
  }
};

json run_json(const std::vector<std::string>& args, int expected_exit) {
  RunResult r = test::run_sm120check(args);
  EXPECT_EQ(r.exit_code, expected_exit) << r.err << r.out;
  json doc = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.out;
  return doc;
}

TEST(GitRev, SeveralRevisionsOneEntryEach) {
  FixRepo f;
  json doc = run_json(
      {"verify", "--format", "json", "--rev", f.base.substr(0, 8), "--rev", "v1", "--rev", "main",
       "--rev", "HEAD~1", "--rev", "old", "--rev", "v2", f.repo.patch_file(), f.repo.dir()},
      1);
  ASSERT_EQ(doc["revisions"].size(), 6u);
  std::vector<std::string> want{"applicable", "applicable", "applied",
                                "applied",    "applicable", "applied"};
  for (std::size_t i = 0; i < want.size(); ++i) {
    const json& r = doc["revisions"][i];
    EXPECT_EQ(r["patches"][0]["status"], want[i]) << i;
    EXPECT_EQ(r["exit_code"], want[i] == "applied" ? 0 : 1);
  }
  EXPECT_EQ(doc["revisions"][0]["rev"], f.base.substr(0, 8));
  EXPECT_EQ(doc["revisions"][0]["commit"], f.base);
  EXPECT_EQ(doc["revisions"][3]["commit"], f.fix);
  EXPECT_EQ(doc["revisions"][2]["commit"], f.later);
  // Top level: the worst revision (the first with exit 1), target as given.
  EXPECT_EQ(doc["exit_code"], 1);
  EXPECT_EQ(doc["patches"][0]["status"], "applicable");
  EXPECT_EQ(doc["target"]["path"], f.repo.dir());
  const json& file = doc["revisions"][2]["patches"][0]["files"][0];
  EXPECT_EQ(file["reason"], "blob id matches the post-image");
  EXPECT_EQ(file["hunks"][0]["status"], "applied");
  EXPECT_EQ(file["hunks"][0]["line"], 12);
  EXPECT_EQ(doc["revisions"][0]["patches"][0]["files"][0]["reason"],
            "blob id matches the pre-image");
}

TEST(GitRev, TextHasOneColumnPerRevision) {
  FixRepo f;
  RunResult r = test::run_sm120check(
      {"verify", "--rev", "v1", "--rev", "v2", f.repo.patch_file(), f.repo.dir()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("  v1         " + f.base.substr(0, 12) + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  a.txt"), std::string::npos);
  std::size_t row = r.out.find("    hunk 1 @@ -12,7 +12,7 @@");
  ASSERT_NE(row, std::string::npos) << r.out;
  std::string line = r.out.substr(row, r.out.find('\n', row) - row);
  EXPECT_NE(line.find("applicable applied"), std::string::npos) << line;
  EXPECT_LE(line.size(), 100u);
  // The answer per revision, as the work-tree report's "fix:" line gives it (new-user pass
  // fu26: the --rev table had only statuses).
  const std::size_t fix = r.out.find("\n  fix:");
  ASSERT_NE(fix, std::string::npos) << r.out;
  const std::string fix_line = r.out.substr(fix + 1, r.out.find('\n', fix + 1) - fix - 1);
  EXPECT_NE(fix_line.find("absent     present"), std::string::npos) << fix_line;
  EXPECT_NE(r.out.find("summary: 2 revisions  -> exit 1"), std::string::npos);
  // An uncommitted change is the work tree's, which a --rev run does not read (hostile review
  // hr25: the line said it decided the answer).
  f.repo.write("a.txt", lines(1, 31));
  r = test::run_sm120check({"verify", "--rev", "v1", f.repo.patch_file(), f.repo.dir()});
  EXPECT_NE(r.out.find("uncommitted changes in the work tree (not read: the revisions decide "
                       "this answer): a.txt"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("these decide the work-tree answer"), std::string::npos) << r.out;
}

// Hostile review (hr24 rev-text-omits-leftout): the --rev text report did not list the files
// --include/--exclude left out, which the work-tree report and the JSON do.
TEST(GitRev, TextListsTheFilesLeftOut) {
  FixRepo f;
  f.repo.diff(f.base, f.later);  // a.txt and b.txt
  RunResult r = test::run_sm120check({"verify", "--no-gpu", "--exclude", "b.txt", "--rev", "v1",
                                      "--rev", "v2", f.repo.patch_file(), f.repo.dir()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("\n  - b.txt  left out (--include/--exclude)\n"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("  b.txt "), std::string::npos) << r.out;  // no row of its own
  RunResult all = test::run_sm120check({"verify", "--no-gpu", "--exclude", "*", "--rev", "v2",
                                        f.repo.patch_file(), f.repo.dir()});
  EXPECT_EQ(all.exit_code, 2) << all.out << all.err;
  EXPECT_NE(all.out.find("  - a.txt  left out (--include/--exclude)\n  - b.txt  left out"),
            std::string::npos)
      << all.out;
  EXPECT_NE(all.out.find("unknown: --include/--exclude left out every file"), std::string::npos)
      << all.out;
}

// A revision where the patched file has moved (FlashInfer's gemm.py into gemm/gemm_base.py):
// --rev looks for it in that revision's tree as verify does in a checkout of it (fresh-user
// review: `--rev v0.6.0` said "does not exist" while a checkout read the fix applied). The
// search reads the revision's blobs; nothing is checked out.
TEST(GitRev, AMovedFileIsRelocatedInTheRevisionsTree) {
  FixRepo f;
  f.repo.git("mv a.txt moved_a.txt && git commit -q -m move && git tag v3");
  f.repo.git("checkout -q v1");  // the work tree holds a.txt: the revision, not it, is read
  json doc = run_json({"verify", "--format", "json", "--rev", "v1", "--rev", "v3",
                       f.repo.patch_file(), f.repo.dir()},
                      1);
  const json& old_rev = doc["revisions"][0]["patches"][0]["files"][0];
  EXPECT_EQ(old_rev["status"], "applicable");
  EXPECT_EQ(old_rev["relocated"], false);
  const json& moved = doc["revisions"][1]["patches"][0]["files"][0];
  EXPECT_EQ(moved["status"], "applied") << moved.dump();
  EXPECT_EQ(moved["relocated"], true);
  EXPECT_EQ(moved["target_path"], "moved_a.txt");
  // --no-relocate keeps the file missing (a conflict), as for a directory.
  json off = run_json({"verify", "--format", "json", "--no-relocate", "--rev", "v3",
                       f.repo.patch_file(), f.repo.dir()},
                      2);
  const json& missing = off["revisions"][0]["patches"][0]["files"][0];
  EXPECT_EQ(missing["relocated"], false);
  EXPECT_EQ(missing["reason"], "'a.txt' does not exist in the target");
}

TEST(GitRev, UnknownRevisionIsAOneLineError) {
  FixRepo f;
  RunResult r = test::run_sm120check(
      {"verify", "--rev", "v1", "--rev", "no-such-tag", f.repo.patch_file(), f.repo.dir()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("sm120check: error: unknown revision 'no-such-tag' in ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

// A host without libgit2 (the static binary copied to a fleet host): what needs libgit2 is a
// one-line error, exit 3; verify in a work tree whose facts the native reader cannot tell (a
// staged change) still judges the patch and leaves the repository section out. The load error
// used to be thrown through std::call_once, i.e. glibc's pthread_once, which aborts a binary
// with a static libgcc (SIGABRT, exit 134, no message).
TEST(GitRev, WithoutLibgit2WhatNeedsItIsAnErrorAndVerifyStillRuns) {
  FixRepo f;
  const std::vector<std::string> env{"SM120CHECK_LIBGIT2_LIBRARY=/nonexistent/libgit2.so.1"};
#if SM120CHECK_LIBGIT2_LINKED
  // The self-contained build links libgit2: nothing is loaded, so the variable changes nothing
  // and the git features stay (the static binary on a host without libgit2).
  RunResult linked = test::run_sm120check(
      {"verify", "--no-gpu", "--rev", "v1", f.repo.patch_file(), f.repo.dir()}, {}, env);
  EXPECT_EQ(linked.exit_code, 1) << linked.err;
  EXPECT_NE(linked.out.find("applicable"), std::string::npos) << linked.out;
  EXPECT_EQ(linked.err, "");
  linked = test::run_sm120check({"log", f.repo.patch_file(), f.repo.dir()}, {}, env);
  EXPECT_EQ(linked.exit_code, 0) << linked.err << linked.out;
  EXPECT_NE(linked.out.find(f.fix.substr(0, 7)), std::string::npos) << linked.out;
  return;
#endif
  RunResult r = test::run_sm120check(
      {"verify", "--rev", "v1", f.repo.patch_file(), f.repo.dir()}, {}, env);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("libgit2 (/nonexistent/libgit2.so.1) could not be loaded"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  r = test::run_sm120check({"log", f.repo.patch_file(), f.repo.dir()}, {}, env);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("could not be loaded"), std::string::npos) << r.err;
  // apply --dry-run: the plan without the diff (libgit2's), saying why; nothing written.
  {
    TempDir plain;
    test::write_file(plain.path() / "a.txt", lines(1, 30));
    r = test::run_sm120check({"apply", "--dry-run", f.repo.patch_file(), plain.path().string()},
                             {}, env);
    EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("would change 1 file:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("diff not shown: libgit2 (/nonexistent/libgit2.so.1) could not be loaded"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(test::read_file(plain.path() / "a.txt"), lines(1, 30));
  }
  // Staged: the work-tree reader declines and libgit2 would be asked.
  f.repo.write("a.txt", lines(1, 14) + "line 15 fixed\n" + lines(16, 31));
  f.repo.git("add a.txt");
  r = test::run_sm120check({"verify", "--no-gpu", f.repo.patch_file(), f.repo.dir()}, {}, env);
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("summary: 1 patch: 1 applied"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("HEAD:"), std::string::npos) << r.out;
  // With libgit2 the same run has its repository section.
  r = test::run_sm120check({"verify", "--no-gpu", f.repo.patch_file(), f.repo.dir()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("HEAD:"), std::string::npos) << r.out;
}

TEST(GitRev, NotARepositoryIsAnError) {
  TempDir plain;
  test::write_file(plain / "a.txt", "x\n");
  FixRepo f;
  RunResult r =
      test::run_sm120check({"verify", "--rev", "HEAD", f.repo.patch_file(), plain.path().string()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("not in a git repository"), std::string::npos) << r.err;
}

TEST(GitRev, TargetInASubfolder) {
  Repo repo;
  repo.write("sub/pkg/x.py", lines(1, 10));
  std::string base = repo.commit("base");
  repo.write("sub/pkg/x.py", lines(1, 4) + "fixed\n" + lines(6, 10));
  std::string fix = repo.commit("fix");
  // A patch made inside sub/ (paths relative to it), as a vendored copy would carry.
  std::string patch = repo.git("diff --relative=sub --full-index " + base + " " + fix);
  TempDir tmp;
  test::write_file(tmp / "p.patch", patch);
  json doc = run_json({"verify", "--format", "json", "--rev", base, "--rev", fix, tmp / "p.patch",
                       repo.path("sub")},
                      1);
  EXPECT_EQ(doc["revisions"][0]["patches"][0]["status"], "applicable");
  EXPECT_EQ(doc["revisions"][1]["patches"][0]["status"], "applied");
  EXPECT_EQ(doc["revisions"][1]["patches"][0]["files"][0]["target_path"], "pkg/x.py");
  EXPECT_EQ(doc["repository"]["root"], repo.dir());
  // Work tree run from the subfolder, with the file edited back to the base: dirty, named
  // from the repository root.
  repo.write("sub/pkg/x.py", lines(1, 10));
  json wt = run_json({"verify", "--format", "json", tmp / "p.patch", repo.path("sub")}, 1);
  EXPECT_EQ(wt["patches"][0]["status"], "applicable");
  EXPECT_EQ(wt["repository"]["dirty"], json::array({"sub/pkg/x.py"}));
  EXPECT_EQ(wt["revisions"], nullptr);
}

TEST(GitRepository, FactsAndDirtyFiles) {
  FixRepo f;
  json clean = run_json({"verify", "--format", "json", f.repo.patch_file(), f.repo.dir()}, 0);
  EXPECT_EQ(clean["repository"]["root"], f.repo.dir());
  EXPECT_EQ(clean["repository"]["head"], f.later);
  EXPECT_EQ(clean["repository"]["branch"], "main");
  EXPECT_EQ(clean["repository"]["dirty"], json::array());

  f.repo.write("a.txt", lines(1, 30));  // the fix undone, not committed
  f.repo.write("b.txt", "untouched by the patch\n");
  RunResult r = test::run_sm120check({"verify", f.repo.patch_file(), f.repo.dir()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("repository: " + f.repo.dir() + "\nHEAD: " + f.later.substr(0, 12) +
                       " (branch main)\nuncommitted changes (these decide the work-tree "
                       "answer, not HEAD): a.txt\n"),
            std::string::npos)
      << r.out;
  json dirty = run_json({"verify", "--format", "json", f.repo.patch_file(), f.repo.dir()}, 1);
  EXPECT_EQ(dirty["repository"]["dirty"], json::array({"a.txt"}));

  f.repo.git("checkout -q -- . && git checkout -q --detach HEAD~1");
  json detached = run_json({"verify", "--format", "json", f.repo.patch_file(), f.repo.dir()}, 0);
  EXPECT_EQ(detached["repository"]["branch"], nullptr);
  EXPECT_EQ(detached["repository"]["head"], f.fix);
}

TEST(GitRepository, ARelocatedFilesUncommittedChangesAreListed) {
  // The patch names a.txt; the file was moved to pkg/a.txt (committed) and then fixed without
  // a commit: verify reads pkg/a.txt, whose change is what the answer stands on.
  FixRepo f;
  f.repo.git("checkout -q old");
  f.repo.git("mv a.txt moved_a.txt");
  f.repo.commit("move");
  f.repo.write("moved_a.txt", lines(1, 14) + "line 15 fixed\n" + lines(16, 30));
  json doc = run_json({"verify", "--format", "json", f.repo.patch_file(), f.repo.dir()}, 0);
  EXPECT_EQ(doc["patches"][0]["files"][0]["target_path"], "moved_a.txt") << doc.dump(2);
  EXPECT_EQ(doc["repository"]["dirty"], json::array({"moved_a.txt"})) << doc.dump(2);
}

TEST(GitRepository, UncommittedChangesUnderASplitIndexAreUnknownNotNone) {
  // A hostile review's case: under a split index libgit2 1.5 calls a modified file clean. The
  // list is then unknown (dirty_unknown says why), not silently empty.
  FixRepo f;
  f.repo.git("update-index --split-index");
  f.repo.write("a.txt", lines(1, 30));  // the fix undone, not committed
  json doc = run_json({"verify", "--format", "json", f.repo.patch_file(), f.repo.dir()}, 1);
  EXPECT_EQ(doc["repository"]["dirty"], json::array()) << doc["repository"].dump();
  EXPECT_NE(doc["repository"]["dirty_unknown"].get<std::string>().find("split"),
            std::string::npos);
  RunResult r = test::run_sm120check({"verify", f.repo.patch_file(), f.repo.dir()});
  EXPECT_NE(r.out.find("uncommitted changes: unknown (the index is split"), std::string::npos)
      << r.out;
  f.repo.git("update-index --no-split-index && rm -f .git/sharedindex.*");
  json known = run_json({"verify", "--format", "json", f.repo.patch_file(), f.repo.dir()}, 1);
  EXPECT_EQ(known["repository"]["dirty"], json::array({"a.txt"}));
  EXPECT_EQ(known["repository"]["dirty_unknown"], nullptr);
}

/// The index file of `repo` with `edit` applied to its bytes.
void edit_index(Repo& repo, const std::function<void(std::string&)>& edit) {
  std::string bytes = test::read_file(repo.path(".git/index"));
  edit(bytes);
  test::write_file(repo.path(".git/index"), bytes);
}

// Hostile review (hr23, index-unreadable-clean): an index whose trailer is not its SHA-1 (all
// zeros, as git >= 2.40 writes with index.skipHash; or a stale one, which git never checks
// outside fsck) made libgit2 1.5 fail, and the failure read as "no uncommitted changes",
// although the touched file had a staged change. Git reads such an index: so is it read here.
// An index git refuses (empty, truncated, bad version) makes the list unknown, never empty.
TEST(GitRepository, AnIndexWithoutChecksumIsReadAndOneGitRefusesIsUnknown) {
  FixRepo f;
  f.repo.write("a.txt", lines(1, 30));  // the fix undone and staged: the cache tree is invalid
  f.repo.git("add a.txt");
  const std::string good = test::read_file(f.repo.path(".git/index"));
  auto repository = [&] {
    return run_json({"verify", "--format", "json", f.repo.patch_file(), f.repo.dir()},
                    1)["repository"];
  };
  EXPECT_EQ(repository()["dirty"], json::array({"a.txt"}));
  for (const char* trailer : {"zero", "stale"}) {
    SCOPED_TRACE(trailer);
    edit_index(f.repo, [&](std::string& b) {
      if (std::string(trailer) == "zero")
        b.replace(b.size() - 20, 20, std::string(20, '\0'));
      else
        b.back() = static_cast<char>(b.back() ^ 1);
    });
    EXPECT_EQ(f.repo.git("status --porcelain -- a.txt"), "M  a.txt\n");
    const json r = repository();
    EXPECT_EQ(r["dirty"], json::array({"a.txt"})) << r;
    EXPECT_EQ(r["dirty_unknown"], nullptr) << r;
    EXPECT_EQ(GitRepository::open(f.repo.dir())->facts({"a.txt", "b.txt"}).dirty,
              std::vector<std::string>{"a.txt"});
    test::write_file(f.repo.path(".git/index"), good);
  }
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"empty", "smaller than expected"},
      {"truncated", "truncated"},
      {"cut in an entry", "truncated"},
      {"version 9", "bad index version 9"},
      {"signature", "bad signature"}};
  for (const auto& entry : refused) {
    // Named, not a structured binding: clang 14 (Debian 12) refuses a binding a lambda captures.
    const std::string& how = entry.first;
    const std::string& reason = entry.second;
    SCOPED_TRACE(how);
    edit_index(f.repo, [&](std::string& b) {
      if (how == "empty") b.clear();
      if (how == "truncated") b.resize(b.size() - 7);
      if (how == "cut in an entry") b.resize(12 + 70);
      if (how == "version 9") b[7] = 9;
      if (how == "signature") b[0] = 'E';
    });
    const json r = repository();
    EXPECT_EQ(r["dirty"], json::array()) << r;
    ASSERT_TRUE(r["dirty_unknown"].is_string()) << r;
    EXPECT_NE(r["dirty_unknown"].get<std::string>().find(reason), std::string::npos) << r;
    test::write_file(f.repo.path(".git/index"), good);
  }
}

TEST(GitIndexCheck, TrailersVersionsAndExtensionsAsGitReadsThem) {
  FixRepo f;
  const std::string index = f.repo.path(".git/index");
  for (const char* version : {"2", "3", "4"}) {
    SCOPED_TRACE(version);
    f.repo.git(std::string("update-index --index-version ") + version);
    if (std::string(version) == "3")
      f.repo.git("add -N new.txt 2>/dev/null; touch new.txt && git add -N new.txt");
    const git::IndexFileCheck c = git::check_index_file(index, true);
    EXPECT_EQ(c.state, git::IndexFileCheck::State::readable) << c.reason;
    EXPECT_EQ(c.version, static_cast<std::uint32_t>(std::stoi(version)));
    EXPECT_EQ(c.trailer, git::IndexFileCheck::Trailer::checksum);
    EXPECT_FALSE(c.split);
  }
  f.repo.git("rm -q --cached new.txt && rm new.txt && git update-index --index-version 2");
  edit_index(f.repo, [](std::string& b) { b.replace(b.size() - 20, 20, std::string(20, '\0')); });
  EXPECT_EQ(git::check_index_file(index, true).trailer, git::IndexFileCheck::Trailer::zero);
  edit_index(f.repo, [](std::string& b) { b.back() = 1; });
  EXPECT_EQ(git::check_index_file(index, true).trailer, git::IndexFileCheck::Trailer::other);
  EXPECT_EQ(git::check_index_file(index, false).trailer, git::IndexFileCheck::Trailer::not_hashed);
  const std::string fixed = git::with_index_checksum(test::read_file(index));
  test::write_file(index, fixed);
  EXPECT_EQ(git::check_index_file(index, true).trailer, git::IndexFileCheck::Trailer::checksum);
  EXPECT_EQ(f.repo.git("fsck --no-dangling 2>&1 | grep -c index; true"), "0\n");
  EXPECT_EQ(git::check_index_file(f.repo.path(".git/no-such-index"), true).state,
            git::IndexFileCheck::State::missing);
  // A split index: the "link" extension, read as such.
  f.repo.git("update-index --split-index");
  EXPECT_TRUE(git::check_index_file(index, true).split);
  EXPECT_TRUE(work_tree_may_have_split_index(f.repo.dir()));
  f.repo.git("update-index --no-split-index");
  EXPECT_FALSE(git::check_index_file(index, true).split);
}

// Hostile review (hr23, stale-sharedindex): `git update-index --no-split-index` leaves
// .git/sharedindex.* behind (git expires it after two weeks). That file alone made the
// uncommitted changes "unknown (the index is split)"; only the index's "link" extension does.
TEST(GitRepository, ALeftoverSharedIndexIsNoSplitIndex) {
  FixRepo f;
  f.repo.git(
      "update-index --split-index && git status --porcelain >/dev/null && "
      "git update-index --no-split-index");
  bool left = false;
  for (const auto& e : std::filesystem::directory_iterator(f.repo.path(".git")))
    left = left || e.path().filename().string().rfind("sharedindex.", 0) == 0;
  ASSERT_TRUE(left) << "git left no sharedindex.* file";
  EXPECT_FALSE(work_tree_may_have_split_index(f.repo.dir()));
  f.repo.write("a.txt", lines(1, 30));  // the fix undone, not committed
  // An untracked touched file too: the reader without libgit2 declines, libgit2 answers.
  const std::string patch =
      f.repo.diff(f.base, f.fix) + "--- a/k.txt\n+++ b/k.txt\n@@ -1 +1 @@\n-k\n+K\n";
  test::write_file(f.repo.patch_file(), patch);
  f.repo.write("k.txt", "k\n");
  const json doc = run_json({"verify", "--format", "json", f.repo.patch_file(), f.repo.dir()}, 1);
  EXPECT_EQ(doc["repository"]["dirty"], json::array({"a.txt", "k.txt"})) << doc["repository"];
  EXPECT_EQ(doc["repository"]["dirty_unknown"], nullptr);
  // The same with a real split: unknown.
  f.repo.git("update-index --split-index");
  const json split = run_json({"verify", "--format", "json", f.repo.patch_file(), f.repo.dir()}, 1);
  EXPECT_EQ(split["repository"]["dirty"], json::array());
  EXPECT_NE(split["repository"]["dirty_unknown"].get<std::string>().find("split"),
            std::string::npos);
}

// Hostile review (hr23, submodule-dirty-missed): TARGET a superproject, the patch touching
// sm/f.c inside submodule sm, which had an uncommitted change: the report gave the
// superproject's HEAD and "dirty: []" (git status of the superproject names only "sm"). A path
// in a submodule is now answered by the submodule: dirty when changed there, or when the
// submodule's HEAD is not the commit the superproject's HEAD records for it.
TEST(GitRepository, ATouchedFileInASubmoduleIsAnsweredByTheSubmodule) {
  Repo sub;
  sub.write("f.c", "int a = 6;\n");
  sub.commit("s");
  Repo super;
  super.write("r.txt", "x\n");
  super.commit("r");
  super.git("-c protocol.file.allow=always submodule add -q '" + sub.dir() + "' sm 2>&1");
  super.commit("sm");
  TempDir tmp;
  const std::string patch = tmp / "p.patch";
  test::write_file(patch,
                   "--- a/sm/f.c\n+++ b/sm/f.c\n@@ -1 +1 @@\n-int a = 6;\n+int a = 7;\n"
                   "--- a/r.txt\n+++ b/r.txt\n@@ -1 +1 @@\n-x\n+y\n");
  auto repository = [&](int) {  // the verdicts change with the file: only the section counts
    const RunResult run = test::run_sm120check({"verify", "--format", "json", patch, super.dir()});
    const json doc = json::parse(run.out, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << run.out << run.err;
    return doc.is_discarded() ? json() : doc["repository"];
  };
  json r = repository(1);
  EXPECT_EQ(r["head"], super.head());
  EXPECT_EQ(r["dirty"], json::array()) << r;
  EXPECT_EQ(r["dirty_unknown"], nullptr) << r;
  EXPECT_EQ(nested_work_tree_of(super.dir(), "sm/f.c"), "sm");
  EXPECT_EQ(nested_work_tree_of(super.dir(), "r.txt"), std::nullopt);

  super.write("sm/f.c", "int a = 7;\n");  // changed in the submodule, not committed
  r = repository(1);
  EXPECT_EQ(r["dirty"], json::array({"sm/f.c"})) << r;
  EXPECT_EQ(r["dirty_unknown"], nullptr) << r;

  // Committed in the submodule: clean there, but not the commit the superproject records.
  super.git("-C sm add f.c && git -C sm -c user.name=t -c user.email=t@e commit -qm fix");
  EXPECT_EQ(super.git("status --porcelain"), " M sm\n");
  r = repository(1);
  EXPECT_EQ(r["dirty"], json::array({"sm/f.c"})) << r;
  super.git("add sm && git commit -qm 'sm moved'");  // now recorded: clean again
  r = repository(1);
  EXPECT_EQ(r["dirty"], json::array()) << r;
  EXPECT_EQ(r["dirty_unknown"], nullptr) << r;

  // A submodule whose changes cannot be told makes the list unknown, never empty.
  test::write_file(super.path(".git/modules/sm/index"), "");
  super.write("sm/f.c", "int a = 8;\n");
  r = repository(1);
  EXPECT_EQ(r["dirty"], json::array()) << r;
  ASSERT_TRUE(r["dirty_unknown"].is_string()) << r;
  EXPECT_NE(r["dirty_unknown"].get<std::string>().find("sm/f.c is in submodule sm"),
            std::string::npos)
      << r;
}

TEST(GitRepository, PlainTreeHasNoRepository) {
  TempDir plain;
  test::write_file(plain / "a.txt", lines(1, 30));
  FixRepo f;
  json doc =
      run_json({"verify", "--format", "json", f.repo.patch_file(), plain.path().string()}, 1);
  EXPECT_EQ(doc["repository"], nullptr);
  EXPECT_EQ(find_git_work_tree(plain.path().string()), std::nullopt);
  EXPECT_EQ(find_git_work_tree(f.repo.path("a.txt")), f.repo.dir());
}

// ---------------------------------------------------------------------------------------------
// The repository section read without libgit2 (read_work_tree_facts), against
// `git status --porcelain -- PATHS` and GitRepository::facts() on the same tree.

/// The dirty paths `git status --porcelain` names among `paths` (sorted; renames not expected).
std::vector<std::string> git_status_dirty(Repo& repo, const std::vector<std::string>& paths) {
  std::string args = "status --porcelain --untracked-files=all --";
  for (const std::string& p : paths) args += " '" + p + "'";
  std::string out = repo.git(args);
  std::vector<std::string> dirty;
  for (std::size_t at = 0; at < out.size();) {
    std::size_t eol = out.find('\n', at);
    if (eol == std::string::npos) eol = out.size();
    if (eol - at > 3) dirty.push_back(out.substr(at + 3, eol - at - 3));
    at = eol + 1;
  }
  std::sort(dirty.begin(), dirty.end());
  return dirty;
}

/// Checks the native reader against git and libgit2; `native` says whether it must answer.
void expect_facts(Repo& repo, const std::vector<std::string>& paths, bool native,
                  const std::string& root = "") {
  const std::string dir = root.empty() ? repo.dir() : root;
  std::optional<RepositoryFacts> mine = read_work_tree_facts(dir, paths);
  RepositoryFacts lib = GitRepository::open(dir)->facts(paths);
  std::vector<std::string> truth = git_status_dirty(repo, paths);
  if (root.empty()) EXPECT_EQ(lib.dirty, truth) << "libgit2 against git status";
  ASSERT_EQ(mine.has_value(), native);
  if (!mine) return;
  EXPECT_EQ(mine->root, lib.root);
  EXPECT_EQ(mine->head, lib.head);
  EXPECT_EQ(mine->branch, lib.branch);
  EXPECT_EQ(mine->dirty, root.empty() ? truth : lib.dirty);
}

/// The facts as verify gets them: the reader, libgit2 where it cannot tell.
std::optional<RepositoryFacts> test_facts_of(const std::string& dir,
                                             const std::vector<std::string>& paths) {
  std::optional<RepositoryFacts> facts = read_work_tree_facts(dir, paths);
  if (!facts) facts = GitRepository::open(dir)->facts(paths);
  return facts;
}

/// The reader's dirty paths, or {"(cannot tell)"} when it falls back.
std::vector<std::string> native_dirty(const std::string& dir, const std::vector<std::string>& paths) {
  std::optional<RepositoryFacts> facts = read_work_tree_facts(dir, paths);
  return facts ? facts->dirty : std::vector<std::string>{"(cannot tell)"};
}

/// HOME and XDG_CONFIG_HOME pointed at an empty folder for the test's life, and no system
/// config: the reader sees only the repository's config, as the git commands of Repo do.
class IsolatedConfig {
 public:
  IsolatedConfig() {
    save("HOME");
    save("XDG_CONFIG_HOME");
    save("GIT_CONFIG_NOSYSTEM");
    ::setenv("HOME", home_.path().c_str(), 1);
    ::unsetenv("XDG_CONFIG_HOME");
    ::setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
  }
  ~IsolatedConfig() {
    for (const auto& [name, value] : saved_)
      if (value)
        ::setenv(name.c_str(), value->c_str(), 1);
      else
        ::unsetenv(name.c_str());
  }

 private:
  void save(const char* name) {
    const char* v = std::getenv(name);
    saved_.emplace_back(name, v != nullptr ? std::optional<std::string>(v) : std::nullopt);
  }
  TempDir home_;
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

struct FactsRepo {
  IsolatedConfig config;
  Repo repo;
  FactsRepo() {
    repo.write("a.txt", lines(1, 30));
    repo.write("dir/b.py", lines(1, 10, "b"));
    repo.write("dir/sub/c.py", lines(1, 10, "c"));
    repo.write("run.sh", "echo hi\n");
    repo.commit("base");
  }
  const std::vector<std::string> paths{"a.txt", "dir/b.py", "dir/sub/c.py", "run.sh"};
};

TEST(WorkTreeFacts, CleanAfterCommitAndBranch) {
  FactsRepo f;
  expect_facts(f.repo, f.paths, true);
  expect_facts(f.repo, {}, true);
  std::optional<RepositoryFacts> facts = read_work_tree_facts(f.repo.dir(), f.paths);
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->branch, "main");
  EXPECT_EQ(facts->head, f.repo.head());
  EXPECT_TRUE(facts->dirty.empty());
}

TEST(WorkTreeFacts, ModifiedSameSizeOtherSizeAndDeleted) {
  FactsRepo f;
  f.repo.write("a.txt", lines(1, 29) + "LINE 30\n");  // same size, same second as the index
  f.repo.write("dir/b.py", lines(1, 11, "b"));         // other size
  std::filesystem::remove(f.repo.path("dir/sub/c.py"));  // deleted
  expect_facts(f.repo, f.paths, true);
  EXPECT_EQ(native_dirty(f.repo.dir(), f.paths),
            (std::vector<std::string>{"a.txt", "dir/b.py", "dir/sub/c.py"}));
}

TEST(WorkTreeFacts, RewrittenWithTheSameContentIsClean) {
  FactsRepo f;
  f.repo.git("update-index --refresh >/dev/null; sleep 1");  // not racily clean any more
  f.repo.write("a.txt", lines(1, 30));                     // new stat data, same bytes
  expect_facts(f.repo, f.paths, true);
  EXPECT_TRUE(native_dirty(f.repo.dir(), f.paths).empty());
}

TEST(WorkTreeFacts, StagedChangeFallsBackToLibgit2) {
  FactsRepo f;
  f.repo.write("a.txt", lines(1, 31));
  f.repo.git("add a.txt");
  expect_facts(f.repo, f.paths, false);  // the cache tree no longer names HEAD's tree
  // Staged and then undone in the work tree: still uncommitted (staged) for git.
  f.repo.write("a.txt", lines(1, 30));
  expect_facts(f.repo, f.paths, false);
}

TEST(WorkTreeFacts, UntrackedAndIgnoredTouchedPathsFallBack) {
  FactsRepo f;
  f.repo.write("new.py", "x\n");
  expect_facts(f.repo, {"a.txt", "new.py"}, false);
  f.repo.write(".gitignore", "new.py\n");
  f.repo.commit("ignore");
  expect_facts(f.repo, {"a.txt", "new.py"}, false);
  // A touched path absent from index and work tree (a file the patch adds) is clean.
  expect_facts(f.repo, {"a.txt", "added/by/patch.py"}, true);
}

TEST(WorkTreeFacts, AssumeUnchangedExecutableBitAndFileMode) {
  FactsRepo f;
  f.repo.git("update-index --assume-unchanged dir/b.py");
  // That invalidates the cache tree of dir/ and the root: the reader cannot tell then, until
  // the cache tree is written again.
  expect_facts(f.repo, f.paths, false);
  f.repo.git("write-tree >/dev/null");
  std::filesystem::permissions(f.repo.path("run.sh"), std::filesystem::perms::owner_exec,
                               std::filesystem::perm_options::add);
  expect_facts(f.repo, f.paths, true);
  EXPECT_EQ(native_dirty(f.repo.dir(), f.paths),
            std::vector<std::string>{"run.sh"});
  f.repo.git("config core.filemode false");
  expect_facts(f.repo, f.paths, true);
  EXPECT_TRUE(native_dirty(f.repo.dir(), f.paths).empty());
}

// Hostile review (hr24 dirty-assume-unchanged): a touched file flagged assume-unchanged or
// skip-worktree and modified on disk was reported clean (git status hides it, and the reader
// trusted the flag), although the verdict reads the disk copy. Both readers now compare it.
TEST(WorkTreeFacts, FlaggedFilesModifiedOnDiskAreDirtyThoughGitStatusHidesThem) {
  for (const std::string flag : {"assume-unchanged", "skip-worktree"}) {
    SCOPED_TRACE(flag);
    FactsRepo f;
    f.repo.git("update-index --" + flag + " dir/b.py a.txt");
    f.repo.write("dir/b.py", lines(1, 12, "b"));        // other size
    f.repo.write("a.txt", lines(1, 29) + "LINE 30\n");  // same size
    EXPECT_TRUE(git_status_dirty(f.repo, f.paths).empty()) << "git status hides them";
    const std::vector<std::string> both{"a.txt", "dir/b.py"};
    // The flag invalidates the cache tree: libgit2 answers until the tree is written again.
    EXPECT_EQ(native_dirty(f.repo.dir(), f.paths), std::vector<std::string>{"(cannot tell)"});
    RepositoryFacts lib = GitRepository::open(f.repo.dir())->facts(f.paths);
    EXPECT_EQ(lib.dirty, both);
    EXPECT_EQ(lib.dirty_unknown, "");
    f.repo.git("write-tree >/dev/null");
    EXPECT_EQ(native_dirty(f.repo.dir(), f.paths), both);
    // Back to the committed bytes (new stat data): clean again, for both readers.
    f.repo.write("dir/b.py", lines(1, 10, "b"));
    f.repo.write("a.txt", lines(1, 30));
    EXPECT_TRUE(native_dirty(f.repo.dir(), f.paths).empty());
    EXPECT_TRUE(GitRepository::open(f.repo.dir())->facts(f.paths).dirty.empty());
  }
}

// A skip-worktree file absent from the work tree (what a sparse checkout leaves) is not
// checked out, as git says, not deleted: listed apart, so that the report is not silently
// clean while the verdict reads no file.
TEST(WorkTreeFacts, ASkipWorktreeFileAbsentOnDiskIsNotCheckedOut) {
  FactsRepo f;
  f.repo.git("update-index --skip-worktree dir/b.py && git write-tree >/dev/null");
  std::filesystem::remove(f.repo.path("dir/b.py"));
  EXPECT_TRUE(git_status_dirty(f.repo, f.paths).empty());
  std::optional<RepositoryFacts> mine = read_work_tree_facts(f.repo.dir(), f.paths);
  ASSERT_TRUE(mine);
  EXPECT_TRUE(mine->dirty.empty());
  EXPECT_EQ(mine->not_checked_out, std::vector<std::string>{"dir/b.py"});
  RepositoryFacts lib = GitRepository::open(f.repo.dir())->facts(f.paths);
  EXPECT_TRUE(lib.dirty.empty());
  EXPECT_EQ(lib.not_checked_out, std::vector<std::string>{"dir/b.py"});
  // An assume-unchanged file deleted is deleted (git status hides that too).
  f.repo.git("update-index --assume-unchanged a.txt");
  std::filesystem::remove(f.repo.path("a.txt"));
  EXPECT_EQ(GitRepository::open(f.repo.dir())->facts(f.paths).dirty,
            std::vector<std::string>{"a.txt"});
  // A real sparse checkout (no sparse index; its config.worktree is not read here): the files
  // it leaves out are not checked out, and nothing is unknown.
  {
    FactsRepo g;
    g.repo.git("sparse-checkout set --no-cone /dir/sub/ >/dev/null 2>&1");
    ASSERT_FALSE(std::filesystem::exists(g.repo.path("dir/b.py")));
    std::optional<RepositoryFacts> facts = test_facts_of(g.repo.dir(), g.paths);
    ASSERT_TRUE(facts);
    EXPECT_EQ(facts->dirty_unknown, "");
    EXPECT_TRUE(facts->dirty.empty());
    EXPECT_EQ(facts->not_checked_out, (std::vector<std::string>{"a.txt", "dir/b.py", "run.sh"}));
  }
  // The report, in JSON and text.
  const std::string diff = "diff --git a/dir/b.py b/dir/b.py\n--- a/dir/b.py\n+++ b/dir/b.py\n"
                           "@@ -1,2 +1,2 @@\n-b 1\n+B 1\n b 2\n";
  TempDir patches;
  test::write_file(patches.path() / "p.patch", diff);
  const std::string patch = (patches.path() / "p.patch").string();
  RunResult r =
      test::run_sm120check({"verify", "--no-gpu", "--format", "json", patch, f.repo.dir()});
  const json doc = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << r.out << r.err;
  EXPECT_EQ(doc["repository"]["not_checked_out"], json::array({"dir/b.py"})) << doc["repository"];
  EXPECT_EQ(doc["repository"]["dirty"], json::array()) << doc["repository"];
  // Its verdict: unknown (no copy to judge), not a conflict with "fix: absent", and never a
  // relocation onto another copy holding the fix (hostile review hr25).
  EXPECT_EQ(doc["patches"][0]["status"], "unknown") << doc;
  EXPECT_EQ(doc["patches"][0]["presence"], "unknown") << doc;
  EXPECT_EQ(doc["patches"][0]["files"][0]["relocated"], false) << doc;
  EXPECT_EQ(doc["exit_code"], 2) << doc;
  {
    std::string fixed = lines(1, 10, "b");
    fixed.replace(0, 3, "B 1");
    test::write_file(std::filesystem::path(f.repo.dir()) / "vendor/dir/b.py", fixed);
  }
  const json moved = json::parse(
      test::run_sm120check({"verify", "--no-gpu", "--format", "json", patch, f.repo.dir()}).out,
      nullptr, false);
  ASSERT_TRUE(moved.is_object());
  EXPECT_EQ(moved["patches"][0]["status"], "unknown") << moved;
  EXPECT_EQ(moved["patches"][0]["files"][0]["relocated"], false) << moved;
  std::filesystem::remove_all(std::filesystem::path(f.repo.dir()) / "vendor");
  r = test::run_sm120check({"verify", "--no-gpu", patch, f.repo.dir()});
  EXPECT_NE(r.out.find("not checked out (skip-worktree"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(": dir/b.py\n"), std::string::npos) << r.out;
}

// A flagged file whose bytes attributes may filter cannot be hashed here: unknown, naming the
// flag, rather than clean.
TEST(WorkTreeFacts, AFlaggedFileThatCannotBeComparedMakesTheListUnknown) {
  FactsRepo f;
  f.repo.write(".gitattributes", "*.txt text eol=crlf\n");
  f.repo.commit("attributes");
  f.repo.git("update-index --refresh >/dev/null; sleep 1");
  f.repo.git("update-index --assume-unchanged a.txt");
  f.repo.write("a.txt", lines(1, 29) + "LINE 30\n");
  RepositoryFacts lib = GitRepository::open(f.repo.dir())->facts(f.paths);
  EXPECT_TRUE(lib.dirty.empty());
  EXPECT_NE(lib.dirty_unknown.find("a.txt is flagged assume-unchanged"), std::string::npos)
      << lib.dirty_unknown;
}

TEST(WorkTreeFacts, SymlinkChanged) {
  FactsRepo f;
  std::filesystem::create_symlink("a.txt", f.repo.path("link"));
  f.repo.commit("link");
  f.repo.git("update-index --refresh >/dev/null; sleep 1");
  expect_facts(f.repo, {"link"}, true);
  std::filesystem::remove(f.repo.path("link"));
  std::filesystem::create_symlink("run.sh", f.repo.path("link"));  // same length, other target
  expect_facts(f.repo, {"link"}, true);
  EXPECT_EQ(native_dirty(f.repo.dir(), {"link"}),
            std::vector<std::string>{"link"});
}

TEST(WorkTreeFacts, DetachedPackedRefsAndPackedCommit) {
  FactsRepo f;
  f.repo.write("a.txt", lines(1, 31));
  std::string second = f.repo.commit("second");
  f.repo.git("gc -q && git pack-refs --all");  // the commit in a pack, refs in packed-refs
  ASSERT_FALSE(std::filesystem::exists(f.repo.path(".git/refs/heads/main")));
  expect_facts(f.repo, f.paths, true);
  f.repo.git("checkout -q --detach HEAD~1");
  expect_facts(f.repo, f.paths, true);
  std::optional<RepositoryFacts> facts = read_work_tree_facts(f.repo.dir(), f.paths);
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->branch, std::nullopt);
  EXPECT_NE(facts->head, second);
}

TEST(WorkTreeFacts, IndexVersion4AndSplitIndex) {
  FactsRepo f;
  f.repo.git("update-index --index-version 4");
  // Another size: a same-size rewrite in the index's second is racy, which libgit2 1.5 has
  // been seen to miss here (git and this reader hash the file then).
  f.repo.write("dir/sub/c.py", lines(1, 11, "c"));
  expect_facts(f.repo, f.paths, true);
  EXPECT_EQ(native_dirty(f.repo.dir(), f.paths),
            std::vector<std::string>{"dir/sub/c.py"});
  // A split index ("link" extension) is not read here. (libgit2 1.5 does not read it either:
  // it calls the modified file clean, so the fallback is no better; see the report.)
  f.repo.git("update-index --split-index");
  EXPECT_FALSE(read_work_tree_facts(f.repo.dir(), f.paths));
}

// Hostile review (F5): under a sparse index (git sparse-checkout --sparse-index) libgit2 1.5
// called a modified file in the cone clean, and the report said nothing was uncommitted. The
// uncommitted files are unknown there, as under a split index.
TEST(WorkTreeFacts, SparseIndexMakesTheUncommittedFilesUnknown) {
  FactsRepo f;
  f.repo.git("sparse-checkout set --cone --sparse-index dir >/dev/null 2>&1");
  EXPECT_TRUE(work_tree_may_have_sparse_index(f.repo.dir()));
  f.repo.write("dir/b.py", lines(1, 11, "b"));
  std::string diff = "diff --git a/dir/b.py b/dir/b.py\n--- a/dir/b.py\n+++ b/dir/b.py\n"
                     "@@ -1,2 +1,2 @@\n-b 1\n+B 1\n b 2\n";
  TempDir patches;
  test::write_file(patches.path() / "p.patch", diff);
  const RunResult r = test::run_sm120check(
      {"verify", "--no-gpu", "--format", "json", (patches.path() / "p.patch").string(), f.repo.dir()});
  const json doc = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out << r.err;
  ASSERT_TRUE(doc["repository"].is_object()) << r.out;
  EXPECT_TRUE(doc["repository"]["dirty_unknown"].is_string()) << doc["repository"];
  FactsRepo plain;
  EXPECT_FALSE(work_tree_may_have_sparse_index(plain.repo.dir()));
}

TEST(WorkTreeFacts, LinkedWorktreeHasItsOwnHeadAndIndex) {
  FactsRepo f;
  f.repo.git("worktree add -q -b other ../wt");
  const std::string wt = std::filesystem::path(f.repo.dir()).parent_path() / "wt";
  test::write_file(wt + "/a.txt", lines(2, 30));
  std::optional<RepositoryFacts> facts = read_work_tree_facts(wt, f.paths);
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->branch, "other");
  EXPECT_EQ(facts->dirty, std::vector<std::string>{"a.txt"});
  expect_facts(f.repo, f.paths, true, wt);
}

TEST(WorkTreeFacts, AttributesOnAFileToHashFallBack) {
  FactsRepo f;
  f.repo.write(".gitattributes", "*.txt text eol=crlf\n");
  f.repo.commit("attributes");
  f.repo.git("update-index --refresh >/dev/null; sleep 1");
  f.repo.write("a.txt", lines(1, 29) + "LINE 30\n");  // stat changed, size the same
  expect_facts(f.repo, f.paths, false);
}

TEST(WorkTreeFacts, EarlyStopFindsTheCacheTreeFromTheEnd) {
  // Touched paths early in the index: the entries after them are not read, the TREE extension
  // is found from the end; names holding "TREE" do not mislead it.
  FactsRepo f;
  for (int i = 0; i < 40; ++i)
    f.repo.write("zTREE/TREE" + std::to_string(i) + "/TREE.py", lines(1, 3, "t"));
  f.repo.commit("more");
  f.repo.write("a.txt", lines(1, 31));
  expect_facts(f.repo, {"a.txt"}, true);
  EXPECT_EQ(native_dirty(f.repo.dir(), {"a.txt"}), std::vector<std::string>{"a.txt"});
  expect_facts(f.repo, {"dir/b.py"}, true);
  EXPECT_TRUE(native_dirty(f.repo.dir(), {"dir/b.py"}).empty());
  // With an untracked cache (UNTR, after TREE) the chain from TREE to the end is longer.
  f.repo.git("update-index --untracked-cache && git status --porcelain >/dev/null");
  expect_facts(f.repo, {"dir/b.py"}, true);
  f.repo.git("update-index --split-index");
  EXPECT_FALSE(read_work_tree_facts(f.repo.dir(), {"a.txt"}));
}

// ---------------------------------------------------------------------------------------------
// The index searched rather than walked (git::scan_index with IndexRead::search): the same
// answer as the walk, on indexes git wrote and on generated ones with hostile bytes.

/// `s` printable: bytes outside ASCII as \xNN, a long path cut short with its length.
std::string escaped(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out.size() > 120 ? out.substr(0, 60) + "... (" + std::to_string(s.size()) + " bytes)" : out;
}

/// scan_index() both ways for `wanted` (sorted and made unique here), expecting the same
/// answer; returns whether the search skipped entries.
bool expect_search_as_walk(const std::string& index, std::vector<std::string> wanted) {
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  const std::optional<git::IndexScan> searched =
      git::scan_index(index, wanted, true, git::IndexRead::search);
  const std::optional<git::IndexScan> walked =
      git::scan_index(index, wanted, true, git::IndexRead::walk);
  EXPECT_EQ(searched.has_value(), walked.has_value());
  if (!searched || !walked) return false;
  EXPECT_FALSE(walked->searched);
  EXPECT_EQ(searched->root_tree, walked->root_tree);
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    SCOPED_TRACE("wanted path " + escaped(wanted[i]));
    EXPECT_EQ(searched->found[i].has_value(), walked->found[i].has_value());
    if (searched->found[i] && walked->found[i]) {
      EXPECT_EQ(searched->found[i]->id, walked->found[i]->id);
      EXPECT_TRUE(*searched->found[i] == *walked->found[i]);
    }
    EXPECT_EQ(searched->conflicted[i], walked->conflicted[i]);
    EXPECT_EQ(searched->is_dir[i], walked->is_dir[i]);
  }
  return searched->searched;
}

/// The answer of the search for one path (the walk agreeing, checked).
git::IndexScan scan_one(const std::string& index, const std::string& path) {
  EXPECT_TRUE(expect_search_as_walk(index, {path})) << path << ": not searched";
  std::optional<git::IndexScan> s = git::scan_index(index, {path}, true);
  EXPECT_TRUE(s);
  return s ? *s : git::IndexScan{};
}

/// A name of `n` bytes under `dir` whose bytes 6 and 7 read, as an entry's flags, as the length
/// of the name's rest after byte 8: a probe starting 8 bytes into its entry meets a well-formed
/// false entry there when the gid holds a mode (as 40960 = 0xa000 does). `high`: the high
/// nibble of byte 6 (0x30: stage 3, 0x80: assume-valid, stage 0).
std::string flags_like_name(const std::string& dir, std::size_t n, unsigned char high) {
  std::string name = dir + std::string(n - dir.size(), 'a');
  name[6] = static_cast<char>(high | ((n - 8) >> 8));
  name[7] = static_cast<char>((n - 8) & 0xFF);
  return name;
}

TEST(WorkTreeFacts, LargeIndexSearchedAsWalkedAndAsGitSays) {
  FactsRepo f;
  // 23000 entries (a 1.8 MB index) in 481 folders: 1000 with their files, 22000 recorded
  // without (writing, committing and removing that many files and trees takes a slow disk
  // half a minute).
  constexpr int kFiles = 1000, kEntries = 23000;
  auto file = [](int i) {
    char rel[64];
    std::snprintf(rel, sizeof rel, "d%02d/s%02d/f%05d.py", i % 37, i % 13, i);
    return std::string(rel);
  };
  for (int i = 0; i < kFiles; ++i) test::write_file(f.repo.path(file(i)), "x\n");
  // Names holding bytes of an entry's header: the four modes, and flags giving a length.
  const std::vector<std::string> odd = {
      "d05/\x81\xa4\x81\xed\xa0\x01\xe0 modes.py", "d05/DIRC\x01\x02\x03TREE.py",
      flags_like_name("d05/", 73, 0x30), flags_like_name("d05/", 140, 0x80),
      flags_like_name("d06/", 9 + 0x2f, 0x30), flags_like_name("d30/", 250, 0x80)};
  for (const std::string& rel : odd) {
    test::write_file(f.repo.path(rel), "odd\n");
    // A gid that reads as mode 120000 puts a well-formed false entry 8 bytes into this one
    // (not possible when not root: the names still hold the other bytes).
    (void)::chown(f.repo.path(rel).c_str(), static_cast<uid_t>(-1), 0xa000);
  }
  f.repo.write("zz/last.py", "last\n");
  const std::string blob = f.repo.git("echo x | git hash-object -w --stdin").substr(0, 40);
  std::string info;
  for (int i = kFiles; i < kEntries; ++i) info += "100644 " + blob + "\t" + file(i) + "\n";
  test::write_file(f.repo.path(".git/bulk"), info);
  f.repo.git("add -A && git update-index --index-info <.git/bulk && git commit -qm many");
  const std::string index = f.repo.path(".git/index");
  ASSERT_GT(std::filesystem::file_size(index), std::size_t{1} << 20);

  // Version 2: first, middle and last entries, the odd names, a folder, paths between entries,
  // before the first and after the last.
  const std::string first = "a.txt", middle = file(10020), last = "zz/last.py";
  const std::string between = middle.substr(0, middle.size() - 1) + "z";  // no such entry
  std::vector<std::string> wanted = {first,   middle, last, "d03/s10", "d03/s10/f0.py",
                                     between, "0",    "zzz"};
  wanted.insert(wanted.end(), odd.begin(), odd.end());
  EXPECT_TRUE(expect_search_as_walk(index, wanted));
  EXPECT_TRUE(scan_one(index, "d03/s10").is_dir[0]);
  EXPECT_TRUE(scan_one(index, middle).found[0]);
  EXPECT_TRUE(scan_one(index, odd[3]).found[0]);
  EXPECT_FALSE(scan_one(index, between).found[0]);
  for (std::size_t i = 7; i < 200; i += 7) {  // one path at a time, all over the index
    const std::string rel = file(static_cast<int>(i * kEntries / 200));
    EXPECT_TRUE(scan_one(index, rel).found[0]) << rel;
  }
  // Against git and libgit2: a clean, a modified, two deleted files and one the patch adds.
  const std::string real = file(500);
  f.repo.write(real, "y\n");  // same size
  std::filesystem::remove(f.repo.path(last));
  const std::vector<std::string> paths = {first, real, middle, last, odd[2], "d03/s10/new.py"};
  expect_facts(f.repo, paths, true);
  std::vector<std::string> dirty = {real, middle, last};
  std::sort(dirty.begin(), dirty.end());
  EXPECT_EQ(native_dirty(f.repo.dir(), paths), dirty);
  f.repo.write(real, "x\n");
  f.repo.write(last, "last\n");

  // Conflict stages 1-3 in the middle of the index (as a merge leaves them).
  const std::string both = file(4240);
  const std::string ids = f.repo.git("hash-object -w --stdin </dev/null && echo ours | git "
                                     "hash-object -w --stdin && echo theirs | git hash-object -w --stdin");
  const std::string before = f.repo.git("rev-parse :" + both).substr(0, 40);
  f.repo.git("update-index --index-info <<'EOF'\n0 " + std::string(40, '0') + "\t" + both +
             "\n100644 " + ids.substr(0, 40) + " 1\t" + both + "\n100644 " + ids.substr(41, 40) +
             " 2\t" + both + "\n100644 " + ids.substr(82, 40) + " 3\t" + both + "\nEOF");
  const git::IndexScan conflict = scan_one(index, both);
  EXPECT_TRUE(conflict.conflicted[0]);
  EXPECT_FALSE(conflict.found[0]);
  EXPECT_TRUE(expect_search_as_walk(
      index, {both, both.substr(0, both.size() - 1), both + "c", both.substr(0, 8), last}));
  f.repo.git("update-index --cacheinfo 100644," + before + "," + both);

  // Version 3: entries with extended flags (skip-worktree, intent-to-add).
  f.repo.git("update-index --skip-worktree " + middle);
  f.repo.write("d11/new.py", "new\n");
  f.repo.git("add -N d11/new.py && git write-tree >/dev/null");
  ASSERT_EQ(test::read_file(index).substr(0, 8), std::string("DIRC\0\0\0\3", 8));
  EXPECT_TRUE(scan_one(index, middle).found[0]->skip_worktree);
  EXPECT_TRUE(scan_one(index, "d11/new.py").found[0]->intent_to_add);
  wanted.insert(wanted.end(), {"d11/new.py", "d11/new.p", "d11/new.pyc"});
  EXPECT_TRUE(expect_search_as_walk(index, wanted));

  // Names of 0xfff bytes and more (the flags say 0xfff, the NUL ends them), recorded without
  // a file (no file system takes such a path).
  std::vector<std::string> longs;
  for (std::size_t n : {0xffeu, 0xfffu, 0x1000u, 0x1001u, 5000u}) {
    longs.push_back("d13/" + std::string(n - 4, 'L'));
    f.repo.git("update-index --add --cacheinfo 100644," + blob + "," + longs.back());
  }
  f.repo.git("write-tree >/dev/null");
  for (const std::string& name : longs) EXPECT_TRUE(scan_one(index, name).found[0]) << name.size();
  std::vector<std::string> around = longs;
  for (const std::string& name : longs) around.push_back(name + "x");
  around.push_back("d13/" + std::string(100, 'L'));
  EXPECT_TRUE(expect_search_as_walk(index, around));
  EXPECT_TRUE(expect_search_as_walk(index, wanted));

  // Version 4 (prefix-compressed names): walked, the same answer.
  f.repo.git("update-index --index-version 4");
  std::optional<git::IndexScan> v4 = git::scan_index(index, {"d11/new.py", middle}, true);
  ASSERT_TRUE(v4);
  EXPECT_FALSE(v4->searched);
  EXPECT_TRUE(v4->found[0] && v4->found[0]->intent_to_add);
  EXPECT_TRUE(v4->found[1] && v4->found[1]->skip_worktree);
}

/// Generated index files: versions 2 and 3 with the bytes the search must not be misled by.
class IndexGenerator {
 public:
  explicit IndexGenerator(unsigned seed) : rng_(seed) {}

  struct Index {
    std::string bytes;
    std::vector<std::string> names;  ///< sorted, one per path (conflicts have several entries)
    std::size_t entries_bytes = 0;   ///< from the first entry to the end of the last
    bool end_marked = false;         ///< the TREE extension follows the entries directly
  };

  /// `layout`: 0 TREE, 1 TREE then another extension, 2 IEOT before TREE, 3 an invalid root,
  /// 4 no TREE at all.
  Index make(int version, bool hostile, int layout) {
    Index ix;
    std::vector<std::string> names;
    const std::size_t want = pick(500, 2500);
    while (names.size() < want) names.push_back(path(hostile));
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    ix.names = names;
    // Hostile header fields: per index, which fields hold one of the four modes.
    const std::uint32_t modes[] = {0100644, 0100755, 0120000, 0160000};
    const bool gid_mode = hostile && pick(0, 1) == 1;
    const int field_odds = hostile ? 8 : 0;  // percent, each of ctime, mtime, dev, sha-1 parts
    std::string entries;
    std::uint32_t count = 0;
    for (const std::string& name : names) {
      std::vector<unsigned> stages = {0};
      if (pick(0, 99) < 3) {
        stages.clear();
        for (unsigned s = 1; s <= 3; ++s)
          if (pick(0, 1) == 1 || (s == 3 && stages.empty())) stages.push_back(s);
      }
      for (unsigned stage : stages) {
        unsigned char h[64] = {};
        auto put32 = [&](std::size_t at, std::uint32_t v) {
          for (int k = 0; k < 4; ++k) h[at + k] = static_cast<unsigned char>(v >> (24 - 8 * k));
        };
        auto field = [&](std::size_t at) {
          put32(at, pick(0, 99) < field_odds ? modes[pick(0, 3)] : word());
        };
        for (std::size_t at : {0u, 4u, 8u, 12u, 16u, 20u, 28u, 36u}) put32(at, word());
        for (std::size_t at : {0u, 8u, 16u}) field(at);  // ctime, mtime, dev
        put32(24, modes[pick(0, 9) < 7 ? 0 : pick(1, 3)]);
        put32(32, gid_mode ? modes[pick(0, 3)] : word());
        for (std::size_t at = 40; at < 60; at += 4) put32(at, word());
        for (std::size_t at : {40u, 48u, 56u}) field(at);  // sha-1 parts
        std::uint16_t flags = static_cast<std::uint16_t>(std::min<std::size_t>(name.size(), 0xFFF));
        flags |= static_cast<std::uint16_t>(stage << 12);
        if (pick(0, 9) == 0) flags |= 0x8000;
        std::size_t header = 62;
        if (version == 3 && pick(0, 9) == 0) {
          flags |= 0x4000;
          const std::uint16_t ext[] = {0x4000, 0x2000, 0x6000};
          const std::uint16_t x = ext[pick(0, 2)];
          h[62] = static_cast<unsigned char>(x >> 8);
          h[63] = static_cast<unsigned char>(x);
          header = 64;
        }
        h[60] = static_cast<unsigned char>(flags >> 8);
        h[61] = static_cast<unsigned char>(flags);
        entries.append(reinterpret_cast<const char*>(h), header);
        entries += name;
        entries.append(8 - (header + name.size()) % 8, '\0');
        ++count;
      }
    }
    ix.entries_bytes = entries.size();
    ix.bytes = std::string("DIRC", 4);
    for (std::uint32_t v : {static_cast<std::uint32_t>(version), count})
      for (int k = 0; k < 4; ++k) ix.bytes += static_cast<char>(v >> (24 - 8 * k));
    ix.bytes += entries;
    auto extension = [&](const char* sig, const std::string& data) {
      ix.bytes.append(sig, 4);
      const std::uint32_t len = static_cast<std::uint32_t>(data.size());
      for (int k = 0; k < 4; ++k) ix.bytes += static_cast<char>(len >> (24 - 8 * k));
      ix.bytes += data;
    };
    std::string id;
    for (int k = 0; k < 20; ++k) id += static_cast<char>(pick(0, 255));
    const std::string tree = std::string(1, '\0') + std::to_string(count) + " 0\n" + id;
    if (layout == 2) {
      std::string ieot(4 + 8 * 3, '\0');
      ieot[3] = 1;
      for (std::size_t k = 4; k < ieot.size(); ++k) ieot[k] = static_cast<char>(pick(0, 3));
      extension("IEOT", ieot);
    }
    if (layout == 3)
      extension("TREE", std::string(1, '\0') + "-1 0\n");
    else if (layout != 4)
      extension("TREE", tree);
    if (layout == 1 || layout == 4) extension(layout == 1 ? "UNTR" : "REUC", id + id + "TREE");
    ix.end_marked = layout == 0 || layout == 1 || layout == 3;
    ix.bytes += id;  // the checksum (not read)
    return ix;
  }

  /// Paths to look up: names, the paths just around them, folders, and the ends.
  std::vector<std::string> wanted(const Index& ix) {
    std::vector<std::string> out;
    const std::size_t n = pick(1, 12);
    while (out.size() < n) {
      const std::string& name = ix.names[pick(0, ix.names.size() - 1)];
      switch (pick(0, 6)) {
        case 0:
        case 1: out.push_back(name); break;
        case 2: out.push_back(name + "\x01"); break;
        case 3: out.push_back(name.substr(0, name.size() - 1)); break;
        case 4: {
          const std::size_t slash = name.rfind('/');
          if (slash != std::string::npos) out.push_back(name.substr(0, slash));
          break;
        }
        case 5: out.push_back(path(false)); break;
        default: out.push_back(pick(0, 1) == 1 ? std::string("\x01") : std::string("\xff\xff"));
      }
    }
    return out;
  }

 private:
  std::size_t pick(std::size_t lo, std::size_t hi) {
    return std::uniform_int_distribution<std::size_t>(lo, hi)(rng_);
  }
  std::uint32_t word() { return static_cast<std::uint32_t>(rng_()); }

  std::string component(bool hostile) {
    std::string c;
    const std::size_t len = pick(1, 12);
    for (std::size_t k = 0; k < len; ++k) {
      unsigned char b = static_cast<unsigned char>("abcdefghij._-0123"[pick(0, 16)]);
      if (hostile && pick(0, 4) == 0) b = static_cast<unsigned char>(pick(1, 255));
      if (b == '/') b = 'x';
      c += static_cast<char>(b);
    }
    return c;
  }

  std::string path(bool hostile) {
    const std::size_t roll = pick(0, 999);
    if (roll < 3) return "long/" + std::string(pick(0xFF0, 0x1010), 'L');
    std::string p = "d" + std::to_string(pick(0, 6));
    for (std::size_t depth = pick(0, 3); depth > 0; --depth)
      p += "/s" + std::to_string(pick(0, 9));
    p += "/" + component(hostile);
    if (hostile && roll < 200) {
      // Bytes 6-7 as flags naming the rest's length: false entries 8 bytes in.
      const std::size_t n = pick(std::max<std::size_t>(p.size() + 1, 12), 400);
      const unsigned char highs[] = {0x00, 0x10, 0x20, 0x30, 0x80, 0xB0};
      p = flags_like_name(p, n, highs[pick(0, 5)]);
      if (p[6] == '\0' || p[6] == '/' || p[7] == '\0' || p[7] == '/') return path(hostile);
    }
    return p;
  }

  std::mt19937 rng_;
};

TEST(IndexSearch, AgreesWithTheWalkOnGeneratedIndexes) {
  TempDir dir;
  const std::string file = (dir.path() / "index").string();
  int searched = 0, expected = 0;
  for (unsigned seed = 1; seed <= 200; ++seed) {
    IndexGenerator gen(seed);
    const int version = seed % 2 == 0 ? 2 : 3;
    const bool hostile = seed % 3 != 0;
    const int layout = static_cast<int>(seed / 6 % 5);
    const IndexGenerator::Index ix = gen.make(version, hostile, layout);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", layout " + std::to_string(layout));
    test::write_file(file, ix.bytes);
    for (int round = 0; round < 8; ++round) {
      std::vector<std::string> wanted = gen.wanted(ix);
      wanted.push_back(ix.names.back());  // the last name: the search must skip to it
      const bool skipped = expect_search_as_walk(file, wanted);
      if (ix.end_marked && ix.entries_bytes > 40000) {
        ++expected;
        searched += skipped ? 1 : 0;
        EXPECT_TRUE(skipped) << "version " << version << (hostile ? ", hostile" : "");
      } else if (!ix.end_marked) {
        EXPECT_FALSE(skipped);  // nothing tells where the entries end: walked
      }
    }
  }
  EXPECT_GT(expected, 400);
  EXPECT_EQ(searched, expected);
}

TEST(WorkTreeFacts, ObjectsBorrowedThroughAlternates) {
  // `git clone --shared`: HEAD's commit lives in the origin's object directory.
  FactsRepo f;
  f.repo.git("gc -q && git clone -q --shared . ../borrowing");
  const std::string clone = std::filesystem::path(f.repo.dir()).parent_path() / "borrowing";
  ASSERT_TRUE(std::filesystem::exists(clone + "/.git/objects/info/alternates"));
  test::write_file(clone + "/run.sh", "echo changed\n");
  std::optional<RepositoryFacts> facts = read_work_tree_facts(clone, f.paths);
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->head, f.repo.head());
  EXPECT_EQ(facts->dirty, std::vector<std::string>{"run.sh"});
  expect_facts(f.repo, f.paths, true, clone);
}

TEST(WorkTreeFacts, UnbornHead) {
  IsolatedConfig config;
  Repo repo;
  std::optional<RepositoryFacts> facts = read_work_tree_facts(repo.dir(), {});
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->head, "");
  EXPECT_EQ(facts->branch, "main");
  EXPECT_FALSE(read_work_tree_facts(repo.dir(), {"a.txt"}));
}

TEST(GitBlob, BuiltInSha1MatchesLibgit2AndGit) {
  const git::Libgit2& lib = git::libgit2();
  std::string big(200000, 'x');
  for (std::size_t i = 0; i < big.size(); i += 7) big[i] = static_cast<char>(i % 251);
  for (std::string content : {std::string(), std::string("hello\n"), std::string(55, 'a'),
                              std::string(56, 'b'), std::string(64, 'c'), big}) {
    git_oid oid;
    ASSERT_EQ(lib.git_odb_hash(&oid, content.empty() ? "" : content.data(), content.size(),
                               GIT_OBJECT_BLOB),
              0);
    char hex[GIT_OID_HEXSZ + 1];
    lib.git_oid_tostr(hex, sizeof hex, &oid);
    EXPECT_EQ(git_blob_id(content), hex) << content.size();
  }
  EXPECT_EQ(git_blob_id("hello\n"), "ce013625030ba8dba906f756967f9e9ca394464a");
}

/// Verifies the patch file of `repo` on a disk tree.
FileReport verify_one(const std::string& patch_text, const std::string& dir) {
  std::vector<Patch> patches = parse_patches(patch_text, "p.patch");
  VerifyReport r = verify(patches, *open_disk_tree(dir), {});
  EXPECT_EQ(r.patches.size(), 1u);
  return r.patches.at(0).files.at(0);
}

TEST(GitBlob, TextDecidedByBlobIdOnAPlainTree) {
  FixRepo f;
  std::string patch = f.repo.diff(f.base, f.fix);
  TempDir plain;
  test::write_file(plain / "a.txt", lines(1, 14) + "line 15 fixed\n" + lines(16, 30));
  FileReport applied = verify_one(patch, plain.path().string());
  EXPECT_EQ(applied.status, Status::kApplied);
  EXPECT_EQ(applied.reason, "blob id matches the post-image");
  EXPECT_EQ(applied.hunks.at(0).match.line, 12u);

  // The body lost a trailing space on a context line (mail mangling): the change itself is
  // found (drifted: one context line differs), and the blob id agrees.
  std::string mangled = patch;
  test::write_file(plain / "a.txt", lines(1, 14) + "line 15 fixed\n" + lines(16, 30));
  std::size_t at = mangled.find(" line 13\n");
  ASSERT_NE(at, std::string::npos);
  mangled.replace(at, 9, " line 13 \n");
  FileReport m = verify_one(mangled, plain.path().string());
  EXPECT_EQ(m.status, Status::kApplied);
  EXPECT_EQ(m.reason, "blob id matches the post-image");
  EXPECT_EQ(m.hunks.at(0).match.kind, MatchKind::kDrifted);

  // Pre-image blob but the hunks do not match the file: the blob id never overrules them.
  test::write_file(plain / "a.txt", lines(1, 30));
  FileReport pre = verify_one(mangled, plain.path().string());
  EXPECT_EQ(pre.status, Status::kConflict);
  EXPECT_EQ(pre.presence, Presence::kAbsent);
  EXPECT_EQ(pre.reason,
            "blob id matches the pre-image, but hunk 1 is conflict: the hunks decide (the "
            "patch text or its index line was changed)");

  // Neither id: hunk matching decides (applicable with an offset), no blob reason.
  test::write_file(plain / "a.txt", "extra\n" + lines(1, 30));
  FileReport other = verify_one(patch, plain.path().string());
  EXPECT_EQ(other.status, Status::kApplicable);
  EXPECT_EQ(other.reason, "");
  EXPECT_EQ(other.hunks.at(0).match.offset, 1);
}

TEST(GitBlob, BinaryDecidedOnRevisions) {
  Repo repo;
  repo.write("img.bin", std::string("\x89PNG\0\0\x01\x02", 8) + std::string(100, '\0'));
  std::string base = repo.commit("base");
  repo.write("img.bin", std::string("\x89PNG\0\0\x03\x04", 8) + std::string(90, '\x7f'));
  std::string fix = repo.commit("fix");
  repo.write("img.bin", std::string("other", 5) + std::string(3, '\0'));
  std::string other = repo.commit("other");
  repo.diff(base, fix);
  json doc = run_json({"verify", "--format", "json", "--rev", base, "--rev", fix, "--rev", other,
                       repo.patch_file(), repo.dir()},
                      2);
  const json& revs = doc["revisions"];
  EXPECT_EQ(revs[0]["patches"][0]["files"][0]["status"], "applicable");
  EXPECT_EQ(revs[0]["patches"][0]["files"][0]["reason"], "blob id matches the pre-image");
  EXPECT_EQ(revs[1]["patches"][0]["files"][0]["status"], "applied");
  EXPECT_EQ(revs[1]["patches"][0]["files"][0]["reason"], "blob id matches the post-image");
  EXPECT_EQ(revs[2]["patches"][0]["files"][0]["status"], "conflict");
}

TEST(GitTreeEntries, ModesOfRevisionTree) {
  Repo repo;
  repo.write("run.sh", "#!/bin/sh\n");
  repo.write("d/f.txt", "f\n");
  std::filesystem::permissions(repo.path("run.sh"), std::filesystem::perms::owner_exec,
                               std::filesystem::perm_options::add);
  std::filesystem::create_symlink("d/f.txt", repo.path("link"));
  std::string c = repo.commit("modes");
  std::unique_ptr<GitRepository> g = GitRepository::open(repo.dir());
  std::unique_ptr<Tree> t = g->tree(c, "", "x");
  EXPECT_EQ(t->stat("run.sh").type, Entry::Type::kFile);
  EXPECT_TRUE(t->stat("run.sh").executable);
  EXPECT_FALSE(t->stat("d/f.txt").executable);
  EXPECT_EQ(t->stat("d/f.txt").size, 2u);
  EXPECT_EQ(t->stat("d").type, Entry::Type::kDirectory);
  EXPECT_EQ(t->stat("link").type, Entry::Type::kSymlink);
  EXPECT_EQ(t->read_link("link"), "d/f.txt");
  EXPECT_EQ(t->read("d/f.txt"), "f\n");
  EXPECT_EQ(t->stat("missing").type, Entry::Type::kMissing);
  EXPECT_EQ(t->stat("link/f.txt").type, Entry::Type::kMissing);
  EXPECT_THROW(t->read("link"), Error);
  EXPECT_THROW(t->read_link("run.sh"), Error);
}

TEST(GitTreeEntries, SubmodulePointerChangeIsVerifiedAsText) {
  Repo repo;
  repo.write("x.txt", "x\n");
  std::string one = repo.commit("one"), two = repo.commit("two");
  // A gitlink without a submodule checkout (commit without `add -A`, which would drop it).
  repo.git("update-index --add --cacheinfo 160000," + one + ",sub && git commit -q -m pin1");
  std::string base = repo.head();
  repo.git("update-index --add --cacheinfo 160000," + two + ",sub && git commit -q -m pin2");
  std::string fix = repo.head();
  repo.diff(base, fix);
  std::unique_ptr<GitRepository> g = GitRepository::open(repo.dir());
  EXPECT_EQ(g->tree(fix, "", "x")->read("sub"), "Subproject commit " + two + "\n");
  json doc = run_json(
      {"verify", "--format", "json", "--rev", base, "--rev", fix, repo.patch_file(), repo.dir()},
      1);
  EXPECT_EQ(doc["revisions"][0]["patches"][0]["status"], "applicable");
  EXPECT_EQ(doc["revisions"][1]["patches"][0]["status"], "applied");
}

/// A history of `n` commits touching other.txt, with a.txt's fix made at `fix_at` (1-based),
/// optionally reverted at `revert_at` and re-applied at `reapply_at`. Returns the commit ids.
std::vector<std::string> history(Repo& repo, int n, int fix_at, int revert_at = 0,
                                 int reapply_at = 0) {
  repo.write("a.txt", lines(1, 30));
  std::vector<std::string> ids;
  for (int i = 1; i <= n; ++i) {
    repo.write("other.txt", "commit " + std::to_string(i) + "\n");
    if (i == fix_at || i == reapply_at)
      repo.write("a.txt", lines(1, 14) + "line 15 fixed\n" + lines(16, 30));
    if (i == revert_at) repo.write("a.txt", lines(1, 30));
    ids.push_back(repo.commit("commit " + std::to_string(i)));
  }
  return ids;
}

TEST(GitLog, FindsTheFixingCommit) {
  Repo repo;
  std::vector<std::string> ids = history(repo, 40, 23);
  repo.git("tag before " + ids[10] + " && git tag after " + ids[30]);
  repo.diff(ids[21], ids[22], " -- a.txt");
  json doc = run_json(
      {"log", "--format", "json", "--in", "before", "--in", "after", repo.patch_file(), repo.dir()},
      0);
  EXPECT_EQ(doc["schema"], "sm120check.log/1");
  EXPECT_EQ(doc["commits"], 40);
  EXPECT_EQ(doc["first_applied"]["commit"], ids[22]);
  EXPECT_EQ(doc["first_applied"]["subject"], "commit 23");
  EXPECT_EQ(doc["monotone"], true);
  EXPECT_EQ(doc["applied_at_oldest"], false);
  EXPECT_EQ(doc["tip"]["status"], "applied");
  EXPECT_EQ(doc["in"][0]["ref"], "before");
  EXPECT_EQ(doc["in"][0]["contains"], false);
  EXPECT_EQ(doc["in"][0]["status"], "applicable");
  EXPECT_EQ(doc["in"][1]["contains"], true);
  EXPECT_EQ(doc["in"][1]["status"], "applied");
  // Two file states only: a.txt before and after the fix.
  EXPECT_EQ(doc["verified"], 2);
  EXPECT_LT(doc["evaluated"].get<int>(), 40);

  // A range that starts after the fix: applied since its oldest commit.
  json late = run_json(
      {"log", "--format", "json", "--rev", ids[25] + "..HEAD", repo.patch_file(), repo.dir()}, 0);
  EXPECT_EQ(late["commits"], 14);
  EXPECT_EQ(late["applied_at_oldest"], true);
  EXPECT_EQ(late["first_applied"]["commit"], ids[26]);

  RunResult text = test::run_sm120check({"log", repo.patch_file(), repo.dir()});
  EXPECT_NE(text.out.find("fix brought in by: " + ids[22].substr(0, 12)), std::string::npos)
      << text.out;
}

TEST(GitLog, RevertedAndReappliedIsNotMonotone) {
  Repo repo;
  std::vector<std::string> ids = history(repo, 12, 3, 6, 10);
  repo.diff(ids[1], ids[2], " -- a.txt");
  json doc = run_json({"log", "--format", "json", repo.patch_file(), repo.dir()}, 2);
  EXPECT_EQ(doc["monotone"], false);
  EXPECT_EQ(doc["first_applied"]["commit"], ids[9]);
  EXPECT_EQ(doc["first_ever_applied"]["commit"], ids[2]);
  EXPECT_EQ(doc["exit_code"], 2);
  RunResult text = test::run_sm120check({"log", repo.patch_file(), repo.dir()});
  EXPECT_NE(text.out.find("history: NOT monotone"), std::string::npos) << text.out;
}

/// The kind, commit and statuses of each event of a `log` document.
std::vector<std::string> events_of(const json& doc) {
  std::vector<std::string> out;
  for (const json& e : doc["events"])
    out.push_back(e["kind"].get<std::string>() + " " + e["commit"].get<std::string>() + " " +
                  e["status_before"].get<std::string>() + " -> " +
                  e["status_after"].get<std::string>());
  return out;
}

// Fix, revert, re-fix, with the revert inside a window no evenly spaced sample of 40 commits
// falls in: a bisection with 17 samples named the first fix and called the history monotone,
// and `--in` a release tagged on the revert said yes (it contains that first fix).
TEST(GitLog, FixRevertRefixTimeline) {
  Repo repo;
  std::vector<std::string> ids = history(repo, 40, 5, 28, 30);
  repo.git("tag rel " + ids[27] + " && git tag fixed " + ids[10] + " && git tag early " + ids[2]);
  repo.diff(ids[3], ids[4], " -- a.txt");
  json doc = run_json({"log", "--format", "json", "--in", "rel", "--in", "fixed", "--in", "early",
                       "--in", "main", repo.patch_file(), repo.dir()},
                      2);
  EXPECT_EQ(doc["monotone"], false);
  EXPECT_EQ(doc["applied_at_oldest"], false);
  EXPECT_EQ(doc["first_applied"]["commit"], ids[29]);
  EXPECT_EQ(doc["first_ever_applied"]["commit"], ids[4]);
  EXPECT_EQ(doc["first_ever_applied"]["subject"], "commit 5");
  EXPECT_EQ(events_of(doc),
            (std::vector<std::string>{"applied " + ids[4] + " applicable -> applied",
                                      "reverted " + ids[27] + " applied -> applicable",
                                      "reapplied " + ids[29] + " applicable -> applied"}));
  // Statuses taken at the oldest commit and the three commits that change a.txt; two blobs.
  EXPECT_EQ(doc["evaluated"], 4);
  EXPECT_EQ(doc["verified"], 2);

  const json& rel = doc["in"][0];
  EXPECT_EQ(rel["ref"], "rel");
  EXPECT_EQ(rel["applied"], false);
  EXPECT_EQ(rel["status"], "applicable");
  EXPECT_EQ(rel["contains"], false);
  EXPECT_EQ(rel["fix_commit"]["commit"], ids[4]);
  EXPECT_EQ(rel["reverted_by"]["commit"], ids[27]);
  EXPECT_EQ(rel["reverted_by"]["kind"], "reverted");
  EXPECT_EQ(rel["reason"], "contains the fix commit " + ids[4].substr(0, 12) +
                               " but also the revert " + ids[27].substr(0, 12) +
                               "; applicable there");
  const json& fixed = doc["in"][1];
  EXPECT_EQ(fixed["applied"], true);
  EXPECT_EQ(fixed["fix_commit"]["commit"], ids[4]);
  EXPECT_EQ(fixed["reverted_by"], nullptr);
  const json& early = doc["in"][2];
  EXPECT_EQ(early["applied"], false);
  EXPECT_EQ(early["fix_commit"], nullptr);
  EXPECT_EQ(early["reason"], "does not contain the fix commit; applicable there");
  const json& tip = doc["in"][3];
  EXPECT_EQ(tip["applied"], true);
  EXPECT_EQ(tip["contains"], true);
  EXPECT_EQ(tip["fix_commit"]["commit"], ids[29]);
  EXPECT_EQ(tip["fix_commit"]["kind"], "reapplied");
  EXPECT_EQ(tip["reverted_by"], nullptr);

  RunResult text = test::run_sm120check({"log", "--in", "rel", repo.patch_file(), repo.dir()});
  EXPECT_EQ(text.exit_code, 2);
  EXPECT_NE(text.out.find("fix brought in by: " + ids[29].substr(0, 12)), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("first applied by: " + ids[4].substr(0, 12)), std::string::npos);
  EXPECT_NE(text.out.find("  " + ids[27].substr(0, 12) + " "), std::string::npos);
  EXPECT_NE(text.out.find(" reverted  applied -> applicable  commit 28\n"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("in rel (" + ids[27].substr(0, 12) + "): no: contains the fix commit " +
                          ids[4].substr(0, 12) + " but also the revert " + ids[27].substr(0, 12) +
                          "; applicable there\n"),
            std::string::npos)
      << text.out;
}

TEST(GitLog, RevertedAtTheTip) {
  Repo repo;
  std::vector<std::string> ids = history(repo, 10, 3, 7);
  repo.diff(ids[1], ids[2], " -- a.txt");
  json doc = run_json({"log", "--format", "json", repo.patch_file(), repo.dir()}, 1);
  EXPECT_EQ(doc["tip"]["status"], "applicable");
  EXPECT_EQ(doc["first_applied"], nullptr);
  EXPECT_EQ(doc["first_ever_applied"]["commit"], ids[2]);
  EXPECT_EQ(doc["monotone"], false);
  EXPECT_EQ(events_of(doc),
            (std::vector<std::string>{"applied " + ids[2] + " applicable -> applied",
                                      "reverted " + ids[6] + " applied -> applicable"}));
  RunResult text = test::run_sm120check({"log", repo.patch_file(), repo.dir()});
  EXPECT_NE(text.out.find("not applied at the tip: reverted by " + ids[6].substr(0, 12)),
            std::string::npos)
      << text.out;
}

// A context line of the hunk edited after the fix: with --fuzz 1 the fix stays applied (at
// fuzz 1), a "changed" event; without fuzz the post-image is gone, a "rewritten" event. An
// edit far from the hunk changes the file but not the verdict: no event.
TEST(GitLog, ChangedLinesAndRewritten) {
  Repo repo;
  std::vector<std::string> ids = history(repo, 9, 3);
  repo.write("a.txt",
             lines(1, 11) + "line 12 edited\n" + lines(13, 14) + "line 15 fixed\n" + lines(16, 30));
  ids.push_back(repo.commit("edit a context line"));
  repo.write("a.txt", "line 1 edited\n" + lines(2, 11) + "line 12 edited\n" + lines(13, 14) +
                          "line 15 fixed\n" + lines(16, 30));
  ids.push_back(repo.commit("edit far away"));
  repo.diff(ids[1], ids[2], " -- a.txt");

  json fuzz =
      run_json({"log", "--format", "json", "--fuzz", "1", repo.patch_file(), repo.dir()}, 0);
  EXPECT_EQ(fuzz["monotone"], true);
  EXPECT_EQ(fuzz["first_applied"]["commit"], ids[2]);
  EXPECT_EQ(events_of(fuzz),
            (std::vector<std::string>{"applied " + ids[2] + " applicable -> applied",
                                      "changed " + ids[9] + " applied -> applied"}));
  EXPECT_EQ(fuzz["evaluated"], 4);  // oldest, the fix, the two edits
  const json& changes = fuzz["events"][1]["changes"];
  ASSERT_EQ(changes.size(), 1u) << changes;
  EXPECT_EQ(changes[0]["path"], "a.txt");
  EXPECT_EQ(changes[0]["hunk"], 1);
  EXPECT_EQ(changes[0]["before"], "applied");
  EXPECT_EQ(changes[0]["after"], "applied (fuzz 1)");
  RunResult text = test::run_sm120check({"log", "--fuzz", "1", repo.patch_file(), repo.dir()});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find(" changed   applied -> applied  edit a context line\n"
                          "      a.txt: hunk 1: applied -> applied (fuzz 1)\n"),
            std::string::npos)
      << text.out;

  // Without fuzz the change is still found where its context points (drifted): it stays in.
  json drift = run_json({"log", "--format", "json", repo.patch_file(), repo.dir()}, 0);
  EXPECT_EQ(drift["monotone"], true);
  EXPECT_EQ(events_of(drift),
            (std::vector<std::string>{"applied " + ids[2] + " applicable -> applied",
                                      "changed " + ids[9] + " applied -> applied"}));
  EXPECT_EQ(drift["events"][1]["changes"][0]["after"], "applied (drifted)");

  // Exact images only: the edited context line breaks the match.
  json exact = run_json({"log", "--format", "json", "--strict", repo.patch_file(), repo.dir()}, 2);
  EXPECT_EQ(exact["monotone"], false);
  EXPECT_EQ(exact["tip"]["status"], "conflict");
  EXPECT_EQ(events_of(exact),
            (std::vector<std::string>{"applied " + ids[2] + " applicable -> applied",
                                      "rewritten " + ids[9] + " applied -> conflict"}));
}

TEST(GitLog, NeverAppliedAndUnknownRange) {
  Repo repo;
  std::vector<std::string> ids = history(repo, 5, 0);
  repo.write("a.txt", lines(1, 14) + "line 15 fixed\n" + lines(16, 30));
  repo.diff("HEAD", "", " -- a.txt");  // the work tree's change, never committed
  repo.git("checkout -q -- a.txt");
  json doc = run_json({"log", "--format", "json", repo.patch_file(), repo.dir()}, 1);
  EXPECT_EQ(doc["first_applied"], nullptr);
  EXPECT_EQ(doc["first_ever_applied"], nullptr);
  EXPECT_EQ(doc["events"], json::array());
  EXPECT_EQ(doc["monotone"], true);
  EXPECT_EQ(doc["tip"]["status"], "applicable");
  EXPECT_EQ(doc["oldest"]["commit"], ids[0]);
  RunResult text = test::run_sm120check({"log", "--in", "HEAD~2", repo.patch_file(), repo.dir()});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("never applied in the range (oldest commit " + ids[0].substr(0, 12) +
                          ": applicable)\n"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("): no: no commit of the range applies the fix; applicable there\n"),
            std::string::npos)
      << text.out;
  RunResult r = test::run_sm120check({"log", "--rev", "nope..HEAD", repo.patch_file(), repo.dir()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err.rfind("sm120check: error: unknown revision 'nope'", 0), 0u) << r.err;
}

// Review: `log` refused --no-gpu (a usage error) although verify and apply take it; a script
// passing verify's options to both failed. --cc and --no-gpu are accepted and checked as verify
// takes them, and change nothing.
TEST(GitLog, AcceptsVerifysGpuOptionsAndChecksThem) {
  FixRepo f;
  const std::string patch = f.repo.patch_file(), dir = f.repo.dir();
  const RunResult plain = test::run_sm120check({"log", "--format", "json", patch, dir});
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--no-gpu"}, std::vector<std::string>{"--cc", "12.0"}}) {
    std::vector<std::string> args{"log", "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {patch, dir});
    const RunResult r = test::run_sm120check(args);
    EXPECT_EQ(r.exit_code, plain.exit_code) << extra[0] << ": " << r.err;
    EXPECT_EQ(json::parse(r.out, nullptr, false)["events"],
              json::parse(plain.out, nullptr, false)["events"])
        << extra[0];
  }
  EXPECT_EQ(test::run_sm120check({"log", "--cc", "banana", patch, dir}).exit_code, 3);
  EXPECT_EQ(test::run_sm120check({"log", "--cc", "12.0", "--no-gpu", patch, dir}).exit_code, 3);
}

TEST(GitLog, AppliedAtTheOldestCommit) {
  Repo repo;
  std::vector<std::string> ids = history(repo, 12, 3, 8);
  repo.diff(ids[1], ids[2], " -- a.txt");
  // From commit 5 on (the fix in, its revert to come): applied at the oldest, then reverted.
  json doc = run_json(
      {"log", "--format", "json", "--rev", ids[3] + "..HEAD", repo.patch_file(), repo.dir()}, 1);
  EXPECT_EQ(doc["commits"], 8);
  EXPECT_EQ(doc["applied_at_oldest"], true);
  EXPECT_EQ(doc["oldest"]["commit"], ids[4]);
  EXPECT_EQ(doc["first_ever_applied"]["commit"], ids[4]);
  EXPECT_EQ(doc["first_applied"], nullptr);
  EXPECT_EQ(events_of(doc),
            (std::vector<std::string>{"reverted " + ids[7] + " applied -> applicable"}));
  // Commits 5 to 7: applied throughout.
  json kept = run_json(
      {"log", "--format", "json", "--rev", ids[3] + ".." + ids[6], repo.patch_file(), repo.dir()},
      0);
  EXPECT_EQ(kept["applied_at_oldest"], true);
  EXPECT_EQ(kept["monotone"], true);
  EXPECT_EQ(kept["first_applied"]["commit"], ids[4]);
  EXPECT_EQ(kept["events"], json::array());
  RunResult text =
      test::run_sm120check({"log", "--rev", ids[3] + ".." + ids[6], repo.patch_file(), repo.dir()});
  EXPECT_NE(text.out.find("applied before the range (the fix predates it); oldest commit: " +
                          ids[4].substr(0, 12)),
            std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("events:"), std::string::npos) << text.out;
  EXPECT_EQ(kept["brought_in_by_oldest"], false);
  // A range whose oldest commit is the fix (its parent, where the range starts, lacks it): that
  // commit brought the fix in (was "applied since the oldest commit of the range").
  const std::string from_fix = ids[1] + ".." + ids[6];
  json fix_first =
      run_json({"log", "--format", "json", "--rev", from_fix, repo.patch_file(), repo.dir()}, 0);
  EXPECT_EQ(fix_first["applied_at_oldest"], true);
  EXPECT_EQ(fix_first["brought_in_by_oldest"], true);
  EXPECT_EQ(fix_first["oldest"]["commit"], ids[2]);
  RunResult brought = test::run_sm120check(
      {"log", "--rev", from_fix, "--in", ids[6], repo.patch_file(), repo.dir()});
  EXPECT_NE(brought.out.find("fix brought in by: " + ids[2].substr(0, 12)), std::string::npos)
      << brought.out;
  EXPECT_NE(brought.out.find("yes: contains the fix commit " + ids[2].substr(0, 12)),
            std::string::npos)
      << brought.out;
}

// A series of two patches on two files: verified per file patch (one verification per state
// of each file), the statuses combined, the changes named by patch.
TEST(GitLog, SeriesOfTwoPatches) {
  Repo repo;
  repo.write("a.txt", lines(1, 30));
  repo.write("b.txt", lines(1, 20, "b"));
  std::vector<std::string> ids{repo.commit("base")};
  repo.write("a.txt", lines(1, 14) + "line 15 fixed\n" + lines(16, 30));
  ids.push_back(repo.commit("fix a"));
  repo.write("other.txt", "x\n");
  ids.push_back(repo.commit("other"));
  repo.write("b.txt", lines(1, 9, "b") + "b 10 fixed\n" + lines(11, 20, "b"));
  ids.push_back(repo.commit("fix b"));
  TempDir series;
  test::write_file(series / "1.patch", repo.git("diff --full-index " + ids[0] + " " + ids[1]));
  test::write_file(series / "2.patch", repo.git("diff --full-index " + ids[2] + " " + ids[3]));
  json doc = run_json({"log", "--format", "json", series.path().string(), repo.dir()}, 0);
  EXPECT_EQ(doc["first_applied"]["commit"], ids[3]);
  EXPECT_EQ(doc["evaluated"], 3);  // base, fix a, fix b
  EXPECT_EQ(doc["verified"], 4);   // two states of each file
  EXPECT_EQ(events_of(doc),
            (std::vector<std::string>{"applied " + ids[3] + " partial -> applied"}));
  const json& change = doc["events"][0]["changes"][0];
  EXPECT_EQ(change["patch"], 2);
  EXPECT_EQ(change["path"], "b.txt");
  RunResult text = test::run_sm120check({"log", series.path().string(), repo.dir()});
  EXPECT_NE(text.out.find("      patch 2: b.txt: applicable -> applied; hunk 1: applicable -> "
                          "applied\n"),
            std::string::npos)
      << text.out;
}

// Many distinct states of a.txt (its first line changes at every other commit, not with the
// fix): verified on worker threads, the document is the same as on one thread.
TEST(GitLog, ThreadsGiveTheSameAnswer) {
  Repo repo;
  std::vector<std::string> ids;
  for (int i = 1; i <= 40; ++i) {
    std::string line15 = (i >= 7 && i < 20) || i >= 31 ? "line 15 fixed\n" : "line 15\n";
    std::string top = "top " + std::to_string(i - i % 2) + "\n";
    repo.write("a.txt", top + lines(2, 14) + line15 + lines(16, 30));
    ids.push_back(repo.commit("commit " + std::to_string(i)));
  }
  repo.diff(ids[5], ids[6], " -- a.txt");
  json one = run_json({"log", "--format", "json", "-j", "1", repo.patch_file(), repo.dir()}, 2);
  json four = run_json({"log", "--format", "json", "-j", "4", repo.patch_file(), repo.dir()}, 2);
  EXPECT_EQ(one, four);
  // States: the first commit, every even one (a new top line), and the fix and re-fix.
  EXPECT_EQ(four["verified"], 23);
  EXPECT_EQ(four["evaluated"], 23);
  EXPECT_EQ(events_of(four),
            (std::vector<std::string>{"applied " + ids[6] + " applicable -> applied",
                                      "reverted " + ids[19] + " applied -> applicable",
                                      "reapplied " + ids[30] + " applicable -> applied"}));
}

/// The keys of a JSON object, in order.
std::vector<std::string> keys(const nlohmann::ordered_json& o) {
  std::vector<std::string> out;
  for (auto it = o.begin(); it != o.end(); ++it) out.push_back(it.key());
  return out;
}

// A shallow clone (`git clone --depth`): the walk ends at its boundary and says so.
TEST(GitLog, ShallowCloneSaysWhereTheHistoryIsCut) {
  FixRepo f;
  TempDir tmp;
  const std::string clone = tmp / "shallow";
  RunResult c = test::run_shell(
      "git clone -q --depth 2 'file://" + f.repo.dir() + "' '" + clone + "'", tmp.path().string());
  ASSERT_EQ(c.exit_code, 0) << c.err;
  json doc = run_json({"log", "--format", "json", f.repo.patch_file(), clone}, 0);
  EXPECT_EQ(doc["commits"], 2);
  EXPECT_EQ(doc["shallow"], true);
  EXPECT_EQ(doc["applied_at_oldest"], true);
  RunResult text = test::run_sm120check({"log", f.repo.patch_file(), clone});
  EXPECT_NE(text.out.find("shallow: the history before " + f.fix.substr(0, 12) +
                          " is not in this repository"),
            std::string::npos)
      << text.out;
  json full = run_json({"log", "--format", "json", f.repo.patch_file(), f.repo.dir()}, 0);
  EXPECT_EQ(full["shallow"], false);
}

// Root checking a checkout another user owns (the usual SSH case): libgit2's safe.directory
// owner check would refuse --rev and log; sm120check only reads, so it reads.
TEST(GitRev, RepositoryOwnedByAnotherUserIsRead) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the repository to another user";
  FixRepo f;
  RunResult own = test::run_shell("chown -R 65534:65534 '" + f.repo.dir() + "'", "/");
  ASSERT_EQ(own.exit_code, 0) << own.err;
  RunResult rev = test::run_sm120check(
      {"verify", "--format", "json", "--rev", "v1", "--rev", "v2", f.repo.patch_file(),
       f.repo.dir()});
  EXPECT_EQ(rev.exit_code, 1) << rev.err;
  json doc = json::parse(rev.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << rev.out << rev.err;
  EXPECT_EQ(doc["revisions"][0]["patches"][0]["status"], "applicable") << doc.dump();
  EXPECT_EQ(doc["revisions"][1]["patches"][0]["status"], "applied") << doc.dump();
  RunResult log = test::run_sm120check({"log", f.repo.patch_file(), f.repo.dir()});
  EXPECT_EQ(log.exit_code, 0) << log.err;
  EXPECT_NE(log.out.find("fix brought in by: " + f.fix.substr(0, 12)), std::string::npos)
      << log.out;
  test::run_shell("chown -R 0:0 '" + f.repo.dir() + "'", "/");
}

TEST(GitLog, JsonShape) {
  Repo repo;
  std::vector<std::string> ids = history(repo, 6, 2, 4);
  repo.diff(ids[0], ids[1], " -- a.txt");
  RunResult r = test::run_sm120check(
      {"log", "--format", "json", "--in", "main", repo.patch_file(), repo.dir()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(r.out);
  using V = std::vector<std::string>;
  EXPECT_EQ(keys(doc), (V{"schema", "tool", "target", "range", "commits", "evaluated", "verified",
                          "tip", "oldest", "monotone", "applied_at_oldest",
                          "brought_in_by_oldest", "shallow", "first_applied",
                          "first_ever_applied", "events", "in", "exit_code"}));
  const V commit{"commit", "short", "subject", "date", "status"};
  EXPECT_EQ(keys(doc["tip"]), commit);
  EXPECT_EQ(keys(doc["oldest"]), commit);
  EXPECT_EQ(keys(doc["first_ever_applied"]), commit);
  EXPECT_EQ(doc["tip"]["short"], ids[5].substr(0, 12));
  ASSERT_EQ(doc["events"].size(), 2u);
  EXPECT_EQ(keys(doc["events"][0]), (V{"kind", "commit", "short", "subject", "date",
                                       "status_before", "status_after", "changes"}));
  EXPECT_EQ(keys(doc["events"][0]["changes"][0]), (V{"patch", "path", "hunk", "before", "after"}));
  EXPECT_EQ(doc["events"][0]["changes"][0]["hunk"], nullptr);  // the file's own status
  EXPECT_EQ(doc["events"][0]["changes"][1]["hunk"], 1);
  // "YYYY-MM-DD HH:MM:SS +ZZZZ"
  EXPECT_EQ(doc["events"][1]["date"].get<std::string>().size(), 25u);
  ASSERT_EQ(doc["in"].size(), 1u);
  EXPECT_EQ(keys(doc["in"][0]), (V{"ref", "commit", "applied", "status", "contains", "fix_commit",
                                   "reverted_by", "reason"}));
  EXPECT_EQ(keys(doc["in"][0]["reverted_by"]), (V{"commit", "short", "subject", "date", "kind"}));
}

/// path_history against `git ls-tree` at every commit: files, directories, absent paths, a
/// path under a file, mode changes, a file deleted and added back with the same content.
TEST(GitLog, PathHistoryMatchesLsTree) {
  Repo repo;
  std::vector<std::string> commits;
  repo.write("d/e/f.txt", "one\n");
  repo.write("d/e/g.txt", "g\n");
  commits.push_back(repo.commit("add"));
  repo.write("d/e/g.txt", "g2\n");  // a sibling changes: f.txt's subtree changes, f.txt not
  commits.push_back(repo.commit("sibling"));
  repo.write("top.txt", "t\n");  // only the root changes
  commits.push_back(repo.commit("root only"));
  repo.write("d/e/f.txt", "two\n");
  commits.push_back(repo.commit("modify"));
  std::filesystem::remove(repo.path("d/e/f.txt"));
  commits.push_back(repo.commit("delete"));
  repo.write("d/e/f.txt", "two\n");
  commits.push_back(repo.commit("add back"));
  std::filesystem::permissions(repo.path("d/e/f.txt"), std::filesystem::perms::owner_exec,
                               std::filesystem::perm_options::add);
  commits.push_back(repo.commit("mode"));
  commits.push_back(repo.commit("empty"));
  std::filesystem::remove_all(repo.path("d"));
  repo.write("d", "now a file\n");
  commits.push_back(repo.commit("directory replaced by a file"));
  const std::vector<std::string> paths{"d/e/f.txt", "d/e",         "d",
                                       "missing/x", "d/e/f.txt/x", "top.txt"};
  std::unique_ptr<GitRepository> g = GitRepository::open(repo.dir());
  std::vector<std::vector<PathChange>> history = g->path_history(commits, paths);
  ASSERT_EQ(history.size(), paths.size());
  for (std::size_t k = 0; k < paths.size(); ++k) {
    std::string previous;
    std::size_t next = 0;
    for (std::size_t i = 0; i < commits.size(); ++i) {
      // "MODE TYPE OID\tPATH" -> "OID:MODE" (mode without leading zeros, as libgit2 gives it).
      std::string ls = repo.git("ls-tree " + commits[i] + " -- " + paths[k]);
      std::string want = "-";
      std::size_t tab = ls.find('\t');
      if (tab != std::string::npos &&
          ls.compare(tab + 1, std::string::npos, paths[k] + "\n") == 0) {
        std::string mode = ls.substr(0, ls.find(' '));
        mode.erase(0, mode.find_first_not_of('0'));
        want = ls.substr(tab - 40, 40) + ":" + mode;
      }
      if (i == 0 || want != previous) {
        ASSERT_LT(next, history[k].size()) << paths[k] << " at " << i;
        EXPECT_EQ(history[k][next].commit, i) << paths[k];
        EXPECT_EQ(history[k][next].entry, want) << paths[k] << " at " << i;
        ++next;
      }
      previous = want;
    }
    EXPECT_EQ(next, history[k].size()) << paths[k];
  }
  EXPECT_EQ(history[0].size(), 6u);  // add, modify, delete, add back, mode, gone with d/
  EXPECT_EQ(g->state_key(commits[4], {"d/e/f.txt", "top.txt"}),
            "-;" + history[5].back().entry + ";");
}

/// libgit2's own apply on a revision tree: where it applies, sm120check says applicable.
TEST(GitCrossCheck, Libgit2ApplyAgrees) {
  Repo repo;
  std::string base_text = lines(1, 60);
  repo.write("a.txt", base_text);
  std::string base = repo.commit("base");
  // Variants of the base the patches are checked against: the base itself, lines inserted
  // above (offsets), a nearby edit (conflict for some patches), the end cut off.
  std::vector<std::string> targets{base};
  repo.write("a.txt", "top 1\ntop 2\n" + base_text);
  targets.push_back(repo.commit("shifted"));
  repo.write("a.txt", lines(1, 19) + "line 20 changed\n" + lines(21, 60));
  targets.push_back(repo.commit("edited"));
  repo.write("a.txt", lines(1, 40));
  targets.push_back(repo.commit("cut"));
  // Generated patches: replace, insert, delete at several places, made against the base.
  std::vector<std::string> patches;
  for (int at : {3, 20, 38, 55}) {
    for (int kind = 0; kind < 3; ++kind) {
      std::string text;
      for (int i = 1; i <= 60; ++i) {
        std::string l = "line " + std::to_string(i) + "\n";
        if (i == at && kind == 0) l = "line " + std::to_string(i) + " replaced\n";
        if (i == at && kind == 1) l += "inserted\n";
        if (i == at && kind == 2) l = "";
        text += l;
      }
      repo.git("checkout -q " + base);
      repo.write("a.txt", text);
      patches.push_back(repo.git("diff --full-index"));
      repo.git("checkout -q -- a.txt");
    }
  }
  const git::Libgit2& lib = git::libgit2();
  git_repository* raw_repo = nullptr;
  ASSERT_EQ(lib.git_repository_open_ext(&raw_repo, repo.dir().c_str(), 0, nullptr), 0);
  std::unique_ptr<GitRepository> g = GitRepository::open(repo.dir());
  int applies = 0, refused = 0, at_offset = 0;
  for (const std::string& patch_text : patches) {
    git_diff* diff = nullptr;
    ASSERT_EQ(lib.git_diff_from_buffer(&diff, patch_text.data(), patch_text.size()), 0);
    std::vector<Patch> parsed = parse_patches(patch_text, "gen.patch");
    for (const std::string& commit : targets) {
      git_object* obj = nullptr;
      ASSERT_EQ(lib.git_revparse_single(&obj, raw_repo, (commit + "^{tree}").c_str()), 0);
      git_apply_options opts = GIT_APPLY_OPTIONS_INIT;
      opts.flags = GIT_APPLY_CHECK;
      git_index* index = nullptr;
      int rc =
          lib.git_apply_to_tree(&index, raw_repo, reinterpret_cast<git_tree*>(obj), diff, &opts);
      if (index != nullptr) lib.git_index_free(index);
      lib.git_object_free(obj);
      PatchReport ours = verify(parsed, *g->tree(commit, "", commit), {}).patches.at(0);
      if (rc == 0) {
        ++applies;
        EXPECT_EQ(ours.status, Status::kApplicable) << commit << "\n" << patch_text;
      } else if (ours.status == Status::kApplicable) {
        // Deliberate difference: libgit2's apply only tries each hunk at the line its header
        // names; sm120check (like git apply and GNU patch) finds it at an offset and says so.
        ++at_offset;
        EXPECT_EQ(commit, targets[1]);
        EXPECT_EQ(ours.files.at(0).hunks.at(0).match.offset, 2) << patch_text;
      } else {
        ++refused;
      }
    }
    lib.git_diff_free(diff);
  }
  lib.git_repository_free(raw_repo);
  // base: all 12; edited: all but the 3 at line 20; cut: the 6 at lines 3 and 20.
  EXPECT_EQ(applies, 27);
  EXPECT_EQ(refused, 9);
  EXPECT_EQ(at_offset, 12);  // every patch on the shifted target
}

}  // namespace
}  // namespace sm120check

// ---------------------------------------------------------------------------------------------
// Blob ids from the index (index_blob_ids): what verify uses instead of hashing a file git
// hashed and that has not changed since.

namespace sm120check {
namespace {

/// Sets the modification time of `path` to `sec`.`nsec` (utimensat(2)), its access time too.
void set_mtime(const std::string& path, std::int64_t sec, long nsec) {
  const struct timespec times[2] = {{sec, nsec}, {sec, nsec}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

constexpr std::int64_t k2020 = 1577836800;  // 2020-01-01, before any index written here
constexpr std::int64_t k2030 = 1893456000;  // 2030-01-01, after

struct stat stat_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st;
}

/// FactsRepo with the mtimes of a.txt and dir/b.py set in the past and their entries
/// refreshed: not racily clean (written before the index).
struct IdsRepo : FactsRepo {
  IdsRepo() {
    set_mtime(repo.path("a.txt"), k2020, 0);
    set_mtime(repo.path("dir/b.py"), k2020, 0);
    repo.git("add a.txt dir/b.py");
  }
};

TEST(IndexBlobIds, ACleanFileHasItsIndexIdAChangedOneNone) {
  IdsRepo f;
  std::shared_ptr<const KnownBlobIds> ids =
      index_blob_ids(f.repo.dir(), "", {"a.txt", "dir/b.py", "missing.txt"});
  ASSERT_TRUE(ids);
  EXPECT_EQ(ids->id("a.txt", stat_of(f.repo.path("a.txt"))), git_blob_id(lines(1, 30)));
  EXPECT_EQ(ids->id("missing.txt", stat_of(f.repo.path("a.txt"))), "");
  // Other stat data (here the size) than the entry's: not vouched for.
  f.repo.write("dir/b.py", lines(1, 11, "b"));
  EXPECT_EQ(ids->id("dir/b.py", stat_of(f.repo.path("dir/b.py"))), "");
  // A subfolder as TARGET: paths relative to it.
  std::shared_ptr<const KnownBlobIds> sub = index_blob_ids(f.repo.dir(), "dir/", {"b.py"});
  ASSERT_TRUE(sub);
  EXPECT_EQ(sub->id("b.py", stat_of(f.repo.path("dir/b.py"))), "");  // changed above
}

TEST(IndexBlobIds, RacilyCleanAttributesAndFlaggedEntriesGiveNone) {
  {
    IsolatedConfig config;
    Repo repo;  // the file's mtime after the index's: racily clean
    repo.write("a.txt", lines(1, 30));
    set_mtime(repo.path("a.txt"), k2030, 0);
    repo.git("add a.txt");
    EXPECT_FALSE(index_blob_ids(repo.dir(), "", {"a.txt"}));
  }
  {
    IdsRepo f;  // end-of-line rules may make the blob differ from the bytes
    f.repo.write(".gitattributes", "*.txt text eol=crlf\n");
    EXPECT_FALSE(index_blob_ids(f.repo.dir(), "", {"a.txt"}));
  }
  {
    IdsRepo f;  // assume-unchanged: git trusts the flag, not the stat data
    f.repo.git("update-index --assume-unchanged a.txt");
    EXPECT_FALSE(index_blob_ids(f.repo.dir(), "", {"a.txt"}));
  }
}

TEST(IndexBlobIds, ASameSizeRewriteWithItsMtimeRestoredIsHashedNotTakenFromTheIndex) {
  // The index holds the fixed file's id, which is the patch's post-image id; the file is then
  // put back to its old content, same size, its mtime set back: only its ctime tells, and the
  // verdict must come from the bytes (applicable), never from the index id (applied).
  IsolatedConfig config;
  Repo repo;
  repo.write("a.txt", lines(1, 14) + "line 15 aaaaa\n" + lines(16, 30));
  const std::string base = repo.commit("base");
  repo.write("a.txt", lines(1, 14) + "line 15 fixed\n" + lines(16, 30));
  const std::string fix = repo.commit("fix");
  repo.diff(base, fix);
  set_mtime(repo.path("a.txt"), k2020, 0);  // before the index: not racily clean
  repo.git("add a.txt");
  {
    RunResult r = test::run_sm120check({"verify", "--no-gpu", repo.patch_file(), repo.dir()});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;  // the index vouches: applied, by its id
    EXPECT_NE(r.out.find("blob id matches the post-image"), std::string::npos) << r.out;
  }
  const struct stat before = stat_of(repo.path("a.txt"));
  repo.write("a.txt", lines(1, 14) + "line 15 aaaaa\n" + lines(16, 30));
  set_mtime(repo.path("a.txt"), before.st_mtim.tv_sec, before.st_mtim.tv_nsec);
  const struct stat after = stat_of(repo.path("a.txt"));
  ASSERT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  ASSERT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  ASSERT_EQ(after.st_size, before.st_size);
  ASSERT_EQ(after.st_ino, before.st_ino);
  RunResult r = test::run_sm120check({"verify", "--no-gpu", repo.patch_file(), repo.dir()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("blob id matches the pre-image"), std::string::npos) << r.out;
}

/// Replaces, in `repo`'s index, the object id `from` (40 hex digits) by `to` and rewrites the
/// index's trailing SHA-1: an index whose entry keeps the file's current stat data but names
/// another blob (stale, or crafted).
void swap_index_id(const Repo& repo, const std::string& from, const std::string& to) {
  const std::string path = repo.path(".git/index");
  std::ifstream in(path, std::ios::binary);
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 40u);
  const auto raw = [](const std::string& hex) {
    std::vector<unsigned char> out;
    for (std::size_t i = 0; i < 40; i += 2)
      out.push_back(static_cast<unsigned char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    return out;
  };
  const std::vector<unsigned char> a = raw(from), b = raw(to);
  auto at = std::search(bytes.begin(), bytes.end(), a.begin(), a.end());
  ASSERT_NE(at, bytes.end());
  std::copy(b.begin(), b.end(), at);
  sha1_ctx ctx;
  sha1_init(&ctx);
  sha1_update(&ctx, bytes.size() - 20, bytes.data());
  sha1_digest(&ctx, 20, bytes.data() + bytes.size() - 20);
  test::write_file(path, std::string(bytes.begin(), bytes.end()));
}

TEST(IndexBlobIds, AStaleIdWithCurrentStatDataNeverTurnsTheVerdict) {
  // a.txt holds the hunk's pre-image at line 6 and its post-image, away from its expected
  // line, at line 33; it is at the pre-image. The index entry, with the file's current stat data, names
  // the post-image's blob: the id preferred the post-image's placement and the file read
  // "conflict" (exit 2). The id is hashed again when a verdict is conflict: applicable, as
  // without the index.
  IsolatedConfig config;
  Repo repo;
  const std::string pre = "p\nq\nr\nx = 1\ns\nt\nu\n", post = "p\nq\nr\nx = 2\ns\nt\nu\n";
  repo.write("a.txt", lines(1, 5) + pre + lines(6, 25) + post + lines(26, 40));
  const std::string base = repo.commit("base");
  repo.write("a.txt", lines(1, 5) + post + lines(6, 25) + post + lines(26, 40));
  const std::string fix = repo.commit("fix");
  repo.diff(base, fix);
  repo.git("checkout -q " + base + " -- a.txt");
  set_mtime(repo.path("a.txt"), k2020, 0);  // before the index: not racily clean
  repo.git("add a.txt");
  const std::string old_id = repo.git("rev-parse " + base + ":a.txt").substr(0, 40);
  const std::string new_id = repo.git("rev-parse " + fix + ":a.txt").substr(0, 40);
  swap_index_id(repo, old_id, new_id);
  ASSERT_EQ(repo.git("ls-files -s a.txt").substr(7, 40), new_id);
  std::shared_ptr<const KnownBlobIds> ids = index_blob_ids(repo.dir(), "", {"a.txt"});
  ASSERT_TRUE(ids);
  ASSERT_EQ(ids->id("a.txt", stat_of(repo.path("a.txt"))), new_id);  // vouched for
  RunResult r = test::run_sm120check({"verify", "--no-gpu", repo.patch_file(), repo.dir()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("applicable (blob id matches the pre-image)\n      hunk 1 @@ -6,7 +6,7 @@  "
                       "applicable at line 6 (both images match; chose applicable)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("conflict"), std::string::npos) << r.out;
}


// ---------------------------------------------------------------------------------------------
// CRLF checkouts: `git apply` reads a work tree file through convert_to_git(), so a file that
// core.autocrlf or an eol=crlf attribute checks out with CRLF takes an LF patch. verify reads it
// the same way (hostile review hr25: these read conflict, exit 2). Ground truth: git apply.

/// A repository whose a.txt (LF in the repository) is checked out again under `setup` (git
/// commands run first, e.g. a config or an attribute), at the base and at the fix.
struct CrlfRepo {
  Repo repo;
  std::string base, fix;
  explicit CrlfRepo(const std::string& setup) {
    repo.write("a.txt", lines(1, 30));
    base = repo.commit("base");
    repo.write("a.txt", lines(1, 14) + "line 15 fixed\n" + lines(16, 30));
    fix = repo.commit("fix");
    repo.diff(base, fix);
    repo.git(setup);
    checkout(base);
  }
  /// Checks `rev` out with a fresh a.txt, so that the current conversion writes it.
  void checkout(const std::string& rev) {
    repo.git("checkout -q -f " + rev + " 2>/dev/null && rm -f a.txt && git checkout -q -- a.txt");
  }
  /// Whether `git apply ARGS --check` accepts the patch in the work tree.
  bool git_accepts(const std::string& args) {
    return repo.git("apply " + args + " --check '" + repo.patch_file() + "' 2>/dev/null && echo yes || echo no") == "yes\n";
  }
  std::string work_tree_bytes() { return test::read_file(repo.path("a.txt")); }
};

/// `text` with every "\n" made "\r\n".
std::string crlf_of(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    if (ch == '\n') out += '\r';
    out += ch;
  }
  return out;
}

void expect_crlf_verdicts(CrlfRepo& c) {
  ASSERT_NE(c.work_tree_bytes().find("\r\n"), std::string::npos) << "the checkout is not CRLF";
  ASSERT_TRUE(c.git_accepts(""));
  json at_base = run_json({"verify", "--format", "json", c.repo.patch_file(), c.repo.dir()}, 1);
  EXPECT_EQ(at_base["patches"][0]["files"][0]["status"], "applicable") << at_base.dump();
  // apply writes the fix in the work tree's form (CRLF), as git apply would; verify then
  // reads it applied.
  const RunResult applied = test::run_sm120check({"apply", c.repo.patch_file(), c.repo.dir()});
  EXPECT_EQ(applied.exit_code, 0) << applied.out << applied.err;
  EXPECT_EQ(c.work_tree_bytes(), crlf_of(lines(1, 14) + "line 15 fixed\n" + lines(16, 30)));
  EXPECT_TRUE(c.git_accepts("-R"));
  run_json({"verify", "--format", "json", c.repo.patch_file(), c.repo.dir()}, 0);
  c.checkout(c.fix);
  ASSERT_NE(c.work_tree_bytes().find("\r\n"), std::string::npos);
  ASSERT_TRUE(c.git_accepts("-R"));
  json at_fix = run_json({"verify", "--format", "json", c.repo.patch_file(), c.repo.dir()}, 0);
  EXPECT_EQ(at_fix["patches"][0]["files"][0]["status"], "applied") << at_fix.dump();
  // The work tree is read, never written: still CRLF.
  EXPECT_NE(c.work_tree_bytes().find("\r\n"), std::string::npos);
}

TEST(CrlfWorkTree, AutocrlfCheckoutTakesAnLfPatchAsGitApplyDoes) {
  CrlfRepo c("config core.autocrlf true");
  expect_crlf_verdicts(c);
}

TEST(CrlfWorkTree, EolCrlfAttributeTakesAnLfPatchAsGitApplyDoes) {
  CrlfRepo c("config core.autocrlf false && printf '*.txt eol=crlf\\n' > .git/info/attributes");
  expect_crlf_verdicts(c);
}

TEST(CrlfWorkTree, ApplyWritesTheBytesGitApplyWrites) {
  // A modified file and a new one, under core.autocrlf and under an eol=crlf attribute: apply's
  // bytes equal those git apply writes in a copy of the same work tree.
  for (const char* how :
       {"config core.autocrlf true",
        "config core.autocrlf false && printf '*.txt eol=crlf\\n' > .git/info/attributes"}) {
    const std::string setup = how;
    Repo repo;
    repo.write("a.txt", lines(1, 30));
    const std::string base = repo.commit("base");
    repo.write("a.txt", lines(1, 14) + "line 15 fixed\n" + lines(16, 30));
    repo.write("new.txt", "one\ntwo\n");
    const std::string fix = repo.commit("fix");
    repo.diff(base, fix);
    repo.git(setup + " && git checkout -q -f " + base +
             " 2>/dev/null && rm a.txt && git checkout -q -- a.txt");
    ASSERT_NE(test::read_file(repo.path("a.txt")).find("\r\n"), std::string::npos) << setup;
    // (Repo::git() runs "git ARGS": a git command first.)
    repo.git("--version >/dev/null && cp -a . ../copy && cd ../copy && git apply '" +
             repo.patch_file() + "'");
    const RunResult r = test::run_sm120check({"apply", repo.patch_file(), repo.dir()});
    EXPECT_EQ(r.exit_code, 0) << setup << r.out << r.err;
    for (const std::string& name : std::vector<std::string>{"a.txt", "new.txt"})
      EXPECT_EQ(test::read_file(repo.path(name)), test::read_file(repo.dir() + "/../copy/" + name))
          << setup << " " << name;
    EXPECT_EQ(test::read_file(repo.path("new.txt")), "one\r\ntwo\r\n") << setup;
  }
}

// Hostile review hr26: a deletion and a rename in a CRLF work tree stopped apply with a false
// "changed while apply ran" (its check compared the bytes on disk with the converted ones), and
// an LF file in a work tree whose form is CRLF came out LF where git apply writes CRLF.
TEST(CrlfWorkTree, ApplyDeletesRenamesAndRewritesAsGitApplyDoes) {
  Repo repo;
  repo.write("a.txt", lines(1, 30));
  repo.write("del.txt", lines(1, 5, "gone"));
  repo.write("old.txt", lines(1, 12, "moved"));
  const std::string base = repo.commit("base");
  repo.git("rm -q del.txt && git mv old.txt renamed.txt");
  repo.write("a.txt", lines(1, 14) + "line 15 fixed\n" + lines(16, 30));
  const std::string fix = repo.commit("fix");
  repo.git("diff -M --binary --full-index " + base + " " + fix + " > '" + repo.patch_file() + "'");
  // del.txt and old.txt checked out CRLF; a.txt left LF on disk (autocrlf set after checkout).
  repo.git("checkout -q -f " + base + " 2>/dev/null && git config core.autocrlf true && rm del.txt "
           "old.txt && git checkout -q -- del.txt old.txt");
  ASSERT_NE(test::read_file(repo.path("del.txt")).find("\r\n"), std::string::npos);
  ASSERT_EQ(test::read_file(repo.path("a.txt")).find("\r\n"), std::string::npos);
  repo.git("--version >/dev/null && cp -a . ../copy && cd ../copy && git apply '" +
           repo.patch_file() + "'");
  const RunResult r = test::run_sm120check({"apply", repo.patch_file(), repo.dir()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_FALSE(std::filesystem::exists(repo.path("del.txt")));
  EXPECT_FALSE(std::filesystem::exists(repo.path("old.txt")));
  for (const std::string& name : std::vector<std::string>{"a.txt", "renamed.txt"})
    EXPECT_EQ(test::read_file(repo.path(name)), test::read_file(repo.dir() + "/../copy/" + name))
        << name;
}

TEST(CrlfWorkTree, TargetInASubfolderUsesTheRepositoryPath) {
  Repo repo;
  repo.write("sub/a.txt", lines(1, 30));
  const std::string base = repo.commit("base");
  repo.write("sub/a.txt", lines(1, 14) + "line 15 fixed\n" + lines(16, 30));
  const std::string fix = repo.commit("fix");
  // A patch made inside the subfolder: its paths are relative to it.
  repo.git("diff --relative=sub " + base + " " + fix + " > '" + repo.patch_file() + "'");
  repo.git("checkout -q " + base + " 2>/dev/null && printf 'sub/*.txt eol=crlf\\n' > .git/info/attributes && rm sub/a.txt && git checkout -q -- sub/a.txt");
  ASSERT_NE(test::read_file(repo.path("sub/a.txt")).find("\r\n"), std::string::npos);
  json doc = run_json({"verify", "--format", "json", repo.patch_file(), repo.path("sub")}, 1);
  EXPECT_EQ(doc["patches"][0]["files"][0]["status"], "applicable") << doc.dump();
}

TEST(CrlfWorkTree, WithoutAConversionACrlfFileStaysAConflictLikeGitApply) {
  // No autocrlf, no attribute: git apply compares the CRLF bytes and refuses the LF patch, and
  // so does verify (with the line-ending diagnostic); --no-repo never converts either.
  CrlfRepo c("config core.autocrlf false");
  test::write_file(c.repo.path("a.txt"), crlf_of(c.work_tree_bytes()));
  ASSERT_FALSE(c.git_accepts(""));
  json doc = run_json({"verify", "--format", "json", c.repo.patch_file(), c.repo.dir()}, 2);
  EXPECT_EQ(doc["patches"][0]["files"][0]["status"], "conflict") << doc.dump();
  EXPECT_NE(doc.dump().find("line-ending-mismatch"), std::string::npos) << doc.dump();
  CrlfRepo d("config core.autocrlf true");
  json no_repo = run_json({"verify", "--format", "json", "--no-repo", d.repo.patch_file(), d.repo.dir()}, 2);
  EXPECT_EQ(no_repo["patches"][0]["files"][0]["status"], "conflict") << no_repo.dump();
}

TEST(CrlfWorkTree, APatchWithCrlfPreImageLinesIsComparedAsRead) {
  // A file committed with CRLF and a patch of CRLF lines (git apply: CONV_EOL_KEEP_CRLF): no
  // conversion, under autocrlf too.
  Repo repo;
  auto crlf_lines = [](int from, int to) {
    std::string out;
    for (int i = from; i <= to; ++i) out += "line " + std::to_string(i) + "\r\n";
    return out;
  };
  repo.write("a.txt", crlf_lines(1, 30));
  const std::string base = repo.commit("base");
  repo.write("a.txt", crlf_lines(1, 14) + "line 15 fixed\r\n" + crlf_lines(16, 30));
  const std::string fix = repo.commit("fix");
  repo.diff(base, fix);
  repo.git("config core.autocrlf true && git checkout -q " + base + " 2>/dev/null");
  json doc = run_json({"verify", "--format", "json", repo.patch_file(), repo.dir()}, 1);
  EXPECT_EQ(doc["patches"][0]["files"][0]["status"], "applicable") << doc.dump();
}

}  // namespace
}  // namespace sm120check
