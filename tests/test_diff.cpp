// unified_diff: git's form, checked by round trips through `git apply`, `patch -p1` and the
// project's own parse_patches + match_hunks + apply_hunks.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sm120check/apply.hpp"
#include "sm120check/diff.hpp"
#include "sm120check/error.hpp"
#include "sm120check/match.hpp"
#include "sm120check/patch.hpp"
#include "sm120check/tree.hpp"
#include "test_util.hpp"

namespace sm120check {
namespace {

namespace fs = std::filesystem;
using test::read_file;
using test::run_shell;
using test::TempDir;
using test::write_file;

/// One file before and after; std::nullopt: no file on that side.
struct Case {
  std::string name;
  std::optional<std::string> old_content;
  std::optional<std::string> new_content;
  std::string path = "dir/f.py";
};

std::string diff_of(const Case& c) {
  return unified_diff(c.old_content ? std::string_view(c.path) : kDevNull,
                      c.new_content ? std::string_view(c.path) : kDevNull,
                      c.old_content.value_or(""), c.new_content.value_or(""));
}

/// The tree after `tool` (a shell command reading the patch from file "$P") applies `diff` to a
/// tree holding `c.old_content`: the file's content, or std::nullopt when it is gone.
std::optional<std::string> applied_by(const std::string& tool, const Case& c,
                                      const std::string& diff) {
  TempDir patch_dir;
  TempDir tree;
  write_file(patch_dir / "p.diff", diff);
  if (c.old_content) write_file(tree / c.path, *c.old_content);
  const test::RunResult r =
      run_shell("HOME='" + patch_dir.path().string() + "' GIT_CONFIG_NOSYSTEM=1 P='" +
                    (patch_dir / "p.diff") + "'; " + tool,
                tree.path());
  EXPECT_EQ(r.exit_code, 0) << tool << " failed on " << c.name << ":\n"
                            << r.out << r.err << "\n"
                            << diff;
  if (!fs::exists(fs::symlink_status(tree / c.path))) return std::nullopt;
  return read_file(tree / c.path);
}

/// The project's engine: the diff's hunks applied forward to the old content.
std::string applied_by_engine(const Case& c, const std::string& diff) {
  std::vector<Patch> patches = parse_patches(diff, "dry-run.diff");
  EXPECT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches.at(0).files.size(), 1u);
  const FilePatch& file_patch = patches.at(0).files.at(0);
  EXPECT_EQ(file_patch.change, !c.old_content   ? ChangeKind::kAdd
                               : !c.new_content ? ChangeKind::kDelete
                                                : ChangeKind::kModify)
      << c.name;
  FileText file(c.old_content.value_or(""));
  const std::vector<HunkMatch> matches = match_hunks(file, file_patch.hunks, MatchOptions{});
  HunkApply result = apply_hunks(file, file_patch.hunks, matches, Direction::kForward);
  EXPECT_TRUE(result.failed.empty()) << c.name;
  return result.content;
}

std::string numbered(int from, int to, std::string_view end = "\n") {
  std::string out;
  for (int i = from; i <= to; ++i) out += "line " + std::to_string(i) + std::string(end);
  return out;
}

const std::vector<Case>& text_cases() {
  static const std::vector<Case> cases = {
      {"modify", "a\nb\nc\n", "a\nB\nc\n"},
      {"two hunks", numbered(1, 60),
       numbered(1, 9) + "new\n" + numbered(11, 50) + numbered(52, 60)},
      {"old without final newline", "a\nb", "a\nb\nc\n"},
      {"new without final newline", "a\nb\n", "a\nc"},
      {"neither with final newline", "a\nb", "a\nc"},
      {"newline only added at the end", "a\nb", "a\nb\n"},
      {"crlf", numbered(1, 9, "\r\n"),
       numbered(1, 4, "\r\n") + "five\r\n" + numbered(6, 9, "\r\n")},
      {"crlf to lf", "a\r\nb\r\n", "a\nb\n"},
      {"crlf without final newline", "a\r\nb\r", "a\r\nc\r"},
      {"lines that look like headers", "x\n", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n\\ No\n x\n"},
      {"added", std::nullopt, "x\ny\n"},
      {"added without final newline", std::nullopt, "x"},
      {"deleted", "x\ny\n", std::nullopt},
      {"deleted without final newline", "x", std::nullopt},
      {"emptied, kept", "x\ny\n", ""},
      {"filled from empty", "", "x\n"},
  };
  return cases;
}

TEST(Diff, GitForm) {
  EXPECT_EQ(unified_diff("f.py", "f.py", "a\nb\nc\n", "a\nB\nc\n", 3, kModeRegular),
            "diff --git a/f.py b/f.py\n"
            "index de98044..7be73ce 100644\n"
            "--- a/f.py\n"
            "+++ b/f.py\n"
            "@@ -1,3 +1,3 @@\n"
            " a\n"
            "-b\n"
            "+B\n"
            " c\n");
  EXPECT_EQ(unified_diff(kDevNull, "n", "", "x"),
            "diff --git a/n b/n\n"
            "new file mode 100644\n"
            "index 0000000..c1b0730\n"
            "--- /dev/null\n"
            "+++ b/n\n"
            "@@ -0,0 +1 @@\n"
            "+x\n"
            "\\ No newline at end of file\n");
  EXPECT_EQ(unified_diff("d", kDevNull, "", "", 3, kModeExecutable),
            "diff --git a/d b/d\n"
            "deleted file mode 100755\n"
            "index e69de29..0000000\n");
  EXPECT_EQ(unified_diff("f", "f", "x\n", "x\n", 3, kModeRegular, kModeExecutable),
            "diff --git a/f b/f\nold mode 100644\nnew mode 100755\n");
  EXPECT_EQ(unified_diff("old", "new", "x\n", "x\n"),
            "diff --git a/old b/new\nrename from old\nrename to new\n");
  // Nothing to show.
  EXPECT_EQ(unified_diff("f", "f", "x\n", "x\n"), "");
  EXPECT_EQ(unified_diff("f", "f", "x\n", "x\n", 3, kModeRegular, kModeRegular), "");
}

TEST(Diff, ContextLines) {
  const std::string before = numbered(1, 20);
  const std::string after = numbered(1, 9) + "ten\n" + numbered(11, 20);
  const std::string three = unified_diff("f", "f", before, after);
  EXPECT_NE(three.find("@@ -7,7 +7,7 @@"), std::string::npos) << three;
  const std::string one = unified_diff("f", "f", before, after, 1);
  EXPECT_NE(one.find("@@ -9,3 +9,3 @@"), std::string::npos) << one;
  const std::string zero = unified_diff("f", "f", before, after, 0);
  EXPECT_NE(zero.find("@@ -10 +10 @@"), std::string::npos) << zero;
}

TEST(Diff, QuotesPathsAsGitDoes) {
  const std::string d = unified_diff("a b/\xc3\xa9\"\t.py", "a b/\xc3\xa9\"\t.py", "x\n", "y\n");
  EXPECT_EQ(d.substr(0, d.find("@@")),
            "diff --git \"a/a b/\\303\\251\\\"\\t.py\" \"b/a b/\\303\\251\\\"\\t.py\"\n"
            "index 587be6b..975fbec\n"
            "--- \"a/a b/\\303\\251\\\"\\t.py\"\t\n"
            "+++ \"b/a b/\\303\\251\\\"\\t.py\"\t\n");
}

TEST(Diff, RoundTripThroughGitApply) {
  for (const Case& c : text_cases()) {
    const std::string diff = diff_of(c);
    EXPECT_EQ(applied_by("git apply \"$P\"", c, diff), c.new_content) << c.name << "\n" << diff;
  }
}

TEST(Diff, RoundTripThroughPatch) {
  if (run_shell("command -v patch").exit_code != 0) GTEST_SKIP() << "GNU patch is not installed";
  for (const Case& c : text_cases()) {
    const std::string diff = diff_of(c);
    EXPECT_EQ(applied_by("patch -p1 -s -f -i \"$P\"", c, diff), c.new_content) << c.name << "\n"
                                                                               << diff;
  }
}

TEST(Diff, RoundTripThroughTheApplyEngine) {
  for (const Case& c : text_cases()) {
    const std::string diff = diff_of(c);
    EXPECT_EQ(applied_by_engine(c, diff), c.new_content.value_or("")) << c.name << "\n" << diff;
  }
}

TEST(Diff, RoundTripOfPathsNeedingQuotes) {
  for (const std::string path : {"with space.py", "d\xc3\xa9j\xc3\xa0/q\"uote", "tab\there"}) {
    const Case c{"path " + path, "a\nb\n", "a\nc\n", path};
    const std::string diff = diff_of(c);
    EXPECT_EQ(applied_by("git apply \"$P\"", c, diff), c.new_content) << diff;
    EXPECT_EQ(applied_by_engine(c, diff), *c.new_content) << diff;
  }
}

TEST(Diff, RoundTripOfModesAndRenames) {
  TempDir patch_dir;
  TempDir tree;
  write_file(tree / "run.sh", "echo old\n");
  write_file(tree / "old/name.py", "keep\nme\n");
  fs::permissions(tree / "run.sh", fs::perms(0644));
  const std::string diff =
      unified_diff("run.sh", "run.sh", "echo old\n", "echo new\n", 3, kModeRegular,
                   kModeExecutable) +
      unified_diff("old/name.py", "new/name.py", "keep\nme\n", "keep\nme\ntoo\n") +
      unified_diff(kDevNull, "bin/tool", "", "#!/bin/sh\n", 3, std::nullopt, kModeExecutable);
  write_file(patch_dir / "p.diff", diff);
  const test::RunResult r =
      run_shell("HOME='" + patch_dir.path().string() + "' GIT_CONFIG_NOSYSTEM=1 git apply '" +
                    (patch_dir / "p.diff") + "'",
                tree.path());
  ASSERT_EQ(r.exit_code, 0) << r.err << diff;
  EXPECT_EQ(read_file(tree / "run.sh"), "echo new\n");
  EXPECT_EQ(fs::status(tree / "run.sh").permissions() & fs::perms::owner_exec,
            fs::perms::owner_exec);
  EXPECT_FALSE(fs::exists(tree / "old/name.py"));
  EXPECT_EQ(read_file(tree / "new/name.py"), "keep\nme\ntoo\n");
  EXPECT_EQ(fs::status(tree / "bin/tool").permissions() & fs::perms::owner_exec,
            fs::perms::owner_exec);
  // The project's parser reads the same three changes.
  const std::vector<Patch> patches = parse_patches(diff, "p.diff");
  ASSERT_EQ(patches.size(), 1u);
  ASSERT_EQ(patches[0].files.size(), 3u);
  EXPECT_EQ(patches[0].files[0].new_mode, kModeExecutable);
  EXPECT_EQ(patches[0].files[1].change, ChangeKind::kRename);
  EXPECT_EQ(patches[0].files[2].change, ChangeKind::kAdd);
}

TEST(Diff, BinaryContentGivesABinaryPatchGitApplies) {
  const Case c{"binary", std::string("a\0b\nc\n", 6), std::string("a\0B\nc\nd\n", 8), "blob.bin"};
  const std::string diff = diff_of(c);
  EXPECT_NE(diff.find("GIT binary patch\n"), std::string::npos) << diff;
  EXPECT_NE(diff.find("index " + git_blob_id(*c.old_content) + ".." + git_blob_id(*c.new_content)),
            std::string::npos)
      << "full ids: " << diff;
  EXPECT_EQ(applied_by("git apply \"$P\"", c, diff), c.new_content);
}

TEST(Diff, RefusesWhatIsNotAFileChange) {
  EXPECT_THROW(unified_diff(kDevNull, kDevNull, "", ""), Error);
  EXPECT_THROW(unified_diff("", "f", "", ""), Error);
  try {
    unified_diff(kDevNull, "f.py", "old", "new");
    ADD_FAILURE() << "no Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "f.py");
  }
  EXPECT_THROW(unified_diff("f", kDevNull, "", "new"), Error);
}

}  // namespace
}  // namespace sm120check
