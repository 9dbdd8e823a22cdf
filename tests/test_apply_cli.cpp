// End-to-end tests of `sm120check apply`: writes what is missing, twice is once, all or nothing,
// --dry-run, --reverse, --backup, refusals and exit codes (README, "apply").
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace sm120check {
namespace {

namespace fs = std::filesystem;
using test::read_file;
using test::run_sm120check;
using test::RunResult;
using test::TempDir;
using test::write_file;

const std::string kBefore = "def tile(cc):\n    return 128\n# end\n";
const std::string kAfter = "def tile(cc):\n    if cc == 12:\n        return 64\n    return 128\n# end\n";
const std::string kPatch1 =
    "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
    "Subject: [PATCH 1/2] add SM120 branch\n\n---\n"
    "diff --git a/k.py b/k.py\n--- a/k.py\n+++ b/k.py\n"
    "@@ -1,3 +1,5 @@\n def tile(cc):\n+    if cc == 12:\n+        return 64\n     return 128\n # end\n";
const std::string kPatch2 =
    "From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\n"
    "Subject: [PATCH 2/2] tune SM120 tile\n\n---\n"
    "diff --git a/k.py b/k.py\n--- a/k.py\n+++ b/k.py\n"
    "@@ -1,5 +1,5 @@\n def tile(cc):\n     if cc == 12:\n-        return 64\n+        return 48\n"
    "     return 128\n # end\n";
const std::string kTuned = "def tile(cc):\n    if cc == 12:\n        return 48\n    return 128\n# end\n";

struct ApplyFixture {
  TempDir dir;
  std::string tree = dir / "tree";
  std::string p1 = dir / "0001.patch";
  std::string p2 = dir / "0002.patch";
  ApplyFixture(const std::string& content) {
    write_file(dir.path() / "tree" / "k.py", content);
    write_file(p1, kPatch1);
    write_file(p2, kPatch2);
  }
  std::string k() const { return read_file(fs::path(tree) / "k.py"); }
};

TEST(ApplyCli, AppliesASeriesAndTwiceIsOnce) {
  ApplyFixture s(kBefore);
  RunResult r = run_sm120check({"apply", s.p1, s.p2, s.tree});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(s.k(), kTuned);
  EXPECT_NE(r.out.find("changed 1 file:"), std::string::npos) << r.out;
  RunResult again = run_sm120check({"apply", s.p1, s.p2, s.tree});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("nothing to do"), std::string::npos) << again.out;
  EXPECT_EQ(s.k(), kTuned);
}

// A mode is read as git reads it: executable when the owner's execute bit is set (100755 when
// set, 100644 otherwise). fuzz_apply (H200 run) found an index line "index 1111111..2222222
// 100643" (other-execute only): it read as executable, the first apply wrote the content and
// the second the mode. Now one apply does it all, the file stays a plain file, and a second
// apply has nothing to do.
TEST(ApplyCli, AModeWithoutTheOwnersExecuteBitIsAPlainFilesAndTwiceIsOnce) {
  TempDir dir;
  write_file(dir.path() / "tree" / "b", "b\nkeep\n");
  write_file(dir.path() / "p.patch",
             "diff --git a/b b/b\nindex 1111111..2222222 100643\n--- a/b\n+++ b/b\n"
             "@@ -1,2 +1,2 @@\n-b\n+B\n keep\n");
  const std::vector<std::string> args = {"apply", dir / "p.patch", dir / "tree"};
  RunResult r = run_sm120check(args);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(read_file(dir.path() / "tree" / "b"), "B\nkeep\n");
  struct stat st {};
  ASSERT_EQ(::stat((dir.path() / "tree" / "b").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0111, 0u);
  RunResult again = run_sm120check(args);
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("nothing to do"), std::string::npos) << again.out;
}

TEST(ApplyCli, AGitBinaryPatchIsABlockerThatSaysSo) {
  // A file added by a "GIT binary patch" (a fresh user's case): apply writes nothing and says
  // it does not decode binary patches, not that the content is missing from the patch.
  test::TempDir t;
  test::write_file(t / "tree/a.txt", "a\n");
  test::write_file(t / "bin.patch",
                   "diff --git a/a.png b/a.png\n"
                   "new file mode 100644\n"
                   "index 0000000000000000000000000000000000000000..4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
                   "GIT binary patch\n"
                   "literal 3\n"
                   "Kc${NkU;qFB0RR91\n"
                   "\n"
                   "literal 0\n"
                   "HcmV?d00001\n"
                   "\n");
  RunResult r = run_sm120check({"apply", t / "bin.patch", t / "tree"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("git binary patch is not supported yet"), std::string::npos)
      << r.out << r.err;
  EXPECT_FALSE(std::filesystem::exists(t / "tree/a.png"));
}

TEST(ApplyCli, PutsInOnlyWhatIsMissing) {
  ApplyFixture s(kAfter);  // patch 1 is in
  RunResult r = run_sm120check({"apply", s.p1, s.p2, s.tree});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("add SM120 branch: already applied"), std::string::npos) << r.out;
  EXPECT_EQ(s.k(), kTuned);
}

TEST(ApplyCli, ReverseTakesTheSeriesOut) {
  ApplyFixture s(kTuned);
  RunResult r = run_sm120check({"apply", "--reverse", s.p1, s.p2, s.tree});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(s.k(), kBefore);
  EXPECT_EQ(run_sm120check({"apply", "-R", s.p1, s.p2, s.tree}).exit_code, 0);
  EXPECT_EQ(s.k(), kBefore);
}

TEST(ApplyCli, DryRunPrintsADiffGitAcceptsAndWritesNothing) {
  ApplyFixture s(kBefore);
  RunResult r = run_sm120check({"apply", "--dry-run", s.p1, s.p2, s.tree});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(s.k(), kBefore);
  EXPECT_NE(r.out.find("--- a/k.py\n+++ b/k.py\n"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("would change 1 file"), std::string::npos) << r.err;
  // The diff takes the tree to the result.
  write_file(s.dir / "dry.diff", r.out);
  RunResult git = test::run_shell("git apply " + s.dir / "dry.diff", s.tree);
  EXPECT_EQ(git.exit_code, 0) << git.err;
  EXPECT_EQ(s.k(), kTuned);
}

// A result that a second `apply` would refuse is not written (plan_apply's stability rule): the
// tree apply leaves must read applied. A zero-context insertion past the end of a shorter file
// is put at its end (as git apply and GNU patch do), where a second run looks for it at its
// header line only; an added line with a NUL byte makes the file binary for a second run.
TEST(ApplyCli, AResultASecondApplyWouldRefuseIsNotWritten) {
  struct Case {
    const char* name;
    std::string patch;
  };
  const std::vector<Case> cases = {
      {"past-end", "--- a/x.txt\n+++ b/x.txt\n@@ -3,0 +4 @@\n+line\n"},
      {"nul-byte", std::string("--- a/x.txt\n+++ b/x.txt\n@@ -0,0 +1 @@\n+li") + '\0' + "ne\n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    write_file(dir.path() / "tree" / "x.txt", "");
    write_file(dir / "p.patch", c.patch);
    const auto before = test::tree_state(dir.path() / "tree");
    RunResult r = run_sm120check({"apply", dir / "p.patch", dir / "tree"});
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.out.find("the result would not be stable: apply run again on it would refuse it"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(test::tree_state(dir.path() / "tree"), before);
  }
}

// A patch in the tree only through drifted context cannot be taken out (its place is not
// certain): its own line says so, not "would take out" beside the blocker.
TEST(ApplyCli, ReverseOfADriftedPatchSaysItCannotBeTakenOut) {
  TempDir dir;
  write_file(dir.path() / "tree" / "x.txt", "a\nNEW\nB\nc\nd\n");
  write_file(dir / "p.patch", "--- a/x.txt\n+++ b/x.txt\n@@ -1,3 +1,4 @@\n a\n+NEW\n b\n c\n");
  const auto before = test::tree_state(dir.path() / "tree");
  RunResult r = run_sm120check({"apply", "--reverse", dir / "p.patch", dir / "tree"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("p.patch: cannot be taken out (below)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("would take out"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("drifted: not taken out mechanically"), std::string::npos) << r.out;
  EXPECT_EQ(test::tree_state(dir.path() / "tree"), before);
}

TEST(ApplyCli, AConflictWritesNothing) {
  // Patch 2 conflicts; patch 1 alone would apply to another file: nothing may be written.
  ApplyFixture s(kBefore);
  write_file(fs::path(s.tree) / "k.py", "def tile(cc):\n    return 256\n# end\n");
  write_file(fs::path(s.tree) / "other.py", "a\nb\nc\n");
  write_file(s.dir / "0000.patch",
             "diff --git a/other.py b/other.py\n--- a/other.py\n+++ b/other.py\n"
             "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
  RunResult r = run_sm120check({"apply", s.dir / "0000.patch", s.p1, s.tree});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("nothing written"), std::string::npos) << r.out;
  // The blocker names the patch, the file and the hunk, and says why in words.
  EXPECT_NE(r.out.find("patch 2 (add SM120 branch): k.py: conflict: hunk 1 (@@ -1,3 +1,5 @@)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(read_file(fs::path(s.tree) / "other.py"), "a\nb\nc\n");
  EXPECT_EQ(s.k(), "def tile(cc):\n    return 256\n# end\n");
}

TEST(ApplyCli, BackupKeepsTheOldBytesAndModeIsKept) {
  ApplyFixture s(kBefore);
  ASSERT_EQ(::chmod((fs::path(s.tree) / "k.py").c_str(), 0755), 0);
  RunResult r = run_sm120check({"apply", "--backup", s.p1, s.tree});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(s.k(), kAfter);
  EXPECT_EQ(read_file(fs::path(s.tree) / "k.py.orig"), kBefore);
  struct stat st {};
  ASSERT_EQ(::stat((fs::path(s.tree) / "k.py").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
}

TEST(ApplyCli, RefusesRevisionsAndSymlinks) {
  ApplyFixture s(kBefore);
  RunResult rev = run_sm120check({"apply", "--rev", "HEAD", s.p1, s.tree});
  EXPECT_EQ(rev.exit_code, 3);
  EXPECT_NE(rev.err.find("--rev is refused"), std::string::npos) << rev.err;
  // k.py a symlink to a file outside the tree: never written through.
  write_file(s.dir / "outside.py", kBefore);
  fs::remove(fs::path(s.tree) / "k.py");
  fs::create_symlink(s.dir / "outside.py", fs::path(s.tree) / "k.py");
  RunResult r = run_sm120check({"apply", s.p1, s.tree});
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_EQ(read_file(s.dir / "outside.py"), kBefore);
}

TEST(ApplyCli, JsonReport) {
  ApplyFixture s(kBefore);
  RunResult r = run_sm120check({"apply", "--format", "json", "--dry-run", s.p1, s.p2, s.tree});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema"], "sm120check.apply/1");
  // The same tool object as every other document (was missing).
  EXPECT_EQ(doc["tool"]["name"], "sm120check");
  EXPECT_EQ(doc["tool"]["version"], SM120CHECK_VERSION);
  EXPECT_TRUE(doc["tool"].contains("commit") && doc["tool"].contains("dirty")) << doc["tool"];
  EXPECT_EQ(doc["direction"], "forward");
  EXPECT_EQ(doc["changes"].size(), 1u);
  EXPECT_EQ(doc["changes"][0]["path"], "k.py");
  EXPECT_EQ(doc["changes"][0]["action"], "write");
  EXPECT_TRUE(doc["blockers"].empty());
  EXPECT_EQ(doc["exit_code"], 1);
  EXPECT_EQ(doc["verify"]["patches"][1]["depends_on"], nlohmann::json::array({1}));
  EXPECT_EQ(s.k(), kBefore);
}

TEST(ApplyCli, VerifyOfASeriesNamesTheDependency) {
  ApplyFixture s(kBefore);
  RunResult r = run_sm120check({"verify", "--no-gpu", "--no-repo", s.p1, s.p2, s.tree});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("series: applicable once patch 1 is applied"), std::string::npos) << r.out;
  RunResult alone =
      run_sm120check({"verify", "--no-gpu", "--no-repo", "--independent", s.p1, s.p2, s.tree});
  EXPECT_EQ(alone.exit_code, 2) << alone.out;  // patch 2 alone conflicts in this tree
}

// Hostile review: apply writes only the paths a patch names unless asked to relocate.
TEST(ApplyCli, RelocationIsOptIn) {
  ApplyFixture s(kBefore);
  fs::create_directories(fs::path(s.tree) / "vendored");
  fs::rename(fs::path(s.tree) / "k.py", fs::path(s.tree) / "vendored" / "k.py");
  RunResult r = run_sm120check({"apply", s.p1, s.tree});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(read_file(fs::path(s.tree) / "vendored" / "k.py"), kBefore);
  RunResult moved = run_sm120check({"apply", "--relocate", s.p1, s.tree});
  EXPECT_EQ(moved.exit_code, 0) << moved.out << moved.err;
  EXPECT_EQ(read_file(fs::path(s.tree) / "vendored" / "k.py"), kAfter);
}

// apply accepted --no-gpu "for symmetry with verify" but refused verify's --cc ("The following
// argument was not expected: --cc"), so a script passing the same options to both failed on
// apply. Both are now accepted as verify takes them: --cc checked, the two exclusive.
TEST(ApplyCli, TakesVerifysGpuOptions) {
  ApplyFixture s(kBefore);
  RunResult r = run_sm120check({"apply", "--cc", "12.0", "--dry-run", s.p1, s.tree});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // would change k.py
  EXPECT_EQ(r.err.find("error"), std::string::npos) << r.err;
  r = run_sm120check({"apply", "--cc", "12.x", "--dry-run", s.p1, s.tree});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("--cc: bad compute capability '12.x'"), std::string::npos) << r.err;
  r = run_sm120check({"apply", "--cc", "12.0", "--no-gpu", "--dry-run", s.p1, s.tree});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("--cc excludes --no-gpu"), std::string::npos) << r.err;
  r = run_sm120check({"apply", "--cc", "sm_120", s.p1, s.tree});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(s.k(), kAfter);
}

}  // namespace
}  // namespace sm120check
