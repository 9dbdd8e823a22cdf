// Tests of the hunk matcher (match.hpp). Hunks are built from inline text by a small local
// parser so that these tests do not depend on src/patch.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sm120check/match.hpp"
#include "sm120check/patch.hpp"

namespace sm120check {
namespace {

// Parses "@@ -a,b +c,d @@" headers and their bodies (' ', '+', '-', "\ No newline..."). Text is
// split at "\n" only, so a "\r" stays in the line as the real parser keeps it.
std::uint32_t read_number(std::string_view& s) {
  std::uint32_t v = 0;
  while (!s.empty() && s.front() >= '0' && s.front() <= '9') {
    v = v * 10 + static_cast<std::uint32_t>(s.front() - '0');
    s.remove_prefix(1);
  }
  return v;
}

void read_range(std::string_view& s, std::uint32_t& start, std::uint32_t& count) {
  s.remove_prefix(1);  // '-' or '+'
  start = read_number(s);
  count = 1;
  if (!s.empty() && s.front() == ',') {
    s.remove_prefix(1);
    count = read_number(s);
  }
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
}

std::vector<Hunk> parse_hunks(std::string_view patch) {
  // The hunks keep the text their lines view, as parse_patches()'s do.
  const auto owned = std::make_shared<const std::string>(patch);
  const std::string_view text = *owned;
  std::vector<Hunk> hunks;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.substr(0, 3) == "@@ ") {
      Hunk h;
      h.patch_text = owned;
      std::string_view s = line.substr(3);
      read_range(s, h.old_start, h.old_lines);
      read_range(s, h.new_start, h.new_lines);
      hunks.push_back(std::move(h));
    } else if (!line.empty() && line.front() == '\\') {
      hunks.back().lines.back().no_newline_at_eof = true;
    } else if (!line.empty()) {
      HunkLine hl;
      hl.kind = static_cast<LineKind>(line.front());
      hl.text = line.substr(1);
      hunks.back().lines.push_back(std::move(hl));
    }
  }
  return hunks;
}

// "line 1\nline 2\n...line n\n".
std::string numbered(int from, int to) {
  std::string out;
  for (int i = from; i <= to; ++i) out += "line " + std::to_string(i) + "\n";
  return out;
}

std::vector<HunkMatch> match(const std::string& content, std::string_view patch,
                             MatchOptions options = {}) {
  const FileText file(content);
  return match_hunks(file, parse_hunks(patch), options);
}

// Compares every field, so that a failure shows the whole result at the caller's line.
::testing::AssertionResult is_match(const HunkMatch& m, HunkStatus status, std::size_t line,
                                    std::int64_t offset, unsigned fuzz = 0, bool both = false,
                                    const std::string& diagnostic = "") {
  auto show = [](HunkStatus st, std::size_t l, std::int64_t o, unsigned f, bool b,
                 const std::string& d) {
    return std::string(to_string(st)) + " line=" + std::to_string(l) +
           " offset=" + std::to_string(o) + " fuzz=" + std::to_string(f) +
           " both=" + (b ? "true" : "false") + " diagnostic='" + d + "'";
  };
  if (m.status == status && m.line == line && m.offset == offset && m.fuzz == fuzz &&
      m.both_images == both && m.diagnostic == diagnostic) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "\n  got:  " << show(m.status, m.line, m.offset, m.fuzz, m.both_images, m.diagnostic)
         << "\n  want: " << show(status, line, offset, fuzz, both, diagnostic);
}

::testing::AssertionResult is_conflict(const HunkMatch& m, const std::string& diagnostic = "") {
  return is_match(m, HunkStatus::kConflict, 0, 0, 0, false, diagnostic);
}

#define EXPECT_MATCH(...) EXPECT_TRUE(is_match(__VA_ARGS__))
#define EXPECT_CONFLICT(...) EXPECT_TRUE(is_conflict(__VA_ARGS__))

constexpr HunkStatus kApplied = HunkStatus::kApplied;
constexpr HunkStatus kApplicable = HunkStatus::kApplicable;

// --- FileText ----------------------------------------------------------------------------------

TEST(MatchFileText, SplitsLinesAndTracksFinalNewline) {
  const FileText a("one\ntwo\r\n\nfour");
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a.line(0), "one");
  EXPECT_EQ(a.line(1), "two\r");
  EXPECT_EQ(a.line(2), "");
  EXPECT_EQ(a.line(3), "four");
  EXPECT_FALSE(a.final_newline());

  const FileText b("x\n\n");
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b.line(1), "");
  EXPECT_TRUE(b.final_newline());

  const FileText empty("");
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_TRUE(empty.final_newline());

  const FileText lone_newline("\n");
  ASSERT_EQ(lone_newline.size(), 1u);
  EXPECT_EQ(lone_newline.line(0), "");
}

TEST(MatchFileText, MoveKeepsLinesValid) {
  // Short content lives in the string object itself; moving must rebase the line views.
  FileText a("ab\ncd");
  FileText b(std::move(a));
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b.line(0), "ab");
  EXPECT_EQ(b.line(1), "cd");
  EXPECT_FALSE(b.final_newline());
  EXPECT_EQ(b.line(0).data(), b.content().data());

  FileText c("zz\n");
  c = std::move(b);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c.line(1), "cd");
  EXPECT_EQ(c.line(1).data(), c.content().data() + 3);

  std::vector<FileText> many;
  for (int i = 0; i < 20; ++i) many.emplace_back("l" + std::to_string(i) + "\nend\n");
  EXPECT_EQ(many[0].line(0), "l0");
  EXPECT_EQ(many[19].line(1), "end");
}

TEST(MatchStatus, Names) {
  EXPECT_EQ(to_string(HunkStatus::kApplied), "applied");
  EXPECT_EQ(to_string(HunkStatus::kApplicable), "applicable");
  EXPECT_EQ(to_string(HunkStatus::kConflict), "conflict");
}

// --- Basic verdicts ----------------------------------------------------------------------------

constexpr std::string_view kHunk10 =
    "@@ -10,3 +10,3 @@\n"
    " line 10\n"
    "-line 11\n"
    "+LINE 11\n"
    " line 12\n";

TEST(MatchBasic, ApplicableAtExactPosition) {
  const auto r = match(numbered(1, 20), kHunk10);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_MATCH(r[0], kApplicable, 10, 0);
}

TEST(MatchBasic, AppliedAtExactPosition) {
  const auto r = match(numbered(1, 10) + "LINE 11\n" + numbered(12, 20), kHunk10);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_MATCH(r[0], kApplied, 10, 0);
}

TEST(MatchBasic, Conflict) {
  const auto r = match(numbered(1, 10) + "line eleven\n" + numbered(12, 20), kHunk10);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_CONFLICT(r[0]);
}

TEST(MatchBasic, NoHunksNoResults) { EXPECT_TRUE(match(numbered(1, 3), "").empty()); }

TEST(MatchOffset, PositiveWhenLinesInsertedAbove) {
  std::string file;
  for (int i = 1; i <= 7; ++i) file += "extra " + std::to_string(i) + "\n";
  const auto r = match(file + numbered(1, 20), kHunk10);
  EXPECT_MATCH(r[0], kApplicable, 17, 7);
}

TEST(MatchOffset, NegativeWhenLinesRemovedAbove) {
  const auto r = match("line 1\n" + numbered(4, 20), kHunk10);
  EXPECT_MATCH(r[0], kApplicable, 8, -2);
}

TEST(MatchOffset, AppliedWithOffset) {
  const auto r = match("new top\n" + numbered(1, 10) + "LINE 11\n" + numbered(12, 20), kHunk10);
  EXPECT_MATCH(r[0], kApplied, 11, 1);
}

TEST(MatchOffset, EqualDistanceGoesToTheLaterLine) {
  // "p x q" starts two lines above and two lines below the expected line 10.
  std::string file = numbered(1, 7) + "p\nx\nq\nline 11\np\nx\nq\n" + numbered(15, 20);
  const auto r = match(file, "@@ -10,3 +10,3 @@\n p\n-x\n+y\n q\n");
  EXPECT_MATCH(r[0], kApplicable, 12, 2);
}

// --- Several hunks -----------------------------------------------------------------------------

constexpr std::string_view kTwoHunks =
    "@@ -3,3 +3,4 @@\n"
    " line 3\n"
    "-line 4\n"
    "+LINE 4\n"
    "+LINE 4b\n"
    " line 5\n"
    "@@ -15,3 +16,3 @@\n"
    " line 15\n"
    "-line 16\n"
    "+LINE 16\n"
    " line 17\n";

TEST(MatchHunks, ConsistentOffsetAcrossHunks) {
  std::string file;
  for (int i = 1; i <= 5; ++i) file += "extra " + std::to_string(i) + "\n";
  const auto r = match(file + numbered(1, 30), kTwoHunks);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_MATCH(r[0], kApplicable, 8, 5);
  EXPECT_MATCH(r[1], kApplicable, 20, 5);
}

TEST(MatchHunks, AllApplied) {
  const std::string file =
      numbered(1, 3) + "LINE 4\nLINE 4b\n" + numbered(5, 15) + "LINE 16\n" + numbered(17, 30);
  const auto r = match(file, kTwoHunks);
  EXPECT_MATCH(r[0], kApplied, 3, 0);
  EXPECT_MATCH(r[1], kApplied, 16, 0);
}

TEST(MatchHunks, PartialFirstAppliedSecondApplicable) {
  const std::string file = numbered(1, 3) + "LINE 4\nLINE 4b\n" + numbered(5, 30);
  const auto r = match(file, kTwoHunks);
  EXPECT_MATCH(r[0], kApplied, 3, 0);
  // The pre-image's header line 15 is now line 16: hunk 1 added a line.
  EXPECT_MATCH(r[1], kApplicable, 16, 1);
}

TEST(MatchHunks, ConflictKeepsLaterHunksSearching) {
  const std::string file = numbered(1, 3) + "other 4\n" + numbered(5, 30);
  const auto r = match(file, kTwoHunks);
  EXPECT_CONFLICT(r[0]);
  EXPECT_MATCH(r[1], kApplicable, 15, 0);
}

TEST(MatchHunks, DuplicatedFunctionPicksTheOneTheHeaderNames) {
  const std::string fn = "int f() {\n  return 1;\n}\n";
  // Copies of the function at lines 5 and 41; the header names line 37 (the file changed since).
  std::string file = "extra\nextra\nextra\n#include <x>\n" + fn;
  for (int i = 0; i < 33; ++i) file += "// filler " + std::to_string(i) + "\n";
  file += fn + "// end\n";
  const auto r = match(file,
                       "@@ -37,3 +37,3 @@\n"
                       " int f() {\n"
                       "-  return 1;\n"
                       "+  return 2;\n"
                       " }\n");
  EXPECT_MATCH(r[0], kApplicable, 41, 4);
}

constexpr std::string_view kBlock = "if (x) {\n  free(p);\n}\n";

std::string two_blocks(bool first_patched) {
  // Blocks at lines 10-12 and 30-32 (plus one line after the first when it is patched).
  std::string file = numbered(1, 9) + std::string(kBlock);
  if (first_patched) file.insert(file.size() - 2, "  p = NULL;\n");
  file += numbered(13, 29) + std::string(kBlock) + numbered(33, 40);
  return file;
}

TEST(MatchHunks, IdenticalPreImagesMatchTwoDifferentPlaces) {
  constexpr std::string_view patch =
      "@@ -10,3 +10,4 @@\n if (x) {\n   free(p);\n+  p = NULL;\n }\n"
      "@@ -30,3 +31,4 @@\n if (x) {\n   free(p);\n+  p = NULL;\n }\n";
  auto r = match(two_blocks(false), patch);
  EXPECT_MATCH(r[0], kApplicable, 10, 0);
  EXPECT_MATCH(r[1], kApplicable, 30, 0);

  r = match(two_blocks(true), patch);
  // Identical hunks, and the file holds one post-image and one pre-image: hunk order pairs them.
  EXPECT_MATCH(r[0], kApplied, 10, 0);
  EXPECT_MATCH(r[1], kApplicable, 31, 1);
  // Without that (exact images only), hunk 1's pre-image is also found, in the second block:
  // both images, the nearer wins.
  r = match(two_blocks(true), patch, {.drift = false});
  EXPECT_MATCH(r[0], kApplied, 10, 0, 0, true);
  EXPECT_MATCH(r[1], kApplicable, 31, 1);
}

TEST(MatchHunks, LaterHunkNeverOverlapsAnEarlierMatch) {
  // The second hunk's header points just past the first block: without the no-overlap rule the
  // first block (distance 1) would win over the second one (distance 19).
  constexpr std::string_view patch =
      "@@ -10,3 +10,4 @@\n if (x) {\n   free(p);\n+  p = NULL;\n }\n"
      "@@ -11,3 +12,4 @@\n if (x) {\n   free(p);\n+  p = NULL;\n }\n";
  const auto r = match(two_blocks(false), patch);
  EXPECT_MATCH(r[0], kApplicable, 10, 0);
  EXPECT_MATCH(r[1], kApplicable, 30, 19);
}

TEST(MatchHunks, SecondHunkCannotStartBeforeTheFirstEnds) {
  // Both hunks name the same single block: the second finds nothing after the first.
  constexpr std::string_view patch =
      "@@ -10,3 +10,4 @@\n if (x) {\n   free(p);\n+  p = NULL;\n }\n"
      "@@ -10,3 +11,4 @@\n if (x) {\n   free(p);\n+  p = NULL;\n }\n";
  const std::string file = numbered(1, 9) + std::string(kBlock) + numbered(13, 20);
  const auto r = match(file, patch);
  EXPECT_MATCH(r[0], kApplicable, 10, 0);
  EXPECT_CONFLICT(r[1], "out-of-order") << "it only fits over the first hunk's lines";
}

// --- Fuzz --------------------------------------------------------------------------------------

constexpr std::string_view kWideHunk =
    "@@ -5,7 +5,7 @@\n"
    " line 5\n"
    " line 6\n"
    " line 7\n"
    "-line 8\n"
    "+LINE 8\n"
    " line 9\n"
    " line 10\n"
    " line 11\n";

std::string numbered_with(std::vector<std::pair<int, std::string>> changes, int n = 20) {
  std::string out;
  for (int i = 1; i <= n; ++i) {
    std::string text = "line " + std::to_string(i);
    for (const auto& [at, replacement] : changes) {
      if (at == i) text = replacement;
    }
    out += text + "\n";
  }
  return out;
}

TEST(MatchFuzz, OneTopContextLineChanged) {
  const std::string file = numbered_with({{5, "changed 5"}});
  EXPECT_CONFLICT(match(file, kWideHunk, {.fuzz = 0})[0]);
  // Line 5 is dropped: the first compared line is 6, and the offset is 0.
  EXPECT_MATCH(match(file, kWideHunk, {.fuzz = 1})[0], kApplicable, 5, 0, 1);
  EXPECT_MATCH(match(file, kWideHunk, {.fuzz = 3})[0], kApplicable, 5, 0, 1);
}

TEST(MatchFuzz, OneBottomContextLineChangedAppliedSide) {
  // Fuzz alone (the drift search, which would find the change, is off here).
  const std::string file = numbered_with({{8, "LINE 8"}, {11, "changed 11"}});
  EXPECT_CONFLICT(match(file, kWideHunk, {.drift = false})[0]);
  EXPECT_MATCH(match(file, kWideHunk, {.fuzz = 1, .drift = false})[0], kApplied, 5, 0, 1);
  // With the drift search, the changed line is found where the context points.
  const HunkMatch drifted = match(file, kWideHunk)[0];
  EXPECT_EQ(drifted.status, kApplied);
  EXPECT_EQ(drifted.kind, MatchKind::kDrifted);
  EXPECT_EQ(drifted.line, 8u);
  EXPECT_EQ(drifted.context_agree, 5u);
  EXPECT_EQ(drifted.context_lines, 6u);
}

TEST(MatchFuzz, TwoLinesAtBothEdges) {
  const std::string file =
      "top\n" + numbered_with({{5, "c5"}, {6, "c6"}, {10, "c10"}, {11, "c11"}});
  EXPECT_CONFLICT(match(file, kWideHunk, {.fuzz = 1})[0]);
  EXPECT_MATCH(match(file, kWideHunk, {.fuzz = 2})[0], kApplicable, 6, 1, 2);
}

// fuzz_apply (reverse-fuzz-1-lone-added-line): at fuzz 1 the post-image of "@@ -2,2 +2,3 @@
// c +c z" is the added "c" alone, which stood at line 1 of "c c _ _ z": it read applied there,
// and apply -R --fuzz 1 took a "c" out on every run. Changed lines alone match only at their
// expected line.
TEST(MatchFuzz, ContextDroppedWholeMatchesOnlyAtItsLine) {
  constexpr std::string_view hunk = "@@ -2,2 +2,3 @@\n c\n+c\n z\n";
  EXPECT_CONFLICT(match("c\nc\n\n\nz\n", hunk, {.fuzz = 1, .drift = false})[0]);
  // At its expected line (line 3 once the top context line is dropped), it still matches.
  EXPECT_MATCH(match("a\nX\nc\nY\n", hunk, {.fuzz = 1, .drift = false})[0], kApplied, 2, 0, 1);
}

// fuzz_apply (crash-23feff64, --strict variant): two hunks whose headers both say "@@ -1,3
// +1,5 @@". At fuzz 2 the second is its added lines alone, tied to its expected line (3), but
// the whole hunk, its dropped context included, would start at line 1, over the first hunk's
// lines: it read applied there (on lines another file patch of the run had written), the first
// hunk was written between its dropped context and its block, and the next run found neither
// where it had. Like a zero-context insertion placed before the previous hunk: out of order.
TEST(MatchFuzz, ContextDroppedHunkPlacedOverThePreviousIsOutOfOrder) {
  constexpr std::string_view hunks =
      "@@ -1,3 +1,5 @@\n \n     data = read(path)\n+ \n+     \n \n"
      "@@ -1,3 +1,5 @@\n de\n \n+    if not data:\n+        rkturn None\n a\n";
  const std::string file = " :\n    data = read(path)\n    if not data:\n        rkturn None\n";
  const std::vector<HunkMatch> m = match(file, hunks, {.fuzz = 2, .drift = false});
  EXPECT_MATCH(m[0], kApplicable, 1, 0, 1);
  EXPECT_CONFLICT(m[1], "out-of-order");
  // Placed after the first hunk's lines, the same block still matches at its line.
  constexpr std::string_view ordered =
      "@@ -1,3 +1,5 @@\n \n     data = read(path)\n+ \n+     \n \n"
      "@@ -3,3 +3,5 @@\n de\n \n+    if not data:\n+        rkturn None\n a\n";
  const std::string later =
      " :\n    data = read(path)\nx\ny\n    if not data:\n        rkturn None\n";
  EXPECT_MATCH(match(later, ordered, {.fuzz = 2, .drift = false})[1], kApplied, 3, 0, 2);
}

TEST(MatchFuzz, NeverDropsChangedLines) {
  const std::string file = numbered_with({{8, "other 8"}});
  EXPECT_CONFLICT(match(file, kWideHunk, {.fuzz = 3})[0]);
  // A hunk with one context line at each edge: only the changed line remains at fuzz 1.
  constexpr std::string_view narrow = "@@ -7,3 +7,3 @@\n line 7\n-line 8\n+LINE 8\n line 9\n";
  EXPECT_CONFLICT(match(file, narrow, {.fuzz = 2})[0]);
  EXPECT_MATCH(match(numbered_with({{7, "c7"}, {9, "c9"}}), narrow, {.fuzz = 1})[0], kApplicable, 7,
               0, 1);
}

TEST(MatchFuzz, NeverEmptiesAnImage) {
  // A pure insertion with one context line at each edge: fuzz 1 would empty the pre-image,
  // which would then "match" anywhere.
  constexpr std::string_view insertion = "@@ -7,2 +7,3 @@\n line 7\n+new\n line 8\n";
  const std::string file = numbered_with({{7, "c7"}, {8, "c8"}});
  EXPECT_CONFLICT(match(file, insertion, {.fuzz = 2})[0]);
}

TEST(MatchFuzz, ExactMatchElsewhereBeatsFuzzNearby) {
  // Fuzz 0 at any distance is tried before fuzz 1.
  const std::string file = numbered_with({{5, "c5"}}) + numbered(5, 11);
  EXPECT_MATCH(match(file, kWideHunk, {.fuzz = 2})[0], kApplicable, 21, 16);
}

// --- Line endings and white space --------------------------------------------------------------

TEST(MatchLineEndings, CrlfFileCrlfHunk) {
  const auto r =
      match("red\r\ngreen\r\nblue\r\n", "@@ -1,3 +1,3 @@\n red\r\n-green\r\n+GREEN\r\n blue\r\n");
  EXPECT_MATCH(r[0], kApplicable, 1, 0);
  const auto a =
      match("red\r\nGREEN\r\nblue\r\n", "@@ -1,3 +1,3 @@\n red\r\n-green\r\n+GREEN\r\n blue\r\n");
  EXPECT_MATCH(a[0], kApplied, 1, 0);
}

constexpr std::string_view kLfHunk = "@@ -1,3 +1,3 @@\n red\n-green\n+GREEN\n blue\n";

TEST(MatchLineEndings, CrlfFileLfHunkConflicts) {
  EXPECT_CONFLICT(match("red\r\ngreen\r\nblue\r\n", kLfHunk)[0], "line-ending-mismatch");
  EXPECT_CONFLICT(match("red\r\nGREEN\r\nblue\r\n", kLfHunk)[0], "line-ending-mismatch");
  EXPECT_MATCH(match("red\ngreen\nblue\n", kLfHunk)[0], kApplicable, 1, 0);
}

TEST(MatchLineEndings, LfFileCrlfHunkConflicts) {
  EXPECT_CONFLICT(
      match("red\ngreen\nblue\n", "@@ -1,3 +1,3 @@\n red\r\n-green\r\n+GREEN\r\n blue\r\n")[0],
      "line-ending-mismatch");
}

TEST(MatchLineEndings, IgnoreWhitespaceAcceptsCrlf) {
  EXPECT_MATCH(match("red\r\ngreen\r\nblue\r\n", kLfHunk, {.ignore_whitespace = true})[0],
               kApplicable, 1, 0);
  EXPECT_MATCH(match("red\r\nGREEN\r\nblue\r\n", kLfHunk, {.ignore_whitespace = true})[0], kApplied,
               1, 0);
}

constexpr std::string_view kPyFile = "def setup():\n\tvalue = 1 \n\treturn value\n";
constexpr std::string_view kPyHunk =
    "@@ -1,3 +1,3 @@\n def setup():\n-\tvalue = 1\n+\tvalue = 2\n     return value\n";

TEST(MatchWhitespace, OnlyWhitespaceDiffers) {
  EXPECT_CONFLICT(match(std::string(kPyFile), kPyHunk)[0], "whitespace-only-mismatch");
  EXPECT_MATCH(match(std::string(kPyFile), kPyHunk, {.ignore_whitespace = true})[0], kApplicable, 1,
               0);
  EXPECT_MATCH(match("def  setup():\n  value = 2\t\n\treturn value\n", kPyHunk,
                     {.ignore_whitespace = true})[0],
               kApplied, 1, 0);
}

TEST(MatchWhitespace, NoWhitespaceDiagnosticWhenWhitespaceIsIgnored) {
  // With ignore_whitespace the CR and white-space relaxations explain nothing new.
  EXPECT_CONFLICT(match("red\r\nyellow\r\nblue\r\n", kLfHunk, {.ignore_whitespace = true})[0]);
  // The final-newline relaxation still applies on top of folded white space.
  EXPECT_CONFLICT(
      match("alpha \nbeta\ngamma\n",
            "@@ -1,3 +1,3 @@\n alpha\n beta\n-gamma\n\\ No newline at end of file\n+G\n",
            {.ignore_whitespace = true})[0],
      "final-newline-mismatch");
}

TEST(MatchWhitespace, FoldingKeepsWordBoundaries) {
  // "a b" and "ab" differ even when white space is ignored.
  EXPECT_CONFLICT(
      match("x\nab\ny\n", "@@ -1,3 +1,3 @@\n x\n-a b\n+c\n y\n", {.ignore_whitespace = true})[0]);
}

TEST(MatchWhitespace, WhitespaceOnlyFixTiesBreakOnExactText) {
  // The fix only removes a trailing space: with white space ignored both images match at the
  // same place, and the byte-exact one decides.
  constexpr std::string_view fix = "@@ -2 +2 @@\n-\tx = 1 \n+\tx = 1\n";
  const MatchOptions ws{.ignore_whitespace = true};
  EXPECT_MATCH(match("a\n\tx = 1 \nb\n", fix, ws)[0], kApplicable, 2, 0, 0, true);
  EXPECT_MATCH(match("a\n\tx = 1\nb\n", fix, ws)[0], kApplied, 2, 0, 0, true);
  EXPECT_MATCH(match("a\n  x = 1\t\nb\n", fix, ws)[0], kApplied, 2, 0, 0, true);
  // Without the option the strict comparison sees only one image.
  EXPECT_MATCH(match("a\n\tx = 1 \nb\n", fix)[0], kApplicable, 2, 0);
}

// --- Newline at end of file --------------------------------------------------------------------

constexpr std::string_view kPoemHunk =
    "@@ -1,3 +1,4 @@\n"
    " alpha\n"
    " beta\n"
    "-gamma\n"
    "\\ No newline at end of file\n"
    "+gamma\n"
    "+delta\n";

TEST(MatchNoNewline, OldSide) {
  EXPECT_MATCH(match("alpha\nbeta\ngamma", kPoemHunk)[0], kApplicable, 1, 0);
  EXPECT_MATCH(match("alpha\nbeta\ngamma\ndelta\n", kPoemHunk)[0], kApplied, 1, 0);
}

TEST(MatchNoNewline, FinalNewlineMismatch) {
  EXPECT_CONFLICT(match("alpha\nbeta\ngamma\n", kPoemHunk)[0], "final-newline-mismatch");
  // A file without final newline where the post-image wants one.
  EXPECT_CONFLICT(match("alpha\nbeta\ngamma\ndelta", kPoemHunk)[0], "final-newline-mismatch");
}

TEST(MatchNoNewline, NewSide) {
  constexpr std::string_view hunk = "@@ -2,2 +2,2 @@\n b\n-c\n+c\n\\ No newline at end of file\n";
  EXPECT_MATCH(match("a\nb\nc\n", hunk)[0], kApplicable, 2, 0);
  EXPECT_MATCH(match("a\nb\nc", hunk)[0], kApplied, 2, 0);
}

TEST(MatchNoNewline, BothSides) {
  constexpr std::string_view hunk =
      "@@ -2,2 +2,2 @@\n"
      " b\n"
      "-c\n"
      "\\ No newline at end of file\n"
      "+C\n"
      "\\ No newline at end of file\n";
  EXPECT_MATCH(match("a\nb\nc", hunk)[0], kApplicable, 2, 0);
  EXPECT_MATCH(match("a\nb\nC", hunk)[0], kApplied, 2, 0);
  EXPECT_CONFLICT(match("a\nb\nc\n", hunk)[0], "final-newline-mismatch");
  EXPECT_CONFLICT(match("a\nb\nC\n", hunk)[0], "final-newline-mismatch");
}

TEST(MatchNoNewline, MarkedLineMatchesOnlyTheLastLine) {
  // "x c" also sits at the expected line 1; only the last line, without newline, matches.
  constexpr std::string_view hunk = "@@ -1,2 +1,2 @@\n x\n-c\n\\ No newline at end of file\n+d\n";
  EXPECT_MATCH(match("x\nc\nx\nc", hunk)[0], kApplicable, 3, 2);
  EXPECT_CONFLICT(match("x\nc\n", hunk, {.drift = false})[0], "final-newline-mismatch");
}

TEST(MatchNoNewline, ContextLineWithMarker) {
  constexpr std::string_view hunk = "@@ -1,2 +1,3 @@\n a\n+b\n c\n\\ No newline at end of file\n";
  EXPECT_MATCH(match("a\nc", hunk)[0], kApplicable, 1, 0);
  EXPECT_MATCH(match("a\nb\nc", hunk)[0], kApplied, 1, 0);
  // The file has gained its final newline since: the marked line is context, no part of the
  // change, and `git apply --check` (forward) and `--check -R` pass on these (hostile review,
  // session 34; this test expected a conflict before). A marked added or removed line stays
  // strict (MatchNoNewline.FinalNewlineMismatch, BothSides), as git keeps it.
  EXPECT_MATCH(match("a\nb\nc\n", hunk)[0], kApplied, 1, 0);
  EXPECT_MATCH(match("a\nc\n", hunk)[0], kApplicable, 1, 0);
  // Not tied to the file's end, as git has it (forward passes on the first, -R on the second).
  EXPECT_MATCH(match("a\nc\nz\n", hunk)[0], kApplicable, 1, 0);
  EXPECT_MATCH(match("a\nb\nc\nz\n", hunk)[0], kApplied, 1, 0);
  // Nor when lines without a final newline follow it (git: forward / -R pass on these).
  EXPECT_MATCH(match("a\nc\nz", hunk)[0], kApplicable, 1, 0);
  EXPECT_MATCH(match("a\nb\nc\nz", hunk)[0], kApplied, 1, 0);
}

TEST(MatchNoNewline, ContextLineWithMarkerAfterAnInsertionAboveTheLastLines) {
  // The hostile review's case: a branch inserted above a file's last two lines, the patch made
  // where the file lacked its final newline, the tree's copy has one.
  constexpr std::string_view hunk =
      "@@ -1,5 +1,7 @@\n l1\n l2\n l3\n+if major == 12:\n+    x = 1\n l4\n l5\n"
      "\\ No newline at end of file\n";
  EXPECT_MATCH(match("l1\nl2\nl3\nl4\nl5\n", hunk)[0], kApplicable, 1, 0);
  EXPECT_MATCH(match("l1\nl2\nl3\nif major == 12:\n    x = 1\nl4\nl5\n", hunk)[0], kApplied, 1,
               0);
  EXPECT_MATCH(match("l1\nl2\nl3\nl4\nl5", hunk)[0], kApplicable, 1, 0);
}

// --- Empty files and empty images --------------------------------------------------------------

TEST(MatchEmpty, AddedFileAgainstEmptyAndFullFile) {
  constexpr std::string_view add = "@@ -0,0 +1,2 @@\n+a\n+b\n";
  EXPECT_MATCH(match("", add)[0], kApplicable, 1, 0);
  EXPECT_MATCH(match("a\nb\n", add)[0], kApplied, 1, 0);
  // An empty pre-image matches anywhere: an existing file is checked with whole_image().
  EXPECT_MATCH(match("x\ny\n", add)[0], kApplicable, 1, 0);
}

TEST(MatchEmpty, DeletedFileAgainstFullAndEmptyFile) {
  constexpr std::string_view del = "@@ -1,2 +0,0 @@\n-a\n-b\n";
  EXPECT_MATCH(match("a\nb\n", del)[0], kApplicable, 1, 0);
  EXPECT_MATCH(match("", del)[0], kApplied, 1, 0);
}

TEST(MatchEmpty, ZeroContextInsertion) {
  // git diff -U0: "@@ -5,0 +6 @@" inserts after line 5.
  constexpr std::string_view ins = "@@ -5,0 +6 @@\n+new\n";
  EXPECT_MATCH(match(numbered(1, 10), ins)[0], kApplicable, 6, 0);
  EXPECT_MATCH(match(numbered(1, 5) + "new\n" + numbered(6, 10), ins)[0], kApplied, 6, 0);
  // Found away from its line: nothing ties a hunk without context to another place (the
  // empty pre-image is no evidence), so it is unknown, with the place named.
  const HunkMatch away = match("top\n" + numbered(1, 5) + "new\n" + numbered(6, 10), ins)[0];
  EXPECT_EQ(away.status, HunkStatus::kUnknown);
  EXPECT_EQ(away.presence, Presence::kUnknown);
  EXPECT_EQ(away.presence_reason, "zero-context-elsewhere");
  EXPECT_EQ(away.places, std::vector<std::size_t>{7});
}

TEST(MatchEmpty, ZeroContextDeletion) {
  constexpr std::string_view del = "@@ -6 +5,0 @@\n-gone\n";
  EXPECT_MATCH(match(numbered(1, 5) + "gone\n" + numbered(6, 10), del)[0], kApplicable, 6, 0);
  // The removed line is gone: deleted, or changed into something else? Nothing tells.
  const HunkMatch gone = match(numbered(1, 10), del)[0];
  EXPECT_EQ(gone.status, HunkStatus::kUnknown);
  EXPECT_EQ(gone.presence_reason, "zero-context-gone");
  // The whole file deleted to empty: the empty post-image is the whole file.
  EXPECT_MATCH(match("", "@@ -1 +0,0 @@\n-gone\n")[0], kApplied, 1, 0);
}

TEST(MatchEmpty, EmptyImageClampedIntoFile) {
  // The header names line 50 of a 10-line file: the insertion point is clamped to the end.
  EXPECT_MATCH(match(numbered(1, 10), "@@ -50,0 +51 @@\n+new\n")[0], kApplicable, 11, -40);
}

TEST(MatchEmpty, EmptyImageFollowsPreviousOffset) {
  constexpr std::string_view patch =
      "@@ -2,3 +2,3 @@\n line 2\n-line 3\n+LINE 3\n line 4\n"
      "@@ -8,0 +9 @@\n+new\n";
  const auto r = match("top\ntop\n" + numbered(1, 10), patch);
  EXPECT_MATCH(r[0], kApplicable, 4, 2);
  EXPECT_MATCH(r[1], kApplicable, 11, 2);
}

// A partly applied file: the first hunk (adding two lines) is in, the second, an insertion
// without context after old line 3 ("b"), is not. The lines between the two stand where the
// first hunk's "+" lines put them, so the insertion belongs before "c" (line 6), its "+" start
// shifted, not its "-" start (line 4, off by the two lines the first hunk adds). Before, it
// was placed before "b", and apply wrote "z" there; the next run found it elsewhere.
TEST(MatchEmpty, InsertionAfterAnAppliedHunkCountsInItsNewLines) {
  constexpr std::string_view patch =
      "@@ -1,2 +1,4 @@\n a\n+x\n+y\n m\n"
      "@@ -3,0 +6 @@\n+z\n";
  const auto r = match("a\nx\ny\nm\nb\nc\n", patch);
  EXPECT_MATCH(r[0], kApplied, 1, 0);
  EXPECT_MATCH(r[1], kApplicable, 6, 2);
  EXPECT_EQ(r[1].image_begin, 5u);
  // The other way round: the first hunk not in, the second in (z after b).
  const auto s = match("a\nm\nb\nz\nc\n", patch);
  EXPECT_MATCH(s[0], kApplicable, 1, 0);
  EXPECT_MATCH(s[1], kApplied, 4, -2);
}

// Hunks out of order in the patch (a fuzzer's): "@@ -1,0" inserts after line 1, then
// "@@ -0,0" before line 1, which the first hunk's place has passed. Its header is all that
// places an insertion without context; before, it was clamped to after the first hunk's
// place, a guess that the next run placed elsewhere. Refused as GNU patch refuses it
// ("misordered hunks! output would be garbled"); git apply takes such hunks one by one.
TEST(MatchEmpty, InsertionPlacedBeforeThePreviousHunkIsAConflict) {
  constexpr std::string_view patch = "@@ -1,0 +2,2 @@\n+x\n+y\n@@ -0,0 +1,2 @@\n+p\n+q\n";
  const auto r = match("a\nb\n", patch);
  EXPECT_MATCH(r[0], kApplicable, 2, 0);
  EXPECT_CONFLICT(r[1], "out-of-order");
  EXPECT_EQ(r[1].presence, Presence::kAbsent);
  // Two insertions at one place, in order, are fine.
  const auto same = match("a\nb\n", "@@ -1,0 +2 @@\n+x\n@@ -1,0 +3 @@\n+y\n");
  EXPECT_MATCH(same[0], kApplicable, 2, 0);
  EXPECT_MATCH(same[1], kApplicable, 2, 0);
}

TEST(MatchEmpty, EmptyFileAgainstContextHunk) { EXPECT_CONFLICT(match("", kHunk10)[0]); }

// --- File edges --------------------------------------------------------------------------------

TEST(MatchEdges, HunkAtStartOfFile) {
  constexpr std::string_view hunk = "@@ -1,3 +1,3 @@\n-line 1\n+LINE 1\n line 2\n line 3\n";
  EXPECT_MATCH(match(numbered(1, 10), hunk)[0], kApplicable, 1, 0);
  EXPECT_MATCH(match("LINE 1\n" + numbered(2, 10), hunk)[0], kApplied, 1, 0);
}

TEST(MatchEdges, HunkAtEndOfFile) {
  constexpr std::string_view hunk = "@@ -8,3 +8,3 @@\n line 8\n line 9\n-line 10\n+LINE 10\n";
  EXPECT_MATCH(match(numbered(1, 10), hunk)[0], kApplicable, 8, 0);
  EXPECT_MATCH(match(numbered(1, 9) + "LINE 10\n", hunk)[0], kApplied, 8, 0);
  // Without trailing context the hunk belongs at the end of the file (as git apply has it):
  // in a longer file the lines it replaces stand, but not there.
  const HunkMatch longer = match(numbered(1, 12), hunk)[0];
  EXPECT_TRUE(is_conflict(longer, "not-at-end-of-file"));
  EXPECT_EQ(longer.presence, Presence::kAbsent);
  EXPECT_EQ(longer.presence_reason, "removed-lines-present");
}

TEST(MatchEdges, PureInsertionAtEndOfFile) {
  constexpr std::string_view hunk = "@@ -9,2 +9,3 @@\n line 9\n line 10\n+line 11\n";
  EXPECT_MATCH(match(numbered(1, 10), hunk)[0], kApplicable, 9, 0);
  // Patched: the pre-image stands inside the post-image, but not at the end of the file.
  EXPECT_MATCH(match(numbered(1, 11), hunk)[0], kApplied, 9, 0);
}

// --- Both images -------------------------------------------------------------------------------

TEST(MatchTie, PreImageInsidePostImageIsApplied) {
  // Earlier hunks (not shown) removed 4 lines, so the header's new start is 16 while the file
  // still has the block at 20. With the changed trailing line dropped by fuzz, the pre-image is
  // nearer its expected line than the post-image, but it is only there as part of the
  // post-image.
  constexpr std::string_view hunk = "@@ -20,3 +16,4 @@\n line 20\n line 21\n+new\n LINE 22\n";
  EXPECT_MATCH(match(numbered(1, 21) + "new\n" + numbered(22, 30), hunk, {.fuzz = 1})[0], kApplied,
               20, 4, 1, true);
  EXPECT_MATCH(match(numbered(1, 30), hunk, {.fuzz = 1})[0], kApplicable, 20, 0, 1);
}

TEST(MatchTie, PostImageInsidePreImageIsApplicable) {
  // A pure deletion: the unpatched file holds the post-image too, inside the pre-image.
  constexpr std::string_view hunk = "@@ -8,3 +8,2 @@\n line 8\n line 9\n-line 10\n";
  // At the end of the file only: the post-image inside the pre-image is not at the end.
  EXPECT_MATCH(match(numbered(1, 10), hunk)[0], kApplicable, 8, 0);
  // With fuzz the (then unanchored) trailing edge lets the post-image match inside.
  constexpr std::string_view wide = "@@ -7,4 +7,3 @@\n line 7\n line 8\n-line 9\n LINE 10\n";
  EXPECT_MATCH(match(numbered(1, 12), wide, {.fuzz = 1})[0], kApplicable, 7, 0, 1, true);
  EXPECT_MATCH(match(numbered(1, 9), hunk)[0], kApplied, 8, 0);
  constexpr std::string_view mid = "@@ -4,3 +4,2 @@\n line 4\n-line 5\n line 6\n";
  EXPECT_MATCH(match(numbered(1, 10), mid)[0], kApplicable, 4, 0);
}

constexpr std::string_view kTieHunk = "@@ -10,3 +10,3 @@\n ctx a\n-old\n+new\n ctx b\n";

std::string tie_file(int pre_at, int post_at) {
  std::string out;
  for (int i = 1; i <= 30; ++i) {
    if (i == pre_at) {
      out += "ctx a\nold\nctx b\n";
      i += 2;
    } else if (i == post_at) {
      out += "ctx a\nnew\nctx b\n";
      i += 2;
    } else {
      out += "f" + std::to_string(i) + "\n";
    }
  }
  return out;
}

TEST(MatchTie, NearerImageWins) {
  EXPECT_MATCH(match(tie_file(14, 8), kTieHunk)[0], kApplied, 8, -2, 0, true);
  EXPECT_MATCH(match(tie_file(11, 20), kTieHunk)[0], kApplicable, 11, 1, 0, true);
  EXPECT_MATCH(match(tie_file(4, 15), kTieHunk)[0], kApplied, 15, 5, 0, true);
}

TEST(MatchTie, EqualDistanceIsApplied) {
  EXPECT_MATCH(match(tie_file(12, 8), kTieHunk)[0], kApplied, 8, -2, 0, true);
  EXPECT_MATCH(match(tie_file(5, 15), kTieHunk)[0], kApplied, 15, 5, 0, true);
}

TEST(MatchTie, OnlyTheDecidingFuzzLevelCounts) {
  // The post-image needs fuzz 1, the pre-image matches exactly: fuzz 0 decides.
  constexpr std::string_view hunk = "@@ -2,3 +2,3 @@\n ctx a\n-old\n+new\n ctx b\n";
  const std::string file = "x\nctx a\nold\nctx b\ny\nctx a\nnew\nctx B\n";
  EXPECT_MATCH(match(file, hunk, {.fuzz = 1})[0], kApplicable, 2, 0);
}

// --- whole_image -------------------------------------------------------------------------------

TEST(MatchWholeImage, JoinsImagesWithTerminators) {
  const auto hunks = parse_hunks(
      "@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+B\n+c\n\\ No newline at end of "
      "file\n");
  EXPECT_EQ(whole_image(hunks, Image::kPre), "a\nb");
  EXPECT_EQ(whole_image(hunks, Image::kPost), "a\nB\nc");
  EXPECT_EQ(whole_image(parse_hunks("@@ -0,0 +1,2 @@\n+x\r\n+y\n"), Image::kPost), "x\r\ny\n");
  EXPECT_EQ(whole_image(parse_hunks("@@ -0,0 +1,2 @@\n+x\r\n+y\n"), Image::kPre), "");
  EXPECT_EQ(whole_image({}, Image::kPost), "");
}

TEST(MatchWholeImage, ComparedInPlaceAsJoined) {
  const auto hunks = parse_hunks(
      "@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+B\n+c\n\\ No newline at end of "
      "file\n");
  EXPECT_TRUE(is_whole_image("a\nb", hunks, Image::kPre));
  EXPECT_TRUE(is_whole_image("a\nB\nc", hunks, Image::kPost));
  for (std::string_view other : {"a\nB\nc\n", "a\nB\n", "a\nB\nC", "a\nB\nc\r", "", "a\nb\n"})
    EXPECT_FALSE(is_whole_image(other, hunks, Image::kPost)) << other;
  const auto added = parse_hunks("@@ -0,0 +1,2 @@\n+x\r\n+y\n");
  EXPECT_TRUE(is_whole_image("x\r\ny\n", added, Image::kPost));
  EXPECT_FALSE(is_whole_image("x\r\ny", added, Image::kPost));
  EXPECT_FALSE(is_whole_image("x\ny\n", added, Image::kPost));
  EXPECT_TRUE(is_whole_image("", added, Image::kPre));
  EXPECT_TRUE(is_whole_image("", {}, Image::kPost));
  EXPECT_FALSE(is_whole_image("\n", {}, Image::kPost));
}

// --- Scale -------------------------------------------------------------------------------------

TEST(MatchScale, LargeFileManyHunks) {
  // 200k lines, 50 hunks 4000 lines apart, each replacing one line by two. The file has 13
  // extra lines at the top, the even hunks applied, the odd ones not, and hunk 49 conflicting.
  constexpr int kLines = 200000;
  constexpr int kHunks = 50;
  auto start_of = [](int k) { return 4000 * k + 100; };
  std::string patch;
  for (int k = 0; k < kHunks; ++k) {
    const int s = start_of(k);
    patch += "@@ -" + std::to_string(s) + ",3 +" + std::to_string(s + k) + ",4 @@\n";
    patch += " line " + std::to_string(s) + "\n";
    patch += "-line " + std::to_string(s + 1) + "\n";
    patch += "+LINE " + std::to_string(s + 1) + "\n";
    patch += "+}\n";
    patch += " line " + std::to_string(s + 2) + "\n";
  }
  std::string file;
  file.reserve(static_cast<std::size_t>(kLines) * 14);
  for (int i = 0; i < 13; ++i) file += "}\n";
  int k = 0;
  for (int i = 1; i <= kLines; ++i) {
    while (k < kHunks && start_of(k) + 1 < i) ++k;
    if (k < kHunks && i == start_of(k) + 1) {
      if (k == kHunks - 1) {
        file += "conflicting\n";
      } else if (k % 2 == 0) {
        file += "LINE " + std::to_string(i) + "\n}\n";
      } else {
        file += "line " + std::to_string(i) + "\n";
      }
    } else {
      file += i % 10 == 5 ? "}\n" : "line " + std::to_string(i) + "\n";
    }
  }
  const auto r = match(file, patch);
  ASSERT_EQ(r.size(), static_cast<std::size_t>(kHunks));
  for (int h = 0; h < kHunks; ++h) {
    SCOPED_TRACE("hunk " + std::to_string(h));
    const int applied_before = (h + 1) / 2;
    const auto line = static_cast<std::size_t>(start_of(h) + 13 + applied_before);
    if (h == kHunks - 1) {
      EXPECT_CONFLICT(r[static_cast<std::size_t>(h)]);
    } else if (h % 2 == 0) {
      EXPECT_MATCH(r[static_cast<std::size_t>(h)], kApplied, line, 13 + applied_before - h);
    } else {
      EXPECT_MATCH(r[static_cast<std::size_t>(h)], kApplicable, line, 13 + applied_before);
    }
  }
}

TEST(MatchScale, ManyRepeatedLines) {
  // A file made of the same two lines: the matcher must still find the one unique spot.
  std::string file;
  for (int i = 0; i < 50000; ++i) file += i % 2 == 0 ? "{\n" : "}\n";
  file += "unique\n";
  for (int i = 0; i < 50000; ++i) file += i % 2 == 0 ? "{\n" : "}\n";
  const auto r = match(file, "@@ -10,3 +10,3 @@\n }\n-unique\n+UNIQUE\n {\n");
  EXPECT_MATCH(r[0], kApplicable, 50000, 49990);
}

TEST(MatchDiagnostics, HunksInAnotherOrderAreNamed) {
  // The file has the second hunk's code above the first hunk's.
  const std::string file = "b1\nb2\nOLD B\nb4\nx\nx\nx\na1\na2\nOLD A\na4\n";
  constexpr std::string_view hunks =
      "@@ -1,4 +1,4 @@\n a1\n a2\n-OLD A\n+NEW A\n a4\n"
      "@@ -20,4 +20,4 @@\n b1\n b2\n-OLD B\n+NEW B\n b4\n";
  std::vector<HunkMatch> m = match(file, hunks);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_MATCH(m[0], kApplicable, 8, 7, 0);
  EXPECT_CONFLICT(m[1], "out-of-order");
}

// --- Hostile input ---------------------------------------------------------------------------

TEST(MatchHostile, MillionIdenticalLinesAndAMarkedLastLine) {
  // 1M lines "a"; the hunk's 1000 lines are all "a" too, the last one marked "\ No newline at
  // end of file" on both sides. Every position agrees up to that mark.
  std::string patch = "@@ -1,1000 +1,1000 @@\n";
  for (int i = 0; i < 999; ++i) patch += " a\n";
  patch += "-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n";
  std::string file;
  for (int i = 0; i < 1000000; ++i) file += "a\n";
  EXPECT_CONFLICT(match(file, patch)[0], "final-newline-mismatch");
  // Without the final newline the pre-image is there, at the very end of the file.
  file.pop_back();
  EXPECT_MATCH(match(file, patch)[0], kApplicable, 999001, 999000);
}

TEST(MatchHostile, TwoThousandHunksAgainstTwoLongRuns) {
  // 500k lines "a" then 500k lines "b". The first hunk sits at the seam; the 2000 others want
  // "b" followed by "a", which the file never has, and every one of their lines occurs 500k
  // times.
  std::string patch = "@@ -499999,3 +499999,3 @@\n a\n-b\n+c\n b\n";
  for (int k = 0; k < 2000; ++k) {
    const std::string s = std::to_string(1 + 400 * k);
    patch += "@@ -" + s + ",3 +" + s + ",3 @@\n b\n-a\n+a\n a\n";
  }
  std::string file;
  for (int i = 0; i < 500000; ++i) file += "a\n";
  for (int i = 0; i < 500000; ++i) file += "b\n";
  const std::vector<HunkMatch> r = match(file, patch);
  ASSERT_EQ(r.size(), 2001u);
  EXPECT_MATCH(r[0], kApplicable, 500000, 1);
  for (std::size_t k = 1; k < r.size(); ++k) {
    SCOPED_TRACE("hunk " + std::to_string(k));
    EXPECT_CONFLICT(r[k]);
  }
}

TEST(MatchHostile, HugeFuzzOnAConflictingHunk) {
  MatchOptions options;
  options.fuzz = UINT_MAX;
  // Three context lines at each edge, none in the file; the changed line is nowhere either.
  constexpr std::string_view hunk = "@@ -5,7 +5,7 @@\n x\n y\n z\n-nowhere\n+NOWHERE\n u\n v\n w\n";
  EXPECT_CONFLICT(match(numbered(1, 20), hunk, options)[0]);
  // Context all wrong but the removed line present: found with the whole context dropped.
  EXPECT_MATCH(
      match(numbered(1, 20), "@@ -5,5 +5,5 @@\n x\n y\n-line 7\n+LINE 7\n u\n v\n", options)[0],
      kApplicable, 5, 0, 2);
  // No context at all: the level loop must still end.
  EXPECT_CONFLICT(match(numbered(1, 3), "@@ -2 +2 @@\n-gone\n+new\n", options)[0]);
}

TEST(MatchHostile, FuzzLevelBeyondTheContextChangesNothing) {
  // The fuzz a match reports is the first level that matched, also with fuzz far above it.
  constexpr std::string_view hunk = "@@ -3,5 +3,5 @@\n WRONG\n line 4\n-line 5\n+LINE 5\n line 6\n";
  for (const unsigned fuzz : {1u, 2u, 5u, 1000u, UINT_MAX}) {
    MatchOptions options;
    options.fuzz = fuzz;
    EXPECT_MATCH(match(numbered(1, 10), hunk, options)[0], kApplicable, 3, 0, 1);
  }
}

// --- The per-file cache ------------------------------------------------------------------------

TEST(MatchCache, RepeatedCallsOnOneFileTextAgree) {
  std::string content;
  for (int i = 1; i <= 300; ++i) {
    content +=
        i % 7 == 0 ? "  x  =\t1 \r\n" : (i % 3 == 0 ? "}\n" : "line " + std::to_string(i) + "\n");
  }
  content += "end";
  const std::vector<std::string_view> patches = {
      "@@ -10,3 +10,3 @@\n line 10\n-line 11\n+LINE 11\n }\n",
      "@@ -14,3 +14,3 @@\n  x = 1\n-}\n+{\n line 16\n",
      "@@ -300,2 +300,2 @@\n }\n-end\n\\ No newline at end of file\n+END\n",
      "@@ -100,4 +100,4 @@\n line 100\n line 101\n-}\n+{\n line 103\n"
      "@@ -50,4 +50,4 @@\n line 50\n line 51\n-}\n+{\n line 53\n",
      "@@ -40,3 +40,3 @@\n }\n-}\n+{\n }\n",
  };
  std::vector<MatchOptions> all_options(4);
  all_options[1].ignore_whitespace = true;
  all_options[2].fuzz = 2;
  all_options[3].fuzz = 1;
  all_options[3].ignore_whitespace = true;
  FileText shared(content);
  for (int round = 0; round < 3; ++round) {
    for (const std::string_view patch : patches) {
      for (const MatchOptions& options : all_options) {
        const std::vector<Hunk> hunks = parse_hunks(patch);
        const FileText fresh(content);
        const std::vector<HunkMatch> want = match_hunks(fresh, hunks, options);
        const std::vector<HunkMatch> got = match_hunks(shared, hunks, options);
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t k = 0; k < got.size(); ++k) {
          EXPECT_TRUE(is_match(got[k], want[k].status, want[k].line, want[k].offset, want[k].fuzz,
                               want[k].both_images, want[k].diagnostic))
              << patch;
        }
      }
    }
    if (round == 1) {  // a moved FileText keeps working, cache included
      FileText moved(std::move(shared));
      shared = std::move(moved);
    }
  }
  // And the results are the expected ones, not just stable.
  const auto r = match_hunks(shared, parse_hunks(patches[1]), all_options[1]);
  EXPECT_MATCH(r[0], kApplicable, 14, 0);
  EXPECT_CONFLICT(match_hunks(shared, parse_hunks(patches[1]), {})[0], "whitespace-only-mismatch");
  EXPECT_MATCH(match_hunks(shared, parse_hunks(patches[2]), {})[0], kApplicable, 300, 0);
}

// --- Differential test against a naive reference -----------------------------------------------

// The documented rules of match.hpp, implemented the obvious way: every position is compared
// line by line.
struct RefLine {
  std::string text;
  bool no_newline = false;
};

enum class RefMode { kExact, kStripCr, kFoldWs };

std::string ref_normalise(const std::string& s, RefMode mode) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; };
  if (mode == RefMode::kExact) return s;
  if (mode == RefMode::kStripCr) {
    std::string out = s;
    while (!out.empty() && out.back() == '\r') out.pop_back();
    return out;
  }
  std::string out;
  bool run = false;
  for (const char c : s) {
    if (space(c)) {
      run = true;
    } else {
      if (run) out += ' ';
      run = false;
      out += c;
    }
  }
  return out;
}

struct RefFile {
  std::vector<std::string> lines;
  bool last_no_newline = false;
};

enum class RefAnchor { kNone, kStart, kEnd, kExpected, kWhole };

// Nearest start >= lo where image[first, first + count) matches; ties to the later line. An
// anchored image is only tried at the file's start (after `first` dropped lines), its end
// (before `bottom` dropped lines) or the expected line.
std::optional<std::size_t> ref_find(const RefFile& f, const std::vector<RefLine>& img,
                                    std::size_t first, std::size_t count, std::int64_t expected,
                                    std::size_t lo, RefMode mode, bool strict,
                                    RefAnchor anchor = RefAnchor::kNone, std::size_t bottom = 0) {
  const std::size_t n = f.lines.size();
  std::optional<std::size_t> best;
  for (std::size_t s = lo; s + count <= n; ++s) {
    if (anchor == RefAnchor::kStart && s != first) continue;
    if (anchor == RefAnchor::kEnd && s + count + bottom != n) continue;
    if (anchor == RefAnchor::kExpected && static_cast<std::int64_t>(s) != expected) continue;
    if (anchor == RefAnchor::kWhole && (s != first || s + count + bottom != n)) continue;
    bool ok = true;
    for (std::size_t k = 0; k < count && ok; ++k) {
      const std::size_t i = s + k;
      ok = ref_normalise(f.lines[i], mode) == ref_normalise(img[first + k].text, mode);
      if (ok && strict) ok = (f.last_no_newline && i + 1 == n) == img[first + k].no_newline;
    }
    if (!ok) continue;
    const std::int64_t d = std::abs(static_cast<std::int64_t>(s) - expected);
    if (!best || d <= std::abs(static_cast<std::int64_t>(*best) - expected)) best = s;
  }
  return best;
}

struct RefFound {
  std::size_t pos = 0;
  std::size_t count = 0;
};

// Both images of a hunk left open because one lies inside the other by coincidence.
struct RefCoincident {
  RefFound p, q;
  std::size_t top = 0;
  std::int64_t pre_base = 0, post_base = 0;
  unsigned fuzz = 0;
};

std::vector<HunkMatch> ref_match(const std::string& content, const std::vector<Hunk>& hunks,
                                 const MatchOptions& options) {
  RefFile f;
  std::size_t start = 0;
  while (start < content.size()) {
    const std::size_t nl = content.find('\n', start);
    if (nl == std::string::npos) {
      f.lines.push_back(content.substr(start));
      f.last_no_newline = true;
      break;
    }
    f.lines.push_back(content.substr(start, nl - start));
    start = nl + 1;
  }
  const std::size_t n = f.lines.size();
  const RefMode base_mode = options.ignore_whitespace ? RefMode::kFoldWs : RefMode::kExact;
  std::vector<HunkMatch> out;
  std::vector<std::optional<RefCoincident>> coincident;
  std::vector<std::optional<std::pair<std::size_t, std::size_t>>> spans;  // found hunks' lines
  std::size_t lo = 0;
  std::int64_t offset = 0;
  char coords = 'o';  // the header lines `offset` counts from: 'o' own, '-' old, '+' new
  std::int64_t added_before = 0;  // lines the hunks before this one add
  for (const Hunk& h : hunks) {
    // The "+" start judged by: for a hunk without leading context, the one its "-" start and the
    // hunks before it give, whatever the header says (match_hunks(), "Headers").
    std::uint32_t new_start = h.new_start;
    {
      auto region = [](std::uint32_t s, std::uint32_t lines) -> std::int64_t {
        return lines == 0 ? s : (s == 0 ? 0 : static_cast<std::int64_t>(s) - 1);
      };
      const std::int64_t post_at = region(h.old_start, h.old_lines) + added_before;
      added_before += static_cast<std::int64_t>(h.new_lines) - h.old_lines;
      if (h.leading_context() == 0 && post_at >= 0 && region(h.new_start, h.new_lines) != post_at)
        new_start = static_cast<std::uint32_t>(h.new_lines == 0 ? post_at : post_at + 1);
    }
    std::vector<RefLine> pre, post;
    bool any_flag = false;
    for (const HunkLine& l : h.lines) {
      if (l.kind != LineKind::kAdded) pre.push_back({std::string(l.text), l.no_newline_at_eof});
      if (l.kind != LineKind::kRemoved) post.push_back({std::string(l.text), l.no_newline_at_eof});
      any_flag = any_flag || l.no_newline_at_eof;
    }
    const bool changes = h.added() + h.removed() > 0;
    const std::size_t leading = changes ? h.leading_context() : 0;
    const std::size_t trailing = changes ? h.trailing_context() : 0;
    // No context at either edge: -U0 (no context line at all) at its expected line; with
    // context between the changes, at the file's end, and the whole file from line 1.
    const bool any_context = std::any_of(h.lines.begin(), h.lines.end(), [](const HunkLine& l) {
      return l.kind == LineKind::kContext;
    });
    const RefAnchor anchor = !changes                           ? RefAnchor::kNone
                             : leading == 0 && trailing == 0 && !any_context
                                 ? RefAnchor::kExpected
                             : leading == 0 && trailing == 0 && h.old_start <= 1
                                 ? RefAnchor::kWhole
                             : leading == 0 && trailing == 0    ? RefAnchor::kEnd
                             : leading == 0 && h.old_start <= 1 ? RefAnchor::kStart
                             : leading == 0                     ? RefAnchor::kExpected
                             : trailing == 0                    ? RefAnchor::kEnd
                                                                : RefAnchor::kNone;
    auto base_of = [](std::uint32_t s, bool empty) -> std::int64_t {
      if (empty) return s;
      return s == 0 ? 0 : static_cast<std::int64_t>(s) - 1;
    };
    const std::int64_t pre_base = base_of(h.old_start, pre.empty());
    const std::int64_t post_base = base_of(new_start, post.empty());
    // Both images where the hunk stands in the header lines of the last found hunk's image.
    const std::int64_t pe = (coords == '+' ? post_base : pre_base) + offset;
    const std::int64_t qe = (coords == '-' ? pre_base : post_base) + offset;
    auto try_image = [&](const std::vector<RefLine>& img, std::int64_t expected, std::size_t from,
                         std::size_t top, std::size_t bottom, RefMode mode, bool strict,
                         RefAnchor anchored = RefAnchor::kNone) -> std::optional<RefFound> {
      if (img.empty()) {
        const std::size_t lo_c = std::min(from, n);
        const std::size_t e =
            expected < 0 ? lo_c : std::clamp(static_cast<std::size_t>(expected), lo_c, n);
        return RefFound{e, 0};
      }
      if (top + bottom >= img.size()) return std::nullopt;
      // Fuzz left the changed lines alone: only at the expected line, the whole hunk (its
      // dropped context too) after the previous hunk's lines.
      if (top + bottom > 0 && top >= leading && bottom >= trailing &&
          anchored == RefAnchor::kNone) {
        if (expected < static_cast<std::int64_t>(from)) return std::nullopt;
        anchored = RefAnchor::kExpected;
      }
      const std::size_t count = img.size() - top - bottom;
      const auto pos = ref_find(f, img, top, count, expected + static_cast<std::int64_t>(top), from,
                                mode, strict, anchored, bottom);
      if (!pos) return std::nullopt;
      return RefFound{*pos, count};
    };
    // The tie rule of match_hunks(): true for applied.
    auto tie = [&](const RefFound& p, const RefFound& q, std::size_t top, std::int64_t pe,
                   std::int64_t qe) {
      if (pre.empty() != post.empty()) return pre.empty();
      if (pre.empty()) return true;
      const std::size_t p_end = p.pos + p.count, q_end = q.pos + q.count;
      if (!(p.pos == q.pos && p_end == q_end)) {
        if (p.pos >= q.pos && p_end <= q_end) return true;
        if (q.pos >= p.pos && q_end <= p_end) return false;
        const auto tt = static_cast<std::int64_t>(top);
        const std::int64_t pd = std::abs(static_cast<std::int64_t>(p.pos) - (pe + tt));
        const std::int64_t qd = std::abs(static_cast<std::int64_t>(q.pos) - (qe + tt));
        if (pd != qd) return qd < pd;
      }
      if (options.ignore_whitespace) {
        auto exact_at = [&](const std::vector<RefLine>& img, const RefFound& fo) {
          for (std::size_t k = 0; k < fo.count; ++k) {
            const std::size_t i = fo.pos + k;
            if (f.lines[i] != img[top + k].text) return false;
            if ((f.last_no_newline && i + 1 == n) != img[top + k].no_newline) return false;
          }
          return true;
        };
        const bool px = exact_at(pre, p), qx = exact_at(post, q);
        if (px != qx) return qx;
      }
      return true;
    };
    HunkMatch m;
    bool matched = false;
    if (anchor == RefAnchor::kExpected) {
      // Tied to the expected line (or, as the whole file, to line 1; there a line marked
      // "\ No newline at end of file" also matches a file that ends with one).
      const auto marked = [](const std::vector<RefLine>& img) {
        return std::any_of(img.begin(), img.end(), [](const RefLine& l) { return l.no_newline; });
      };
      bool same_lines = pre.size() == post.size();
      for (std::size_t j = 0; same_lines && j < pre.size(); ++j)
        same_lines = pre[j].text == post[j].text;
      const bool strict_eof = f.last_no_newline || (marked(pre) != marked(post) && same_lines);
      auto whole = [&](const std::vector<RefLine>& img, std::uint32_t s) {
        return s <= 1 && lo == 0 && img.size() == n &&
               (n == 0 || ref_find(f, img, 0, n, 0, 0, base_mode, strict_eof).has_value());
      };
      auto at = [&](const std::vector<RefLine>& img, std::int64_t e) {
        return !img.empty() &&
               try_image(img, e, lo, 0, 0, base_mode, true, RefAnchor::kExpected).has_value();
      };
      const bool q_whole = whole(post, new_start);
      const bool p_whole = !q_whole && whole(pre, h.old_start);
      const bool q_at = !q_whole && !p_whole && at(post, qe);
      const bool p_at = !q_whole && !p_whole && at(pre, pe);
      if (q_whole || p_whole || q_at || p_at) {
        bool applied = q_whole || q_at;
        if (q_at && p_at) {
          m.both_images = true;
          applied = tie({static_cast<std::size_t>(pe), pre.size()},
                        {static_cast<std::size_t>(qe), post.size()}, 0, pe, qe);
        }
        const std::int64_t e = applied ? (q_whole ? 0 : qe) : (p_whole ? 0 : pe);
        m.status = applied ? kApplied : kApplicable;
        m.line = static_cast<std::size_t>(e) + 1;
        m.offset =
            e - base_of(applied ? new_start : h.old_start, applied ? post.empty() : pre.empty());
        offset = m.offset;
        coords = applied ? '+' : '-';
        lo = static_cast<std::size_t>(e) + (applied ? post.size() : pre.size());
        spans.resize(out.size() + 1);
        spans[out.size()] = std::make_pair(static_cast<std::size_t>(e), lo);
      } else {
        const bool elsewhere = (!post.empty() && try_image(post, qe, 0, 0, 0, base_mode, true)) ||
                               (!pre.empty() && try_image(pre, pe, 0, 0, 0, base_mode, true));
        if (elsewhere || (!pre.empty() && post.empty())) {
          m.status = HunkStatus::kUnknown;
        } else if (pre.empty() && pe < static_cast<std::int64_t>(std::min(lo, n))) {
          m.diagnostic = "out-of-order";  // placed by its header before the previous hunk
        } else if (pre.empty()) {
          const std::size_t at_line =
              (pe < 0 ? std::min(lo, n)
                      : std::clamp(static_cast<std::size_t>(pe), std::min(lo, n), n));
          m.status = kApplicable;
          m.line = at_line + 1;
          m.offset = static_cast<std::int64_t>(at_line) - base_of(h.old_start, true);
          offset = m.offset;
          coords = '-';
          lo = at_line;
        }
      }
      out.push_back(m);
      continue;
    }
    // A marked context line (the hunk's last, in both images): the marks are not compared, as
    // git apply has it.
    const bool eof_lenient = !h.lines.empty() &&
                             h.lines.back().kind == LineKind::kContext &&
                             h.lines.back().no_newline_at_eof;
    for (unsigned lvl = 0; lvl <= options.fuzz && !matched; ++lvl) {
      const std::size_t top = std::min<std::size_t>(lvl, leading);
      const std::size_t bottom = std::min<std::size_t>(lvl, trailing);
      const auto p = try_image(pre, pe, lo, top, bottom, base_mode, !eof_lenient, anchor);
      const auto q = try_image(post, qe, lo, top, bottom, base_mode, !eof_lenient, anchor);
      if (!p && !q) continue;
      bool applied = q.has_value();
      if (p && q && !pre.empty() && !post.empty()) {
        // One image inside the other away from where the hunk puts it (its changed lines at an
        // edge of its context): unknown, left to the file's other hunks (below).
        const std::size_t p_end = p->pos + p->count, q_end = q->pos + q->count;
        const bool p_in = p->pos >= q->pos && p_end <= q_end;
        const bool q_in = q->pos >= p->pos && q_end <= p_end;
        if ((p_in || q_in) && !(p->pos == q->pos && p_end == q_end)) {
          const RefFound& inner = p_in ? *p : *q;
          const RefFound& outer = p_in ? *q : *p;
          const std::size_t at = inner.pos - outer.pos;
          const bool natural = (trailing - bottom == 0 && at == 0) ||
                               (leading - top == 0 && at == outer.count - inner.count);
          // ... and the longer image's other lines all repeat lines of the shorter one.
          const std::vector<RefLine>& in_img = p_in ? pre : post;
          const std::vector<RefLine>& out_img = p_in ? post : pre;
          bool repeats = true;
          for (std::size_t j = 0; j < outer.count && repeats; ++j) {
            if (j >= at && j < at + inner.count) continue;
            bool seen = false;
            for (std::size_t i = top; i + bottom < in_img.size() && !seen; ++i)
              seen = in_img[i].text == out_img[top + j].text;
            repeats = seen;
          }
          if (!natural && repeats) {
            m.status = HunkStatus::kUnknown;
            m.both_images = true;
            coincident.resize(out.size() + 1);
            coincident[out.size()] = RefCoincident{*p, *q, top, pre_base, post_base, lvl};
            matched = true;
            break;
          }
        }
      }
      if (p && q) {
        m.both_images = !pre.empty() && !post.empty();
        applied = tie(*p, *q, top, pe, qe);
      }
      const RefFound& fo = applied ? *q : *p;
      const std::int64_t base = applied ? post_base : pre_base;
      const std::size_t first = (applied ? post.empty() : pre.empty()) ? 0 : top;
      m.status = applied ? kApplied : kApplicable;
      m.line = fo.pos >= first ? fo.pos - first + 1 : 1;
      m.offset = static_cast<std::int64_t>(fo.pos) - base - static_cast<std::int64_t>(first);
      m.fuzz = lvl;
      matched = true;
      offset = m.offset;
      coords = applied ? '+' : '-';
      lo = fo.pos + fo.count;
      spans.resize(out.size() + 1);
      spans[out.size()] = std::make_pair(fo.pos, fo.pos + fo.count);
    }
    if (!matched) {
      m.both_images = false;
      struct Try {
        RefMode mode;
        bool strict;
        bool any_order;
        RefAnchor anchor;
        const char* code;
      };
      std::vector<Try> tries;
      if (!options.ignore_whitespace) {
        tries.push_back({RefMode::kStripCr, true, false, anchor, "line-ending-mismatch"});
        tries.push_back({RefMode::kFoldWs, true, false, anchor, "whitespace-only-mismatch"});
      }
      if (f.last_no_newline || any_flag) {
        tries.push_back({base_mode, false, false, anchor, "final-newline-mismatch"});
      }
      if (anchor == RefAnchor::kStart)
        tries.push_back({base_mode, true, false, RefAnchor::kNone, "not-at-start-of-file"});
      if (anchor == RefAnchor::kEnd)
        tries.push_back({base_mode, true, false, RefAnchor::kNone, "not-at-end-of-file"});
      if (anchor == RefAnchor::kWhole)
        tries.push_back({base_mode, true, false, RefAnchor::kNone, "not-whole-file"});
      if (lo > 0) tries.push_back({base_mode, true, true, anchor, "out-of-order"});
      for (const Try& t : tries) {
        bool hit = false;
        for (unsigned lvl = 0; lvl <= options.fuzz && !hit; ++lvl) {
          const std::size_t top = std::min<std::size_t>(lvl, leading);
          const std::size_t bottom = std::min<std::size_t>(lvl, trailing);
          hit = (!pre.empty() && try_image(pre, pe, t.any_order ? 0 : lo, top, bottom, t.mode,
                                           t.strict, t.anchor)) ||
                (!post.empty() && try_image(post, qe, t.any_order ? 0 : lo, top, bottom, t.mode,
                                            t.strict, t.anchor));
        }
        if (hit) {
          m.diagnostic = t.code;
          break;
        }
      }
    }
    out.push_back(m);
  }
  // Coincident hunks take the state of all the others when they agree, where no other hunk's
  // compared lines are.
  coincident.resize(out.size());
  spans.resize(out.size());
  std::size_t applied_n = 0, applicable_n = 0, open = 0;
  bool agree = true;
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (coincident[k]) {
      ++open;
    } else if (out[k].status == kApplied) {
      ++applied_n;
    } else if (out[k].status == kApplicable) {
      ++applicable_n;
    } else {
      agree = false;
    }
  }
  if (agree && open > 0 && (applied_n == 0) != (applicable_n == 0)) {
    const bool post_state = applied_n > 0;
    for (std::size_t k = 0; k < out.size(); ++k) {
      if (!coincident[k]) continue;
      const RefCoincident& c = *coincident[k];
      const RefFound& fo = post_state ? c.q : c.p;
      bool free = true;
      for (std::size_t j = 0; j < out.size() && free; ++j)
        if (j != k && spans[j] && spans[j]->first < fo.pos + fo.count && fo.pos < spans[j]->second)
          free = false;
      if (!free) continue;
      HunkMatch& m = out[k];
      m.status = post_state ? kApplied : kApplicable;
      m.line = fo.pos >= c.top ? fo.pos - c.top + 1 : 1;
      m.offset = static_cast<std::int64_t>(fo.pos) - (post_state ? c.post_base : c.pre_base) -
                 static_cast<std::int64_t>(c.top);
      m.fuzz = c.fuzz;
      spans[k] = std::make_pair(fo.pos, fo.pos + fo.count);
    }
  }
  return out;
}

// Random files of `min_lines`..`max_lines` lines drawn from the first `letters` lines of a
// small alphabet, each shared by `sets` random sets of hunks of 1..`max_body` lines (so the
// per-file cache is reused, and the window indexes get built once a (mode, length) has been scanned
// often enough).
void differential(unsigned seed, int files, int min_lines, int max_lines, int letters, int sets,
                  int max_body) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  static const std::vector<std::string> alphabet = {"a",  "b",   "a ",  "a",    "b",    "c",
                                                    " a", "a\r", "b\r", "a  b", "a\tb", ""};
  auto line = [&]() -> const std::string& {
    return alphabet[static_cast<std::size_t>(pick(0, letters - 1))];
  };
  int compared = 0, matched = 0, diagnosed = 0;
  for (int file_no = 0; file_no < files; ++file_no) {
    std::string content;
    const int n = pick(min_lines, max_lines);
    for (int i = 0; i < n; ++i) content += line() + "\n";
    if (n > 0 && pick(0, 3) == 0) content.pop_back();  // no final newline
    const FileText text(content);                      // shared by all the hunk sets below
    for (int set = 0; set < sets; ++set) {
      std::vector<Hunk> hunks(static_cast<std::size_t>(pick(1, 3)));
      for (Hunk& h : hunks) {
        const int body = pick(1, max_body);
        for (int i = 0; i < body; ++i) {
          HunkLine hl;
          const int kind = pick(0, 5);
          hl.kind =
              kind < 3 ? LineKind::kContext : (kind < 4 ? LineKind::kAdded : LineKind::kRemoved);
          hl.text = line();
          hl.no_newline_at_eof = pick(0, 9) == 0;
          h.lines.push_back(std::move(hl));
        }
        h.old_start = static_cast<std::uint32_t>(pick(0, n + 2));
        h.new_start = static_cast<std::uint32_t>(pick(0, n + 2));
        h.old_lines = static_cast<std::uint32_t>(h.lines.size() - h.added());
        h.new_lines = static_cast<std::uint32_t>(h.lines.size() - h.removed());
      }
      MatchOptions options;
      options.fuzz = static_cast<unsigned>(pick(0, 3));
      options.ignore_whitespace = pick(0, 1) == 1;
      options.drift = false;  // the reference knows the images, not the drift search
      const std::vector<HunkMatch> want = ref_match(content, hunks, options);
      const std::vector<HunkMatch> got = match_hunks(text, hunks, options);
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t k = 0; k < got.size(); ++k) {
        ++compared;
        if (want[k].status != HunkStatus::kConflict) ++matched;
        if (!want[k].diagnostic.empty()) ++diagnosed;
        ASSERT_TRUE(is_match(got[k], want[k].status, want[k].line, want[k].offset, want[k].fuzz,
                             want[k].both_images, want[k].diagnostic))
            << "file " << file_no << " set " << set << " hunk " << k << " fuzz " << options.fuzz
            << " ignore_whitespace " << options.ignore_whitespace << "\n"
            << [&] {
                 std::string d = content + "----\n";
                 for (const Hunk& h : hunks) {
                   d += "@@ -" + std::to_string(h.old_start) + "," + std::to_string(h.old_lines) +
                        " +" + std::to_string(h.new_start) + "," + std::to_string(h.new_lines) +
                        " @@\n";
                   for (const HunkLine& l : h.lines)
                     d += (l.kind == LineKind::kAdded ? "+" : l.kind == LineKind::kRemoved ? "-" : " ") +
                          std::string(l.text) + (l.no_newline_at_eof ? "\\nonl\n" : "\n");
                 }
                 return d;
               }();
      }
    }
  }
  // The inputs exercise every outcome, not only conflicts.
  EXPECT_GT(matched, compared / 10);
  EXPECT_GT(diagnosed, compared / 50);
}

TEST(MatchDifferential, SmallFilesAgreeWithANaiveReference) {
  differential(12345, 1500, 0, 14, 12, 12, 6);
}

TEST(MatchDifferential, RepetitiveFilesAgreeWithANaiveReference) {
  // Two letters, long files, long hunks: many candidates per image, many conflicts, so the
  // window indexes get built (and some dropped again).
  differential(777, 20, 150, 300, 2, 120, 12);
}

// Hunks cut from the file itself, as real patches are (their context and removed lines stand
// in the file, their added lines may stand nowhere, or elsewhere), over 40 distinct lines, with
// headers moved off by a few lines: images found at their expected line, at an offset, both,
// or nowhere, and images whose lines, or pairs of consecutive lines, stand nowhere in the file
// (which the matcher rules out without searching).
TEST(MatchDifferential, HunksCutFromTheFileAgreeWithANaiveReference) {
  std::mt19937 rng(2026);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<std::string> alphabet;
  for (int i = 0; i < 40; ++i) alphabet.push_back("token " + std::to_string(i * 7919 % 1000));
  int compared = 0, both = 0, applied = 0, applicable = 0;
  for (int file_no = 0; file_no < 400; ++file_no) {
    const int n = pick(1, 120);
    std::vector<std::string> lines;
    for (int i = 0; i < n; ++i) lines.push_back(alphabet[static_cast<std::size_t>(pick(0, 39))]);
    std::string content;
    for (const std::string& l : lines) content += l + "\n";
    if (pick(0, 4) == 0) content.pop_back();  // no final newline
    const FileText text(content);
    for (int set = 0; set < 4; ++set) {
      std::vector<Hunk> hunks;
      int from = 0;
      for (int h = 0; h < pick(1, 4) && from < n; ++h) {
        const int start = pick(from, n - 1);
        const int span = pick(1, std::min(8, n - start));
        Hunk hunk;
        for (int i = start; i < start + span; ++i) {
          HunkLine hl;
          // The file's line as context or removed line (this pre-image stands in the file),
          // or as an added line (the post-image then does, when nothing else was removed).
          const int kind = pick(0, 5);
          hl.kind =
              kind < 3 ? LineKind::kContext : (kind < 5 ? LineKind::kRemoved : LineKind::kAdded);
          hl.text = text.line(static_cast<std::size_t>(i));
          hunk.lines.push_back(hl);
          if (pick(0, 3) == 0) {  // an added line from the alphabet, or from nowhere
            HunkLine added;
            added.kind = LineKind::kAdded;
            added.text = pick(0, 1) == 0
                             ? std::string_view(alphabet[static_cast<std::size_t>(pick(0, 39))])
                             : std::string_view("new line nowhere in the file");
            hunk.lines.push_back(added);
          }
        }
        if (start + span == n && pick(0, 1) == 0 && content.back() != '\n')
          hunk.lines.back().no_newline_at_eof = true;
        const int shift = pick(-3, 3);
        hunk.old_start = static_cast<std::uint32_t>(std::max(0, start + 1 + shift));
        hunk.new_start = static_cast<std::uint32_t>(std::max(0, start + 1 + shift + pick(0, 2)));
        hunk.old_lines = static_cast<std::uint32_t>(hunk.lines.size() - hunk.added());
        hunk.new_lines = static_cast<std::uint32_t>(hunk.lines.size() - hunk.removed());
        hunks.push_back(std::move(hunk));
        from = start + span;
      }
      if (hunks.empty()) continue;
      MatchOptions options;
      options.fuzz = static_cast<unsigned>(pick(0, 2));
      options.ignore_whitespace = pick(0, 4) == 0;
      options.drift = false;
      const std::vector<HunkMatch> want = ref_match(content, hunks, options);
      const std::vector<HunkMatch> got = match_hunks(text, hunks, options);
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t k = 0; k < got.size(); ++k) {
        ++compared;
        both += want[k].both_images ? 1 : 0;
        applied += want[k].status == kApplied ? 1 : 0;
        applicable += want[k].status == kApplicable ? 1 : 0;
        ASSERT_TRUE(is_match(got[k], want[k].status, want[k].line, want[k].offset, want[k].fuzz,
                             want[k].both_images, want[k].diagnostic))
            << "file " << file_no << " set " << set << " hunk " << k;
      }
    }
  }
  EXPECT_GT(applied, compared / 10);
  EXPECT_GT(applicable, compared / 10);
  EXPECT_GT(both, 10);
}

TEST(MatchDiagnostics, ConflictReportsTheNearMiss) {
  const std::string file = "a\nb\nc\nX\ne\nf\n";
  const auto r = match(file, "@@ -2,4 +2,4 @@\n b\n c\n-d\n+D\n e\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_CONFLICT(r[0]);
  EXPECT_EQ(r[0].closest_image, Image::kPre);
  EXPECT_EQ(r[0].closest_line, 2u);
  EXPECT_EQ(r[0].closest_agree, 3u);
  EXPECT_EQ(r[0].closest_lines, 4u);
  EXPECT_EQ(r[0].closest_differs_at, 4u);
  const auto none = match("x\ny\nz\n", "@@ -1,2 +1,2 @@\n-a\n+b\n c\n");
  EXPECT_EQ(none[0].closest_line, 0u) << "no placement agrees on half the lines";
}

}  // namespace
}  // namespace sm120check
