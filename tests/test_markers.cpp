// Marker extraction: which added lines tell something, trailers, pre-image filtering.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace sm120check
