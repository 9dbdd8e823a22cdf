// Marker extraction: which added lines tell something, trailers, pre-image filtering, and the
// linear extraction checked against a plain (quadratic) reference on random patches.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "sm120check/markers.hpp"
#include "sm120check/patch.hpp"

namespace sm120check {
namespace {

TEST(Markers, LinesThatTellNothingGiveNoMarker) {
  for (const char* line : {"", "    ", "    return", "else:", "  } else {", "pass", "}",
                           "):", "import os", "from torch import nn", "#include <cuda.h>", "x = 1",
                           "    ((( ))) ;;", "try:", "return None"})
    EXPECT_EQ(marker_of_line(line), "") << "line: '" << line << "'";
}

TEST(Markers, ConditionsCommentsAndCode) {
  EXPECT_EQ(marker_of_line("    if CUDA_CAPABILITY[0] == 12:"), "CUDA_CAPABILITY[0] == 12");
  EXPECT_EQ(marker_of_line("    elif CUDA_CAPABILITY[0] >= 9:"), "CUDA_CAPABILITY[0] >= 9");
  EXPECT_EQ(marker_of_line("  if (props.major == 12) {"), "props.major == 12");
  EXPECT_EQ(marker_of_line("        # SM120: smaller tiles"), "SM120: smaller tiles");
  EXPECT_EQ(marker_of_line("  // fits 101376 bytes */"), "fits 101376 bytes");
  EXPECT_EQ(marker_of_line("    BLOCK_M = 64  # fits SM120 smem"), "fits SM120 smem");
  EXPECT_EQ(marker_of_line("    BLOCK_M = 64  # ok"), "BLOCK_M = 64  # ok");
  EXPECT_EQ(marker_of_line("def _get_block_sizes(Lq, Lv):\r"), "def _get_block_sizes(Lq, Lv):");
  EXPECT_EQ(marker_of_line("#define SM120_SMEM 101376"), "#define SM120_SMEM 101376");
  std::string long_line(200, 'a');
  EXPECT_EQ(marker_of_line(long_line), std::string(120, 'a'));
}

constexpr const char* kPatch =
    "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
    "From: Dev <dev@example.com>\n"
    "Subject: [PATCH] attn: SM120 tiles\n"
    "\n"
    "Smaller tiles.\n"
    "\n"
    "Marker: CUDA_CAPABILITY[0] == 12\n"
    "marker-regex: sm_?120\n"
    "---\n"
    "diff --git a/python/pkg/sub/file.py b/python/pkg/sub/file.py\n"
    "--- a/python/pkg/sub/file.py\n"
    "+++ b/python/pkg/sub/file.py\n"
    "@@ -1,5 +1,11 @@\n"
    " def pick_tiles(cap):\n"
    "-    block_m = compute_block(cap)\n"
    "+    if cap[0] == 12:\n"
    "+        # SM120: 101376 bytes of shared memory\n"
    "+        return 32, 32\n"
    "+    block_m = compute_block(cap)\n"
    "+    else:\n"
    "+    import math\n"
    "+    tiles_for_blackwell = table_lookup(cap)\n"
    "     return block_m, 64\n"
    " \n"
    " \n";

TEST(Markers, ExtractTrailersThenHunkMarkersBestFirst) {
  std::vector<Patch> patches = parse_patches(kPatch, "p.patch");
  ASSERT_EQ(patches.size(), 1u);
  std::vector<Marker> m = extract_markers(patches[0]);
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[0].text, "CUDA_CAPABILITY[0] == 12");
  EXPECT_FALSE(m[0].regex);
  EXPECT_EQ(m[0].origin, Marker::Origin::kTrailer);
  EXPECT_EQ(m[1].text, "sm_?120");
  EXPECT_TRUE(m[1].regex);
  // Most distinctive first (long identifiers, comparisons, numbers); the moved line (also in
  // the pre-image), `else:`, the import are not markers; `return 32, 32` ranks fourth.
  EXPECT_EQ(m[2].text, "tiles_for_blackwell = table_lookup(cap)");
  EXPECT_EQ(m[3].text, "cap[0] == 12");
  EXPECT_EQ(m[4].text, "SM120: 101376 bytes of shared memory");
  EXPECT_EQ(m[2].origin, Marker::Origin::kHunk);
  EXPECT_EQ(m[2].file, "python/pkg/sub/file.py");
  EXPECT_EQ(extract_markers(patches[0], 2)[2].file, "pkg/sub/file.py");
}

TEST(Markers, ContextMarkersComeFromThePreImage) {
  std::vector<Patch> patches = parse_patches(kPatch, "p.patch");
  std::vector<Marker> m = context_markers(patches[0].files[0]);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].text, "block_m = compute_block(cap)");
  EXPECT_EQ(m[1].text, "def pick_tiles(cap):");
  EXPECT_EQ(m[2].text, "return block_m, 64");
  EXPECT_EQ(m[0].origin, Marker::Origin::kContext);
}

TEST(Markers, ContextMarkersSkipDuplicatesAcrossHunks) {
  std::vector<Patch> patches = parse_patches(
      "--- a/f.py\n+++ b/f.py\n"
      "@@ -1,2 +1,2 @@\n shared_context_line(1)\n-old_line_one(1)\n+x\n"
      "@@ -9,2 +9,2 @@\n shared_context_line(1)\n-old_line_two(2)\n+y\n",
      "p.patch");
  std::vector<Marker> m = context_markers(patches[0].files[0]);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].text, "shared_context_line(1)");
  EXPECT_EQ(m[1].text, "old_line_one(1)");
  EXPECT_EQ(m[2].text, "old_line_two(2)");
}

TEST(Markers, PreImageIsTheWholeFilePatchNotOtherFiles) {
  // `moved_helper(cap)` is in the pre-image of hunk 2 of the same file: skipped in hunk 1.
  // `from_other_file(cap)` is only in another file's pre-image: kept.
  std::vector<Patch> patches = parse_patches(
      "--- a/f.py\n+++ b/f.py\n"
      "@@ -1,1 +1,3 @@\n ctx_one = 1\n+moved_helper(cap)\n+from_other_file(cap)\n"
      "@@ -20,2 +22,1 @@\n ctx_two = 2\n-    y = moved_helper(cap) + 1\n"
      "--- a/g.py\n+++ b/g.py\n"
      "@@ -1,1 +1,1 @@\n-z = from_other_file(cap)\n+zz = brand_new_line(cap)\n",
      "p.patch");
  std::vector<Marker> m = extract_markers(patches[0], 1);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].text, "from_other_file(cap)");
  EXPECT_EQ(m[0].file, "f.py");
  EXPECT_EQ(m[1].text, "zz = brand_new_line(cap)");
  EXPECT_EQ(m[1].file, "g.py");
}

TEST(Markers, ATakenMarkerIsNotTakenAgainAndTheNextCandidateIsUsed) {
  std::vector<Patch> patches = parse_patches(
      "Subject: x\n\nMarker: CUDA_CAPABILITY[0] == 12\n---\n"
      "--- a/f.py\n+++ b/f.py\n"
      "@@ -1,1 +1,3 @@\n a\n+if CUDA_CAPABILITY[0] == 12:\n+    tiles_for_sm120 = 1\n"
      "@@ -9,1 +11,3 @@\n b\n+    tiles_for_sm120 = 1\n+    stages_for_sm120 = 2\n",
      "p.patch");
  std::vector<Marker> m = extract_markers(patches[0], 1);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].origin, Marker::Origin::kTrailer);
  EXPECT_EQ(m[1].text, "tiles_for_sm120 = 1");   // the condition is the trailer's text
  EXPECT_EQ(m[2].text, "stages_for_sm120 = 2");  // hunk 2's best was taken by hunk 1
}

/// A hunk of `moved` re-indented lines (each also in the pre-image) and one new line that ranks
/// below them all.
std::string reindent_patch(std::size_t moved) {
  std::string removed, added;
  for (std::size_t i = 0; i < moved; ++i) {
    std::string line = "value_" + std::to_string(1000000 + i) + " = compute_the_value(" +
                       std::to_string(i) + ", 12)";
    removed += "-" + line + "\n";
    added += "+    " + line + "\n";
  }
  std::string header =
      "@@ -1," + std::to_string(moved) + " +1," + std::to_string(moved + 1) + " @@\n";
  return "--- a/f.py\n+++ b/f.py\n" + header + removed + added + "+the new line\n";
}

TEST(Markers, ABestCandidateInThePreImageGivesWayToTheNewLine) {
  // 20 candidates ahead of the new line are all in the pre-image: more than the first lookup
  // takes, so the second pass over all of the hunk's candidates decides.
  std::vector<Patch> patches = parse_patches(reindent_patch(20), "p.patch");
  std::vector<Marker> m = extract_markers(patches[0], 1);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].text, "the new line");
}

TEST(Markers, CandidatesBeyondOneAutomatonAreAllLookedUp) {
  // 80,000 candidates: more than the 4096 put into one literal set, so the pre-image is
  // scanned once per part; a candidate missed in any part would be taken here.
  std::vector<Patch> patches = parse_patches(reindent_patch(80000), "p.patch");
  std::vector<Marker> m = extract_markers(patches[0], 1);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].text, "the new line");
}

// ---------------------------------------------------------------------------------------------
// The reference: extraction as first written (each candidate compared with every pre-image
// line and every marker taken), quadratic but plain. extract_markers must agree with it.

std::vector<Marker> reference_markers(const Patch& patch, unsigned strip) {
  Patch message_only;  // the trailers, taken as extract_markers() takes them
  message_only.message = patch.message;
  std::vector<Marker> out = extract_markers(message_only, strip);
  for (const FilePatch& fp : patch.files) {
    std::vector<std::string> pre;
    for (const Hunk& h : fp.hunks)
      for (const HunkLine& l : h.lines)
        if (l.kind != LineKind::kAdded) pre.emplace_back(l.text);
    const std::string& path = fp.new_path == "/dev/null" ? fp.old_path : fp.new_path;
    std::string file = strip_path(path, strip).value_or(path);
    for (const Hunk& h : fp.hunks) {
      std::vector<std::pair<int, std::string>> found;
      for (const HunkLine& l : h.lines) {
        if (l.kind != LineKind::kAdded) continue;
        std::string m = marker_of_line(l.text);
        if (m.empty()) continue;
        if (std::any_of(pre.begin(), pre.end(),
                        [&](const std::string& p) { return p.find(m) != std::string::npos; }))
          continue;
        if (std::any_of(found.begin(), found.end(), [&](const auto& e) { return e.second == m; }))
          continue;
        found.emplace_back(marker_score(m), m);
      }
      std::stable_sort(found.begin(), found.end(),
                       [](const auto& a, const auto& b) { return a.first > b.first; });
      std::size_t taken = 0;
      for (const auto& entry : found) {
        const std::string& text = entry.second;  // not a binding: clang 14 cannot capture one
        if (taken == kMaxMarkersPerHunk) break;
        if (std::any_of(out.begin(), out.end(),
                        [&](const Marker& m) { return !m.regex && m.text == text; }))
          continue;
        out.push_back({text, false, Marker::Origin::kHunk, file});
        ++taken;
      }
    }
  }
  return out;
}

/// A random line from a small vocabulary, so that lines repeat, contain one another and share
/// prefixes and suffixes (the cases a multi-string search must get right), some of them
/// UTF-8 (bytes that compare differently as signed and unsigned char).
std::string random_line(std::mt19937& rng) {
  // Words separated by '|'; the last two are UTF-8 (bytes above 0x7F).
  static const std::vector<std::string> kWords = [] {
    std::string all =
        "cap|cap[0]|== 12|block_m|block_m_sm120|# tiles|tiles|if |x = |m_sm1|sm120|120|block|"
        "(a, b)|return|  |_m|12|\xC3\xA9t\xC3\xA9|\xE5\x85\xB1\xE4\xBA\xAB";
    std::vector<std::string> words;
    for (std::size_t at = 0, bar; at <= all.size(); at = bar + 1) {
      bar = std::min(all.find('|', at), all.size());
      words.push_back(all.substr(at, bar - at));
    }
    return words;
  }();
  std::string line;
  std::size_t words = 1 + rng() % 5;
  for (std::size_t i = 0; i < words; ++i) line += kWords[rng() % kWords.size()];
  return line;
}

TEST(Markers, AgreeWithThePlainReferenceOnRandomPatches) {
  std::mt19937 rng(120);
  for (int round = 0; round < 400; ++round) {
    std::string text = "Subject: r\n\n";
    if (rng() % 3 == 0) text += "Marker: " + random_line(rng) + "\n";
    text += "---\n";
    std::size_t files = 1 + rng() % 3;
    for (std::size_t f = 0; f < files; ++f) {
      text += "--- a/f" + std::to_string(f) + ".py\n+++ b/f" + std::to_string(f) + ".py\n";
      std::size_t hunks = 1 + rng() % 4;
      for (std::size_t h = 0; h < hunks; ++h) {
        std::vector<std::pair<char, std::string>> body;
        std::size_t lines = 1 + rng() % 24;
        std::size_t old_lines = 0, new_lines = 0;
        for (std::size_t i = 0; i < lines; ++i) {
          char kind = " -++"[rng() % 4];
          body.emplace_back(kind, random_line(rng));
          old_lines += kind != '+';
          new_lines += kind != '-';
        }
        text += "@@ -" + std::to_string(1 + 100 * h) + "," + std::to_string(old_lines) + " +" +
                std::to_string(1 + 100 * h) + "," + std::to_string(new_lines) + " @@\n";
        for (const auto& [kind, line] : body) text += kind + line + "\n";
      }
    }
    std::vector<Patch> patches = parse_patches(text, "r.patch");
    ASSERT_EQ(patches.size(), 1u) << text;
    std::vector<Marker> got = extract_markers(patches[0], 1);
    std::vector<Marker> want = reference_markers(patches[0], 1);
    ASSERT_EQ(got.size(), want.size()) << text;
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].text, want[i].text) << "marker " << i << " of\n" << text;
      EXPECT_EQ(got[i].origin, want[i].origin);
      EXPECT_EQ(got[i].file, want[i].file);
    }
  }
}

TEST(Markers, ManyCandidatesFoundInThePreImageAgreeWithTheReference) {
  // 3000 candidates, each in the pre-image (about 150 KB) at its own line: memmem() finds the
  // first ones, and once it has searched its budget (8 times the pre-image and 128 KiB) the
  // index is built and answers the rest. Every one is skipped; the new line is the marker.
  std::vector<Patch> patches = parse_patches(reindent_patch(3000), "p.patch");
  std::vector<Marker> got = extract_markers(patches[0], 1);
  std::vector<Marker> want = reference_markers(patches[0], 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].text, "the new line");
  ASSERT_EQ(want.size(), 1u);
  EXPECT_EQ(want[0].text, "the new line");
}

TEST(Markers, ARepetitivePreImageAgreesWithTheReference) {
  // File 2's pre-image is 1000 random lines of 'a' and 'b': every 4-byte window of a candidate
  // is filed at thousands of positions there, and 300 of its candidates (file 1's markers, so
  // all taken) are each looked up and found absent, comparing every such position: more than
  // the index allows, so they are looked up all at once instead. The result must not change.
  std::mt19937 rng(12);
  auto ab_line = [&](std::size_t size) {
    std::string line;
    for (std::size_t i = 0; i < size; ++i) line += "ab"[rng() % 2];
    return line;
  };
  std::vector<std::string> added;
  for (int i = 0; i < 300; ++i) added.push_back(ab_line(60));
  std::string text = "--- a/f1.py\n+++ b/f1.py\n";
  for (std::size_t i = 0; i < added.size(); ++i)
    text += "@@ -" + std::to_string(1 + 10 * i) + ",0 +" + std::to_string(1 + 10 * i) + ",1 @@\n+" +
            added[i] + "\n";
  // File 2 also adds three of its removed lines again (in the pre-image: not markers, and
  // ranked first) and one new line, its marker.
  std::vector<std::string> removed;
  for (int i = 0; i < 1000; ++i) removed.push_back(ab_line(100));
  text += "--- a/f2.py\n+++ b/f2.py\n@@ -1,1000 +1,304 @@\n";
  for (const std::string& line : removed) text += "-" + line + "\n";
  for (int i : {10, 500, 990}) text += "+" + removed[static_cast<std::size_t>(i)] + "\n";
  for (const std::string& line : added) text += "+" + line + "\n";
  text += "+the new line\n";
  std::vector<Patch> patches = parse_patches(text, "ab.patch");
  ASSERT_EQ(patches.size(), 1u);
  ASSERT_EQ(patches[0].files.size(), 2u);
  std::vector<Marker> got = extract_markers(patches[0], 1);
  std::vector<Marker> want = reference_markers(patches[0], 1);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].text, want[i].text) << "marker " << i;
    EXPECT_EQ(got[i].file, want[i].file) << "marker " << i;
  }
  ASSERT_EQ(got.size(), 301u);  // file 1's, then file 2's new line
  EXPECT_EQ(got.back().text, "the new line");
}

}  // namespace
}  // namespace sm120check
