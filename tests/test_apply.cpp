// The apply engine: hunks written at the matcher's placements, forward and reverse.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sm120check/apply.hpp"
#include "sm120check/match.hpp"
#include "sm120check/patch.hpp"

namespace sm120check {
namespace {

std::vector<Hunk> hunks_of(const std::string& diff) {
  std::vector<Patch> patches = parse_patches(diff, "t.patch");
  return patches.at(0).files.at(0).hunks;
}

HunkApply run(const std::string& content, const std::string& diff, Direction direction,
              unsigned fuzz = 0) {
  FileText file(content);
  const std::vector<Hunk> hunks = hunks_of(diff);
  MatchOptions options;
  options.fuzz = fuzz;
  return apply_hunks(file, hunks, match_hunks(file, hunks, options), direction);
}

const std::string kDiff =
    "--- a/f\n+++ b/f\n"
    "@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n"
    "@@ -7,2 +7,3 @@\n g\n h\n+i\n";

TEST(Apply, ForwardAndReverseAreInverse) {
  const std::string before = "a\nb\nc\nd\ne\nf\ng\nh\n";
  const std::string after = "a\nb\nC\nd\ne\nf\ng\nh\ni\n";
  HunkApply fwd = run(before, kDiff, Direction::kForward);
  EXPECT_EQ(fwd.content, after);
  EXPECT_EQ(fwd.written, (std::vector<std::size_t>{0, 1}));
  EXPECT_TRUE(fwd.failed.empty());
  HunkApply rev = run(after, kDiff, Direction::kReverse);
  EXPECT_EQ(rev.content, before);
  // Twice is once: everything is already there.
  HunkApply again = run(after, kDiff, Direction::kForward);
  EXPECT_EQ(again.content, after);
  EXPECT_TRUE(again.written.empty());
  EXPECT_EQ(again.already, (std::vector<std::size_t>{0, 1}));
}

TEST(Apply, OnlyTheMissingHunkIsWritten) {
  const std::string half = "a\nb\nC\nd\ne\nf\ng\nh\n";
  HunkApply fwd = run(half, kDiff, Direction::kForward);
  EXPECT_EQ(fwd.content, "a\nb\nC\nd\ne\nf\ng\nh\ni\n");
  EXPECT_EQ(fwd.written, (std::vector<std::size_t>{1}));
  EXPECT_EQ(fwd.already, (std::vector<std::size_t>{0}));
}

TEST(Apply, NoNewlineAtEndOfFile) {
  const std::string diff =
      "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n";
  EXPECT_EQ(run("a\nb", diff, Direction::kForward).content, "a\nb\n");
  EXPECT_EQ(run("a\nb\n", diff, Direction::kReverse).content, "a\nb");
}

// fuzz_apply: a hunk inserting a last line without newline ("@@ -0,0 +1 @@", "+x", "\ No
// newline") into a file with lines matched its empty pre-image at line 1, and "x" was written
// there without its newline, glued to the next line ("xkeep\n"); planned again, once more.
// git apply refuses the hunk; it is failed here, the file unchanged.
TEST(Apply, LineWithoutNewlineIsNeverWrittenBeforeOtherLines) {
  const std::string diff =
      "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n";
  const HunkApply fwd = run("keep\n", diff, Direction::kForward);
  EXPECT_EQ(fwd.failed, (std::vector<std::size_t>{0}));
  EXPECT_TRUE(fwd.written.empty());
  EXPECT_EQ(fwd.content, "keep\n");
  // Into an empty file it is the whole file.
  EXPECT_EQ(run("", diff, Direction::kForward).content, "x");
  // Taken out where it does end the file: the line goes, the rest stays.
  const std::string tail =
      "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n+x\n\\ No newline at end of file\n";
  EXPECT_EQ(run("a\nx", tail, Direction::kReverse).content, "a\n");
}

// fuzz_apply (H200 run, 4 jobs x 500 s): a hunk inserting after the last line of a file whose
// last line has no newline ("@@ -3,0 +4 @@", "+E" on "\ncommit ") wrote "E" glued to that
// line ("commit E\n") and was planned again on every apply. git refuses it (the patch would
// have to rewrite the unterminated line); it is failed here, the file unchanged. Inserted
// before that line, or into a file that ends in a newline, it is written.
TEST(Apply, NothingIsWrittenAfterALastLineWithoutNewline) {
  const std::string diff = "--- a/f\n+++ b/f\n@@ -3,0 +4 @@\n+E\n";
  const HunkApply fwd = run("\ncommit ", diff, Direction::kForward);
  EXPECT_EQ(fwd.failed, (std::vector<std::size_t>{0}));
  EXPECT_EQ(fwd.content, "\ncommit ");
  EXPECT_EQ(run("a\nb\nc\n", diff, Direction::kForward).content, "a\nb\nc\nE\n");
  const std::string before = "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+E\n";
  EXPECT_EQ(run("a\nb", before, Direction::kForward).content, "E\na\nb");
}

TEST(Apply, FuzzKeepsTheFilesEdgeLines) {
  const std::string diff = "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n X\n-b\n+B\n Y\n";
  HunkApply fwd = run("x\nb\ny\n", diff, Direction::kForward, 1);
  EXPECT_EQ(fwd.content, "x\nB\ny\n");
  EXPECT_TRUE(fwd.failed.empty());
}

TEST(Apply, ConflictIsReportedAndNotWritten) {
  HunkApply fwd = run("a\nb\nZ\nd\ne\nf\ng\nh\n", kDiff, Direction::kForward);
  EXPECT_EQ(fwd.failed, (std::vector<std::size_t>{0}));
  EXPECT_EQ(fwd.written, (std::vector<std::size_t>{1}));
}

TEST(Apply, CrlfLinesStayByteExact) {
  const std::string diff = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+B\r\n";
  EXPECT_EQ(run("a\r\nb\r\n", diff, Direction::kForward).content, "a\r\nB\r\n");
}

}  // namespace
}  // namespace sm120check
