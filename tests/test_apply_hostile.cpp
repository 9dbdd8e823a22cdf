// Hostile review of `apply` and series `verify`: each test is a reproduction of a finding (a
// wrong result, a write where none may be, data lost), kept as a regression test.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

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

}  // namespace
}  // namespace sm120check
