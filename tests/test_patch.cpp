// Tests of the unified-diff parser (parse_patches) and the patch model helpers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sm120check/error.hpp"
#include "sm120check/patch.hpp"
#include "test_util.hpp"

namespace sm120check {
namespace {

std::vector<Patch> parse(std::string_view text) { return parse_patches(text, "t.diff"); }

/// Parses `text` expecting an Error; returns it (or a default Error after a test failure).
Error parse_error(std::string_view text) {
  try {
    parse_patches(text, "t.diff");
  } catch (const Error& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw a non-Error exception: " << e.what();
    return Error("");
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return Error("");
}

/// Parse or Error, nothing else (no crash, no other exception).
void parse_or_error(std::string_view text) {
  try {
    parse_patches(text, "fuzz");
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "fuzz");
  }
}

std::string lines_of(const Hunk& h) {
  std::string out;
  for (const HunkLine& l : h.lines) {
    out += static_cast<char>(l.kind);
    out += l.text;
    if (l.no_newline_at_eof) out += "<EOF>";
    out += '|';
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// git diff

TEST(ParseGit, ModifyWithIndexLine) {
  auto patches = parse(
      "diff --git a/src/x.c b/src/x.c\n"
      "index 4A58007..4358161 100644\n"
      "--- a/src/x.c\n"
      "+++ b/src/x.c\n"
      "@@ -1,3 +1,3 @@ int main(void)\n"
      " one\n"
      "-two\n"
      "+TWO\n"
      " three\n");
  ASSERT_EQ(patches.size(), 1u);
  const Patch& p = patches[0];
  EXPECT_EQ(p.source, "t.diff");
  EXPECT_EQ(p.patch_line, 1u);
  EXPECT_EQ(p.message, "");
  EXPECT_FALSE(p.subject.has_value());
  ASSERT_EQ(p.files.size(), 1u);
  const FilePatch& f = p.files[0];
  EXPECT_TRUE(f.git);
  EXPECT_EQ(f.patch_line, 1u);
  EXPECT_EQ(f.old_path, "a/src/x.c");
  EXPECT_EQ(f.new_path, "b/src/x.c");
  EXPECT_EQ(f.change, ChangeKind::kModify);
  EXPECT_EQ(f.old_blob, "4a58007");
  EXPECT_EQ(f.new_blob, "4358161");
  EXPECT_EQ(f.old_mode, kModeRegular);
  EXPECT_EQ(f.new_mode, kModeRegular);
  EXPECT_FALSE(f.binary);
  ASSERT_EQ(f.hunks.size(), 1u);
  const Hunk& h = f.hunks[0];
  EXPECT_EQ(h.patch_line, 5u);
  EXPECT_EQ(h.old_start, 1u);
  EXPECT_EQ(h.old_lines, 3u);
  EXPECT_EQ(h.new_start, 1u);
  EXPECT_EQ(h.new_lines, 3u);
  EXPECT_EQ(h.section, "int main(void)");
  EXPECT_EQ(lines_of(h), " one|-two|+TWO| three|");
}

TEST(ParseGit, NewAndDeletedFiles) {
  auto patches = parse(
      "diff --git a/docs/guide.txt b/docs/guide.txt\n"
      "new file mode 100755\n"
      "index 0000000..0287571\n"
      "--- /dev/null\n"
      "+++ b/docs/guide.txt\n"
      "@@ -0,0 +1,2 @@\n"
      "+step one\n"
      "+step two\n"
      "diff --git a/old.txt b/old.txt\n"
      "deleted file mode 100644\n"
      "index 375f995..0000000\n"
      "--- a/old.txt\n"
      "+++ /dev/null\n"
      "@@ -1 +0,0 @@\n"
      "-gone\n");
  ASSERT_EQ(patches.size(), 1u);
  ASSERT_EQ(patches[0].files.size(), 2u);
  const FilePatch& add = patches[0].files[0];
  EXPECT_EQ(add.change, ChangeKind::kAdd);
  EXPECT_EQ(add.old_path, "/dev/null");
  EXPECT_EQ(add.new_path, "b/docs/guide.txt");
  EXPECT_FALSE(add.old_mode.has_value());
  EXPECT_EQ(add.new_mode, kModeExecutable);
  EXPECT_EQ(add.old_blob, "0000000");
  const FilePatch& del = patches[0].files[1];
  EXPECT_EQ(del.patch_line, 9u);
  EXPECT_EQ(del.change, ChangeKind::kDelete);
  EXPECT_EQ(del.old_path, "a/old.txt");
  EXPECT_EQ(del.new_path, "/dev/null");
  EXPECT_EQ(del.old_mode, kModeRegular);
  ASSERT_EQ(del.hunks.size(), 1u);
  EXPECT_EQ(del.hunks[0].old_lines, 1u);
  EXPECT_EQ(del.hunks[0].new_lines, 0u);
}

TEST(ParseGit, EmptyFilesWithoutHunksTakeNamesFromDiffLine) {
  auto patches = parse(
      "diff --git a/fresh file.txt b/fresh file.txt\n"
      "new file mode 100644\n"
      "index 0000000..e69de29\n"
      "diff --git a/gone.txt b/gone.txt\n"
      "deleted file mode 100644\n"
      "index e69de29..0000000\n");
  ASSERT_EQ(patches[0].files.size(), 2u);
  EXPECT_EQ(patches[0].files[0].change, ChangeKind::kAdd);
  EXPECT_EQ(patches[0].files[0].old_path, "/dev/null");
  EXPECT_EQ(patches[0].files[0].new_path, "b/fresh file.txt");
  EXPECT_TRUE(patches[0].files[0].hunks.empty());
  EXPECT_EQ(patches[0].files[1].change, ChangeKind::kDelete);
  EXPECT_EQ(patches[0].files[1].old_path, "a/gone.txt");
  EXPECT_EQ(patches[0].files[1].new_path, "/dev/null");
  EXPECT_EQ(patches[0].files[1].patch_line, 4u);
}

TEST(ParseGit, ModeOnlyChangeWithSpacesInName) {
  auto patches = parse(
      "diff --git a/run tool.sh b/run tool.sh\n"
      "old mode 100644\n"
      "new mode 100755\n");
  const FilePatch& f = patches.at(0).files.at(0);
  EXPECT_EQ(f.change, ChangeKind::kMode);
  EXPECT_EQ(f.old_path, "a/run tool.sh");
  EXPECT_EQ(f.new_path, "b/run tool.sh");
  EXPECT_EQ(f.old_mode, kModeRegular);
  EXPECT_EQ(f.new_mode, kModeExecutable);
  EXPECT_TRUE(f.hunks.empty());
}

TEST(ParseGit, RenameWithModeChangeAndEditWithSpaces) {
  auto patches = parse(
      "diff --git a/scripts/run tool.sh b/bin/run tool.sh\n"
      "old mode 100644\n"
      "new mode 100755\n"
      "similarity index 78%\n"
      "rename from scripts/run tool.sh\n"
      "rename to bin/run tool.sh\n"
      "index 47daee4..149b406\n"
      "--- a/scripts/run tool.sh\t\n"
      "+++ b/bin/run tool.sh\t\n"
      "@@ -1,2 +1,2 @@\n"
      " #!/bin/sh\n"
      "-mode=debug\n"
      "+mode=release\n");
  const FilePatch& f = patches.at(0).files.at(0);
  EXPECT_EQ(f.change, ChangeKind::kRename);
  EXPECT_EQ(f.old_path, "a/scripts/run tool.sh");
  EXPECT_EQ(f.new_path, "b/bin/run tool.sh");
  EXPECT_EQ(f.similarity, 78);
  EXPECT_EQ(f.old_mode, kModeRegular);
  EXPECT_EQ(f.new_mode, kModeExecutable);
  EXPECT_EQ(f.old_blob, "47daee4");
  ASSERT_EQ(f.hunks.size(), 1u);
  EXPECT_EQ(f.hunks[0].patch_line, 10u);
}

TEST(ParseGit, PureRenameWithSpacesSplitsDiffLineByRenameNames) {
  auto patches = parse(
      "diff --git a/run tool.sh b/tools/run tool2.sh\n"
      "similarity index 100%\n"
      "rename from run tool.sh\n"
      "rename to tools/run tool2.sh\n");
  const FilePatch& f = patches.at(0).files.at(0);
  EXPECT_EQ(f.change, ChangeKind::kRename);
  EXPECT_EQ(f.old_path, "a/run tool.sh");
  EXPECT_EQ(f.new_path, "b/tools/run tool2.sh");
  EXPECT_EQ(f.similarity, 100);
}

TEST(ParseGit, RenameNamesGetPrefixesWhenDiffLineCannotBeSplit) {
  // The "diff --git" line matches neither the symmetric split nor the rename names, so the
  // names come from "rename from/to" with "a/" and "b/" added (strip level 1 still works).
  auto patches = parse(
      "diff --git a/x y b/z w\n"
      "similarity index 100%\n"
      "rename from old name\n"
      "rename to new name\n");
  const FilePatch& f = patches.at(0).files.at(0);
  EXPECT_EQ(f.old_path, "a/old name");
  EXPECT_EQ(f.new_path, "b/new name");
  EXPECT_EQ(strip_path(f.new_path, 1), "new name");
}

TEST(ParseGit, OldStyleRenameOldNewHeaders) {
  auto patches = parse(
      "diff --git a/p b/q\n"
      "rename old p\n"
      "rename new q\n");
  EXPECT_EQ(patches.at(0).files.at(0).change, ChangeKind::kRename);
  EXPECT_EQ(patches[0].files[0].old_path, "a/p");
  EXPECT_EQ(patches[0].files[0].new_path, "b/q");
}

TEST(ParseGit, Copy) {
  auto patches = parse(
      "diff --git a/a.txt b/a-copy.txt\n"
      "similarity index 60%\n"
      "copy from a.txt\n"
      "copy to a-copy.txt\n"
      "index ddc897f..b6b75ae 100644\n"
      "--- a/a.txt\n"
      "+++ b/a-copy.txt\n"
      "@@ -1,1 +1,2 @@\n"
      " one\n"
      "+copyline\n");
  const FilePatch& f = patches.at(0).files.at(0);
  EXPECT_EQ(f.change, ChangeKind::kCopy);
  EXPECT_EQ(f.old_path, "a/a.txt");
  EXPECT_EQ(f.new_path, "b/a-copy.txt");
  EXPECT_EQ(f.similarity, 60);
  EXPECT_EQ(f.hunks.size(), 1u);
}

TEST(ParseGit, QuotedNamesWithOctalAndCEscapes) {
  auto patches = parse(
      "diff --git \"a/f\\303\\251\\tx\" \"b/f\\303\\251\\tx\"\n"
      "index a9074c7..87bc629 100644\n"
      "--- \"a/f\\303\\251\\tx\"\n"
      "+++ \"b/f\\303\\251\\tx\"\n"
      "@@ -1 +1 @@\n"
      "-caf\n"
      "+CAF\n"
      "diff --git \"a/q\\\"uote\\\\\" \"b/q\\\"uote\\\\\"\n"
      "old mode 100644\n"
      "new mode 100755\n"
      "diff --git a/plain \"b/n\\na\\r\\a\\b\\f\\v\"\n"
      "similarity index 100%\n"
      "rename from plain\n"
      "rename to \"n\\na\\r\\a\\b\\f\\v\"\n");
  ASSERT_EQ(patches.at(0).files.size(), 3u);
  EXPECT_EQ(patches[0].files[0].old_path, "a/f\xC3\xA9\tx");
  EXPECT_EQ(patches[0].files[0].new_path, "b/f\xC3\xA9\tx");
  EXPECT_EQ(patches[0].files[1].old_path, "a/q\"uote\\");
  EXPECT_EQ(patches[0].files[1].change, ChangeKind::kMode);
  EXPECT_EQ(patches[0].files[2].old_path, "a/plain");
  EXPECT_EQ(patches[0].files[2].new_path, "b/n\na\r\a\b\f\v");
  EXPECT_EQ(patches[0].files[2].change, ChangeKind::kRename);
}

TEST(ParseGit, QuotedRenameNames) {
  auto patches = parse(
      "diff --git \"a/caf\\303\\251 1\" \"b/caf\\303\\251 2\"\n"
      "similarity index 100%\n"
      "rename from \"caf\\303\\251 1\"\n"
      "rename to \"caf\\303\\251 2\"\n");
  EXPECT_EQ(patches.at(0).files.at(0).old_path, "a/caf\xC3\xA9 1");
  EXPECT_EQ(patches[0].files[0].new_path, "b/caf\xC3\xA9 2");
}

TEST(ParseGit, MalformedQuotedNameOnMinusLineIsAnError) {
  Error e = parse_error(
      "diff --git a/x b/x\n"
      "--- \"a/x\\q\"\n"
      "+++ b/x\n"
      "@@ -1 +1 @@\n"
      "-a\n"
      "+b\n");
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.message(), "malformed quoted file name");
}

TEST(ParseGit, SymlinkWithoutTrailingNewline) {
  auto patches = parse(
      "diff --git a/latest b/latest\n"
      "new file mode 120000\n"
      "index 0000000..4cbb553\n"
      "--- /dev/null\n"
      "+++ b/latest\n"
      "@@ -0,0 +1 @@\n"
      "+target.txt\n"
      "\\ No newline at end of file\n");
  const FilePatch& f = patches.at(0).files.at(0);
  EXPECT_EQ(f.new_mode, kModeSymlink);
  EXPECT_EQ(lines_of(f.hunks.at(0)), "+target.txt<EOF>|");
}

TEST(ParseGit, NoIndexLineAndNoExtendedHeaders) {
  auto patches = parse(
      "diff --git a/greeting.txt b/greeting.txt\n"
      "--- a/greeting.txt\n"
      "+++ b/greeting.txt\n"
      "@@ -1,2 +1,2 @@\n"
      " hello\n"
      "-world\n"
      "+there\n");
  const FilePatch& f = patches.at(0).files.at(0);
  EXPECT_TRUE(f.git);
  EXPECT_EQ(f.old_blob, "");
  EXPECT_FALSE(f.old_mode.has_value());
  EXPECT_EQ(f.change, ChangeKind::kModify);
}

TEST(ParseGit, NoPrefixDiff) {
  auto patches = parse(
      "diff --git x.txt x.txt\n"
      "old mode 100644\n"
      "new mode 100755\n");
  EXPECT_EQ(patches.at(0).files.at(0).old_path, "x.txt");
  EXPECT_EQ(patches[0].files[0].new_path, "x.txt");
}

TEST(ParseGit, BinaryPatchLiteralAndDelta) {
  auto patches = parse(
      "diff --git a/icon.bin b/icon.bin\n"
      "new file mode 100644\n"
      "index 0000000000000000000000000000000000000000..f3b2d1451a640455289b835ae8d283cce305be56\n"
      "GIT binary patch\n"
      "literal 96\n"
      "zcmV-m0H6PfNkdNn0RSaRZ<M*-11L>$m%QNyD^PWszvKxnQ+S=i=L|7cd!WVY4>VbR\n"
      "zqsZ+NH(Y_H%kULCUxca7^B6s1hpf@|8$e}>uhjV-Luie%*Zd(yYml|t|0GFnlepdY\n"
      "CNiIJC\n"
      "\n"
      "literal 0\n"
      "HcmV?d00001\n"
      "\n"
      "diff --git a/logo.bin b/logo.bin\n"
      "index 9e9456237fe050f63b20950e41f505fa4c6ed3eb..2ddb74734ad1fdfa5e116177a6e396a5ff451c52 "
      "100644\n"
      "GIT binary patch\n"
      "delta 15\n"
      "WcmYdHo?y!28SKG0(Ncq{z8(N0(gbAy\n"
      "\n"
      "delta 12\n"
      "TcmYdJoM6h5S)9Qz(NY5d8eRj$\n"
      "\n");
  ASSERT_EQ(patches.at(0).files.size(), 2u);
  const FilePatch& add = patches[0].files[0];
  EXPECT_EQ(add.change, ChangeKind::kAdd);
  EXPECT_TRUE(add.binary);
  EXPECT_TRUE(add.binary_data);
  EXPECT_EQ(add.new_blob, "f3b2d1451a640455289b835ae8d283cce305be56");
  EXPECT_TRUE(add.hunks.empty());
  const FilePatch& mod = patches[0].files[1];
  EXPECT_EQ(mod.patch_line, 13u);
  EXPECT_EQ(mod.change, ChangeKind::kBinary);
  EXPECT_TRUE(mod.binary_data);
  EXPECT_EQ(mod.old_path, "a/logo.bin");
  EXPECT_EQ(mod.new_path, "b/logo.bin");
}

TEST(ParseGit, BinaryFilesDifferWithoutPayload) {
  auto patches = parse(
      "diff --git a/logo.bin b/logo.bin\n"
      "index 9e94562..2ddb747 100644\n"
      "Binary files a/logo.bin and b/logo.bin differ\n"
      "diff --git a/z.bin b/z.bin\n"
      "deleted file mode 100644\n"
      "index 8352675..0000000\n"
      "Binary files a/z.bin and /dev/null differ\n");
  ASSERT_EQ(patches.at(0).files.size(), 2u);
  EXPECT_EQ(patches[0].files[0].change, ChangeKind::kBinary);
  EXPECT_TRUE(patches[0].files[0].binary);
  EXPECT_FALSE(patches[0].files[0].binary_data);
  EXPECT_EQ(patches[0].files[1].change, ChangeKind::kDelete);
  EXPECT_TRUE(patches[0].files[1].binary);
}

TEST(ParseGit, BinaryPatchWithoutBlockIsAnError) {
  Error e = parse_error(
      "diff --git a/x.bin b/x.bin\n"
      "index 1111111..2222222 100644\n"
      "GIT binary patch\n"
      "diff --git a/y b/y\n");
  EXPECT_EQ(e.line(), 4u);
  EXPECT_EQ(e.message(), "'GIT binary patch' without a 'literal N' or 'delta N' block after it");
  EXPECT_EQ(parse_error("diff --git a/x.bin b/x.bin\nindex 1..2\nGIT binary patch\n").line(), 3u);
}

TEST(ParseGit, MalformedBinaryBlocksAreErrors) {
  const std::string head =
      "diff --git a/x.bin b/x.bin\nindex 1111111..2222222 100644\nGIT binary patch\n";
  // Length character says 3 bytes (5 base85 characters), the line has 6.
  Error e = parse_error(head + "literal 3\nCcmZQzWC\n\n");
  EXPECT_EQ(e.line(), 5u);
  EXPECT_EQ(e.message(), "malformed binary patch data line (bad base85 data)");
  EXPECT_EQ(parse_error(head + "literal 3\n1cmZQz\n\n").line(), 5u);  // bad length character
  EXPECT_EQ(parse_error(head + "literal x\nKcmZQzWC8#H2LJ>B\n\n").line(), 4u);
  EXPECT_EQ(parse_error(head + "literal 3\n\n").line(), 4u);  // block without data
}

TEST(ParseGit, HunkWithoutMinusPlusLinesIsAnError) {
  Error e = parse_error(
      "diff --git a/x b/x\n"
      "index 1111111..2222222 100644\n"
      "@@ -1 +1 @@\n"
      "-a\n"
      "+b\n");
  EXPECT_EQ(e.line(), 3u);
  EXPECT_EQ(e.message(), "hunk without '---'/'+++' lines after 'diff --git' (line 1)");
}

TEST(ParseGit, MinusWithoutPlusIsAnError) {
  Error e = parse_error(
      "diff --git a/x b/x\n"
      "index 1111111..2222222 100644\n"
      "--- a/x\n"
      "@@ -1 +1 @@\n"
      "-a\n"
      "+b\n");
  EXPECT_EQ(e.line(), 4u);
  EXPECT_EQ(e.message(), "'---' line not followed by a '+++' line");
}

TEST(ParseGit, MinusPlusWithoutHunkIsAnError) {
  Error e = parse_error(
      "diff --git a/x b/x\n"
      "--- a/x\n"
      "+++ b/x\n"
      "diff --git a/y b/y\n");
  EXPECT_EQ(e.line(), 4u);
  EXPECT_EQ(e.message(), "no hunk after the '---'/'+++' lines");
}

TEST(ParseGit, InvalidModeIsAnError) {
  Error e = parse_error("diff --git a/x b/x\nold mode 100644\nnew mode 10x755\n");
  EXPECT_EQ(e.line(), 3u);
  EXPECT_EQ(e.message(), "invalid file mode '10x755'");
}

TEST(ParseGit, BareDiffGitLineInProseIsText) {
  // Not followed by any git header line: not a file patch.
  Error e = parse_error("We should run diff --git a/x b/x\ndiff --git is great\nthanks\n");
  EXPECT_EQ(e.line(), 1u);
  EXPECT_EQ(e.message(), "no patch found (no 'diff --git' header and no '---'/'+++'/'@@' file "
                         "patch in lines 1-3)");
}

TEST(ParseGit, UnsplittableNamesAreAnError) {
  Error e = parse_error("diff --git a/x y b/z w\nindex 1111111..2222222 100644\n");
  EXPECT_EQ(e.line(), 1u);
  EXPECT_EQ(e.message(), "cannot determine the file names from the 'diff --git' line");
}

// ---------------------------------------------------------------------------------------------
// Hunks

TEST(ParseHunk, OmittedCountsMeanOne) {
  auto patches = parse(
      "--- a/one.txt\n"
      "+++ b/one.txt\n"
      "@@ -1 +1 @@\n"
      "-alpha\n"
      "+ALPHA\n"
      "--- /dev/null\n"
      "+++ b/solo.txt\n"
      "@@ -0,0 +1 @@\n"
      "+only line\n");
  ASSERT_EQ(patches.at(0).files.size(), 2u);
  const Hunk& h1 = patches[0].files[0].hunks.at(0);
  EXPECT_EQ(h1.old_start, 1u);
  EXPECT_EQ(h1.old_lines, 1u);
  EXPECT_EQ(h1.new_start, 1u);
  EXPECT_EQ(h1.new_lines, 1u);
  const Hunk& h2 = patches[0].files[1].hunks.at(0);
  EXPECT_EQ(h2.old_start, 0u);
  EXPECT_EQ(h2.old_lines, 0u);
  EXPECT_EQ(h2.new_lines, 1u);
  EXPECT_EQ(patches[0].files[1].change, ChangeKind::kAdd);
}

TEST(ParseHunk, SectionTextIsOpaqueAndTrimmed) {
  auto patches = parse(
      "--- a/calc.c\n"
      "+++ b/calc.c\n"
      "@@ -3,2 +3,2 @@   int compute(int x) { /* see @@ -1 +1 @@ */  \n"
      "-a\n"
      "+b\n"
      " c\n"
      "@@ -10 +10 @@\n"
      "-d\n"
      "+e\n");
  const FilePatch& f = patches.at(0).files.at(0);
  ASSERT_EQ(f.hunks.size(), 2u);
  EXPECT_EQ(f.hunks[0].section, "int compute(int x) { /* see @@ -1 +1 @@ */");
  EXPECT_EQ(f.hunks[0].old_start, 3u);
  EXPECT_EQ(f.hunks[1].section, "");
  EXPECT_EQ(f.hunks[1].patch_line, 7u);
  EXPECT_EQ(f.hunks[1].old_start, 10u);
}

TEST(ParseHunk, NoNewlineMarkerOldSide) {
  auto patches = parse(
      "--- a/poem.txt\n"
      "+++ b/poem.txt\n"
      "@@ -1,2 +1,3 @@\n"
      " alpha\n"
      "-gamma\n"
      "\\ No newline at end of file\n"
      "+gamma\n"
      "+delta\n");
  const Hunk& h = patches.at(0).files.at(0).hunks.at(0);
  EXPECT_EQ(lines_of(h), " alpha|-gamma<EOF>|+gamma|+delta|");
  EXPECT_EQ(h.removed(), 1u);
  EXPECT_EQ(h.added(), 2u);
}

TEST(ParseHunk, NoNewlineMarkerNewSide) {
  auto patches = parse(
      "--- a/poem.txt\n"
      "+++ b/poem.txt\n"
      "@@ -1,2 +1,2 @@\n"
      " alpha\n"
      "-gamma\n"
      "+GAMMA\n"
      "\\ No newline at end of file\n");
  EXPECT_EQ(lines_of(patches.at(0).files.at(0).hunks.at(0)), " alpha|-gamma|+GAMMA<EOF>|");
}

TEST(ParseHunk, NoNewlineMarkerBothSidesAndLocalized) {
  auto patches = parse(
      "--- a/poem.txt\n"
      "+++ b/poem.txt\n"
      "@@ -1,2 +1,2 @@\n"
      " alpha\n"
      "-gamma\n"
      "\\ Kein Zeilenumbruch am Dateiende.\n"
      "+GAMMA\n"
      "\\ No newline at end of file\n");
  EXPECT_EQ(lines_of(patches.at(0).files.at(0).hunks.at(0)), " alpha|-gamma<EOF>|+GAMMA<EOF>|");
}

TEST(ParseHunk, NoNewlineMarkerOnContextLine) {
  auto patches = parse(
      "--- a/f\n"
      "+++ b/f\n"
      "@@ -1,2 +1,2 @@\n"
      "-a\n"
      "+A\n"
      " last\n"
      "\\ No newline at end of file\n");
  EXPECT_EQ(lines_of(patches.at(0).files.at(0).hunks.at(0)), "-a|+A| last<EOF>|");
}

TEST(ParseHunk, NoNewlineMarkerErrors) {
  Error first = parse_error(
      "--- a/f\n"
      "+++ b/f\n"
      "@@ -1 +1 @@\n"
      "\\ No newline at end of file\n"
      "-a\n"
      "+b\n");
  EXPECT_EQ(first.line(), 4u);
  EXPECT_EQ(first.message(), "'\\ No newline at end of file' marker without a hunk line before it");
  Error after = parse_error(
      "--- a/f\n"
      "+++ b/f\n"
      "@@ -1,2 +1,2 @@\n"
      "-a\n"
      "\\ No newline at end of file\n"
      "-b\n"
      "+c\n"
      "+d\n");
  EXPECT_EQ(after.line(), 6u);
  EXPECT_EQ(after.message(),
            "hunk line after '\\ No newline at end of file' on the same side of hunk @@ -1,2 "
            "+1,2 @@");
}

TEST(ParseHunk, CrlfBodyLinesKeepTheirCarriageReturn) {
  auto patches = parse(
      "diff --git a/win.txt b/win.txt\n"
      "index 237a79d..40c3437 100644\n"
      "--- a/win.txt\n"
      "+++ b/win.txt\n"
      "@@ -1,3 +1,3 @@\n"
      " red\r\n"
      "-green\r\n"
      "+GREEN\r\n"
      " blue\r\n");
  const Hunk& h = patches.at(0).files.at(0).hunks.at(0);
  ASSERT_EQ(h.lines.size(), 4u);
  EXPECT_EQ(h.lines[0].text, "red\r");
  EXPECT_EQ(h.lines[1].text, "green\r");
  EXPECT_EQ(h.lines[2].text, "GREEN\r");
}

TEST(ParseHunk, WholePatchSavedWithCrlf) {
  auto patches = parse(
      "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\r\n"
      "Subject: [PATCH] crlf everywhere\r\n"
      "\r\n"
      "diff --git a/w.txt b/w.txt\r\n"
      "index 237a79d..40c3437 100644\r\n"
      "--- a/w.txt\r\n"
      "+++ b/w.txt\r\n"
      "@@ -1,2 +1,2 @@ sect\r\n"
      " red\r\n"
      "-green\r\n"
      "\\ No newline at end of file\r\n"
      "+GREEN\r\n");
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].subject, "crlf everywhere");
  const FilePatch& f = patches[0].files.at(0);
  EXPECT_EQ(f.old_path, "a/w.txt");
  EXPECT_EQ(f.new_path, "b/w.txt");
  EXPECT_EQ(f.old_mode, kModeRegular);
  EXPECT_EQ(f.hunks.at(0).section, "sect");
  EXPECT_EQ(lines_of(f.hunks[0]), " red\r|-green\r<EOF>|+GREEN\r|");
}

TEST(ParseHunk, EmptyLineInsideHunkIsEmptyContext) {
  auto patches = parse(
      "--- a/doc.txt\n"
      "+++ b/doc.txt\n"
      "@@ -1,5 +1,5 @@\n"
      " intro\n"
      "\n"
      "-body\n"
      "+BODY\n"
      "\r\n"
      " outro\n"
      "\n"
      "\n"
      "trailing words after the hunk\n");
  ASSERT_EQ(patches.size(), 1u);
  const Hunk& h = patches[0].files.at(0).hunks.at(0);
  EXPECT_EQ(lines_of(h), " intro| |-body|+BODY| \r| outro|");
}

TEST(ParseHunk, HeaderLookingLinesInsideBodyAreBodyLines) {
  auto patches = parse(
      "--- a/demo.txt\n"
      "+++ b/demo.txt\n"
      "@@ -1,3 +1,3 @@\n"
      " header\n"
      "--- a/alpha\n"
      "+++ b/beta\n"
      " footer\n"
      "--- a/other.txt\n"
      "+++ b/other.txt\n"
      "@@ -1 +1,2 @@\n"
      " second file\n"
      "+more\n");
  ASSERT_EQ(patches.size(), 1u);
  ASSERT_EQ(patches[0].files.size(), 2u);
  EXPECT_EQ(lines_of(patches[0].files[0].hunks.at(0)), " header|--- a/alpha|+++ b/beta| footer|");
  EXPECT_EQ(patches[0].files[1].patch_line, 8u);
  EXPECT_EQ(patches[0].files[1].old_path, "a/other.txt");
}

TEST(ParseHunk, TooManyPostImageLines) {
  Error e = parse_error(
      "diff --git a/greek.txt b/greek.txt\n"
      "index 85c3040..73b6cbb 100644\n"
      "--- a/greek.txt\n"
      "+++ b/greek.txt\n"
      "@@ -1,3 +1,3 @@\n"
      " alpha\n"
      "-beta\n"
      "+BETA\n"
      "+BETA2\n"
      " gamma\n");
  EXPECT_EQ(e.file(), "t.diff");
  EXPECT_EQ(e.line(), 10u);
  EXPECT_EQ(e.message(),
            "hunk body does not match header @@ -1,3 +1,3 @@ (header at line 5): expected 3 post-image "
            "lines, found 4");
}

TEST(ParseHunk, AddedLineWhenNoPostImageLinesRemain) {
  Error e = parse_error(
      "--- a/f\n"
      "+++ b/f\n"
      "@@ -1,2 +1 @@\n"
      " a\n"
      "+b\n"
      "-c\n");
  EXPECT_EQ(e.line(), 5u);
  EXPECT_EQ(e.message(),
            "hunk body does not match header @@ -1,2 +1 @@ (header at line 3): expected 1 post-image line, "
            "found 2");
}

TEST(ParseHunk, NonBodyLineWhileCountsRemain) {
  Error e = parse_error(
      "--- a/f\n"
      "+++ b/f\n"
      "@@ -1,3 +1,3 @@\n"
      " a\n"
      "-b\n"
      "+B\n"
      "diff --git a/g b/g\n");
  EXPECT_EQ(e.line(), 7u);
  EXPECT_EQ(e.message(),
            "hunk body does not match header @@ -1,3 +1,3 @@ (header at line 3): expected 3 pre-image "
            "lines, found 2; expected 3 post-image lines, found 2 before 'diff --git a/g b/g', "
            "which is not a hunk line");
}

TEST(ParseHunk, EndOfTextInsideHunk) {
  Error e = parse_error(
      "--- a/f\n"
      "+++ b/f\n"
      "@@ -1,4 +1,4 @@\n"
      " a\n"
      "-b\n"
      "+B\n");
  EXPECT_EQ(e.line(), 3u);
  EXPECT_EQ(e.message(),
            "hunk body does not match header @@ -1,4 +1,4 @@ (header at line 3): expected 4 pre-image "
            "lines, found 2; expected 4 post-image lines, found 2 before the end of the patch");
}

TEST(ParseHunk, HugeCountsRunIntoTheEndOfTheText) {
  Error e = parse_error("--- a/f\n+++ b/f\n@@ -1,4294967295 +1 @@\n a\n");
  EXPECT_EQ(e.line(), 3u);
  EXPECT_EQ(e.message(),
            "hunk body does not match header @@ -1,4294967295 +1 @@ (header at line 3): expected "
            "4294967295 pre-image lines, found 1 before the end of the patch");
}

TEST(ParseHunk, MoreBodyLinesThanCounted) {
  Error e = parse_error(
      "--- a/f\n"
      "+++ b/f\n"
      "@@ -1 +1 @@\n"
      "-a\n"
      "+b\n"
      "+c\n");
  EXPECT_EQ(e.line(), 6u);
  EXPECT_EQ(e.message(),
            "hunk body does not match header @@ -1 +1 @@ (header at line 3): more hunk lines than the "
            "header counts");
}

TEST(ParseHunk, MalformedHeaders) {
  const std::string head = "--- a/f\n+++ b/f\n";
  for (const char* bad :
       {"@@ -x +1 @@", "@@ -1 +1", "@@ -1,2 +1,2@@", "@@ -1, +1 @@", "@@ -1 -1 @@",
        "@@ -1,4294967296 +1 @@", "@@ -99999999999999999999 +1 @@", "@@ -1 +1,2 @"}) {
    SCOPED_TRACE(bad);
    Error e = parse_error(head + "@@ -1 +1 @@\n-a\n+b\n" + bad + "\n-a\n+b\n");
    EXPECT_EQ(e.line(), 6u);
    EXPECT_NE(e.message().find("hunk header '" + std::string(bad) + "'"), std::string::npos)
        << e.message();
  }
  EXPECT_EQ(parse_error(head + "@@ -1,4294967296 +1 @@\n").message(),
            "number too large in hunk header '@@ -1,4294967296 +1 @@'");
}

TEST(ParseHunk, HunkBeforeAnyFileHeader) {
  Error e = parse_error("some text\n@@ -2,3 +2,3 @@\n w2\n-w3\n+W3\n w4\n");
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.message(),
            "hunk header '@@ -2,3 +2,3 @@' without a file header ('diff --git' or '---'/'+++' "
            "lines) before it");
}

TEST(ParseHunk, JunkAfterHunksIsIgnored) {
  auto patches = parse(
      "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n"
      "Subject: [PATCH] x\n"
      "\n"
      "---\n"
      " f | 2 +-\n"
      "\n"
      "diff --git a/f b/f\n"
      "index 1111111..2222222 100644\n"
      "--- a/f\n"
      "+++ b/f\n"
      "@@ -1 +1 @@\n"
      "-a\n"
      "+b\n"
      "-- \n"
      "2.39.5\n"
      "\n"
      "\n");
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].files.size(), 1u);
  EXPECT_EQ(patches[0].files[0].hunks.size(), 1u);
}

// ---------------------------------------------------------------------------------------------
// Plain diff, svn, quilt

TEST(ParsePlain, TimestampsAfterTabAndSpacesInNames) {
  auto patches = parse(
      "--- a/my notes.txt\t2024-03-01 10:00:00.000000000 +0000\n"
      "+++ b/my notes.txt\t2024-03-01 10:05:00.000000000 +0000\n"
      "@@ -1 +1,2 @@\n"
      " first note\n"
      "+second note\n");
  const FilePatch& f = patches.at(0).files.at(0);
  EXPECT_FALSE(f.git);
  EXPECT_EQ(f.old_path, "a/my notes.txt");
  EXPECT_EQ(f.new_path, "b/my notes.txt");
  EXPECT_EQ(f.change, ChangeKind::kModify);
  EXPECT_EQ(f.patch_line, 1u);
}

TEST(ParsePlain, NameWithoutTabEndsAtEndOfLineTrimmed) {
  auto patches = parse("--- a/x y.txt  \n+++ b/x y.txt \n@@ -1 +1 @@\n-a\n+b\n");
  EXPECT_EQ(patches.at(0).files.at(0).old_path, "a/x y.txt");
  EXPECT_EQ(patches[0].files[0].new_path, "b/x y.txt");
}

TEST(ParsePlain, DiffRuNWithEpochTimestampsOnlyInAndBinary) {
  auto patches = parse(
      "Only in d1: stale\n"
      "Binary files d1/b.bin and d2/b.bin differ\n"
      "diff -ruN d1/new d2/new\n"
      "--- d1/new\t1970-01-01 00:00:00.000000000 +0000\n"
      "+++ d2/new\t2026-11-29 17:25:33.730659419 +0000\n"
      "@@ -0,0 +1 @@\n"
      "+new\n"
      "Only in d2: other\n"
      "diff -ruN d1/old d2/old\n"
      "--- d1/old\t2026-11-29 17:25:33.730659419 +0000\n"
      "+++ d2/old\t1969-12-31 19:00:00.000000000 -0500\n"
      "@@ -1 +0,0 @@\n"
      "-gone\n"
      "diff -ruN d1/sub/f d2/sub/f\n"
      "--- d1/sub/f\t1970-01-01 00:00:01.000000000 +0000\n"
      "+++ d2/sub/f\t2026-11-29 17:25:33.730659419 +0000\n"
      "@@ -1,2 +1,2 @@\n"
      " a\n"
      "-b\n"
      "+B\n");
  ASSERT_EQ(patches.size(), 1u);
  const Patch& p = patches[0];
  EXPECT_EQ(p.message, "Only in d1: stale\n");
  ASSERT_EQ(p.files.size(), 4u);
  EXPECT_EQ(p.files[0].change, ChangeKind::kBinary);
  EXPECT_TRUE(p.files[0].binary);
  EXPECT_EQ(p.files[0].old_path, "d1/b.bin");
  EXPECT_EQ(p.files[0].new_path, "d2/b.bin");
  EXPECT_EQ(p.files[1].change, ChangeKind::kAdd);
  EXPECT_EQ(p.files[1].patch_line, 3u);
  EXPECT_EQ(p.files[1].old_path, "/dev/null");
  EXPECT_EQ(p.files[1].new_path, "d2/new");
  EXPECT_EQ(p.files[2].change, ChangeKind::kDelete);
  EXPECT_EQ(p.files[2].old_path, "d1/old");
  EXPECT_EQ(p.files[2].new_path, "/dev/null");
  EXPECT_EQ(p.files[3].change, ChangeKind::kModify);  // one second after the epoch exists
  EXPECT_EQ(p.files[3].old_path, "d1/sub/f");
  EXPECT_EQ(p.files[3].patch_line, 14u);
}

TEST(ParsePlain, SvnIndexHeaders) {
  auto patches = parse(
      "Index: src/settings.ini\n"
      "===================================================================\n"
      "--- src/settings.ini\t(revision 1207)\n"
      "+++ src/settings.ini\t(working copy)\n"
      "@@ -1 +1 @@\n"
      "-mode = slow\n"
      "+mode = fast\n"
      "Index: src/new.ini\n"
      "===================================================================\n"
      "--- src/new.ini\t(nonexistent)\n"
      "+++ src/new.ini\t(working copy)\n"
      "@@ -0,0 +1 @@\n"
      "+x\n");
  ASSERT_EQ(patches.size(), 1u);
  ASSERT_EQ(patches[0].files.size(), 2u);
  EXPECT_EQ(patches[0].files[0].old_path, "src/settings.ini");
  EXPECT_EQ(patches[0].files[0].new_path, "src/settings.ini");
  EXPECT_EQ(patches[0].files[0].patch_line, 1u);
  EXPECT_EQ(patches[0].files[0].hunks.at(0).patch_line, 5u);
  EXPECT_EQ(patches[0].files[1].patch_line, 8u);
  EXPECT_EQ(patches[0].files[1].change, ChangeKind::kAdd);
  EXPECT_EQ(patches[0].files[1].old_path, "/dev/null");
}

TEST(ParsePlain, DevNullSides) {
  auto patches = parse(
      "--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n--- a/o\n+++ /dev/null\n@@ -1 +0,0 @@\n-y\n");
  ASSERT_EQ(patches.at(0).files.size(), 2u);
  EXPECT_EQ(patches[0].files[0].change, ChangeKind::kAdd);
  EXPECT_EQ(patches[0].files[1].change, ChangeKind::kDelete);
  EXPECT_EQ(patches[0].files[1].new_path, "/dev/null");
}

TEST(ParsePlain, MissingFileNames) {
  Error e = parse_error("--- \n+++ \n@@ -2,3 +2,3 @@\n w2\n-w3\n+W3\n w4\n");
  EXPECT_EQ(e.line(), 1u);
  EXPECT_EQ(e.message(), "missing file name after '---': cannot determine which file to patch");
  Error plus = parse_error("--- a/x\t2024-01-01\n+++\t2024-01-01\n@@ -1 +1 @@\n-a\n+b\n");
  EXPECT_EQ(plus.line(), 2u);
  EXPECT_EQ(plus.message(), "missing file name after '+++': cannot determine which file to patch");
}

TEST(ParsePlain, ConcatenatedDiffsWithTextBetweenAreSeparatePatches) {
  auto patches = parse(
      "First fix.\n"
      "--- a/x\n"
      "+++ b/x\n"
      "@@ -1 +1 @@\n"
      "-a\n"
      "+b\n"
      "\n"
      "Second fix, in two files.\n"
      "\n"
      "--- a/y\n"
      "+++ b/y\n"
      "@@ -1 +1 @@\n"
      "-c\n"
      "+d\n"
      "--- a/z\n"
      "+++ b/z\n"
      "@@ -1 +1 @@\n"
      "-e\n"
      "+f\n");
  ASSERT_EQ(patches.size(), 2u);
  EXPECT_EQ(patches[0].patch_line, 1u);
  EXPECT_EQ(patches[0].message, "First fix.\n");
  EXPECT_FALSE(patches[0].subject.has_value());
  ASSERT_EQ(patches[0].files.size(), 1u);
  EXPECT_EQ(patches[1].patch_line, 8u);
  EXPECT_EQ(patches[1].message, "Second fix, in two files.\n\n");
  ASSERT_EQ(patches[1].files.size(), 2u);
  EXPECT_EQ(patches[1].files[1].patch_line, 15u);
}

TEST(ParsePlain, HgExportWithoutGitFormat) {
  auto patches = parse(
      "# HG changeset patch\n"
      "# User A U Thor <author@example.com>\n"
      "# Date 1704164645 0\n"
      "# Node ID 0123456789abcdef0123456789abcdef01234567\n"
      "# Parent  89abcdef0123456789abcdef0123456789abcdef\n"
      "greeting: say there\n"
      "\n"
      "More words.\n"
      "\n"
      "diff -r 89abcdef0123 -r 0123456789ab greeting.txt\n"
      "--- a/greeting.txt\tTue Jan 02 03:04:05 2024 +0000\n"
      "+++ b/greeting.txt\tTue Jan 02 03:04:05 2024 +0000\n"
      "@@ -1,2 +1,2 @@\n"
      " hello\n"
      "-world\n"
      "+there\n"
      "diff -r 89abcdef0123 -r 0123456789ab new.txt\n"
      "--- /dev/null\tThu Jan 01 00:00:00 1970 +0000\n"
      "+++ b/new.txt\tTue Jan 02 03:04:05 2024 +0000\n"
      "@@ -0,0 +1 @@\n"
      "+n\n");
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].subject, "greeting: say there");
  ASSERT_EQ(patches[0].files.size(), 2u);
  EXPECT_EQ(patches[0].files[0].patch_line, 10u);
  EXPECT_EQ(patches[0].files[0].old_path, "a/greeting.txt");
  EXPECT_EQ(patches[0].files[1].change, ChangeKind::kAdd);
  EXPECT_EQ(patches[0].files[1].new_path, "b/new.txt");
}

TEST(ParsePlain, CvsAndSvnNoiseBetweenFilesDoesNotSplitThePatch) {
  auto patches = parse(
      "Index: a.c\n"
      "===================================================================\n"
      "RCS file: /cvs/a.c,v\n"
      "retrieving revision 1.1\n"
      "diff -u -r1.1 a.c\n"
      "--- a.c\t1 Jan 2024 00:00:00 -0000\t1.1\n"
      "+++ a.c\t2 Jan 2024 00:00:00 -0000\n"
      "@@ -1 +1 @@\n"
      "-a\n"
      "+b\n"
      "Index: b.c\n"
      "===================================================================\n"
      "RCS file: /cvs/b.c,v\n"
      "retrieving revision 1.2\n"
      "diff -u -r1.2 b.c\n"
      "--- b.c\t1 Jan 2024 00:00:00 -0000\t1.2\n"
      "+++ b.c\t2 Jan 2024 00:00:00 -0000\n"
      "@@ -1 +1 @@\n"
      "-c\n"
      "+d\n"
      "\n"
      "Property changes on: b.c\n"
      "___________________________________________________________________\n"
      "Added: svn:eol-style\n"
      "## -0,0 +1 ##\n"
      "+native\n"
      "Files x/p and y/p differ\n"
      "Index: c.c\n"
      "===================================================================\n"
      "--- c.c\t(revision 3)\n"
      "+++ c.c\t(working copy)\n"
      "@@ -1 +1 @@\n"
      "-e\n"
      "+f\n");
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].message,
            "Index: a.c\n===================================================================\n"
            "RCS file: /cvs/a.c,v\nretrieving revision 1.1\n");
  ASSERT_EQ(patches[0].files.size(), 3u);
  EXPECT_EQ(patches[0].files[0].patch_line, 5u);
  EXPECT_EQ(patches[0].files[0].old_path, "a.c");
  EXPECT_EQ(patches[0].files[1].patch_line, 15u);
  EXPECT_EQ(patches[0].files[2].patch_line, 28u);
  EXPECT_EQ(patches[0].files[2].old_path, "c.c");
}

// ---------------------------------------------------------------------------------------------
// Series, messages, subjects

const char kSeries[] =
    "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"  // 1
    "From: A U Thor <author@example.com>\n"
    "Date: Tue, 2 Jan 2024 03:04:05 +0000\n"
    "Subject: [PATCH 1/3] parser: handle\n"
    "  folded subjects\n"  // 5
    "\n"
    "Body with lines that look like diff headers:\n"
    "--- not a file\n"
    "diff is fun\n"
    "+++ also text\n"  // 10
    "Index: nope\n"
    "---\n"
    " a.txt | 2 +-\n"
    " 1 file changed, 1 insertion(+), 1 deletion(-)\n"
    "\n"  // 15
    "diff --git a/a.txt b/a.txt\n"
    "index 4cb29ea..ddc897f 100644\n"
    "--- a/a.txt\n"
    "+++ b/a.txt\n"
    "@@ -1 +1 @@\n"  // 20
    "-two\n"
    "+TWO\n"
    "-- \n"
    "2.39.5\n"
    "\n"  // 25
    "From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\n"
    "From: A U Thor <author@example.com>\n"
    "Subject: [PATCH v2 2/3] =?UTF-8?q?caf=C3=A9:=20fix?=\n"
    "\n"
    "---\n"  // 30
    "diff --git a/b.txt b/b.txt\n"
    "new file mode 100644\n"
    "index 0000000..e69de29\n"
    "-- \n"
    "2.39.5\n"  // 35
    "\n"
    "From 3333333333333333333333333333333333333333 Mon Sep 17 00:00:00 2001\n"
    "From: A U Thor <author@example.com>\n"
    "Subject: [RFC PATCH 3/3] Re: last one\n"
    "\n"  // 40
    "diff --git a/c.txt b/c.txt\n"
    "deleted file mode 100644\n"
    "index e69de29..0000000\n";

TEST(ParseSeries, MboxSeriesOfThree) {
  auto patches = parse(kSeries);
  ASSERT_EQ(patches.size(), 3u);
  EXPECT_EQ(patches[0].patch_line, 1u);
  EXPECT_EQ(patches[0].subject, "parser: handle folded subjects");
  ASSERT_EQ(patches[0].files.size(), 1u);
  EXPECT_EQ(patches[0].files[0].patch_line, 16u);
  EXPECT_EQ(patches[0].files[0].hunks.at(0).patch_line, 20u);
  EXPECT_TRUE(patches[0].message.starts_with("From 1111111111111111111111111111111111111111 "));
  EXPECT_TRUE(patches[0].message.ends_with(" 1 file changed, 1 insertion(+), 1 deletion(-)\n\n"));
  EXPECT_NE(patches[0].message.find("--- not a file\ndiff is fun\n+++ also text\n"),
            std::string::npos);
  EXPECT_EQ(patches[1].patch_line, 26u);
  EXPECT_EQ(patches[1].subject, "caf\xC3\xA9: fix");
  ASSERT_EQ(patches[1].files.size(), 1u);
  EXPECT_EQ(patches[1].files[0].change, ChangeKind::kAdd);
  EXPECT_EQ(patches[2].patch_line, 37u);
  EXPECT_EQ(patches[2].subject, "last one");
  EXPECT_EQ(patches[2].files.at(0).change, ChangeKind::kDelete);
  for (const Patch& p : patches) EXPECT_EQ(p.source, "t.diff");
}

TEST(ParseSeries, CoverLetterWithoutDiffIsDropped) {
  auto patches = parse(
      "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
      "Subject: [PATCH 0/1] cover\n"
      "\n"
      "Explains things.\n"
      "-- \n"
      "2.39.5\n"
      "\n"
      "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
      "Subject: [PATCH 1/1] real\n"
      "\n"
      "--- a/x\n"
      "+++ b/x\n"
      "@@ -1 +1 @@\n"
      "-a\n"
      "+b\n");
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].subject, "real");
  EXPECT_EQ(patches[0].patch_line, 8u);
}

TEST(ParseSeries, MailWithoutMboxFromLine) {
  auto patches = parse(
      "From: Someone <s@example.com>\n"
      "Subject: [PATCH] saved from a mail client\n"
      "\n"
      "--- a/x\n"
      "+++ b/x\n"
      "@@ -1 +1 @@\n"
      "-a\n"
      "+b\n");
  EXPECT_EQ(patches.at(0).subject, "saved from a mail client");
}

TEST(ParseSeries, GitLogP) {
  auto patches = parse(
      "commit 0123456789abcdef0123456789abcdef01234567 (HEAD -> main)\n"
      "Author: A U Thor <author@example.com>\n"
      "Date:   Tue Jan 2 03:04:05 2024 +0000\n"
      "\n"
      "    second: change b\n"
      "    \n"
      "    --- not a header\n"
      "\n"
      "diff --git a/b b/b\n"
      "index 1111111..2222222 100644\n"
      "--- a/b\n"
      "+++ b/b\n"
      "@@ -1 +1 @@\n"
      "-b\n"
      "+B\n"
      "\n"
      "commit 89abcdef0123456789abcdef0123456789abcdef\n"
      "Merge: 1111111 2222222\n"
      "Author: A U Thor <author@example.com>\n"
      "Date:   Mon Jan 1 03:04:05 2024 +0000\n"
      "\n"
      "    Merge branch 'x'\n"
      "\n"
      "commit fedcba9876543210fedcba9876543210fedcba98\n"
      "Author: A U Thor <author@example.com>\n"
      "Date:   Mon Jan 1 03:04:05 2024 +0000\n"
      "\n"
      "\n"
      "    first\n"
      "\n"
      "diff --git a/a b/a\n"
      "new file mode 100644\n"
      "index 0000000..e69de29\n");
  ASSERT_EQ(patches.size(), 2u);  // the merge commit has no diff
  EXPECT_EQ(patches[0].subject, "second: change b");
  EXPECT_EQ(patches[0].patch_line, 1u);
  EXPECT_EQ(patches[0].files.at(0).patch_line, 9u);
  EXPECT_EQ(patches[1].subject, "first");
  EXPECT_EQ(patches[1].patch_line, 24u);
  EXPECT_EQ(patches[1].files.at(0).change, ChangeKind::kAdd);
}

TEST(ParseSeries, HgExportGitStyle) {
  const std::string text =
      "# HG changeset patch\n"
      "# User A U Thor <author@example.com>\n"
      "# Date 1704164645 0\n"
      "#      Tue Jan 02 03:04:05 2024 +0000\n"
      "greeting: say there\n"
      "\n"
      "diff --git a/greeting.txt b/greeting.txt\n"
      "--- a/greeting.txt\n"
      "+++ b/greeting.txt\n"
      "@@ -1,2 +1,2 @@\n"
      " hello\n"
      "-world\n"
      "+there\n";
  auto patches = parse(text + text);
  ASSERT_EQ(patches.size(), 2u);
  EXPECT_EQ(patches[0].subject, "greeting: say there");
  EXPECT_EQ(patches[0].message, text.substr(0, text.find("diff --git")));
  EXPECT_EQ(patches[1].patch_line, 14u);
  EXPECT_EQ(patches[1].files.at(0).patch_line, 20u);
  EXPECT_TRUE(patches[1].files[0].git);
}

TEST(ParseSeries, FromAndCommitWordsInMessagesDoNotSplit) {
  auto patches = parse(
      "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
      "Subject: [PATCH] s\n"
      "\n"
      "From the docs:\n"
      "Signed-off-by: X <x@y>\n"
      "commit 1234567 broke this\n"
      "Reported-by: Y <y@z>\n"
      "---\n"
      "diff --git a/f b/f\n"
      "--- a/f\n"
      "+++ b/f\n"
      "@@ -1 +1 @@\n"
      "-a\n"
      "+b\n");
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].subject, "s");
  EXPECT_EQ(patches[0].files.at(0).patch_line, 9u);
  EXPECT_NE(patches[0].message.find("From the docs:\nSigned-off-by"), std::string::npos);
}

TEST(ParseSeries, PlainMessageHasNoSubject) {
  auto patches = parse("Fix the thing\n\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
  EXPECT_EQ(patches.at(0).message, "Fix the thing\n\n");
  EXPECT_FALSE(patches[0].subject.has_value());
}

// ---------------------------------------------------------------------------------------------
// Unsupported formats, empty input, BOM

TEST(ParseError, ContextDiff) {
  Error e = parse_error(
      "Some intro\n"
      "*** num.txt.orig\t2024-03-01 10:00:00.000000000 +0000\n"
      "--- num.txt\t2024-03-01 10:01:00.000000000 +0000\n"
      "***************\n"
      "*** 1,4 ****\n");
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.message(),
            "context diff format is not supported; regenerate with `diff -u` or `git diff`");
  EXPECT_EQ(parse_error("***************\n*** 1,4 ****\n  one\n").line(), 1u);
}

TEST(ParseError, CombinedDiff) {
  Error cc = parse_error(
      "diff --git a/ok b/ok\n"
      "new file mode 100644\n"
      "diff --cc f.txt\n"
      "index 1111111,2222222..3333333\n"
      "--- a/f.txt\n"
      "+++ b/f.txt\n"
      "@@@ -1,3 -1,3 +1,3 @@@\n");
  EXPECT_EQ(cc.line(), 3u);
  EXPECT_EQ(cc.message(),
            "combined diff (merge) is not supported; diff the merge against one parent instead");
  EXPECT_EQ(parse_error("diff --combined f.txt\n").line(), 1u);
  EXPECT_EQ(parse_error("--- a/f\n+++ b/f\n@@@ -1 -1 +1 @@@\n").line(), 3u);
}

TEST(ParseError, NoPatchFound) {
  // An empty input (a byte order mark alone is none) has no line to name.
  for (std::string_view text : {std::string_view(""), std::string_view("\xEF\xBB\xBF")}) {
    Error e = parse_error(text);
    EXPECT_EQ(e.line(), 0u);
    EXPECT_EQ(e.file(), "t.diff");
    EXPECT_EQ(e.message(),
              "no patch found (no 'diff --git' header and no '---'/'+++'/'@@' file patch)");
  }
  // Other inputs are named from their first line, and say how far they were read.
  Error e = parse_error("just words\n--- \nno diff here\n");
  EXPECT_EQ(e.line(), 1u);
  EXPECT_EQ(e.message(), "no patch found (no 'diff --git' header and no '---'/'+++'/'@@' file "
                         "patch in lines 1-3)");
  Error one = parse_error("just words");
  EXPECT_EQ(one.line(), 1u);
  EXPECT_EQ(one.message(), "no patch found (no 'diff --git' header and no '---'/'+++'/'@@' file "
                           "patch in its one line)");
}

TEST(ParseError, NulInFileName) {
  std::string text = "--- a/x\n+++ b/x";
  text += '\0';
  text += "y\n@@ -1 +1 @@\n-a\n+b\n";
  Error e = parse_error(text);
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.message(), "file name contains a NUL byte");
  // A NUL byte in a body line is content.
  std::string body = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+";
  body += '\0';
  body += "b\n";
  EXPECT_EQ(parse(body).at(0).files.at(0).hunks.at(0).lines.at(1).text, std::string(1, '\0') + "b");
}

// Git headers that contradict each other, and rename/copy names outside the tree: refused at
// their line, as git apply refuses them (hostile review, issue 11 finding 4: `new file mode`
// with `--- a/x` was an add, `rename to ../../etc/passwd` a rename of a file to itself).
TEST(ParseError, ContradictoryGitHeaders) {
  const auto line_of = [](std::string_view text) { return parse_error(text).line(); };
  EXPECT_EQ(line_of("diff --git a/x b/x\nnew file mode 100644\n--- a/x\n+++ b/x\n"
                    "@@ -0,0 +1 @@\n+y\n"),
            3u);
  EXPECT_EQ(line_of("diff --git a/x b/x\ndeleted file mode 100644\n--- a/x\n+++ b/x\n"
                    "@@ -1 +0,0 @@\n-y\n"),
            4u);
  EXPECT_EQ(line_of("diff --git a/x b/x\nnew file mode 100644\ndeleted file mode 100644\n"), 3u);
  EXPECT_EQ(line_of("diff --git a/x b/y\ndeleted file mode 100644\nrename from x\nrename to y\n"),
            4u);
  EXPECT_EQ(line_of("diff --git a/x b/y\ncopy from x\ncopy to y\nrename from x\nrename to y\n"),
            5u);
  EXPECT_EQ(line_of("diff --git a/x b/y\nrename to y\n"), 2u);
  EXPECT_EQ(line_of("diff --git a/x b/y\ncopy from x\n"), 2u);
  EXPECT_EQ(line_of("--- /dev/null\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"), 3u);
  EXPECT_EQ(line_of("--- a/x\n+++ /dev/null\n@@ -1,2 +1 @@\n-a\n b\n"), 3u);
  EXPECT_EQ(
      parse_error("diff --git a/x b/y\nrename from x\nrename to ../../etc/passwd\n").message(),
      "file name '../../etc/passwd' climbs out of the tree ('..'); refused");
  EXPECT_EQ(parse_error("diff --git a/x b/y\ncopy from /etc/shadow\ncopy to y\n").message(),
            "file name '/etc/shadow' is absolute; refused");
  // What git writes still parses: a new file, a deletion, a rename with a change.
  EXPECT_EQ(parse("diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n"
                  "@@ -0,0 +1 @@\n+y\n")
                .at(0)
                .files.at(0)
                .change,
            ChangeKind::kAdd);
  EXPECT_EQ(parse("diff --git a/x b/y\nsimilarity index 90%\nrename from x\nrename to y\n"
                  "--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n")
                .at(0)
                .files.at(0)
                .change,
            ChangeKind::kRename);
  EXPECT_EQ(parse("diff --git a/..x b/x..\nrename from ..x\nrename to x..\n").at(0).files.size(),
            1u);
}

// A bad patch of a series costs only itself: kept with its error, the next one parsed from its
// boundary on; without a boundary after it, the rest of the text is its.
TEST(ParseError, KeepingErrorsResumesAtTheNextPatch) {
  const std::string bad_hunk = "--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n-a\n";
  const std::string good = "--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n";
  const auto commit = [](char c) {
    return "commit " + std::string(40, c) + "\nAuthor: A <a@b>\nDate:   now\n\n    msg " + c +
           "\n\n";
  };
  auto text = std::make_shared<const std::string>(commit('a') + good + commit('b') + bad_hunk +
                                                  commit('c') + good);
  std::vector<Patch> patches = parse_patches_keeping_errors(text, "log.txt");
  ASSERT_EQ(patches.size(), 3u);
  EXPECT_TRUE(patches[0].error.empty());
  EXPECT_EQ(patches[0].files.size(), 1u);
  EXPECT_EQ(patches[1].subject, "msg b");
  EXPECT_TRUE(patches[1].files.empty());
  EXPECT_EQ(patches[1].patch_line, 22u);  // the line before which the hunk's lines ran out
  EXPECT_NE(patches[1].error.find("hunk body does not match header"), std::string::npos)
      << patches[1].error;
  EXPECT_EQ(patches[2].subject, "msg c");
  EXPECT_EQ(patches[2].files.size(), 1u);
  EXPECT_THROW(parse_patches(text, "log.txt"), Error);  // as before
  // Concatenated diffs are one patch: a bad file patch in it makes the whole one entry.
  text = std::make_shared<const std::string>(good + "--- a/x\n+++ b/x\n@@ -1,5 +1 @@\n-a\n");
  patches = parse_patches_keeping_errors(text, "cat.diff");
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_TRUE(patches[0].files.empty());
  EXPECT_EQ(patches[0].patch_line, 8u);
  // Errors about the whole text are still thrown.
  EXPECT_THROW(parse_patches_keeping_errors(std::make_shared<const std::string>("words\n"), "t"),
               Error);
}

TEST(ParseError, AMailNumberedInASeriesWithoutADiffIsAnErrorACoverLetterIsNot) {
  // `git format-patch` mails: a cover letter ([PATCH 0/2]) has no diff and is dropped; a
  // numbered patch ([PATCH 2/2]) whose diff was lost is an error, never silently dropped.
  const auto mail = [](const std::string& subject, const std::string& body) {
    return "From 0123456789012345678901234567890123456789 Mon Sep 17 00:00:00 2001\n"
           "From: A <a@b>\nSubject: " + subject + "\n\n" + body;
  };
  const std::string diff = "---\n x | 2 +-\n\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
  auto text = std::make_shared<const std::string>(mail("[PATCH 0/2] series", "blurb\n") +
                                                  mail("[PATCH 1/2] fix a", "msg\n" + diff) +
                                                  mail("[PATCH v2 02/12] fix b", "msg\n"));
  std::vector<Patch> patches = parse_patches_keeping_errors(text, "s.mbox");
  ASSERT_EQ(patches.size(), 2u);
  EXPECT_TRUE(patches[0].error.empty());
  EXPECT_EQ(patches[0].files.size(), 1u);
  EXPECT_TRUE(patches[1].files.empty());
  EXPECT_NE(patches[1].error.find("numbered as a patch of a series holds no diff"),
            std::string::npos)
      << patches[1].error;
  EXPECT_THROW(parse_patches(text, "s.mbox"), Error);
  text = std::make_shared<const std::string>(mail("[PATCH 0/1] series", "blurb\n") +
                                             mail("[PATCH 1/1] fix a", "msg\n" + diff));
  EXPECT_EQ(parse_patches(text, "s.mbox").size(), 1u);
}

TEST(ParseBom, LeadingBomIsSkipped) {
  auto patches = parse(
      "\xEF\xBB\xBF"
      "diff --git a/size.cfg b/size.cfg\n"
      "index d1845ae..40cba76 100644\n"
      "--- a/size.cfg\n"
      "+++ b/size.cfg\n"
      "@@ -1 +1 @@\n"
      "-width = 10\n"
      "+width = 12\n");
  const FilePatch& f = patches.at(0).files.at(0);
  EXPECT_TRUE(f.git);
  EXPECT_EQ(f.patch_line, 1u);
  EXPECT_EQ(f.old_path, "a/size.cfg");
  EXPECT_EQ(f.hunks.at(0).patch_line, 5u);
  EXPECT_EQ(patches[0].message, "");
}

// ---------------------------------------------------------------------------------------------
// Robustness: any input parses or throws Error.

const char kRealistic[] =
    "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
    "From: A <a@b>\n"
    "Subject: [PATCH] =?UTF-8?b?Y2Fmw6k=?= all kinds\n"
    "\n"
    "---\n"
    "diff --git \"a/f\\303\\251\" \"b/f\\303\\251\"\n"
    "old mode 100644\n"
    "new mode 100755\n"
    "index 1111111..2222222\n"
    "--- \"a/f\\303\\251\"\n"
    "+++ \"b/f\\303\\251\"\n"
    "@@ -1,3 +1,3 @@ sect\n"
    " a\r\n"
    "\n"
    "-b\n"
    "\\ No newline at end of file\n"
    "+B\n"
    "@@ -10 +10,2 @@\n"
    " x\n"
    "+y\n"
    "\\ No newline at end of file\n"
    "diff --git a/r 1 b/r 2\n"
    "similarity index 90%\n"
    "rename from r 1\n"
    "rename to r 2\n"
    "diff --git a/bin b/bin\n"
    "index 9e9456237fe050f63b20950e41f505fa4c6ed3eb..2ddb74734ad1fdfa5e116177a6e396a5ff451c52\n"
    "GIT binary patch\n"
    "delta 15\n"
    "WcmYdHo?y!28SKG0(Ncq{z8(N0(gbAy\n"
    "\n"
    "delta 12\n"
    "TcmYdJoM6h5S)9Qz(NY5d8eRj$\n"
    "\n"
    "-- \n"
    "2.39.5\n"
    "\n"
    "Index: p\n"
    "====\n"
    "--- p\t(revision 1)\n"
    "+++ p\t(working copy)\n"
    "@@ -1 +0,0 @@\n"
    "-z\n"
    "Binary files d1/q and d2/q differ\n";

TEST(ParseRobust, RealisticPatchParses) {
  auto patches = parse(kRealistic);
  ASSERT_EQ(patches.size(), 2u);
  EXPECT_EQ(patches[0].subject, "caf\xC3\xA9 all kinds");
  ASSERT_EQ(patches[0].files.size(), 3u);
  EXPECT_EQ(patches[0].files[0].change, ChangeKind::kModify);
  EXPECT_EQ(patches[0].files[0].hunks.size(), 2u);
  EXPECT_EQ(lines_of(patches[0].files[0].hunks[0]), " a\r| |-b<EOF>|+B|");
  EXPECT_EQ(patches[0].files[1].change, ChangeKind::kRename);
  EXPECT_EQ(patches[0].files[1].old_path, "a/r 1");
  EXPECT_EQ(patches[0].files[2].change, ChangeKind::kBinary);
  // The signature is text followed by another file patch: a new (message-less subject) patch.
  EXPECT_EQ(patches[1].patch_line, 35u);
  EXPECT_FALSE(patches[1].subject.has_value());
  ASSERT_EQ(patches[1].files.size(), 2u);
  EXPECT_EQ(patches[1].files[0].change, ChangeKind::kModify);
  EXPECT_EQ(patches[1].files[1].change, ChangeKind::kBinary);
}

TEST(ParseRobust, EveryPrefixParsesOrThrowsError) {
  const std::string text = kRealistic;
  for (std::size_t len = 0; len <= text.size(); ++len) {
    parse_or_error(std::string_view(text).substr(0, len));
  }
  std::string series = kSeries;
  for (std::size_t len = 0; len <= series.size(); ++len) {
    parse_or_error(std::string_view(series).substr(0, len));
  }
}

TEST(ParseRobust, RandomBytesAndMutations) {
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> byte(0, 255);
  const std::string alphabet = "@@ -+,0123456789\n\r\\\"abdfgint/:\t ";
  for (int round = 0; round < 300; ++round) {
    std::string random(static_cast<std::size_t>(byte(rng)) * 4, '\0');
    for (char& c : random) c = static_cast<char>(byte(rng));
    parse_or_error(random);
    std::string dense(200, ' ');
    for (char& c : dense) {
      c = alphabet[static_cast<std::size_t>(byte(rng)) % alphabet.size()];
    }
    parse_or_error(dense);
    parse_or_error("--- a/x\n+++ b/x\n" + dense);
    parse_or_error("diff --git a/x b/x\n" + dense);
    std::string mutated = kRealistic;
    for (int k = 0; k < 4; ++k) {
      std::size_t at = static_cast<std::size_t>(byte(rng) * 7) % mutated.size();
      mutated[at] = alphabet[static_cast<std::size_t>(byte(rng)) % alphabet.size()];
    }
    parse_or_error(mutated);
  }
}

// ---------------------------------------------------------------------------------------------
// The shared real-world cases: which parse, which fail and where.

TEST(ParseCases, SharedCasesParseOrFailAtTheRightLine) {
  namespace fs = std::filesystem;
  // Cases whose patch must be rejected, with the 1-based line of the error.
  const std::vector<std::pair<std::string, std::size_t>> failing = {
      {"25-combined-diff-cc", 1},
      {"26-context-diff-format", 1},
      {"29-hunk-count-mismatch-modify", 10},
      {"42-missing-file-names", 1}};
  std::size_t seen = 0;
  for (const auto& entry : fs::directory_iterator(SM120CHECK_CASES_DIR)) {
    fs::path patch = entry.path() / "patch.diff";
    if (!fs::exists(patch)) continue;
    ++seen;
    std::string id = entry.path().filename().string();
    SCOPED_TRACE(id);
    std::string text = test::read_file(patch);
    auto it =
        std::find_if(failing.begin(), failing.end(), [&](const auto& f) { return f.first == id; });
    if (it != failing.end()) {
      Error e = parse_error(text);
      EXPECT_EQ(e.line(), it->second) << e.what();
      continue;
    }
    std::vector<Patch> patches;
    try {
      patches = parse_patches(text, patch.string());
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    ASSERT_EQ(patches.size(), 1u);
    EXPECT_FALSE(patches[0].files.empty());
  }
  EXPECT_EQ(seen, 25u);
}

TEST(ParseCases, SelectedCaseDetails) {
  auto load = [](const std::string& id) {
    return parse_patches(
        test::read_file(std::string(SM120CHECK_CASES_DIR) + "/" + id + "/patch.diff"), id);
  };
  auto p13 = load("13-rename-with-mode-edit-spaces");
  EXPECT_EQ(p13.at(0).files.at(0).old_path, "a/scripts/run tool.sh");
  EXPECT_EQ(p13[0].files[0].new_path, "b/bin/run tool.sh");
  EXPECT_EQ(p13[0].files[0].change, ChangeKind::kRename);
  auto p16 = load("16-git-binary-patch");
  EXPECT_EQ(p16.at(0).files.at(0).change, ChangeKind::kAdd);
  EXPECT_EQ(p16[0].files.at(1).change, ChangeKind::kBinary);
  auto p41 = load("41-hg-export-no-index-line");
  EXPECT_EQ(p41.at(0).subject, "greeting: say there");
  EXPECT_EQ(p41[0].files.at(0).patch_line, 9u);
  auto p31 = load("31-blank-context-no-space");
  EXPECT_EQ(p31.at(0).files.at(0).hunks.at(0).lines.size(), 7u);
  auto p33 = load("33-bom-prefixed-patch-file");
  EXPECT_TRUE(p33.at(0).files.at(0).git);
}

// ---------------------------------------------------------------------------------------------
// Model helpers (patch.cpp)

TEST(ParseModel, HunkCountsAndStripPath) {
  auto patches = parse("--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n a\n b\n-c\n+C\n d\n");
  const Hunk& h = patches.at(0).files.at(0).hunks.at(0);
  EXPECT_EQ(h.added(), 1u);
  EXPECT_EQ(h.removed(), 1u);
  EXPECT_EQ(h.leading_context(), 2u);
  EXPECT_EQ(h.trailing_context(), 1u);
  EXPECT_EQ(strip_path("a/b/c", 1), "b/c");
  EXPECT_EQ(strip_path("a//b/c", 2), "c");
  EXPECT_EQ(strip_path("a/b", 2), std::nullopt);
  EXPECT_EQ(strip_path("/dev/null", 1), "/dev/null");
  EXPECT_EQ(to_string(ChangeKind::kBinary), "binary");
}

// ---------------------------------------------------------------------------------------------
// Hostile-input review: subject decoding, empty hunks, hunk line limit, quoted diffs in messages

std::string mail_with_subject(const std::string& subject) {
  return "From: A <a@b>\nSubject: " + subject + "\n\n---\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
}

std::string repeat(std::string_view unit, std::size_t times) {
  std::string out;
  out.reserve(unit.size() * times);
  for (std::size_t k = 0; k < times; ++k) out += unit;
  return out;
}

TEST(ParseSubject, MegabyteSubjectsOfEncodedWordFragmentsDecodeInOnePass) {
  // 3 fragments "=?x?q?" read as one encoded word "=?x?q?=?x?q?=" (payload "=?x?q", its '='
  // not followed by hex) and the text "?x?q?" up to the next fragment.
  constexpr std::size_t kPeriods = 58255;  // 1,048,590 bytes
  auto patches = parse(mail_with_subject(repeat("=?x?q?", 3 * kPeriods)));
  EXPECT_EQ(patches.at(0).subject, repeat("=?x?q?x?q?", kPeriods));
  // No "?=" anywhere: no fragment ends, the subject stays as it is (the old decoder searched to
  // the end of the subject for each fragment).
  const std::string open = repeat("=?x?q? ", 150000);
  patches = parse(mail_with_subject(open));
  EXPECT_EQ(patches.at(0).subject, open.substr(0, open.size() - 1));
  EXPECT_EQ(patches[0].files.at(0).old_path, "a/x");
}

TEST(ParseSubject, EncodedWordsUpTo256BytesAreDecoded) {
  const std::string payload(200, 'a');
  auto patches = parse(mail_with_subject("=?UTF-8?q?" + payload + "_b?="));
  EXPECT_EQ(patches.at(0).subject, payload + " b");
  // 264 bytes from "=?" to "?=": left as written.
  const std::string too_long = "=?UTF-8?q?" + std::string(252, 'c') + "?=";
  patches = parse(mail_with_subject(too_long));
  EXPECT_EQ(patches.at(0).subject, too_long);
}

TEST(ParseHunk, EmptyHunkIsAnError) {
  Error plain = parse_error("--- a/x\n+++ b/x\n@@ -0,0 +0,0 @@\n");
  EXPECT_EQ(plain.line(), 3u);
  EXPECT_EQ(plain.message(),
            "hunk has no lines: '@@ -0,0 +0,0 @@' counts no pre-image and no post-image line");
  Error git = parse_error(
      "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n@@ -5,0 +6,0 @@ f()\n-c\n");
  EXPECT_EQ(git.line(), 7u);
  EXPECT_EQ(git.message(),
            "hunk has no lines: '@@ -5,0 +6,0 @@' counts no pre-image and no post-image line");
}

TEST(ParsePlain, CompleteHeaderWithoutHunkIsAnError) {
  const std::string kNoHunks =
      "file patch has no hunks: the '---'/'+++' lines must be followed by a '@@' hunk header";
  Error index = parse_error("Index: x\n=====\n--- x\t(revision 1)\n+++ x\t(working copy)\n");
  EXPECT_EQ(index.line(), 3u);
  EXPECT_EQ(index.message(), kNoHunks);
  Error diff = parse_error(
      "--- a/ok\n+++ b/ok\n@@ -1 +1 @@\n-a\n+b\n"
      "diff -u a/x b/x\n--- a/x\n+++ b/x\nsome text\n");
  EXPECT_EQ(diff.line(), 7u);
  EXPECT_EQ(diff.message(), kNoHunks);
  Error at_end = parse_error("diff -ruN d1/e d2/e\n--- d1/e\n+++ d2/e\n\n");
  EXPECT_EQ(at_end.line(), 2u);
  EXPECT_EQ(at_end.message(), kNoHunks);
  Error malformed = parse_error("diff -ruN d1/e d2/e\n--- d1/e\n+++ d2/e\n@@ -x +1 @@\n+a\n");
  EXPECT_EQ(malformed.line(), 4u);
  EXPECT_EQ(malformed.message(), "malformed hunk header '@@ -x +1 @@'");
  // A bare "---"/"+++" pair without a hunk is no header at all.
  Error bare = parse_error("--- a/x\n+++ b/x\n");
  EXPECT_EQ(bare.line(), 1u);
  EXPECT_TRUE(bare.message().starts_with(kNoPatchFound));
}

TEST(ParsePlain, SvnPropertyOnlyChangeIsNoFilePatch) {
  auto patches = parse(
      "Index: run.sh\n"
      "===================================================================\n"
      "--- run.sh\t(revision 4)\n"
      "+++ run.sh\t(working copy)\n"
      "\n"
      "Property changes on: run.sh\n"
      "___________________________________________________________________\n"
      "Added: svn:executable\n"
      "## -0,0 +1 ##\n"
      "+*\n"
      "\\ No newline at end of property\n"
      "Index: conf.ini\n"
      "===================================================================\n"
      "--- conf.ini\t(revision 4)\n"
      "+++ conf.ini\t(working copy)\n"
      "@@ -1 +1 @@\n"
      "-a\n"
      "+b\n");
  ASSERT_EQ(patches.size(), 1u);
  ASSERT_EQ(patches[0].files.size(), 1u);
  EXPECT_EQ(patches[0].files[0].old_path, "conf.ini");
  EXPECT_EQ(patches[0].files[0].patch_line, 12u);
}

TEST(ParseGit, HeaderWithoutHunksStaysValid) {
  // `git diff -w` of a white-space-only change: only the index line remains.
  auto patches = parse(
      "diff --git a/x.py b/x.py\n"
      "index 1111111..2222222 100644\n"
      "diff --git a/y.py b/y.py\n"
      "old mode 100644\n"
      "new mode 100755\n");
  ASSERT_EQ(patches.at(0).files.size(), 2u);
  const FilePatch& ws = patches[0].files[0];
  EXPECT_EQ(ws.change, ChangeKind::kModify);
  EXPECT_TRUE(ws.hunks.empty());
  EXPECT_EQ(ws.old_blob, "1111111");
  EXPECT_EQ(ws.new_blob, "2222222");
  EXPECT_EQ(patches[0].files[1].change, ChangeKind::kMode);
}

TEST(ParseLimits, HunkLinesPerCallAreLimited) {
  // Two files whose hunks hold kMaxHunkLines + 1 lines together: the limit counts over the
  // whole call, and the error names exactly the first line over it (so kMaxHunkLines pass).
  const std::size_t half = kMaxHunkLines / 2;
  const std::string text = "--- a/x\n+++ b/x\n@@ -0,0 +1," + std::to_string(half) + " @@\n" +
                           repeat("+\n", half) + "--- a/y\n+++ b/y\n@@ -0,0 +1," +
                           std::to_string(half + 1) + " @@\n" + repeat("+\n", half + 1);
  Error e = parse_error(text);
  EXPECT_EQ(e.line(), kMaxHunkLines + 7);  // 6 header lines, then the line over the limit
  EXPECT_EQ(e.message(), "more than 4194304 hunk lines; refused");
}

TEST(ParseModel, HunkLinesViewThePatchText) {
  // The model of a large patch is its text plus 24 bytes a line: the lines view the text the
  // hunks keep, with no copy and no spare capacity.
  const auto text = std::make_shared<const std::string>(
      "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\r\n+c\n d\n\\ No newline at end of file\n");
  const std::vector<Patch> patches = parse_patches(text, "t.diff");
  const Hunk& h = patches.at(0).files.at(0).hunks.at(0);
  EXPECT_EQ(h.patch_text, text);
  ASSERT_EQ(h.lines.size(), 4u);
  EXPECT_EQ(h.lines.capacity(), 4u);
  for (const HunkLine& l : h.lines) {
    EXPECT_GE(l.text.data(), text->data());
    EXPECT_LE(l.text.data() + l.text.size(), text->data() + text->size());
  }
  EXPECT_EQ(h.lines[1].text, "b\r");
  EXPECT_TRUE(h.lines[3].no_newline_at_eof);
  // From a view, the hunks keep a copy: the lines outlive the caller's text.
  std::vector<Patch> copied;
  {
    const std::string local = *text;
    copied = parse_patches(std::string_view(local), "t.diff");
  }
  const Hunk& c = copied.at(0).files.at(0).hunks.at(0);
  EXPECT_NE(c.patch_text, text);
  EXPECT_EQ(c.lines.at(2).text, "c");
  EXPECT_EQ(c.lines.at(3).text, "d");
}

// A version bump whose message pastes `diff -u <(...) <(...)` output.
const char kQuotedDiffMessage[] =
    "Subject: [PATCH] Bump version to 1.2.4\n"
    "\n"
    "Compared the pins:\n"
    "\n"
    "diff -u <(pip freeze) <(cat requirements.txt)\n"  // 5
    "--- /dev/fd/11\t2024-05-01 10:00:00.000000000 +0000\n"
    "+++ /dev/fd/12\t2024-05-01 10:00:00.000000000 +0000\n"
    "@@ -1,2 +1,2 @@\n"
    "-torch==2.3.0\n"
    "+torch==2.4.0\n"  // 10
    " triton==3.0.0\n"
    "---\n"
    " version.txt | 2 +-\n"
    " 1 file changed, 1 insertion(+), 1 deletion(-)\n"
    "\n"  // 15
    "diff --git a/version.txt b/version.txt\n"
    "index 1111111..2222222 100644\n"
    "--- a/version.txt\n"
    "+++ b/version.txt\n"
    "@@ -1 +1 @@\n"  // 20
    "-1.2.3\n"
    "+1.2.4\n"
    "-- \n"
    "2.39.5\n";

TEST(ParseSeries, DiffQuotedInMailMessageBeforeSeparatorIsText) {
  const std::string mbox =
      "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
      "From: Dev <dev@example.com>\n";
  for (const std::string& text : {mbox + kQuotedDiffMessage, std::string(kQuotedDiffMessage)}) {
    const std::size_t shift = text.size() == std::string_view(kQuotedDiffMessage).size() ? 0 : 2;
    auto patches = parse(text);
    ASSERT_EQ(patches.size(), 1u);
    EXPECT_EQ(patches[0].subject, "Bump version to 1.2.4");
    ASSERT_EQ(patches[0].files.size(), 1u);
    EXPECT_EQ(patches[0].files[0].old_path, "a/version.txt");
    EXPECT_EQ(patches[0].files[0].patch_line, 16u + shift);
    EXPECT_EQ(patches[0].files[0].hunks.at(0).patch_line, 20u + shift);
    EXPECT_NE(patches[0].message.find("--- /dev/fd/11\t2024-05-01"), std::string::npos);
    EXPECT_TRUE(patches[0].message.ends_with(" 1 file changed, 1 insertion(+), 1 deletion(-)\n\n"));
  }
}

TEST(ParseSeries, QuotedDiffInMailAfterAnotherPatchIsText) {
  const std::string text = "--- a/first\n+++ b/first\n@@ -1 +1 @@\n-a\n+b\n\nFrom: Dev <d@e>\n" +
                           std::string(kQuotedDiffMessage);
  auto patches = parse(text);
  ASSERT_EQ(patches.size(), 2u);
  EXPECT_EQ(patches[0].files.at(0).old_path, "a/first");
  EXPECT_EQ(patches[1].patch_line, 7u);
  EXPECT_EQ(patches[1].subject, "Bump version to 1.2.4");
  ASSERT_EQ(patches[1].files.size(), 1u);
  EXPECT_EQ(patches[1].files[0].old_path, "a/version.txt");
  EXPECT_EQ(patches[1].files[0].patch_line, 23u);
}

TEST(ParseSeries, WithoutSeparatorMailDiffsParseAsBefore) {
  // No bare "---" line: the first diff-looking lines are the diff.
  auto patches = parse(
      "From: Dev <d@e>\n"
      "Subject: two files\n"
      "\n"
      "--- a/q.sql\n"
      "+++ b/q.sql\n"
      "@@ -1,2 +1 @@\n"
      "---\n"  // a removed "--" line (an SQL comment), not a separator
      " select 1;\n"
      "--- a/r.sql\n"
      "+++ b/r.sql\n"
      "@@ -1 +1 @@\n"
      "-a\n"
      "+b\n");
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].subject, "two files");
  ASSERT_EQ(patches[0].files.size(), 2u);
  EXPECT_EQ(patches[0].files[0].patch_line, 4u);
  EXPECT_EQ(lines_of(patches[0].files[0].hunks.at(0)), "---| select 1;|");
  EXPECT_EQ(patches[0].files[1].patch_line, 9u);
}

TEST(ParseSeries, IndentedDiffInGitLogMessageIsText) {
  auto patches = parse(
      "commit 0123456789abcdef0123456789abcdef01234567\n"
      "Author: Dev <dev@example.com>\n"
      "Date:   Wed May 1 10:00:00 2024 +0000\n"
      "\n"
      "    \n"
      "    Bump version to 1.2.4\n"
      "    \n"
      "    diff -u <(pip freeze) <(cat requirements.txt)\n"
      "    --- /dev/fd/11\t2024-05-01 10:00:00.000000000 +0000\n"  // 9
      "    +++ /dev/fd/12\t2024-05-01 10:00:00.000000000 +0000\n"
      "    @@ -1 +1 @@\n"
      "    -torch==2.3.0\n"
      "    +torch==2.4.0\n"
      "\n"
      "diff --git a/version.txt b/version.txt\n"  // 15
      "--- a/version.txt\n"
      "+++ b/version.txt\n"
      "@@ -1 +1 @@\n"
      "-1.2.3\n"
      "+1.2.4\n");
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].subject, "Bump version to 1.2.4");
  ASSERT_EQ(patches[0].files.size(), 1u);
  EXPECT_EQ(patches[0].files[0].old_path, "a/version.txt");
  EXPECT_EQ(patches[0].files[0].patch_line, 15u);
}

}  // namespace
}  // namespace sm120check
