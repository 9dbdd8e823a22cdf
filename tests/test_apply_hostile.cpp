// Hostile review of `apply` and series `verify`: each test is a reproduction of a finding (a
// wrong result, a write where none may be, data lost), kept as a regression test.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "sm120check/error.hpp"
#include "sm120check/patch.hpp"
#include "sm120check/tree.hpp"
#include "sm120check/verify.hpp"
#include "sm120check/write.hpp"
#include "test_util.hpp"

namespace sm120check {
namespace {

namespace fs = std::filesystem;
using test::read_file;
using test::run_sm120check;
using test::TempDir;
using test::write_file;

/// The first `digits` hex digits of git's blob id of `content`.
std::string blob(std::string_view content, std::size_t digits = 7) {
  return git_blob_id(content).substr(0, digits);
}

// A pure copy (100% similarity: no hunks, no index line) carries no content: "applied" only
// when the copy holds what the source holds. Before the fix an unrelated c.txt read as the
// copy made, and `apply -R` deleted it.
TEST(ApplyHostile, ReverseOfPureCopyKeepsAnUnrelatedFile) {
  TempDir dir;
  write_file(dir / "t/a.txt", "l1\nl2\n");
  write_file(dir / "t/c.txt", "precious, unrelated\n");
  write_file(dir / "cp.patch",
             "diff --git a/a.txt b/c.txt\nsimilarity index 100%\ncopy from a.txt\ncopy to c.txt\n");
  const test::RunResult verify =
      run_sm120check({"verify", "--no-gpu", dir / "cp.patch", dir / "t"});
  EXPECT_EQ(verify.exit_code, 2) << verify.out;
  const test::RunResult apply = run_sm120check({"apply", "-R", dir / "cp.patch", dir / "t"});
  EXPECT_EQ(apply.exit_code, 2) << apply.out << apply.err;
  ASSERT_TRUE(fs::exists(dir / "t/c.txt"));
  EXPECT_EQ(read_file(dir / "t/c.txt"), "precious, unrelated\n");
  // The same for a pure rename whose destination holds something else: not made.
  write_file(dir / "mv.patch", "diff --git a/a.txt b/c.txt\nsimilarity index 100%\n"
                               "rename from a.txt\nrename to c.txt\n");
  EXPECT_EQ(run_sm120check({"verify", "--no-gpu", dir / "mv.patch", dir / "t"}).exit_code, 2);
  // A copy that is made (same bytes) still reads applied, and -R takes it out.
  write_file(dir / "t/c.txt", "l1\nl2\n");
  EXPECT_EQ(run_sm120check({"verify", "--no-gpu", dir / "cp.patch", dir / "t"}).exit_code, 0);
  EXPECT_EQ(run_sm120check({"apply", "-R", dir / "cp.patch", dir / "t"}).exit_code, 0);
  EXPECT_FALSE(fs::exists(dir / "t/c.txt"));
  EXPECT_EQ(read_file(dir / "t/a.txt"), "l1\nl2\n");
}

// A hunk both of whose images match (inserting a line equal to its context) is decided by the
// index line's blob ids in verify; apply must decide it the same way. Before the fix verify read
// the file as the pre-image (applicable) while apply's own matching took the hunk as applied:
// "applied", exit 0, and nothing written, on every run.
TEST(ApplyHostile, BlobIdDecidesAnInsertionOfADuplicateLine) {
  TempDir dir;
  const std::string before = "p\nq\nc\nc\nz\n";
  const std::string after = "p\nq\nc\nc\nc\nz\n";  // what git apply writes
  write_file(dir / "t/f", before);
  write_file(dir / "p.patch", "diff --git a/f b/f\nindex " + blob(before) + ".." + blob(after) +
                                  " 100644\n--- a/f\n+++ b/f\n@@ -3,2 +3,3 @@\n c\n+c\n z\n");
  const test::RunResult apply = run_sm120check({"apply", dir / "p.patch", dir / "t"});
  EXPECT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  EXPECT_EQ(read_file(dir / "t/f"), after);
  // Twice is once; and -R gives the original bytes back.
  EXPECT_EQ(run_sm120check({"apply", dir / "p.patch", dir / "t"}).exit_code, 0);
  EXPECT_EQ(read_file(dir / "t/f"), after);
  EXPECT_EQ(run_sm120check({"apply", "-R", dir / "p.patch", dir / "t"}).exit_code, 0);
  EXPECT_EQ(read_file(dir / "t/f"), before);
}

// A kill while `apply` writes a rename: the file must stay whole under one of its names. Before
// the fix the plan listed `delete a.txt` before `write z.txt` (sorted by path), so a kill between
// the two lost the file (only a temporary held the content).
TEST(ApplyHostile, KillDuringARenameKeepsTheFile) {
  TempDir dir;
  write_file(dir / "t/a.txt", "l1\nl2\nl3\nl4\nl5\n");
  const std::string diff =
      "diff --git a/a.txt b/z.txt\nsimilarity index 80%\nrename from a.txt\nrename to z.txt\n"
      "--- a/a.txt\n+++ b/z.txt\n@@ -1,5 +1,5 @@\n l1\n l2\n-l3\n+L3\n l4\n l5\n";
  const std::vector<Patch> patches = parse_patches(diff, "ren.patch");
  std::unique_ptr<Tree> tree = open_disk_tree(dir / "t");
  const ApplyPlan plan = plan_apply(patches, *tree, VerifyOptions{}, Direction::kForward);
  ASSERT_TRUE(plan.blockers.empty());
  ASSERT_EQ(plan.changes.size(), 2u);
  const pid_t pid = ::fork();
  if (pid == 0) {
    detail::set_write_fault_hook([](std::string_view step, const std::string&) {
      if (step == "deleted") ::_exit(42);  // killed right after the first delete
    });
    try {
      write_changes(dir / "t", plan.changes, WriteOptions{});
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 42);
  const bool old_whole =
      fs::exists(dir / "t/a.txt") && read_file(dir / "t/a.txt") == "l1\nl2\nl3\nl4\nl5\n";
  const bool new_whole =
      fs::exists(dir / "t/z.txt") && read_file(dir / "t/z.txt") == "l1\nl2\nL3\nl4\nl5\n";
  EXPECT_TRUE(old_whole || new_whole) << "the renamed file is lost";
}

// A tree that may have the patch in: apply writes nothing. The series passes take a file patch
// out and put it back; before the fix, putting back matched the hunks again, and an insertion of
// a line equal to its neighbours (no index line to decide) read "applied" the second time: apply
// wrote "c c z" over "c c c z". Such a hunk's lines say nothing of the file's state ("c c c z"
// is the post-image of "c c z" and the pre-image of "c c c c z"), and no other hunk or blob id
// tells: it cannot be decided, and nothing is written.
TEST(ApplyHostile, PuttingBackATakenOutPatchGivesTheSameBytes) {
  TempDir dir;
  write_file(dir / "t/f", "c\nc\nc\nz\n");
  write_file(dir / "p.patch", "--- a/f\n+++ b/f\n@@ -2,2 +2,3 @@\n c\n+c\n z\n");
  const test::RunResult apply = run_sm120check({"apply", dir / "p.patch", dir / "t"});
  EXPECT_EQ(apply.exit_code, 2) << apply.out << apply.err;
  EXPECT_EQ(read_file(dir / "t/f"), "c\nc\nc\nz\n");
  EXPECT_NE(apply.out.find("its changed lines repeat the lines around them"), std::string::npos)
      << apply.out;
}

// `git diff -U0` patches with index lines: a deletion without context leaves nothing to find
// once made, but the blob id says the file is the post-image. Before the fix a second apply
// exited 2 ("cannot be decided"), and a patch taken out by the series passes could not be put
// back.
TEST(ApplyHostile, ZeroContextSeriesIsIdempotent) {
  TempDir dir;
  const std::string v0 = "a\nb\nc\nd\ne\n", v1 = "a\nc\nd\ne\n", v2 = "a\nc\nd\nE\ne\n";
  write_file(dir / "t/f", v0);
  write_file(dir / "1.patch", "diff --git a/f b/f\nindex " + blob(v0) + ".." + blob(v1) +
                                  " 100644\n--- a/f\n+++ b/f\n@@ -2 +1,0 @@\n-b\n");
  write_file(dir / "2.patch", "diff --git a/f b/f\nindex " + blob(v1) + ".." + blob(v2) +
                                  " 100644\n--- a/f\n+++ b/f\n@@ -3,0 +4 @@\n+E\n");
  for (int run = 0; run < 2; ++run) {
    const test::RunResult apply =
        run_sm120check({"apply", dir / "1.patch", dir / "2.patch", dir / "t"});
    EXPECT_EQ(apply.exit_code, 0) << "run " << run << "\n" << apply.out << apply.err;
    EXPECT_EQ(read_file(dir / "t/f"), v2) << "run " << run;
  }
  const test::RunResult verify =
      run_sm120check({"verify", "--no-gpu", dir / "1.patch", dir / "2.patch", dir / "t"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out;
  // Taken out again: the -U0 hunks stand where their headers say in a file that is their
  // post-image byte for byte.
  const test::RunResult back =
      run_sm120check({"apply", "-R", dir / "1.patch", dir / "2.patch", dir / "t"});
  EXPECT_EQ(back.exit_code, 0) << back.out << back.err;
  EXPECT_EQ(read_file(dir / "t/f"), v0);
}

// fuzz_apply (crash-3f91cfff): an "index" line's mode names the file's mode, unchanged; git
// apply keeps the file's own (it only warns "f has type 100644, expected 100755"). Before the
// fix apply made f executable when it wrote the content (and, in a series where another patch
// had written it, only on a second run: a written plan planned a further change).
TEST(ApplyHostile, IndexLineModeIsNotWritten) {
  TempDir dir;
  write_file(dir / "t/f", "a\n");
  write_file(dir / "x.patch", "diff --git a/f b/f\nindex " + blob("a\n") + ".." + blob("b\n") +
                                  " 100755\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n");
  write_file(dir / "p.patch", "diff --git a/f b/f\nindex " + blob("a\n") + ".." + blob("b\n") +
                                  " 100644\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n");
  for (int run = 0; run < 2; ++run) {
    const test::RunResult apply =
        run_sm120check({"apply", dir / "p.patch", dir / "x.patch", dir / "t"});
    EXPECT_EQ(apply.exit_code, 0) << "run " << run << "\n" << apply.out << apply.err;
    EXPECT_EQ(read_file(dir / "t/f"), "b\n");
    EXPECT_EQ(fs::status(dir / "t/f").permissions() & fs::perms::owner_exec, fs::perms::none)
        << "run " << run << "\n" << apply.out;
  }
  write_file(dir / "t/f", "a\n");
  const test::RunResult alone = run_sm120check({"apply", dir / "x.patch", dir / "t"});
  EXPECT_EQ(alone.exit_code, 0) << alone.out << alone.err;
  EXPECT_EQ(read_file(dir / "t/f"), "b\n");
  EXPECT_EQ(fs::status(dir / "t/f").permissions() & fs::perms::owner_exec, fs::perms::none);
}

// fuzz_apply (crash-13671cb6): a rename naming only its old mode ("old mode 100755", no "new
// mode"). git apply takes the file's own mode for the side the patch leaves out, and so did the
// first run; but the series passes of the second run took the rename out with the named old
// mode (l made executable) and put it back keeping that, so the second run made b executable.
// A mode is written only where the patch changes it (both named, different) or makes the file.
TEST(ApplyHostile, RenameNamingOnlyItsOldModeKeepsTheFilesMode) {
  TempDir dir;
  write_file(dir / "t/l", "x\n");
  write_file(dir / "p.patch", "diff --git a/l b/b\nsimilarity index 100%\nrename from l\n"
                              "rename to b\nold mode 100755\n");
  for (int run = 0; run < 2; ++run) {
    const test::RunResult apply = run_sm120check({"apply", dir / "p.patch", dir / "t"});
    EXPECT_EQ(apply.exit_code, 0) << "run " << run << "\n" << apply.out << apply.err;
    if (run == 1) EXPECT_NE(apply.out.find("nothing to do"), std::string::npos) << apply.out;
    EXPECT_FALSE(fs::exists(dir / "t/l"));
    EXPECT_EQ(read_file(dir / "t/b"), "x\n");
    EXPECT_EQ(fs::status(dir / "t/b").permissions() & fs::perms::owner_exec, fs::perms::none)
        << "run " << run << "\n" << apply.out;
  }
  const test::RunResult back = run_sm120check({"apply", "-R", dir / "p.patch", dir / "t"});
  EXPECT_EQ(back.exit_code, 0) << back.out << back.err;
  EXPECT_EQ(read_file(dir / "t/l"), "x\n");
  EXPECT_EQ(fs::status(dir / "t/l").permissions() & fs::perms::owner_exec, fs::perms::none);
}

// fuzz_apply (crash-534605fe, crash-f8a02d2f): "@@ -1,0 +1,2 @@" writes its lines after line 1
// (where its "-" start puts them, as git apply and GNU patch do), so they stand at line 2, not
// at the line 1 its "+" start names. Before the fix the tree apply wrote read "cannot be
// decided" (a hunk without context not at its line) and apply -R could not take it out.
TEST(ApplyHostile, InsertionWhoseHeaderDisagreesReadsAppliedWhereWritten) {
  TempDir dir;
  write_file(dir / "t/f", "one\ntwo\n");
  write_file(dir / "p.patch", "--- a/f\n+++ b/f\n@@ -1,0 +1,2 @@\n+A\n+B\n");
  const test::RunResult apply = run_sm120check({"apply", dir / "p.patch", dir / "t"});
  EXPECT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  EXPECT_EQ(read_file(dir / "t/f"), "one\nA\nB\ntwo\n");
  const test::RunResult verify = run_sm120check({"verify", "--no-gpu", dir / "p.patch", dir / "t"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out;
  EXPECT_NE(verify.out.find("applied at line 2"), std::string::npos) << verify.out;
  const test::RunResult again = run_sm120check({"apply", dir / "p.patch", dir / "t"});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(read_file(dir / "t/f"), "one\nA\nB\ntwo\n");
  const test::RunResult back = run_sm120check({"apply", "-R", dir / "p.patch", dir / "t"});
  EXPECT_EQ(back.exit_code, 0) << back.out << back.err;
  EXPECT_EQ(read_file(dir / "t/f"), "one\ntwo\n");
}

// A tree at state 0 of a linear series (found by a fuzzer): patch 1 turns "4" into "bar()3",
// patch 3 deletes "bar()3" and "b" again. In state 0 patch 3's post-image (" b", " ") stands
// two lines down by chance, so alone it reads applied. The blob id says the file is patch 1's
// pre-image: nothing of the series is in. Before the fix apply took patch 3 "out" (inserting
// "bar()3", "b" where they never were), put 1 and 2 in, and wrote a file git am would not,
// exit 0; apply -R on state 0 wrote too.
TEST(ApplyHostile, TreeAtAnEarlierStateByBlobIdIsNotTakenApart) {
  TempDir dir;
  const std::string v0 = "z1\na4\na\nbar()0\nb\n4\nb\n\n\nbar()\n\nc1\nbar()1\n\t\ty0";
  const std::string v1 = "z1\na4\na\nbar()0\nb\nbar()3\nb\n\n\nbar()\n\nc1\nbar()1\n\t\ty0";
  const std::string v2 = "z1\na4\na\nbar()0\nb\nbar()3\nb\n\n\nc1\nbar()1\nfoo()0\n\t\ty0";
  const std::string v3 = "z1\na4\na\nbar()0\nb\n\n\nc1\nbar()1\nfoo()0\n\t\ty0";
  auto patch = [&](const std::string& from, const std::string& to, const std::string& hunks) {
    return "diff --git a/f b/f\nindex " + blob(from) + ".." + blob(to) +
           " 100644\n--- a/f\n+++ b/f\n" + hunks;
  };
  write_file(dir / "1.patch", patch(v0, v1, "@@ -5,3 +5,3 @@ bar()0\n b\n-4\n+bar()3\n b\n"));
  write_file(dir / "2.patch",
             patch(v1, v2,
                   "@@ -9,6 +9,5 @@ b\n \n-bar()\n-\n c1\n bar()1\n+foo()0\n \t\ty0\n"
                   "\\ No newline at end of file\n"));
  write_file(dir / "3.patch", patch(v2, v3, "@@ -5,4 +5,2 @@ bar()0\n b\n-bar()3\n-b\n \n"));
  const std::vector<std::string> states = {v0, v1, v2, v3};
  const std::vector<std::string> series = {dir / "1.patch", dir / "2.patch", dir / "3.patch"};
  for (std::size_t k = 0; k < states.size(); ++k) {
    std::vector<std::string> args = {"apply", "--strict"};
    args.insert(args.end(), series.begin(), series.end());
    args.push_back(dir / "t");
    write_file(dir / "t/f", states[k]);
    const test::RunResult apply = run_sm120check(args);
    EXPECT_EQ(apply.exit_code, 0) << "state " << k << "\n" << apply.out << apply.err;
    EXPECT_EQ(read_file(dir / "t/f"), v3) << "state " << k;
    write_file(dir / "t/f", states[k]);
    args.insert(args.begin() + 1, "-R");
    const test::RunResult back = run_sm120check(args);
    EXPECT_EQ(back.exit_code, 0) << "state " << k << "\n" << back.out << back.err;
    EXPECT_EQ(read_file(dir / "t/f"), v0) << "state " << k;
  }
}

// git apply writes a rename to its "rename to" name; sm120check took the "diff --git" line's.
// A patch whose names disagree was written elsewhere than git writes it (here d/zz, git d/yy).
// Such a patch is now refused (exit 3), like its copy variant naming an absolute path.
TEST(ApplyHostile, RenameWhoseNamesDisagreeIsRefused) {
  TempDir dir;
  write_file(dir / "t/d/a", "x\n");
  write_file(dir / "r.patch", "diff --git a/d/a b/d/zz\nsimilarity index 100%\n"
                              "rename from d/a\nrename to d/yy\n");
  const test::RunResult apply = run_sm120check({"apply", dir / "r.patch", dir / "t"});
  EXPECT_EQ(apply.exit_code, 3) << apply.out << apply.err;
  EXPECT_NE(apply.err.find("inconsistent file names"), std::string::npos) << apply.err;
  EXPECT_TRUE(fs::exists(dir / "t/d/a"));
  EXPECT_FALSE(fs::exists(dir / "t/d/zz"));
  write_file(dir / "c.patch", "diff --git a/d/a b/d/a\nsimilarity index 100%\n"
                              "copy from d/a\ncopy to /etc/x\n");
  EXPECT_EQ(run_sm120check({"apply", dir / "c.patch", dir / "t"}).exit_code, 3);
  // Names that agree, with or without prefixes, still parse.
  write_file(dir / "ok.patch", "diff --git d/a d/yy\nsimilarity index 100%\n"
                               "rename from d/a\nrename to d/yy\n");
  EXPECT_EQ(run_sm120check({"apply", "-p0", dir / "ok.patch", dir / "t"}).exit_code, 0);
  EXPECT_EQ(read_file(dir / "t/d/yy"), "x\n");
}

// NOT FIXED (left disabled): a file replaced by a folder in one patch (delete `a`, add `a/b`),
// which git apply writes. write_changes() refuses it ("lies below 'a', which another change
// names as a file", exit 3, nothing written): safe, but not what git does. Fixing it means
// committing the delete before the folder is made, and keeping a kill between the two safe.
TEST(ApplyHostile, DISABLED_FileReplacedByAFolder) {
  TempDir dir;
  write_file(dir / "t/a", "x\n");
  write_file(dir / "d.patch",
             "diff --git a/a b/a\ndeleted file mode 100644\n--- a/a\n+++ /dev/null\n"
             "@@ -1 +0,0 @@\n-x\n"
             "diff --git a/a/b b/a/b\nnew file mode 100644\n--- /dev/null\n+++ b/a/b\n"
             "@@ -0,0 +1 @@\n+y\n");
  const test::RunResult apply = run_sm120check({"apply", dir / "d.patch", dir / "t"});
  EXPECT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  EXPECT_EQ(read_file(dir / "t/a/b"), "y\n");
}

// A file where the first hunk is in and the second, an insertion without context after old
// line 3 ("b"), is not: apply completes it. Before, the insertion was expected at its "-" start
// shifted by the first hunk's offset in "+" lines (two lines short), and z was written before
// "b", exit 0; the next run found z elsewhere ("cannot be decided").
TEST(ApplyHostile, CompletingAnInsertionAfterAnAppliedHunk) {
  TempDir dir;
  write_file(dir / "t/f", "a\nx\ny\nm\nb\nc\n");
  write_file(dir / "p.patch",
             "--- a/f\n+++ b/f\n@@ -1,2 +1,4 @@\n a\n+x\n+y\n m\n@@ -3,0 +6 @@\n+z\n");
  const test::RunResult apply = run_sm120check({"apply", dir / "p.patch", dir / "t"});
  EXPECT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  EXPECT_EQ(read_file(dir / "t/f"), "a\nx\ny\nm\nb\nz\nc\n");
  const test::RunResult verify = run_sm120check({"verify", "--no-gpu", dir / "p.patch", dir / "t"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out;
  const test::RunResult again = run_sm120check({"apply", dir / "p.patch", dir / "t"});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("nothing to do"), std::string::npos) << again.out;
  const test::RunResult back = run_sm120check({"apply", "-R", dir / "p.patch", dir / "t"});
  EXPECT_EQ(back.exit_code, 0) << back.out << back.err;
  EXPECT_EQ(read_file(dir / "t/f"), "a\nm\nb\nc\n");
}

// Zero-context insertions out of order within one file patch (fuzz_apply crash-8147291e,
// crash-d9a02e50): "@@ -1,0" inserts after line 1, then "@@ -0,0" before line 1. GNU patch
// refuses the second hunk ("misordered hunks! output would be garbled"); git apply takes them
// one by one. Before, the second was placed after the first, apply wrote that, and the next
// run placed it elsewhere again. Now a conflict: nothing written, exit 2, the reason named.
TEST(ApplyHostile, MisorderedZeroContextInsertionsAreRefused) {
  TempDir dir;
  write_file(dir / "t/f", "a\nb\n");
  write_file(dir / "p.patch",
             "--- a/f\n+++ b/f\n@@ -1,0 +2,2 @@\n+x\n+y\n@@ -0,0 +1,2 @@\n+p\n+q\n");
  const test::RunResult apply = run_sm120check({"apply", dir / "p.patch", dir / "t"});
  EXPECT_EQ(apply.exit_code, 2) << apply.out << apply.err;
  EXPECT_NE(apply.out.find("hunk 2 (@@ -0,0 +1,2 @@) conflict (out-of-order)"), std::string::npos)
      << apply.out;
  EXPECT_EQ(read_file(dir / "t/f"), "a\nb\n");
  const test::RunResult verify = run_sm120check({"verify", "--no-gpu", dir / "p.patch", dir / "t"});
  EXPECT_EQ(verify.exit_code, 2) << verify.out;
  EXPECT_NE(verify.out.find("found only before the previous hunk"), std::string::npos)
      << verify.out;
}

// A plain diff naming two files ("--- a/notes.txt", "+++ b/guide.txt") is made in place on the
// name that exists; here a later file patch of the same patch adds guide.txt (fuzz_apply
// crash-8ea22b44, crash-afb1eaa2). The choice must not depend on what the run itself made:
// before, the first run changed notes.txt (guide.txt not there yet), and on the tree it wrote
// the same file patch was judged on guide.txt (applicable: verify read partial, exit 2, and the
// next apply planned to "complete" it). Now the name is chosen as the run has the files at
// that file patch, the same on either tree, and the reason says so.
TEST(ApplyHostile, PlainDiffNamingTwoFilesKeepsItsNameWhenTheRunAddsTheOther) {
  TempDir dir;
  write_file(dir / "t/notes.txt", "");
  write_file(dir / "p.patch",
             "--- a/notes.txt\n+++ b/guide.txt\n@@ -0,0 +1,2 @@\n+note one\n+note two\n"
             "--- /dev/null\n+++ b/guide.txt\n@@ -0,0 +1,2 @@\n+step one\n+step two\n");
  write_file(dir / "q.patch",
             "--- a/notes.txt\n+++ b/guide.txt\n@@ -1,2 +1,3 @@\n step one\n+step one and a half\n"
             " step two\n");
  const std::vector<std::string> series = {dir / "p.patch", dir / "q.patch", dir / "t"};
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.end(), series.begin(), series.end());
    return run_sm120check(args);
  };
  const test::RunResult apply = run({"apply"});
  EXPECT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  EXPECT_EQ(read_file(dir / "t/notes.txt"), "note one\nnote two\n");
  EXPECT_EQ(read_file(dir / "t/guide.txt"), "step one\nstep one and a half\nstep two\n");
  const test::RunResult verify = run({"verify", "--no-gpu"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out;
  EXPECT_NE(verify.out.find("M notes.txt"), std::string::npos) << verify.out;
  EXPECT_NE(verify.out.find("'guide.txt' is brought by a later file patch of this run"),
            std::string::npos)
      << verify.out;
  const test::RunResult again = run({"apply", "--dry-run"});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(again.out, "");  // no diff
  EXPECT_EQ(again.err.find("would complete"), std::string::npos) << again.err;
  const test::RunResult back = run({"apply", "-R"});
  EXPECT_EQ(back.exit_code, 0) << back.out << back.err;
  EXPECT_EQ(read_file(dir / "t/notes.txt"), "");
  EXPECT_FALSE(fs::exists(dir / "t/guide.txt"));
}

// fuzz_apply (findings/apply-overlapping-file-patches, add-then-replace-the-added-line): one
// file patch adds a line to an empty file, the next replaces an empty line with the same line.
// Alone on the tree the second is a conflict (there is no empty line); after the first was put
// in, it read applied on the line the first wrote. Before the fix the first run wrote
// "ALPHA\n" (exit 0), and the second run took the line out through the second file patch and
// wrote "ALPHA\n\n". Two file patches that claim the same lines are no series (git apply,
// which applies them one after the other, refuses the second): a conflict, nothing written.
TEST(ApplyHostile, ALaterFilePatchReadingAppliedOnLinesAnEarlierOneWroteIsAConflict) {
  TempDir dir;
  write_file(dir / "t/f", "");
  write_file(dir / "p.patch",
             "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+ALPHA\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-\n+ALPHA\n");
  for (int run = 0; run < 2; ++run) {
    const test::RunResult apply = run_sm120check({"apply", dir / "p.patch", dir / "t"});
    EXPECT_EQ(apply.exit_code, 2) << "run " << run << "\n" << apply.out << apply.err;
    EXPECT_NE(apply.out.find("hunk 1 reads applied only on lines that file patch 1 of patch 1 "
                             "wrote in this run"),
              std::string::npos)
        << apply.out;
    EXPECT_EQ(read_file(dir / "t/f"), "") << "run " << run;
  }
  // The same on the tree the first run used to write: no second line.
  write_file(dir / "t/f", "ALPHA\n");
  const test::RunResult apply = run_sm120check({"apply", dir / "p.patch", dir / "t"});
  EXPECT_EQ(apply.exit_code, 2) << apply.out << apply.err;
  EXPECT_EQ(read_file(dir / "t/f"), "ALPHA\n");
}

// NOT FIXED (left disabled): the same series as TreeAtAnEarlierStateByBlobIdIsNotTakenApart,
// without index lines. Nothing then tells state 0 from a tree where patch 3 alone is in: its
// post-image stands two lines down, so the backward pass takes it "out" and apply writes a
// file that is neither git am's result nor state 0, exit 0. (`git apply -R` of patch 3 alone
// would do the same.) A fix would need evidence the hunks do not give, e.g. refusing to take
// out a later patch whose match is offset while an earlier patch is not in.
TEST(ApplyHostile, DISABLED_TreeAtAnEarlierStateWithoutIndexLines) {
  TempDir dir;
  const std::string v0 = "z1\na4\na\nbar()0\nb\n4\nb\n\n\nbar()\n\nc1\nbar()1\n\t\ty0";
  const std::string v3 = "z1\na4\na\nbar()0\nb\n\n\nc1\nbar()1\nfoo()0\n\t\ty0";
  write_file(dir / "1.patch", "--- a/f\n+++ b/f\n@@ -5,3 +5,3 @@ bar()0\n b\n-4\n+bar()3\n b\n");
  write_file(dir / "2.patch",
             "--- a/f\n+++ b/f\n@@ -9,6 +9,5 @@ b\n \n-bar()\n-\n c1\n bar()1\n+foo()0\n"
             " \t\ty0\n\\ No newline at end of file\n");
  write_file(dir / "3.patch", "--- a/f\n+++ b/f\n@@ -5,4 +5,2 @@ bar()0\n b\n-bar()3\n-b\n \n");
  write_file(dir / "t/f", v0);
  const test::RunResult apply = run_sm120check(
      {"apply", "--strict", dir / "1.patch", dir / "2.patch", dir / "3.patch", dir / "t"});
  EXPECT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  EXPECT_EQ(read_file(dir / "t/f"), v3);
}

// Hostile review hv17 (Liger 2a39f0dc, chunked_loss/__init__.py committed empty, then filled):
// `@@ -0,0 +1,4 @@` with the empty blob as the old id read applicable on the later, longer file,
// and apply would have inserted the four imports again (git apply refuses: "patch failed").
TEST(ApplyHostile, FillingAnEmptyFileIsNoInsertionIntoOneWithLines) {
  TempDir dir;
  const std::string post = "import a\nimport b\n";
  const std::string later = "import a\nimport z\nimport b\n";
  write_file(dir / "p.patch", "diff --git a/f.py b/f.py\nindex " + blob("") + ".." + blob(post) +
                                  " 100644\n--- a/f.py\n+++ b/f.py\n@@ -0,0 +1,2 @@\n"
                                  "+import a\n+import b\n");
  write_file(dir / "t/f.py", later);
  const test::RunResult v = run_sm120check({"verify", "--no-gpu", dir / "p.patch", dir / "t"});
  EXPECT_EQ(v.exit_code, 2) << v.out;
  EXPECT_NE(v.out.find("fills an empty file"), std::string::npos) << v.out;
  EXPECT_EQ(run_sm120check({"apply", dir / "p.patch", dir / "t"}).exit_code, 2);
  EXPECT_EQ(read_file(dir / "t/f.py"), later);
  // The empty file itself: applicable, and apply fills it; then applied.
  write_file(dir / "t/f.py", "");
  EXPECT_EQ(run_sm120check({"verify", "--no-gpu", dir / "p.patch", dir / "t"}).exit_code, 1);
  EXPECT_EQ(run_sm120check({"apply", dir / "p.patch", dir / "t"}).exit_code, 0);
  EXPECT_EQ(read_file(dir / "t/f.py"), post);
  EXPECT_EQ(run_sm120check({"verify", "--no-gpu", dir / "p.patch", dir / "t"}).exit_code, 0);
}

// A gitlink (submodule, mode 160000) change is no file content: `git apply` without --index
// writes nothing for it (an empty folder for a new one). Before the fix apply wrote a regular
// file "sm" holding "Subproject commit ...", exit 0, and verify called it applicable. Now verify
// says unknown (a folder or nothing at the path) or conflict (a regular file there), and apply
// refuses the run (exit 2, nothing written) with what to do instead.
TEST(ApplyHostile, ASubmoduleChangeIsNeverWrittenAsAFile) {
  TempDir dir;
  const std::string one = "4b7c93bd2d3a549c5bce9772088d682e4591066d";
  const std::string two = "26f965943c0dc23cdce6449e87c2927642d83a0b";
  write_file(dir / "add.patch", "diff --git a/sm b/sm\nnew file mode 160000\nindex 0000000.." +
                                    one.substr(0, 7) + "\n--- /dev/null\n+++ b/sm\n@@ -0,0 +1 @@\n" +
                                    "+Subproject commit " + one + "\n" +
                                    "diff --git a/x.py b/x.py\nnew file mode 100644\n--- /dev/null\n"
                                    "+++ b/x.py\n@@ -0,0 +1 @@\n+x = 1\n");
  write_file(dir / "mod.patch", "diff --git a/sm b/sm\nindex " + one.substr(0, 7) + ".." +
                                    two.substr(0, 7) + " 160000\n--- a/sm\n+++ b/sm\n" +
                                    "@@ -1 +1 @@\n-Subproject commit " + one +
                                    "\n+Subproject commit " + two + "\n");
  fs::create_directories(dir / "empty");
  const test::RunResult verify =
      run_sm120check({"verify", "--no-gpu", "--format", "json", dir / "add.patch", dir / "empty"});
  EXPECT_EQ(verify.exit_code, 2) << verify.out;
  EXPECT_NE(verify.out.find("\"unknown\""), std::string::npos) << verify.out;
  EXPECT_NE(verify.out.find("git submodule update"), std::string::npos) << verify.out;
  const test::RunResult add = run_sm120check({"apply", dir / "add.patch", dir / "empty"});
  EXPECT_EQ(add.exit_code, 2) << add.out << add.err;
  EXPECT_NE(add.out.find("sm: unknown: 'sm' is a submodule"), std::string::npos) << add.out;
  EXPECT_FALSE(fs::exists(dir / "empty/sm"));
  EXPECT_FALSE(fs::exists(dir / "empty/x.py")) << "all or nothing";
  // A regular file holding the pointer's text is not the submodule: conflict, left alone.
  write_file(dir / "file/sm", "Subproject commit " + one + "\n");
  EXPECT_EQ(run_sm120check({"verify", "--no-gpu", dir / "mod.patch", dir / "file"}).exit_code, 2);
  const test::RunResult mod = run_sm120check({"apply", dir / "mod.patch", dir / "file"});
  EXPECT_EQ(mod.exit_code, 2) << mod.out << mod.err;
  EXPECT_EQ(read_file(dir / "file/sm"), "Subproject commit " + one + "\n");
  // A checked-out submodule: unknown, its folder untouched.
  write_file(dir / "co/sm/README", "sub\n");
  EXPECT_EQ(run_sm120check({"apply", dir / "mod.patch", dir / "co"}).exit_code, 2);
  EXPECT_EQ(read_file(dir / "co/sm/README"), "sub\n");
  EXPECT_TRUE(fs::is_directory(dir / "co/sm"));
}

/// The rename of these tests: a.txt -> z.txt with one line changed.
constexpr const char* kRenamePatch =
    "diff --git a/a.txt b/z.txt\nsimilarity index 80%\nrename from a.txt\nrename to z.txt\n"
    "--- a/a.txt\n+++ b/z.txt\n@@ -1,5 +1,5 @@\n l1\n l2\n-l3\n+L3\n l4\n l5\n";
constexpr const char* kRenamePre = "l1\nl2\nl3\nl4\nl5\n";
constexpr const char* kRenamePost = "l1\nl2\nL3\nl4\nl5\n";

/// Runs write_changes() for `plan` in a child killed (_exit) at the first hook step `at`.
/// Returns the child's exit code: 42 when killed there.
int write_killed_at(const std::string& root, const ApplyPlan& plan, const char* at) {
  static std::string g_at;
  g_at = at;
  const pid_t pid = ::fork();
  if (pid == 0) {
    detail::set_write_fault_hook([](std::string_view step, const std::string&) {
      if (step == g_at) ::_exit(42);
    });
    try {
      write_changes(root, plan.changes, WriteOptions{});
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// An apply of a rename killed after the new path is written and before the old one is
// unlinked leaves both. Before the fix a rerun said "nothing to do" (verify: applied, "old path
// still exists") and both files stayed forever. Now verify says partial and names the old path,
// and a rerun removes it; `apply -R` there finishes the reverse instead.
TEST(ApplyHostile, ARenameKilledBeforeItsUnlinkIsFinishedByARerun) {
  for (const bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    TempDir dir;
    write_file(dir / "ren.patch", kRenamePatch);
    write_file(dir / (reverse ? "t/z.txt" : "t/a.txt"), reverse ? kRenamePost : kRenamePre);
    {
      const std::vector<Patch> patches = parse_patches(kRenamePatch, "ren.patch");
      std::unique_ptr<Tree> tree = open_disk_tree(dir / "t");
      const ApplyPlan plan = plan_apply(patches, *tree, VerifyOptions{},
                                        reverse ? Direction::kReverse : Direction::kForward);
      ASSERT_TRUE(plan.blockers.empty());
      ASSERT_EQ(plan.changes.size(), 2u);
      ASSERT_EQ(write_killed_at(dir / "t", plan, "renamed"), 42);
    }
    ASSERT_EQ(read_file(dir / "t/a.txt"), kRenamePre);
    ASSERT_EQ(read_file(dir / "t/z.txt"), kRenamePost);
    const test::RunResult verify =
        run_sm120check({"verify", "--no-gpu", dir / "ren.patch", dir / "t"});
    EXPECT_EQ(verify.exit_code, 2) << verify.out;
    EXPECT_NE(verify.out.find("partial"), std::string::npos) << verify.out;
    EXPECT_NE(verify.out.find("old path 'a.txt' still holds the file that was renamed"),
              std::string::npos)
        << verify.out;
    std::vector<std::string> args = {"apply", dir / "ren.patch", dir / "t"};
    if (reverse) args.insert(args.begin() + 1, "-R");
    const test::RunResult rerun = run_sm120check(args);
    EXPECT_EQ(rerun.exit_code, 0) << rerun.out << rerun.err;
    EXPECT_NE(rerun.out.find(reverse ? "delete z.txt" : "delete a.txt"), std::string::npos)
        << rerun.out;
    EXPECT_EQ(fs::exists(dir / "t/a.txt"), reverse);
    EXPECT_EQ(fs::exists(dir / "t/z.txt"), !reverse);
    EXPECT_EQ(read_file(dir / (reverse ? "t/a.txt" : "t/z.txt")),
              reverse ? kRenamePre : kRenamePost);
    const test::RunResult again = run_sm120check(args);
    EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
    EXPECT_NE(again.out.find("nothing to do"), std::string::npos) << again.out;
  }
}

// The same for a pure rename (100%: no hunks) and a patch that writes one file and deletes
// another; and an old path that holds something else is not the rename's source: left alone.
TEST(ApplyHostile, HalfDoneRenamesAndDeletesAreFinishedOnlyWhereTheOldFileIsTheSource) {
  TempDir dir;
  write_file(dir / "mv.patch", "diff --git a/a.txt b/z.txt\nsimilarity index 100%\n"
                               "rename from a.txt\nrename to z.txt\n");
  write_file(dir / "t/a.txt", "same\n");
  write_file(dir / "t/z.txt", "same\n");
  EXPECT_EQ(run_sm120check({"verify", "--no-gpu", dir / "mv.patch", dir / "t"}).exit_code, 2);
  EXPECT_EQ(run_sm120check({"apply", dir / "mv.patch", dir / "t"}).exit_code, 0);
  EXPECT_FALSE(fs::exists(dir / "t/a.txt"));
  EXPECT_EQ(read_file(dir / "t/z.txt"), "same\n");
  // Write-then-delete in one patch, killed between the two: the rerun deletes.
  write_file(dir / "wd.patch",
             "diff --git a/m.txt b/m.txt\n--- a/m.txt\n+++ b/m.txt\n@@ -1 +1 @@\n-m\n+M\n"
             "diff --git a/g.txt b/g.txt\ndeleted file mode 100644\n--- a/g.txt\n+++ /dev/null\n"
             "@@ -1 +0,0 @@\n-g\n");
  write_file(dir / "u/m.txt", "m\n");
  write_file(dir / "u/g.txt", "g\n");
  {
    const std::vector<Patch> patches = parse_patches(read_file(dir / "wd.patch"), "wd.patch");
    std::unique_ptr<Tree> tree = open_disk_tree(dir / "u");
    const ApplyPlan plan = plan_apply(patches, *tree, VerifyOptions{}, Direction::kForward);
    ASSERT_TRUE(plan.blockers.empty());
    ASSERT_EQ(write_killed_at(dir / "u", plan, "renamed"), 42);
  }
  EXPECT_EQ(read_file(dir / "u/m.txt"), "M\n");
  EXPECT_EQ(run_sm120check({"apply", dir / "wd.patch", dir / "u"}).exit_code, 0);
  EXPECT_FALSE(fs::exists(dir / "u/g.txt"));
  // The new path holds the post-image but the old one holds other bytes (a new file there):
  // applied, and the old path stays.
  write_file(dir / "ren.patch", kRenamePatch);
  write_file(dir / "v/a.txt", "someone else's new a.txt\n");
  write_file(dir / "v/z.txt", kRenamePost);
  const test::RunResult verify =
      run_sm120check({"verify", "--no-gpu", dir / "ren.patch", dir / "v"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out;
  EXPECT_NE(verify.out.find("old path 'a.txt' still exists"), std::string::npos) << verify.out;
  EXPECT_EQ(run_sm120check({"apply", dir / "ren.patch", dir / "v"}).exit_code, 0);
  EXPECT_EQ(read_file(dir / "v/a.txt"), "someone else's new a.txt\n");
}

// A file edited by someone else after apply planned from it and before apply replaced it:
// before the fix the temporary was renamed over the edit (lost, exit 0). Now write_changes()
// refuses with "changed while apply ran", naming the file, and nothing is written.
TEST(ApplyHostile, AnEditMadeWhileApplyRunsIsNotLost) {
  static std::string g_file;
  for (const char* at : {"temp-written", "before-rename"}) {
    SCOPED_TRACE(at);
    TempDir dir;
    write_file(dir / "t/a.py", "one\ntwo\nthree\n");
    write_file(dir / "t/b.py", "x\ny\nz\n");
    const std::vector<Patch> patches = parse_patches(
        "--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
        "--- a/b.py\n+++ b/b.py\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n",
        "p.patch");
    std::unique_ptr<Tree> tree = open_disk_tree(dir / "t");
    const ApplyPlan plan = plan_apply(patches, *tree, VerifyOptions{}, Direction::kForward);
    ASSERT_TRUE(plan.blockers.empty());
    ASSERT_EQ(plan.changes.size(), 2u);
    g_file = dir / "t/a.py";
    static std::string g_at;
    g_at = at;
    detail::set_write_fault_hook([](std::string_view step, const std::string& path) {
      if (step == g_at && path == "a.py") write_file(g_file, read_file(g_file) + "edited\n");
    });
    std::string what;
    try {
      write_changes(dir / "t", plan.changes, WriteOptions{});
    } catch (const Error& e) {
      what = e.what();
    }
    detail::set_write_fault_hook(nullptr);
    EXPECT_NE(what.find("a.py: changed while apply ran"), std::string::npos) << what;
    EXPECT_EQ(read_file(dir / "t/a.py"), "one\ntwo\nthree\nedited\n");
    EXPECT_EQ(read_file(dir / "t/b.py"), "x\ny\nz\n") << "all or nothing";
  }
}

}  // namespace
}  // namespace sm120check
