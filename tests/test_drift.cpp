// Tests of presence under drift and of the anchors (match.hpp, src/match/drift.cpp): suites
// Drift* (one per presence rule) and FalseApplied* (each false `applied` found in review, with
// the fix that stops it). Hunks come from the real parser, files are inline.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "sm120check/match.hpp"
#include "sm120check/patch.hpp"
#include "../src/match/drift.hpp"
#include "test_util.hpp"

namespace sm120check {
namespace {

/// Matches the hunks of the one file patch in `diff` against `file`.
std::vector<HunkMatch> run(const std::string& file, std::string_view hunks,
                           MatchOptions options = {}) {
  const std::string diff = "--- a/f.py\n+++ b/f.py\n" + std::string(hunks);
  const std::vector<Patch> patches = parse_patches(diff, "t.diff");
  const FileText text(file);
  return match_hunks(text, patches.at(0).files.at(0).hunks, options);
}

// The fix: an SM120 branch with smaller tiles (three context lines each side).
constexpr std::string_view kFix =
    "@@ -1,7 +1,9 @@\n"
    " import torch\n"
    " \n"
    " def _get_block_sizes(dtype):\n"
    "-    if CUDA_CAPABILITY[0] >= 9:\n"
    "+    if CUDA_CAPABILITY[0] == 12:\n"
    "+        BLOCK_M, BLOCK_N = 64, 32\n"
    "+    elif CUDA_CAPABILITY[0] >= 9:\n"
    "         BLOCK_M, BLOCK_N = 128, 64\n"
    "     else:\n"
    "         BLOCK_M, BLOCK_N = 64, 64\n";

constexpr std::string_view kFixedBranch =
    "    if CUDA_CAPABILITY[0] == 12:\n"
    "        BLOCK_M, BLOCK_N = 64, 32\n"
    "    elif CUDA_CAPABILITY[0] >= 9:\n";

constexpr std::string_view kOldBranch = "    if CUDA_CAPABILITY[0] >= 9:\n";

/// A later version of the file: an import and a parameter added, the Hopper tiles retuned, a
/// header of 40 lines above; `branch` in the middle.
std::string later(std::string_view branch) {
  std::string file;
  for (int i = 0; i < 40; ++i) file += "# header line " + std::to_string(i) + "\n";
  file += "import torch\nimport triton\n\ndef _get_block_sizes(dtype, head_dim):\n";
  file += branch;
  file += "        BLOCK_M, BLOCK_N = 128, 128\n    else:\n        BLOCK_M, BLOCK_N = 64, 64\n";
  file += "    num_warps = 4\n    return BLOCK_M, BLOCK_N, num_warps\n";
  return file;
}

// --- Drift: one test per presence rule ---------------------------------------------------------

TEST(Drift, ChangeFoundWhereTheContextPointsIsPresent) {
  const HunkMatch m = run(later(kFixedBranch), kFix)[0];
  EXPECT_EQ(m.status, HunkStatus::kApplied);
  EXPECT_EQ(m.kind, MatchKind::kDrifted);
  EXPECT_EQ(m.presence, Presence::kPresent);
  EXPECT_EQ(m.presence_reason, "drifted");
  EXPECT_EQ(m.line, 45u);  // the first line of the changed block
  EXPECT_EQ(m.offset, 41);
  // "import torch", the blank line, "else:" and the 64, 64 line stand; the def and the 128, 64
  // line do not.
  EXPECT_EQ(m.context_agree, 4u);
  EXPECT_EQ(m.context_lines, 6u);
}

// Fresh-user review: a guard added at the top of get_num_stages(); in the tree that function's
// signature moved on (default=2) and it lacks the guard, while another function below holds
// the same two lines before its own ">= 9" branch. The copy fits the context 3 of 6 (two blank
// lines and the ">= 9" line); the place the change belongs 4 of 6 without it. Was present (a
// false applied); the old code standing as convincingly makes it unknown.
TEST(Drift, AFixsLinesInAnotherFunctionAreNotTheFixWhereItsSignatureMoved) {
  const std::string hunk =
      "@@ -20,6 +20,8 @@ def get_block_sizes(Lq):\n \n \n def get_num_stages():\n"
      "+    if CUDA_CAPABILITY[0] == 12:\n+        return 1\n     if CUDA_CAPABILITY[0] >= 9:\n"
      "         return 3\n     return 2\n";
  std::string file;
  for (int i = 1; i <= 18; ++i) file += "    line_" + std::to_string(i) + " = " + std::to_string(i) + "\n";
  file += "    return BLOCK_M\n\n\ndef get_num_stages(default=2):\n    if CUDA_CAPABILITY[0] >= 9:\n"
          "        return 3\n    return default\n\n\ndef get_num_warps_decode():\n"
          "    if CUDA_CAPABILITY[0] == 12:\n        return 1\n    if CUDA_CAPABILITY[0] >= 9:\n"
          "        return 8\n    return 4\n";
  const std::vector<HunkMatch> m = run(file, hunk);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].presence, Presence::kPresent);
  EXPECT_NE(m[0].status, HunkStatus::kApplied);
  // With the guard where it belongs as well, it is present there.
  std::string fixed = file;
  const std::string sig = "def get_num_stages(default=2):\n";
  fixed.insert(fixed.find(sig) + sig.size(), "    if CUDA_CAPABILITY[0] == 12:\n        return 1\n");
  const std::vector<HunkMatch> f = run(fixed, hunk);
  EXPECT_EQ(f.at(0).presence, Presence::kPresent);
  EXPECT_EQ(f[0].line, 23u);
}

TEST(Drift, StrictKeepsExactImages) {
  const HunkMatch m = run(later(kFixedBranch), kFix, {.drift = false})[0];
  EXPECT_EQ(m.status, HunkStatus::kConflict);
  EXPECT_EQ(m.kind, MatchKind::kNone);
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_EQ(m.presence_reason, "strict");
}

TEST(Drift, RemovedLinesStandingWhereTheFixBelongsIsAbsent) {
  // The mirror case: the old branch where the fix belongs, the new one nowhere. Never a clean
  // `applicable` either (the context moved: git apply would refuse).
  const HunkMatch m = run(later(kOldBranch), kFix)[0];
  EXPECT_EQ(m.status, HunkStatus::kConflict);
  EXPECT_EQ(m.presence, Presence::kAbsent);
  EXPECT_EQ(m.presence_reason, "removed-lines-present");
  EXPECT_EQ(m.places, std::vector<std::size_t>{45});
  EXPECT_FALSE(m.inserts_only);
  EXPECT_EQ(presence_words(m), "the code it replaces stands where it belongs (line 45)");
}

// A pure insertion whose context meets where it belongs, without the added lines: absent, and
// the words say so; none of the code there is "code it replaces" (new-user review, session 34:
// demo patch 0003 on examples/tree read "the code it replaces stands where it belongs").
TEST(Drift, AnInsertionWhoseContextMeetsWithoutItIsAbsentInItsOwnWords) {
  // examples/tree's fused_moe_config.py and patches/0003's hunk: its context line edited
  // (`M <= E` -> `M < E`), the rest meeting without the SM120 branch.
  const std::string file =
      "def get_default_config(M: int, E: int, N: int, K: int, topk: int):\n"
      "    config = {\n"
      "        \"BLOCK_SIZE_K\": 128,\n"
      "        \"num_stages\": 3,  # local tuning\n"
      "    }\n"
      "    if M < E:\n"
      "        config[\"BLOCK_SIZE_M\"] = 16\n"
      "    return config\n";
  constexpr std::string_view kInsert =
      "@@ -5,4 +5,8 @@ def get_default_config(M: int, E: int, N: int, K: int, topk: int):\n"
      "     }\n"
      "     if M <= E:\n"
      "         config[\"BLOCK_SIZE_M\"] = 16\n"
      "+    if major == 12:\n"
      "+        # SM120: 101376 bytes of opt-in shared memory per block.\n"
      "+        config[\"BLOCK_SIZE_K\"] = 64\n"
      "+        config[\"num_stages\"] = 2\n"
      "     return config\n";
  const HunkMatch m = run(file, kInsert)[0];
  EXPECT_EQ(m.status, HunkStatus::kConflict);
  EXPECT_EQ(m.presence, Presence::kAbsent);
  EXPECT_EQ(m.presence_reason, "removed-lines-present");
  EXPECT_TRUE(m.inserts_only);
  EXPECT_EQ(presence_words(m).rfind("its context stands where it belongs without its added lines", 0),
            0u)
      << presence_words(m);
}

// Where the fix belongs the line was edited since: it holds neither the removed nor the added
// line, and none of the words only the removed line has (FlashInfer 74e99e8bb7, modules.py at
// v0.6.17: `supported_major_versions=[10, 11, 12]` -> `[10, 11]`, later `[10, 11],
// map_sm107_to_100f=True`; the old line stands only in another function). Not absent: unknown,
// "edited-since". With the removed word there (the old list edited), still absent.
TEST(Drift, AnEditedLineWithoutTheRemovedWordsIsNotAbsent) {
  const std::string hunk =
      "@@ -4,7 +4,7 @@ def gen_fmha_cutlass_sm100a_module(\n"
      "     ]\n"
      " \n"
      "     nvcc_flags = current_compilation_context.get_nvcc_flags_list(\n"
      "-        supported_major_versions=[10, 11, 12]\n"
      "+        supported_major_versions=[10, 11]\n"
      "     )\n"
      "     return gen_jit_spec(\n"
      "         uri,\n";
  auto file_with = [](const std::string& line) {
    return "def gen_other_module(dtype):\n"
           "    if dtype.itemsize == 1:\n"
           "        return current_compilation_context.get_nvcc_flags_list(\n"
           "                    supported_major_versions=[10, 11, 12]\n"
           "        )\n"
           "\n"
           "\n"
           "def gen_fmha_cutlass_sm100a_module(uri):\n"
           "    source_paths = [\n"
           "        'fmha_cutlass_sm100.cu',\n"
           "    ]\n"
           "\n"
           "    nvcc_flags = current_compilation_context.get_nvcc_flags_list(\n" +
           line +
           "    )\n"
           "    return gen_jit_spec(\n"
           "        uri,\n"
           "        source_paths,\n"
           "    )\n";
  };
  const HunkMatch edited = test::match_one_hunk(
      file_with("        supported_major_versions=[10, 11], map_sm107_to_100f=True\n"), hunk,
      "flashinfer/jit/attention/modules.py");
  EXPECT_EQ(edited.status, HunkStatus::kConflict);
  EXPECT_EQ(edited.presence, Presence::kUnknown);
  EXPECT_EQ(edited.presence_reason, "edited-since");
  EXPECT_EQ(edited.places, std::vector<std::size_t>{14});
  const HunkMatch old_edited = test::match_one_hunk(
      file_with("        supported_major_versions=[10, 11, 12], map_sm107_to_100f=True\n"), hunk,
      "flashinfer/jit/attention/modules.py");
  EXPECT_EQ(old_edited.presence, Presence::kAbsent);
  EXPECT_EQ(old_edited.presence_reason, "removed-lines-present");
}

// A hunk of two change groups, an added block that is nowhere and two removed comment lines
// that cannot tell: unknown, with the reason of the group that is not absent, never
// "not-found", which means absent (bitsandbytes 2030 hunk 3 against 0.49.0, which lacks the
// function; its other hunks read absent, not-found).
// The words decide: a line edited from the new code (its new word there) is not absent; one
// holding the words of neither side was changed some other way, and the fix is not there.
TEST(Drift, AnEditedLineReadsAsTheSideWhoseOwnWordsItHolds) {
  const std::string hunk =
      "@@ -2,5 +2,5 @@ def run(a, b):\n"
      "     prepare(a)\n"
      "     check(b)\n"
      "-    x = compute(a, b)\n"
      "+    x = compute_fast(a, b)\n"
      "     store(x)\n"
      "     return x\n";
  auto file_with = [](const std::string& line) {
    return "import os\n\n\ndef run(a, b):\n    prepare(a)\n    check(b)\n" + line +
           "    store(x)\n    return x\n";
  };
  const HunkMatch newer =
      test::match_one_hunk(file_with("    x = compute_fast(a, b, cache=True)\n"), hunk, "m.py");
  EXPECT_EQ(newer.presence, Presence::kUnknown);
  EXPECT_EQ(newer.presence_reason, "edited-since");
  const HunkMatch other =
      test::match_one_hunk(file_with("    x = compute2(a, b)\n"), hunk, "m.py");
  EXPECT_EQ(other.presence, Presence::kAbsent);
  EXPECT_EQ(other.presence_reason, "removed-lines-present");
  const HunkMatch older =
      test::match_one_hunk(file_with("    x = compute(a, b, cache=True)\n"), hunk, "m.py");
  EXPECT_EQ(older.presence, Presence::kAbsent);
  EXPECT_EQ(older.presence_reason, "removed-lines-present");
  // A fix that keeps every old word and adds its own (hostile review hr26): the line edited
  // since holds the added words, not absent.
  const std::string grown =
      "@@ -2,5 +2,5 @@ def run(a, b):\n"
      "     prepare(a)\n"
      "     check(b)\n"
      "-    num_stages = 2 if is_hip_ else 3\n"
      "+    num_stages = 1 if CUDA_CAPABILITY[0] == 12 else (2 if is_hip_ else 3)\n"
      "     store(x)\n"
      "     return x\n";
  for (const char* line :
       {"    num_stages = 1 if CUDA_CAPABILITY[0] == 12 else (2 if is_hip_ else 3)  # SM120\n",
        "    num_stages = 1 if CUDA_CAPABILITY[0] >= 12 else (2 if is_hip_ else 3)\n"}) {
    const HunkMatch m = test::match_one_hunk(file_with(line), grown, "m.py");
    EXPECT_EQ(m.presence, Presence::kUnknown) << line;
    EXPECT_EQ(m.presence_reason, "edited-since") << line;
  }
  const HunkMatch unrelated =
      test::match_one_hunk(file_with("    num_stages = 4\n"), grown, "m.py");
  EXPECT_EQ(unrelated.presence, Presence::kAbsent);
  // Words of both sides there (hostile review hr27, both read absent): `2` -> `1`, later made
  // `1 if is_sm120() else 2`; and the fixed call with a comment naming the old one. The file
  // cannot tell: unknown, not absent.
  const std::string stages =
      "@@ -2,5 +2,5 @@ def run(a, b):\n"
      "     prepare(a)\n"
      "     check(b)\n"
      "-    num_stages = 2\n"
      "+    num_stages = 1\n"
      "     store(x)\n"
      "     return x\n";
  const HunkMatch both = test::match_one_hunk(
      file_with("    num_stages = 1 if is_sm120() else 2\n"), stages, "m.py");
  EXPECT_EQ(both.presence, Presence::kUnknown);
  EXPECT_EQ(both.presence_reason, "edited-since");
  const std::string zeros =
      "@@ -2,5 +2,5 @@ def run(a, b):\n"
      "     prepare(a)\n"
      "     check(b)\n"
      "-    x = torch.empty(n)\n"
      "+    x = torch.zeros(n)\n"
      "     store(x)\n"
      "     return x\n";
  const HunkMatch comment = test::match_one_hunk(
      file_with("    x = torch.zeros(n)  # torch.empty left garbage on SM120\n"), zeros, "m.py");
  EXPECT_EQ(comment.presence, Presence::kUnknown);
}

TEST(Drift, AnUnknownHunkOfGroupsTakesTheReasonOfTheGroupThatIsNotAbsent) {
  const std::string hunk =
      "@@ -10,10 +10,13 @@ def _gemm_4bit_use_custom_cuda(device_index, dtype, M, N, K):\n"
      "             return M <= 16\n"
      "         return False\n"
      " \n"
      "+    if is_sm121:\n"
      "+        # GB10 (DGX Spark): calibrated at >=1 wave only.\n"
      "+        if n_blocks >= num_sms:\n"
      "+            return M <= 256\n"
      "+\n"
      "     if is_sm120:\n"
      "         # GDDR7 (~1-1.8 TB/s). Medium-N threshold tiers differ from sm89.\n"
      "-        # sm121 (DGX Spark) has a different bandwidth/SM profile; uses sm89\n"
      "-        # fallback below until validated.\n"
      "         if n_blocks >= num_sms * 3:\n"
      "             return M <= 256\n"
      "         if n_blocks >= num_sms * 2:\n";
  std::string file = "import torch\n\n\ndef gemm_4bit(A, B):\n    return A @ B\n";
  for (int i = 0; i < 20; ++i) file += "# line " + std::to_string(i) + "\n";
  const HunkMatch m = test::match_one_hunk(file, hunk, "bitsandbytes/backends/cuda/ops.py");
  EXPECT_EQ(m.status, HunkStatus::kConflict);
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_NE(m.presence_reason, "not-found");
  EXPECT_FALSE(m.presence_reason.empty());
}

TEST(Drift, ChangeNowhereIsAbsent) {
  const HunkMatch m = run(later("    if use_small_tiles(dtype):\n"), kFix)[0];
  EXPECT_EQ(m.status, HunkStatus::kConflict);
  EXPECT_EQ(m.presence, Presence::kAbsent);
  EXPECT_EQ(m.presence_reason, "not-found");
}

TEST(Drift, SomeAddedLinesThereButNotAsTheBlockIsUnknown) {
  // A later commit inserted a line inside the added block: its lines stand, the block does not.
  const std::string branch =
      "    if CUDA_CAPABILITY[0] == 12:\n"
      "        num_stages = 1\n"
      "        BLOCK_M, BLOCK_N = 64, 32\n"
      "    elif CUDA_CAPABILITY[0] >= 9:\n";
  const HunkMatch m = run(later(branch), kFix)[0];
  EXPECT_EQ(m.status, HunkStatus::kConflict);
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_EQ(m.presence_reason, "changed-lines-differ");
}

TEST(Drift, TrivialLinesProveNothing) {
  // The hunk adds "pass" and a blank line; the context moved on.
  constexpr std::string_view hunk =
      "@@ -10,6 +10,8 @@\n"
      " def launch(grid):\n"
      "     if grid is None:\n"
      "         return\n"
      "+\n"
      "+    pass\n"
      "     run(grid)\n"
      "     sync()\n"
      "     log()\n";
  const std::string file =
      "def launch(grid, stream):\n    if grid is None:\n        raise ValueError\n\n    pass\n"
      "    run(grid, stream)\n    sync()\n";
  const HunkMatch m = run(file, hunk)[0];
  EXPECT_EQ(m.status, HunkStatus::kConflict);
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_EQ(m.presence_reason, "trivial-lines");
}

TEST(Drift, BlockInSeveralPlacesEquallyIsUnknownWithThePlaces) {
  // Two copies of the function, both fixed, neither keeping more of the context than the
  // other: which one the hunk meant cannot be told.
  const std::string copy = "def _get_block_sizes(dtype, head_dim):\n" + std::string(kFixedBranch) +
                           "        BLOCK_M, BLOCK_N = 128, 128\n    else:\n"
                           "        BLOCK_M, BLOCK_N = 64, 64\n\n";
  const std::string file = "\n" + copy + copy;
  const HunkMatch m = run(file, kFix)[0];
  EXPECT_EQ(m.status, HunkStatus::kUnknown);
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_EQ(m.presence_reason, "ambiguous");
  EXPECT_EQ(m.places, (std::vector<std::size_t>{3, 11}));
}

TEST(Drift, OldAndNewCodeBothStandingIsUnknown) {
  // One copy fixed, another (as close to the hunk's context) not: both stand.
  const std::string tail =
      "        BLOCK_M, BLOCK_N = 128, 128\n    else:\n        BLOCK_M, BLOCK_N = 64, 64\n\n";
  const std::string file = "\ndef _get_block_sizes(dtype, d):\n" + std::string(kFixedBranch) +
                           tail + "def _get_block_sizes(dtype, d):\n" + std::string(kOldBranch) +
                           tail;
  const HunkMatch m = run(file, kFix)[0];
  EXPECT_EQ(m.status, HunkStatus::kConflict);
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_EQ(m.presence_reason, "removed-lines-present");
  EXPECT_EQ(m.places, (std::vector<std::size_t>{3, 11}));
}

TEST(Drift, ChangeOnlyAwayFromItsContextIsFoundElsewhere) {
  // A short added line (not strong enough to stand alone) copied into an unrelated function.
  constexpr std::string_view hunk =
      "@@ -3,6 +3,7 @@\n"
      " def prefill(q, k):\n"
      "     scale = q.shape[-1] ** -0.5\n"
      "     out = attention(q, k)\n"
      "+    out = out.float()\n"
      "     return out\n"
      " \n"
      " def decode(q):\n";
  const std::string file =
      "def other(x):\n    y = x * 2\n    out = out.float()\n    return y\n\n"
      "def prefill(q, k, v):\n    scale = q.size(-1) ** -0.5\n    o = attn(q, k, v)\n"
      "    return o\n";
  const HunkMatch m = run(file, hunk)[0];
  EXPECT_EQ(m.status, HunkStatus::kConflict);
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_EQ(m.presence_reason, "found-elsewhere");
  EXPECT_EQ(m.places, std::vector<std::size_t>{3});
}

TEST(Drift, DeletionWhoseContextMeetsIsPresent) {
  constexpr std::string_view hunk =
      "@@ -4,7 +4,6 @@\n"
      " def tiles(cc):\n"
      "     if cc >= 9:\n"
      "         return 128\n"
      "-    assert cc != 12, 'SM120 unsupported'\n"
      "     return 64\n"
      " \n"
      " def stages(cc):\n";
  // Later: the function gained a parameter; the assert is gone and its neighbours meet.
  const std::string fixed =
      "def tiles(cc, dtype):\n    if cc >= 9:\n        return 128\n    return 64\n\n"
      "def stages(cc, dtype):\n";
  const HunkMatch m = run(fixed, hunk)[0];
  EXPECT_EQ(m.status, HunkStatus::kApplied);
  EXPECT_EQ(m.kind, MatchKind::kDrifted);
  EXPECT_EQ(m.line, 4u);  // where the removed line was
  // Still there: absent.
  const std::string unfixed =
      "def tiles(cc, dtype):\n    if cc >= 9:\n        return 128\n"
      "    assert cc != 12, 'SM120 unsupported'\n    return 64\n\ndef stages(cc, dtype):\n";
  const HunkMatch a = run(unfixed, hunk)[0];
  EXPECT_EQ(a.presence, Presence::kAbsent);
  EXPECT_EQ(a.presence_reason, "removed-lines-present");
  // Gone, but something else stands between its neighbours: cannot tell.
  const std::string changed =
      "def tiles(cc, dtype):\n    if cc >= 9:\n        return 128\n"
      "    check_supported(cc)\n    return 64\n\ndef stages(cc, dtype):\n";
  const HunkMatch u = run(changed, hunk)[0];
  EXPECT_EQ(u.presence, Presence::kUnknown);
  EXPECT_EQ(u.presence_reason, "context-differs");
}

TEST(Drift, BlockInsideAnotherHunksMatchIsNotThisHunks) {
  // Hunk 2 adds the same line as hunk 1; only hunk 1's place holds it (exactly matched), and
  // the second place is gone: hunk 2 must not take hunk 1's line.
  constexpr std::string_view hunks =
      "@@ -1,6 +1,7 @@\n"
      " def a(x):\n"
      "     y = x + 1\n"
      "     z = y * 2\n"
      "+    torch.cuda.synchronize()\n"
      "     return z\n"
      " \n"
      " \n"
      "@@ -20,6 +21,7 @@\n"
      " def b(x):\n"
      "     y = x - 1\n"
      "     z = y * 3\n"
      "+    torch.cuda.synchronize()\n"
      "     return z\n"
      " \n"
      " \n";
  std::string file =
      "def a(x):\n    y = x + 1\n    z = y * 2\n    torch.cuda.synchronize()\n    return z\n\n\n";
  for (int i = 0; i < 13; ++i) file += "# filler " + std::to_string(i) + "\n";
  file += "def b(x, w):\n    y = x - w\n    z = y * 3\n    return z\n\n\n";
  const std::vector<HunkMatch> m = run(file, hunks);
  EXPECT_EQ(m[0].kind, MatchKind::kExact);
  EXPECT_NE(m[1].presence, Presence::kPresent);
}

TEST(Drift, SameFixInSeveralCopiesIsToldApartByHunkOrder) {
  // Three kernels get the same guard; later their signatures all changed the same way, so each
  // guard fits all three places equally: hunk order pairs them. With one guard gone, nothing is
  // decided that way.
  std::string hunks;
  std::string fixed, one_gone;
  for (int k = 0; k < 3; ++k) {
    const std::string n = std::to_string(k);
    const std::string at = std::to_string(1 + 10 * k);
    const std::string at2 = std::to_string(1 + 11 * k);
    hunks += "@@ -" + at + ",6 +" + at2 + ",7 @@\n def kernel" + n + "(x, out):\n     i = pid()\n" +
             "     n = x.numel()\n+    guard = DeviceGuard(x.device)\n     load(x)\n" +
             "     compute()\n     store(out)\n";
    const std::string body =
        "def kernel" + n + "(x, out, stream):\n    i = pid(stream)\n" + "    n = x.size()\n";
    const std::string rest = "    load(x)\n    compute(stream)\n    store(out)\n    done()\n";
    fixed += body + "    guard = DeviceGuard(x.device)\n" + rest;
    one_gone += body + (k == 1 ? std::string() : "    guard = DeviceGuard(x.device)\n") + rest;
  }
  const std::vector<HunkMatch> m = run(fixed, hunks);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].line, 4u);
  EXPECT_EQ(m[1].line, 12u);
  EXPECT_EQ(m[2].line, 20u);
  for (const HunkMatch& h : m) EXPECT_EQ(h.kind, MatchKind::kDrifted);
  // With one guard gone, each hunk's own definition line (its first context line) places the
  // other two guards, and the one gone is not present.
  const std::vector<HunkMatch> g = run(one_gone, hunks);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0].line, 4u);
  EXPECT_NE(g[1].presence, Presence::kPresent);
  EXPECT_NE(g[1].status, HunkStatus::kApplied);
  EXPECT_EQ(g[2].line, 19u);
}

TEST(Drift, ChangeGroupsSeparatedLaterAreFoundOneByOne) {
  // Two change groups in one hunk; later, lines were inserted between them.
  constexpr std::string_view hunk =
      "@@ -1,8 +1,8 @@\n"
      " def configure(cc):\n"
      "-    stages = 3\n"
      "+    stages = 1 if cc == 12 else 3\n"
      "     warps = 4\n"
      "     block = 128\n"
      "-    smem = 232448\n"
      "+    smem = 101376 if cc == 12 else 232448\n"
      "     return stages, warps\n"
      " \n"
      " def other():\n";
  const std::string file =
      "def configure(cc):\n    stages = 1 if cc == 12 else 3\n    warps = 4\n"
      "    extra = compute_extra(cc)\n    block = 128\n"
      "    smem = 101376 if cc == 12 else 232448\n    return stages, warps\n\ndef other():\n";
  const HunkMatch m = run(file, hunk)[0];
  EXPECT_EQ(m.status, HunkStatus::kApplied);
  EXPECT_EQ(m.kind, MatchKind::kDrifted);
  EXPECT_EQ(m.line, 2u);
}

TEST(Drift, SectionTellsApartPlacesOtherwiseEqual) {
  // Two kernels with the same surroundings: the hunk header's section names the second.
  constexpr std::string_view hunk =
      "@@ -12,6 +12,7 @@ def bwd_kernel(\n"
      "     i_b = pid // H\n"
      "     i_h = pid % H\n"
      " \n"
      "+    offset = i_v.to(tl.int64) * B * T\n"
      "     if IS_VARLEN:\n"
      "         bos = load(cu_seqlens)\n"
      "     else:\n";
  const std::string body =
      "    i_b = pid // H\n    i_h = pid % H\n\n    offset = i_v.to(tl.int64) * B * T\n"
      "    if IS_VARLEN:\n        bos = load(cu)\n    else:\n        bos = 0\n";
  // Both kernels have the line, with the same surroundings: the section decides.
  const std::string file =
      "def fwd_kernel(\n    q,\n):\n" + body + "\n\ndef bwd_kernel(\n    q,\n):\n" + body;
  const HunkMatch m = run(file, hunk)[0];
  EXPECT_EQ(m.kind, MatchKind::kDrifted);
  EXPECT_EQ(m.line, 20u);
}

TEST(Drift, FarImageMatchWithTheOtherSideNearerIsUnknown) {
  // Two tests share their lines; the fix changes the first. Where the first still has the old
  // call, the second (fixed) copy matches the post-image exactly, but far away: the old code
  // stands where the hunk belongs, so which copy the hunk means cannot be told.
  auto body = [](const std::string& call, const std::string& init = "    err = ''\n") {
    return "    s = make_state()\n    p = Parser(s)\n" + init + call +
           "    assert err == ''\n    del p\n    del s\n";
  };
  const std::string old_call = "    ok = p.parse_old(text)\n";
  const std::string new_call = "    ok = p.parse(text, strict=True)\n";
  constexpr std::string_view hunk =
      "@@ -2,7 +2,7 @@ def test_one():\n"
      "     s = make_state()\n     p = Parser(s)\n     err = ''\n"
      "-    ok = p.parse_old(text)\n"
      "+    ok = p.parse(text, strict=True)\n"
      "     assert err == ''\n     del p\n     del s\n";
  std::string filler;
  for (int i = 0; i < 30; ++i) filler += "# filler " + std::to_string(i) + "\n";
  // test_one's context moved on a little (no image matches there).
  const std::string file = "def test_one():\n" + body(old_call, "    err = None\n") + filler +
                           "def test_two():\n" + body(new_call);
  // The hunk's section names test_one: the copy under test_two is found elsewhere.
  const HunkMatch m = run(file, hunk)[0];
  EXPECT_EQ(m.status, HunkStatus::kConflict);
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_EQ(m.presence_reason, "found-elsewhere");
  EXPECT_EQ(m.places, (std::vector<std::size_t>{40}));
  // Without a section, the old code standing nearer says the same.
  std::string plain(hunk);
  plain.replace(plain.find(" def test_one():"), 16, "");
  const HunkMatch n = run(file, plain)[0];
  EXPECT_EQ(n.status, HunkStatus::kUnknown);
  EXPECT_EQ(n.presence_reason, "removed-lines-present");
  EXPECT_EQ(n.places, (std::vector<std::size_t>{40, 5}));
  // Exact images only: the nearest post-image wins, as git apply -R would find it.
  EXPECT_EQ(run(file, hunk, {.drift = false})[0].status, HunkStatus::kApplied);
  // Where test_one's context is intact, its pre-image matches where it belongs: applicable.
  EXPECT_EQ(
      run("def test_one():\n" + body(old_call) + filler + "def test_two():\n" + body(new_call),
          hunk)[0]
          .status,
      HunkStatus::kApplicable);
  // A match within the hunk's length of its place stands (lines inserted above).
  const std::string shifted = filler.substr(0, 70) + "def test_one():\n" + body(new_call);
  const HunkMatch s = run(shifted, hunk)[0];
  EXPECT_EQ(s.status, HunkStatus::kApplied);
  EXPECT_EQ(s.kind, MatchKind::kExact);
}

// FlashInfer 5a73a36a71 (#3739) at fb28d7242 (new-user pass fu25): two keyword arguments added
// to the determine_attention_backend() call in plan(), whose code now lives in _plan_impl().
// workspace_size() makes the same call without them: five of the hunk's six context lines meet
// there, 206 lines before the header's line, while the post-image stands exactly once, 284
// after it. A pure addition's join holds less of the hunk than the match and is not in place:
// no rival (was unknown, "removed-lines-present"; git apply -R and --strict say applied).
TEST(Drift, AFarJoinOfAPureAdditionDoesNotOutweighItsExactPostImage) {
  constexpr std::string_view hunk =
      "@@ -50,6 +50,8 @@ class DecodeWrapper:\n"
      "                 False,  # use_custom_mask\n"
      "                 q_data_type,\n"
      "                 kv_data_type,\n"
      "+                head_dim_qk=head_dim,\n"
      "+                head_dim_vo=head_dim,\n"
      "             )\n"
      "         else:\n"
      "             self._backend = \"fa2\"\n";
  const auto call = [](std::string_view target, std::string_view extra) {
    return "        if fp8:\n"
           "            " + std::string(target) + " = determine_attention_backend(\n"
           "                self.device,\n"
           "                False,  # use_custom_mask\n"
           "                q_data_type,\n"
           "                kv_data_type,\n" + std::string(extra) +
           "            )\n"
           "        else:\n"
           "            " + std::string(target) + " = \"fa2\"\n";
  };
  const std::string fixed = call("self._backend",
                                 "                head_dim_qk=head_dim,\n"
                                 "                head_dim_vo=head_dim,\n");
  /// The class: workspace_size() after `before` lines, then _plan_impl() after `between`.
  const auto file = [&](int before, int between) {
    std::string f = "class DecodeWrapper:\n";
    for (int i = 0; i < before; ++i) f += "    X" + std::to_string(i) + " = " + std::to_string(i) + "\n";
    f += "    def workspace_size(self, q_data_type, kv_data_type):\n" +
         call("backend", "") + "        return size(backend)\n\n";
    for (int i = 0; i < between; ++i) f += "    Y" + std::to_string(i) + " = " + std::to_string(i) + "\n";
    return f + "    def _plan_impl(self, q_data_type, kv_data_type, head_dim):\n" + fixed;
  };
  // The join 34 lines before where the header puts the added lines, the fix 38 lines after the
  // header's line.
  HunkMatch m = run(file(10, 60), hunk)[0];
  EXPECT_EQ(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_EQ(m.kind, MatchKind::kExact);
  EXPECT_EQ(m.line, 88u);
  // The limits. In place (within the hunk's length of the header's line), the join is where
  // the hunk belongs with its context edited: both stand.
  m = run(file(40, 60), hunk)[0];
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_EQ(m.presence_reason, "removed-lines-present");
  // At most half as far from it as the fix: the nearer place is the better guess.
  m = run(file(10, 90), hunk)[0];
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_EQ(m.presence_reason, "removed-lines-present");
  // A second copy of the fix elsewhere: not the one post-image the rule trusts.
  m = run(file(10, 60) + "\n    def _plan_impl_v2(self):\n" + fixed, hunk)[0];
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
}

// --- FalseApplied: every false `applied` of the review, now refused ----------------------------

TEST(FalseApplied, DeletionAtTheEndWithoutTrailingContext) {
  constexpr std::string_view hunk = "@@ -1,4 +1,3 @@\n a\n b\n c\n-DISABLE_SM120 = True\n";
  // git apply and GNU patch refuse both ways; the post-image "a b c" is not at the end.
  const HunkMatch m = run("a\nb\nc\nDISABLE_SM120 = False\n", hunk)[0];
  EXPECT_EQ(m.status, HunkStatus::kConflict);
  EXPECT_EQ(m.diagnostic, "not-at-end-of-file");
  EXPECT_NE(m.presence, Presence::kPresent);
  // Without a final newline.
  constexpr std::string_view no_newline =
      "@@ -1,4 +1,3 @@\n a\n b\n c\n-DISABLE_SM120 = True\n\\ No newline at end of file\n";
  EXPECT_EQ(run("a\nb\nc\nDISABLE_SM120 = False", no_newline)[0].status, HunkStatus::kConflict);
  // The real thing still works: applied when it is gone, applicable when it is there.
  EXPECT_EQ(run("a\nb\nc\n", hunk)[0].status, HunkStatus::kApplied);
  EXPECT_EQ(run("a\nb\nc\nDISABLE_SM120 = True\n", hunk)[0].status, HunkStatus::kApplicable);
}

TEST(FalseApplied, DeletedFirstLineWithoutLeadingContext) {
  constexpr std::string_view hunk = "@@ -1,4 +1,3 @@\n-DISABLE_SM120 = True\n a\n b\n c\n";
  const HunkMatch m = run("DISABLE_SM120 = False\na\nb\nc\n", hunk)[0];
  EXPECT_EQ(m.status, HunkStatus::kConflict);
  EXPECT_EQ(m.diagnostic, "not-at-start-of-file");
  EXPECT_NE(m.presence, Presence::kPresent);
  EXPECT_EQ(run("a\nb\nc\n", hunk)[0].status, HunkStatus::kApplied);
}

TEST(FalseApplied, ZeroContextHunkAtWhateverBraceIsNearest) {
  constexpr std::string_view hunk = "@@ -5,0 +6 @@\n+}\n";
  // Line 6 is not "}" but lines 4 and 8 are: not applied, unknown, with the places.
  const std::string file = "a\nb\nc\n}\nd\ne\nf\n}\ng\n";
  const HunkMatch m = run(file, hunk)[0];
  EXPECT_EQ(m.status, HunkStatus::kUnknown);
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_EQ(m.presence_reason, "zero-context-elsewhere");
  // At its line it is applied.
  EXPECT_EQ(run("a\nb\nc\nd\ne\n}\nf\n", hunk)[0].status, HunkStatus::kApplied);
}

TEST(FalseApplied, BlockCopiedFromAnotherFunctionIsNotTheFix) {
  // The fix gives decode_config the SM120 branch prefill_config already has. In a later tree
  // without the fix (decode_config retuned around where it belongs), the only copy of the
  // block is prefill's: the fix is not present there.
  constexpr std::string_view hunk =
      "@@ -8,6 +8,10 @@ def decode_config(cc):\n"
      "     BLOCK = 64\n"
      "     warps = 4\n"
      "     stages = 2\n"
      "+    if cc[0] == 12:\n"
      "+        BLOCK = 32\n"
      "+        warps = 2\n"
      "+        stages = 1\n"
      "     return BLOCK, warps, stages\n"
      " \n"
      " \n";
  const std::string file =
      "def prefill_config(cc):\n    BLOCK = 128\n    warps = 8\n    stages = 3\n"
      "    if cc[0] == 12:\n        BLOCK = 32\n        warps = 2\n        stages = 1\n"
      "    return BLOCK, warps, stages\n\n\n"
      "def decode_config(cc):\n    BLOCK = 64\n    warps = 8\n    stages = 2\n"
      "    return BLOCK, warps, stages\n\n\n";
  const HunkMatch m = run(file, hunk)[0];
  EXPECT_NE(m.presence, Presence::kPresent);
  EXPECT_NE(m.status, HunkStatus::kApplied);
  // With the fix in, it is present where it belongs.
  std::string fixed = file;
  fixed.replace(fixed.rfind("    return"), 0,
                "    if cc[0] == 12:\n        BLOCK = 32\n        warps = 2\n        stages = 1\n");
  const HunkMatch f = run(fixed, hunk)[0];
  EXPECT_EQ(f.presence, Presence::kPresent);
  EXPECT_EQ(f.line, 16u);
}

// --- HostileReview: false presents found by a hostile review, each refused -------------------

TEST(HostileReview, DeletionsWithContextBetweenThemAreNotPresentWhileTheLinesStand) {
  constexpr std::string_view hunk =
      "@@ -1,9 +1,7 @@\n import os\n import sys\n import torch\n"
      "-from vendor.unsafe import patch_sm120_shared_memory\n"
      " from kernels.attention import decode_attention\n"
      "-patch_sm120_shared_memory(decode_attention)\n"
      " from kernels.moe import fused_moe\n import triton\n import numpy\n";
  const std::string file =
      "import os\nimport sys\nimport torch\nfrom vendor.unsafe import patch_sm120_shared_memory\n"
      "from kernels.attention import "
      "decode_attention\npatch_sm120_shared_memory(decode_attention)\n"
      "from kernels.moe import fused_moe\nimport triton\nimport numpy as np\n";
  EXPECT_NE(run(file, hunk)[0].presence, Presence::kPresent);
}

/// Two kernels; `a_fixed` and `b_fixed` say which holds the SM120 branch; kernel_b's stages are
/// `b_stages` when unfixed; `between` helper functions separate them.
std::string kernels(bool a_fixed, bool b_fixed, const std::string& b_stages, int between) {
  const std::string fixed =
      "    if CUDA_CAPABILITY[0] == 12:\n        num_stages = 1\n    else:\n        num_stages = "
      "2\n";
  std::string out = "import triton\n\n\ndef kernel_a(x):\n    BLOCK = 128\n    num_warps = 8\n";
  out += a_fixed ? fixed : "    num_stages = 2\n";
  out += "    return launch(x, BLOCK, num_warps, num_stages)\n";
  for (int i = 0; i < between; ++i)
    out +=
        "\n\ndef helper_" + std::to_string(i) + "(y):\n    return y + " + std::to_string(i) + "\n";
  out += "\n\ndef kernel_b(x):\n    BLOCK = 128\n    num_warps = 8\n";
  out += b_fixed ? fixed : "    num_stages = " + b_stages + "\n";
  out += "    return launch(x, BLOCK, num_warps, num_stages)\n";
  return out;
}

constexpr std::string_view kKernelB =
    "@@ -12,4 +12,7 @@ def kernel_b(x):\n     BLOCK = 128\n     num_warps = 8\n"
    "-    num_stages = 2\n+    if CUDA_CAPABILITY[0] == 12:\n+        num_stages = 1\n+    else:\n"
    "+        num_stages = 2\n     return launch(x, BLOCK, num_warps, num_stages)\n";

TEST(HostileReview, TheHunksSectionDecidesBetweenImagesInTwoFunctions) {
  // kernel_a has the fix, kernel_b (the hunk's) does not: the nearer post-image is kernel_a's.
  const HunkMatch m = run(kernels(true, false, "2", 12), kKernelB)[0];
  EXPECT_EQ(m.status, HunkStatus::kApplicable);
  EXPECT_EQ(m.presence, Presence::kAbsent);
  EXPECT_EQ(run(kernels(false, true, "2", 12), kKernelB)[0].status, HunkStatus::kApplied);
}

TEST(HostileReview, AFixInASiblingFunctionIsNotThisHunksFix) {
  // kernel_b retuned (stages 3) without the fix; only kernel_a has the block.
  for (const int between : {0, 12}) {
    const HunkMatch m = run(kernels(true, false, "3", between), kKernelB)[0];
    EXPECT_NE(m.presence, Presence::kPresent) << between;
    EXPECT_NE(m.status, HunkStatus::kApplied) << between;
  }
  // Fixed and retuned around it (drifted), it is present.
  std::string fixed = kernels(false, true, "2", 0);
  fixed.replace(fixed.rfind("    num_warps = 8"), 17, "    num_warps = 4");
  EXPECT_EQ(run(fixed, kKernelB)[0].presence, Presence::kPresent);
}

TEST(HostileReview, MergedHunkGroupsFoundInDifferentFunctionsAreNotPresent) {
  // One hunk fixes kernel_a and kernel_b; kernel_a and kernel_c have the fix, kernel_b not.
  constexpr std::string_view hunk =
      "@@ -4,14 +4,20 @@ import triton\n def kernel_a(x):\n     BLOCK = 128\n     num_warps = 8\n"
      "-    num_stages = 2\n+    if CUDA_CAPABILITY[0] == 12:\n+        num_stages = 1\n+    "
      "else:\n"
      "+        num_stages = 2\n     return launch(x, BLOCK, num_warps, num_stages)\n \n \n"
      " def kernel_b(x):\n     BLOCK = 128\n     num_warps = 8\n-    num_stages = 2\n"
      "+    if CUDA_CAPABILITY[0] == 12:\n+        num_stages = 1\n+    else:\n+        num_stages "
      "= 2\n"
      "     return launch(x, BLOCK, num_warps, num_stages)\n \n \n";
  std::string file = kernels(true, false, "3", 0);
  for (int i = 0; i < 30; ++i) file += "\n\ndef filler_" + std::to_string(i) + "():\n    pass\n";
  file +=
      "\n\ndef kernel_c(x):\n    BLOCK = 128\n    num_warps = 8\n"
      "    if CUDA_CAPABILITY[0] == 12:\n        num_stages = 1\n    else:\n"
      "        num_stages = 2\n    return launch(x, BLOCK, num_warps, num_stages)\n\n\n";
  EXPECT_NE(run(file, hunk)[0].presence, Presence::kPresent);
}

TEST(HostileReview, ADeletedMethodStillStandingWithAnotherLineIsNotDeleted) {
  constexpr std::string_view hunk =
      "@@ -4,11 +4,6 @@ class Node(Base):\n         self.overlap = args.overlap\n         return\n "
      "\n"
      "-    def init_custom(self):\n-        super().init_custom()\n"
      "-        self.reduce_tensor = torch.tensor([0], device=\"cuda\")\n-        return\n-\n"
      "     def prefill(self, reqs):\n         self._init_reqs(reqs)\n         return\n";
  const std::string file =
      "class Node(Base):\n    def __init__(self, q):\n        super().__init__(q)\n"
      "        self.overlap = args.overlap\n        return\n\n    def init_custom(self):\n"
      "        super().init_custom()\n        self.reduce_tensor = torch.tensor([0], "
      "device=\"cuda\")\n"
      "        self.model.forward(**warmup())\n        return\n\n    def prefill(self, reqs):\n"
      "        self._init_reqs(reqs)\n        return\n";
  const HunkMatch m = run(file, hunk)[0];
  EXPECT_NE(m.presence, Presence::kPresent);
  EXPECT_NE(m.status, HunkStatus::kApplied);
}

TEST(HostileReview, ABlockCopiedFromTheTryBranchIsNotTheExceptBranchFix) {
  constexpr std::string_view hunk =
      "@@ -10,4 +10,7 @@ def run_kernel(x, cfg):\n     except RuntimeError as e:\n"
      "         log.warning(\"launch failed: %s\", e)\n         out = fallback(x)\n"
      "+        torch.cuda.synchronize()\n+        stats.record(cfg.name, out.shape)\n"
      "+        log.debug(\"launched %s\", cfg.name)\n     return out\n";
  const std::string file =
      "import torch\n\n\ndef run_kernel(x, cfg):\n    try:\n        out = launch(x, cfg)\n"
      "        torch.cuda.synchronize()\n        stats.record(cfg.name, out.shape)\n"
      "        log.debug(\"launched %s\", cfg.name)\n    except RuntimeError as e:\n"
      "        log.warning(\"launch failed (%s)\", e)\n        out = fallback(x)\n    return out\n";
  EXPECT_NE(run(file, hunk)[0].presence, Presence::kPresent);
}

}  // namespace
}  // namespace sm120check

namespace sm120check {
namespace {

// Real case (lmdeploy f06cc7dc2b, its parent with 7 lines inserted at the top): a hunk in a
// method whose section is the class line, as git's default function-name rule finds it, with
// the method's def line above its context. Shifted by more than its length, it is still where
// it belongs: a def line above must not hide the class section (the Python driver's rule is
// only one of the two git may have used).
TEST(SectionRule, ClassSectionWithAMethodBetweenIsTheSameSection) {
  std::string file;
  for (int i = 0; i < 12; ++i) file += "# inserted " + std::to_string(i) + "\n";
  file += "class TurboMind:\n\n    def __init__(self):\n        self.a = 1\n";
  file += "        self.b = 1\n        self.session_len = 2\n\n    def _process_weights(self):\n";
  file += "        pass\n";
  const std::string_view hunk =
      "@@ -4,6 +4,7 @@ class TurboMind:\n"
      "         self.a = 1\n"
      "         self.b = 1\n"
      "         self.session_len = 2\n"
      "+        self.health_executor = None\n"
      " \n"
      "     def _process_weights(self):\n"
      "         pass\n";
  const HunkMatch m = run(file, hunk)[0];
  EXPECT_EQ(m.status, HunkStatus::kApplicable) << m.presence_reason;
  EXPECT_EQ(m.offset, 12);
}

}  // namespace
}  // namespace sm120check

namespace sm120check {
namespace {

// Negative control found on ninja 28a7d1491367 (src/graph.cc at HEAD, the fix's line put back
// to its old text): the fixed line was copied into a later sibling function, whose context
// agrees better only by a `return false;`. A return of a constant is trivial, so both the old
// and the new code stand equally well: unknown, never applied.
constexpr std::string_view kDepsHunk =
    "@@ -10,7 +10,7 @@ bool Loader::LoadDepFile(Edge* edge, const string& path,\n"
    " bool Loader::LoadDepsFromLog(Edge* edge, string* err) {\n"
    "   // NOTE: deps are only supported for single-target edges.\n"
    "   Node* output = edge->outputs_[0];\n"
    "-  Deps* deps = deps_log_->GetDeps(output);\n"
    "+  Deps* deps = deps_log_ ? deps_log_->GetDeps(output) : NULL;\n"
    "   if (!deps) {\n"
    "     EXPLAIN(\"deps for '%s' are missing\", output->path().c_str());\n"
    "     return false;\n";

std::string deps_file(std::string_view first) {
  std::string f;
  for (int i = 0; i < 30; ++i) f += "// filler " + std::to_string(i) + "\n";
  f += "std::optional<Range> Loader::LoadDepsFromLog(Edge* edge,\n"
       "                                          string* err) {\n"
       "  // NOTE: deps are only supported for single-target edges.\n"
       "  Node* output = edge->outputs_[0];\n";
  f += first;
  f += "  if (!deps) {\n    record(output);\n    return std::nullopt;\n  }\n  return {};\n}\n\n";
  f += "bool Loader::LoadDepsFromLogTry(const Edge* edge,\n"
       "                                string* err) const {\n"
       "  // NOTE: deps are only supported for single-target edges.\n"
       "  Node* output = edge->outputs_[0];\n"
       "  Deps* deps = deps_log_ ? deps_log_->GetDeps(output) : NULL;\n"
       "  if (!deps) {\n    err->clear();\n    return false;\n  }\n  return true;\n}\n";
  return f;
}

TEST(FalseAppliedControl, FixCopiedIntoASiblingWhileTheOldCodeStandsIsUnknown) {
  const HunkMatch m = run(deps_file("  Deps* deps = deps_log_->GetDeps(output);\n"), kDepsHunk)[0];
  EXPECT_NE(m.status, HunkStatus::kApplied);
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_EQ(m.presence_reason, "removed-lines-present");
}

TEST(FalseAppliedControl, BothCopiesFixedIsPresent) {
  const HunkMatch m =
      run(deps_file("  Deps* deps = deps_log_ ? deps_log_->GetDeps(output) : NULL;\n"),
          kDepsHunk)[0];
  EXPECT_EQ(m.status, HunkStatus::kApplied);
  EXPECT_EQ(m.presence, Presence::kPresent);
}

TEST(InformativeLine, ReturnOfAConstantIsTrivial) {
  EXPECT_FALSE(detail::informative_line("    return false;"));
  EXPECT_FALSE(detail::informative_line("        return None"));
  EXPECT_FALSE(detail::informative_line("  return -1;"));
  EXPECT_TRUE(detail::informative_line("  return deps_log_->GetDeps(output);"));
  EXPECT_TRUE(detail::informative_line("    return BLOCK_M, BLOCK_N"));
}

}  // namespace
}  // namespace sm120check

namespace sm120check {
namespace {

// False applied found by a helper (Liger-Kernel monkey_patch.py at a80f30b316, 2461e907e2's
// patch): a pure deletion in a function the file does not have; its context stands in another
// function far away. That is no evidence the deletion was made: unknown, never applied.
TEST(FalseAppliedFar, PureDeletionUnderAFunctionTheFileLacksIsUnknown) {
  std::string file = "import os\n\n";
  for (int i = 0; i < 40; ++i) file += "# line " + std::to_string(i) + "\n";
  file += "def apply_to_qwen3(cross_entropy=True):\n    if cross_entropy:\n"
          "        from transformers.loss.loss_utils import nn\n"
          "        nn.functional.cross_entropy = liger_cross_entropy\n";
  const std::string_view hunk =
      "@@ -300,5 +300,3 @@ def apply_to_qwen3_5(\n"
      "     if cross_entropy:\n"
      "-        from liger_kernel.transformers.cross_entropy import liger_cross_entropy\n"
      "-\n"
      "         from transformers.loss.loss_utils import nn\n"
      "         nn.functional.cross_entropy = liger_cross_entropy\n";
  const HunkMatch m = run(file, hunk)[0];
  EXPECT_EQ(m.status, HunkStatus::kUnknown);
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_EQ(m.presence_reason, "found-elsewhere");
}

// Fresh-user review, 2026-12-01: a deployed copy rewrote decode_config (no SM120 branch) while
// extend_config holds the same SM120 branch. The decode hunk's block stands once, in
// extend_config, with half the context around it: `present` there was a false `applied`.
TEST(FalseAppliedSection, ABlockUnderASiblingFunctionIsNotTheNamedFunctionsFix) {
  const std::string_view hunk =
      "@@ -7,7 +7,10 @@ def decode_config(Lq):\n"
      "     \"\"\"Tile sizes for the decode kernel.\"\"\"\n"
      "     BLOCK = 64\n"
      "     num_warps = 4\n"
      "-    if CUDA_CAPABILITY[0] >= 9:\n"
      "+    if CUDA_CAPABILITY[0] == 12:\n"
      "+        # SM120: keep the pipeline shallow to fit 101376 bytes of shared memory.\n"
      "+        num_stages = 1\n"
      "+    elif CUDA_CAPABILITY[0] >= 9:\n"
      "         num_stages = 3\n"
      "     else:\n"
      "         num_stages = 2\n";
  const std::string extend =
      "def extend_config(Lq):\n"
      "    \"\"\"Tile sizes for the extend kernel.\"\"\"\n"
      "    BLOCK = 128\n"
      "    num_warps = 8\n"
      "    if CUDA_CAPABILITY[0] == 12:\n"
      "        # SM120: keep the pipeline shallow to fit 101376 bytes of shared memory.\n"
      "        num_stages = 1\n"
      "    elif CUDA_CAPABILITY[0] >= 9:\n"
      "        num_stages = 3\n"
      "    else:\n"
      "        num_stages = 2\n"
      "    return BLOCK, num_warps, num_stages\n";
  const std::string head =
      "import triton\n\nCUDA_CAPABILITY = triton.runtime.driver.active.get_current_target().arch\n"
      "\n\n";
  const std::string file = head +
                           "def decode_config(Lq):\n"
                           "    \"\"\"Tile sizes for the decode kernel.\"\"\"\n"
                           "    BLOCK = 64\n"
                           "    num_stages = 3 if CUDA_CAPABILITY[0] >= 9 else 2\n"
                           "    return BLOCK, 4, num_stages\n\n\n" +
                           extend;
  const HunkMatch m = run(file, hunk)[0];
  EXPECT_NE(m.status, HunkStatus::kApplied);
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_EQ(m.presence_reason, "other-section");
  EXPECT_EQ(m.places, std::vector<std::size_t>{17});  // the SM120 branch in extend_config
  // Control: the same file with decode_config fixed (rewritten around the branch) is present,
  // at decode_config's branch.
  const std::string fixed = head +
                            "def decode_config(Lq):\n"
                            "    \"\"\"Tile sizes for the decode kernel.\"\"\"\n"
                            "    BLOCK = 64\n"
                            "    if CUDA_CAPABILITY[0] == 12:\n"
                            "        # SM120: keep the pipeline shallow to fit 101376 bytes of "
                            "shared memory.\n"
                            "        num_stages = 1\n"
                            "    elif CUDA_CAPABILITY[0] >= 9:\n"
                            "        num_stages = 3\n"
                            "    return BLOCK, 4, num_stages\n\n\n" +
                            extend;
  const std::vector<HunkMatch> f = run(fixed, hunk);
  EXPECT_EQ(f.at(0).presence, Presence::kPresent);
  EXPECT_EQ(f[0].status, HunkStatus::kApplied);
  EXPECT_EQ(f[0].line, 9u);
  // Control: the function renamed away (the section is nowhere in the file), the one block
  // with its context is still the fix.
  std::string renamed = file;
  renamed.replace(renamed.find("def decode_config"), 17, "def decode_cfg");
  const HunkMatch r = run(renamed, hunk)[0];
  EXPECT_NE(r.presence_reason, "other-section");
}

// Fresh-user review, 2026-12-01: where the hunk's context stands around other lines, those
// lines were taken for the old code ("the code it replaces stands where it belongs"), also
// when they are the hunk's new lines edited since (a line added between them, a comment
// dropped). That is not absent.
TEST(FalseAbsent, ContextAroundTheEditedNewCodeIsNotTheOldCode) {
  const std::string_view versions =
      "@@ -1,7 +1,7 @@\n"
      " def detect_sm_capabilities():\n"
      "     return {\n"
      "         \"sm90\": has_sm(\"compute_90\", \"12.3\"),\n"
      "         \"sm100\": has_sm(\"compute_100\", \"12.8\"),\n"
      "-        \"sm120\": has_sm(\"compute_120\", \"13.0\"),\n"
      "-        \"sm121\": has_sm(\"compute_121\", \"13.0\"),\n"
      "+        \"sm120\": has_sm(\"compute_120\", \"12.8\"),\n"
      "+        \"sm121\": has_sm(\"compute_121\", \"12.9\"),\n"
      "     }\n";
  const std::string later =
      "def detect_sm_capabilities():\n"
      "    return {\n"
      "        \"sm90\": has_sm(\"compute_90\", \"12.3\"),\n"
      "        \"sm100\": has_sm(\"compute_100\", \"12.8\"),\n"
      "        \"sm120\": has_sm(\"compute_120\", \"12.8\"),\n"
      "        \"sm120f\": has_sm(\"compute_120f\", \"12.9\"),\n"
      "        \"sm121\": has_sm(\"compute_121\", \"12.9\"),\n"
      "    }\n";
  const HunkMatch m = run(later, versions)[0];
  EXPECT_NE(m.presence, Presence::kAbsent);
  EXPECT_NE(m.status, HunkStatus::kApplicable);
  // A comment the fix added was dropped since; its code stands.
  const std::string_view gate =
      "@@ -3,8 +3,9 @@ import torch\n"
      " \n"
      " def check(device):\n"
      "     major, minor = torch.cuda.get_device_capability(device)\n"
      "-    if major < 10:\n"
      "-        raise ValueError(f\"needs SM100+, got SM{major}{minor}\")\n"
      "+    # SM120/SM121 lack tcgen05: reject them here.\n"
      "+    if major not in (10, 11):\n"
      "+        raise ValueError(f\"needs SM100-SM110, got SM{major}{minor}\")\n"
      "     return major\n"
      " \n"
      " \n";
  const std::string gate_file =
      "import torch\n\n\ndef check(device):\n"
      "    major, minor = torch.cuda.get_device_capability(device)\n"
      "    if major not in (10, 11):\n"
      "        raise ValueError(f\"needs SM100-SM110, got SM{major}{minor}\")\n"
      "    return major\n\n\ndef other():\n    return 0\n";
  const HunkMatch g = run(gate_file, gate)[0];
  EXPECT_NE(g.presence, Presence::kAbsent);
  EXPECT_NE(g.status, HunkStatus::kApplicable);
  // Control: the old code where the context is, with a line inserted, is still absent.
  const std::string old_file =
      "import torch\n\n\ndef check(device):\n"
      "    major, minor = torch.cuda.get_device_capability(device)\n"
      "    if major < 10:\n"
      "        log(\"rejected\")\n"
      "        raise ValueError(f\"needs SM100+, got SM{major}{minor}\")\n"
      "    return major\n\n\ndef other():\n    return 0\n";
  EXPECT_EQ(run(old_file, gate)[0].presence, Presence::kAbsent);
}

// FlashInfer 9d282787d at a later head: the hunk renames a function and adds a wrapper after
// it; later, a line went into the wrapper and a new function after it. Where the hunk's
// context meets again stand only blank lines: that is no old code.
TEST(FalseAbsent, BlankLinesWhereTheContextMeetsAreNotTheOldCode) {
  const std::string_view hunk =
      "@@ -3,14 +3,20 @@ def get_num_sm(device: torch.device) -> int:\n"
      "     return torch.cuda.get_device_properties(device).multi_processor_count\n"
      " \n"
      " \n"
      "-@torch._dynamo.disable\n"
      "-def current_cuda_stream():\n"
      "+def _current_cuda_stream_impl():\n"
      "     \"\"\"Return the current Torch CUDA stream as a CUDA driver stream handle.\"\"\"\n"
      "     import cuda.bindings.driver as cuda\n"
      " \n"
      "     return cuda.CUstream(torch.cuda.current_stream().cuda_stream)\n"
      " \n"
      " \n"
      "+def current_cuda_stream():  # noqa: F811\n"
      "+    \"\"\"Lazy wrapper that applies torch._dynamo.disable on first call.\"\"\"\n"
      "+    global current_cuda_stream\n"
      "+    current_cuda_stream = torch._dynamo.disable(_current_cuda_stream_impl)\n"
      "+    return current_cuda_stream()\n"
      "+\n"
      "+\n"
      " # Cache for HardwareInfo - it's expensive to create on every call\n"
      " _hardware_info_cache: \"cutlass.utils.HardwareInfo | None\" = None\n"
      " \n";
  const std::string later =
      "@functools.cache\ndef get_num_sm(device: torch.device) -> int:\n"
      "    return torch.cuda.get_device_properties(device).multi_processor_count\n\n\n"
      "def _current_cuda_stream_impl():\n"
      "    \"\"\"Return the current Torch CUDA stream as a CUDA driver stream handle.\"\"\"\n"
      "    import cuda.bindings.driver as cuda\n\n"
      "    return cuda.CUstream(torch.cuda.current_stream().cuda_stream)\n\n\n"
      "def current_cuda_stream():  # noqa: F811\n"
      "    \"\"\"Lazy wrapper that applies torch._dynamo.disable on first call.\"\"\"\n"
      "    global current_cuda_stream\n"
      "    _ensure_user_env()\n"
      "    current_cuda_stream = torch._dynamo.disable(_current_cuda_stream_impl)\n"
      "    return current_cuda_stream()\n\n\n"
      "def _ensure_user_env():\n"
      "    \"\"\"Ensure a USER env var exists.\"\"\"\n"
      "    import os\n\n"
      "    os.environ.setdefault(\"USER\", str(os.getuid()))\n\n\n"
      "# Cache for HardwareInfo - it's expensive to create on every call\n"
      "_hardware_info_cache: \"cutlass.utils.HardwareInfo | None\" = None\n\n";
  const HunkMatch m = run(later, hunk)[0];
  EXPECT_NE(m.presence, Presence::kAbsent);
  EXPECT_NE(m.status, HunkStatus::kApplicable);
}

// FlashInfer 3637787e4 at a later head: the code the hunk changes moved from the function its
// section names (now a thin wrapper) into another one. The pre-image stands there exactly,
// and nothing under the named function holds the change: applicable there, as git apply and
// --strict place it (was a false conflict, "found-elsewhere").
TEST(FalseConflict, PreImageMovedUnderAnotherFunctionIsApplicable) {
  const std::string_view hunk =
      "@@ -3,6 +3,10 @@ def get_module():\n"
      "             moe_inputs = MoeRunnerInputs.from_list(inputs)\n"
      "             num_tokens = moe_inputs.hidden_states.shape[0]\n"
      " \n"
      "+            major, _ = get_compute_capability(moe_inputs.hidden_states.device)\n"
      "+            if major == 10 and num_tokens < 2 * self.num_local_experts:\n"
      "+                return []\n"
      "+\n"
      "             has_gemm1_lora_delta = moe_inputs.gemm1_lora_delta is not None\n"
      " \n"
      "             # Enumerate valid tactics for the fused expert\n";
  std::string file = "def get_module():\n    return _get_module_impl(False)\n\n\n";
  for (int i = 0; i < 20; ++i) file += "# note " + std::to_string(i) + "\n";
  file += "def _get_module_impl(enable_rubin):\n    class MoERunner:\n"
          "        def get_valid_tactics(self, inputs):\n"
          "            moe_inputs = MoeRunnerInputs.from_list(inputs)\n"
          "            num_tokens = moe_inputs.hidden_states.shape[0]\n\n"
          "            has_gemm1_lora_delta = moe_inputs.gemm1_lora_delta is not None\n\n"
          "            # Enumerate valid tactics for the fused expert\n"
          "            return []\n";
  const HunkMatch m = run(file, hunk)[0];
  EXPECT_EQ(m.status, HunkStatus::kApplicable);
  EXPECT_EQ(m.presence, Presence::kAbsent);
  EXPECT_EQ(m.line, 28u);
  // The post-image there instead: the named function is a thin wrapper that holds nothing of
  // the hunk's lines, the old code stands nowhere and the fix stands once: the code moved
  // with the fix in it (an extract-function refactor), applied as git apply -R and --strict
  // find it (SectionMoved in test_drift_section.cpp has the rule's limits).
  std::string fixed = file;
  const std::string at = "shape[0]\n\n";
  fixed.insert(fixed.find(at) + at.size(),
               "            major, _ = get_compute_capability(moe_inputs.hidden_states.device)\n"
               "            if major == 10 and num_tokens < 2 * self.num_local_experts:\n"
               "                return []\n\n");
  const HunkMatch f = run(fixed, hunk)[0];
  EXPECT_EQ(f.status, HunkStatus::kApplied);
  EXPECT_EQ(f.presence, Presence::kPresent);
  EXPECT_EQ(f.line, 28u);
  // With the unfixed block still standing in a third function, the copy is not taken.
  const std::string copy =
      fixed +
      "\n\ndef _get_module_legacy():\n"
      "            moe_inputs = MoeRunnerInputs.from_list(inputs)\n"
      "            num_tokens = moe_inputs.hidden_states.shape[0]\n\n"
      "            has_gemm1_lora_delta = moe_inputs.gemm1_lora_delta is not None\n\n"
      "            # Enumerate valid tactics for the fused expert\n";
  const HunkMatch c = run(copy, hunk)[0];
  EXPECT_NE(c.status, HunkStatus::kApplied);
  EXPECT_NE(c.presence, Presence::kPresent);
}

// The other-section rule's limits (drift_acceptance on five repositories): a section that is
// a module-level statement (git's default rule takes any line at column 0) and a hunk adding
// a whole function (under whatever function precedes it) keep drifted matches present.
TEST(FalseAppliedSection, StatementSectionsAndAddedFunctionsAreNotVetoed) {
  EXPECT_TRUE(detail::definition_line("def decode_config(Lq):"));
  EXPECT_TRUE(detail::definition_line(
      "std::vector<int64_t> Runner::getValidConfigIndices(int32_t topK, int32_t hiddenS"));
  EXPECT_FALSE(detail::definition_line("from ._config import FLA_CACHE_RESULTS"));
  EXPECT_FALSE(detail::definition_line("NUM_WARPS = [2, 4] if IS_NVIDIA_HOPPER else [2, 4, 8]"));
  EXPECT_FALSE(detail::definition_line("logger = logging.getLogger(__name__)"));
  EXPECT_FALSE(detail::definition_line("if (major == 12) {"));
  EXPECT_FALSE(detail::definition_line("int f(int x);"));
  EXPECT_FALSE(detail::definition_line("To add a new operator:"));
  // A one-line addition under an import section, with a new import between them since.
  const std::string_view hunk =
      "@@ -2,4 +2,5 @@ from ._config import FLA_CACHE_RESULTS\n"
      " \n"
      " import torch\n"
      "+import triton.language.extra.libdevice as tldevice\n"
      " \n"
      " SUPPORTS_AUTOTUNE_CACHE = FLA_CACHE_RESULTS\n";
  const std::string file =
      "from ._config import FLA_CACHE_RESULTS\nfrom ._env import FLA_DEBUG\n\nimport torch\n"
      "import triton.language.extra.libdevice as tldevice\n\nimport triton\n\n"
      "SUPPORTS_AUTOTUNE_CACHE = FLA_CACHE_RESULTS\n";
  EXPECT_EQ(run(file, hunk)[0].presence, Presence::kPresent);
  // A new function added after `get_indices`, with another function inserted between since.
  const std::string_view added =
      "@@ -4,6 +4,10 @@ int get_indices(int k) {\n"
      "   return k + 1;\n"
      " }\n"
      " \n"
      "+bool is_valid_index(int64_t configIndex, int32_t topK) {\n"
      "+  return configIndex >= 0 && configIndex < topK * kConfigsPerExpert;\n"
      "+}\n"
      "+\n"
      " int default_index(int k) {\n"
      "   return 0;\n"
      " }\n";
  const std::string later =
      "int get_indices(int k) {\n  int base = 0;\n  return base + k + 1;\n}\n\n"
      "int components(int64_t i) {\n  return static_cast<int>(i);\n}\n\n"
      "bool is_valid_index(int64_t configIndex, int32_t topK) {\n"
      "  return configIndex >= 0 && configIndex < topK * kConfigsPerExpert;\n}\n\n"
      "int default_index(int k) {\n  return 0;\n}\n";
  const HunkMatch m = run(later, added)[0];
  EXPECT_EQ(m.presence, Presence::kPresent);
  EXPECT_EQ(m.line, 10u);
}

// Hostile review, 2026-12-02 (F1): with the Python diff driver the section is the method's
// def line; an indented `def decode` above a nearer `def decode_v2` does not make a block
// under decode_v2 this hunk's (was present, exit 0, whichever came first in the class).
TEST(FalseAppliedSection, AnEarlierSiblingMethodIsNotTheSectionOfALaterOne) {
  const std::string_view hunk =
      "@@ -10,7 +10,10 @@ def decode(self, q, k, v):\n"
      "         batch = q.shape[0]\n"
      "         heads = self.cfg.num_heads\n"
      "         block_n = 64\n"
      "-        num_stages = 3\n"
      "+        if torch.cuda.get_device_capability()[0] == 12:\n"
      "+            num_stages = 1  # SM120: 101376 bytes of shared memory\n"
      "+        else:\n"
      "+            num_stages = 3\n"
      "         out = launch_decode(q, k, v, batch, heads, block_n, num_stages)\n"
      "         return out\n"
      " \n";
  const std::string file =
      "import torch\n\n\nclass DecodeAttention:\n"
      "    def __init__(self, cfg):\n        self.cfg = cfg\n        self.scale = cfg.scale\n\n"
      "    def decode(self, q, k, v):\n"
      "        batch, heads = q.shape[0], self.cfg.num_heads\n"
      "        return launch_decode(q, k, v, batch, heads, block_n=64, num_stages=3)\n\n"
      "    def decode_v2(self, q, k, v):\n"
      "        batch = q.shape[0]\n        heads = self.cfg.num_heads\n        block_n = 32\n"
      "        if torch.cuda.get_device_capability()[0] == 12:\n"
      "            num_stages = 1  # SM120: 101376 bytes of shared memory\n"
      "        else:\n            num_stages = 3\n"
      "        out = launch_decode_v2(q, k, v, batch, heads, block_n, num_stages)\n"
      "        return out\n";
  const HunkMatch m = run(file, hunk)[0];
  EXPECT_NE(m.presence, Presence::kPresent);
  EXPECT_EQ(m.presence_reason, "other-section");
}

// Hostile review, 2026-12-02 (F8): the old code where the fix belongs, with one of the fix's
// added lines edited in, is still the old code (block_m = 128 and num_stages = 3 stand there);
// the full fix in a new branch below is not this hunk's.
TEST(FalseAbsent, OldCodeHoldingOneAddedLineIsStillTheOldCode) {
  const std::string_view hunk =
      "@@ -3,9 +3,9 @@ import torch\n"
      " \n"
      " def select_config(major, head_dim):\n"
      "     if head_dim <= 128:\n"
      "-        block_m = 128\n"
      "-        block_n = 64\n"
      "-        num_stages = 3\n"
      "+        block_m = 64 if major == 12 else 128\n"
      "+        block_n = 32 if major == 12 else 64\n"
      "+        num_stages = 1 if major == 12 else 3\n"
      "         num_warps = 8\n"
      "         return block_m, block_n, num_stages, num_warps\n"
      "     block_m = 64\n";
  const std::string file =
      "import torch\n\n\ndef select_config(major, head_dim):\n"
      "    if head_dim <= 128:\n"
      "        block_m = 128\n        block_n = 32 if major == 12 else 64\n"
      "        num_stages = 3\n        num_warps = 8\n"
      "        return block_m, block_n, num_stages, num_warps\n"
      "    if head_dim <= 256:\n"
      "        block_m = 64 if major == 12 else 128\n        block_n = 32 if major == 12 else 64\n"
      "        num_stages = 1 if major == 12 else 3\n        num_warps = 4\n"
      "        return block_m, block_n, num_stages, num_warps\n"
      "    block_m = 64\n    block_n = 32\n    num_stages = 2\n    num_warps = 4\n"
      "    return block_m, block_n, num_stages, num_warps\n";
  const HunkMatch m = run(file, hunk)[0];
  EXPECT_NE(m.presence, Presence::kPresent);
  EXPECT_NE(m.status, HunkStatus::kApplied);
}

// Liger 116e4d7238 hunks 5 and 6 at a later head: the change groups looked for one by one, the
// first (`"bnpo",`) standing at more places than the search examines. The hunk is unknown, as
// before; its words said "the change fits 0 places equally" (the places are the group's).
TEST(DriftWords, AGroupThatFitsTooManyPlacesIsNotZeroPlaces) {
  std::string file = "def table():\n    return [\n";
  for (int i = 0; i < 70; ++i) file += "        \"bnpo\",\n";
  file += "    ]\n\n\ndef test_f():\n    run(\n        0.05,\n        \"bnpo\",\n"
          "        max_len,\n        None,\n        True,\n    )\n";
  const std::vector<HunkMatch> m = run(file,
                                       "@@ -3,7 +3,7 @@ def test_f():\n     run(\n"
                                       "         0.04,\n-        loss_type,\n+        \"bnpo\",\n"
                                       "         max_len,\n-        True,\n+        False,\n"
                                       "         True,\n     )\n");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].presence, Presence::kUnknown);
  EXPECT_EQ(m[0].presence_reason, "ambiguous");
  EXPECT_EQ(presence_words(m[0]), "part of the change fits several places equally");
}

// --- DriftTrivial: a hunk whose changed lines are all trivial, placed by a found neighbour ---

/// Matches the hunks of the one file patch in `hunks` (for `path`) against `file`.
std::vector<HunkMatch> run_path(std::string_view path, const std::string& file,
                                std::string_view hunks) {
  const std::string diff = "--- a/" + std::string(path) + "\n+++ b/" + std::string(path) + "\n" +
                           std::string(hunks);
  const std::vector<Patch> patches = parse_patches(diff, "t.diff");
  const FileText text(file);
  return match_hunks(text, patches.at(0).files.at(0).hunks, MatchOptions{});
}

// ninja 4b07ca35, reduced: an `#ifndef _WIN64` added at the top of a Windows branch (hunk 1)
// and its `#endif` put in place of a comment at the end (hunk 2).
constexpr std::string_view kWin64Guard =
    "@@ -12,6 +12,7 @@ string StripAnsiEscapeCodes(const string& in) {\n"
    " \n"
    " int GetProcessorCount() {\n"
    " #ifdef _WIN32\n"
    "+#ifndef _WIN64\n"
    "   // Need to use GetLogicalProcessorInformationEx to get real core count on\n"
    "   // machines with >64 cores. See https://stackoverflow.com/a/31209344/21475\n"
    "   DWORD len = 0;\n"
    "@@ -25,7 +26,7 @@ int GetProcessorCount() {\n"
    "       }\n"
    "     }\n"
    "   }\n"
    "-  // fallback just in case\n"
    "+#endif\n"
    "   return GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);\n"
    " #else\n"
    " #ifdef CPU_COUNT\n";

/// ninja's util.cc at a later head, reduced: a `DWORD cpuCount = 0;` added above the guard
/// and the return rewritten below it (so neither hunk's context stands as it was); `end` is
/// what follows the loop's closing braces.
std::string later_processor_count(std::string_view end) {
  std::string file =
      "#include \"util.h\"\n\n#include <vector>\n\n"
      "string StripAnsiEscapeCodes(const string& in) {\n  string stripped;\n"
      "  stripped.reserve(in.size());\n  return stripped;\n}\n\n"
      "#if defined(__linux__) || defined(__GLIBC__)\nint ParseCPUFromCGroup() {\n"
      "  return -1;\n}\n#endif\n\n"
      "int GetProcessorCount() {\n#ifdef _WIN32\n  DWORD cpuCount = 0;\n#ifndef _WIN64\n"
      "  // Need to use GetLogicalProcessorInformationEx to get real core count on\n"
      "  // machines with >64 cores. See https://stackoverflow.com/a/31209344/21475\n"
      "  DWORD len = 0;\n"
      "  if (!GetLogicalProcessorInformationEx(RelationProcessorCore, nullptr, &len)\n"
      "        && GetLastError() == ERROR_INSUFFICIENT_BUFFER) {\n"
      "    std::vector<char> buf(len);\n    int cores = 0;\n"
      "    if (GetLogicalProcessorInformationEx(RelationProcessorCore, buf.data(), &len)) {\n"
      "      for (DWORD i = 0; i < len; ) {\n"
      "        i += CountCores(buf.data() + i, &cores);\n      }\n"
      "      if (cores != 0) {\n        cpuCount = cores;\n      }\n    }\n  }\n";
  file += end;
  file +=
      "  if (cpuCount == 0) {\n    cpuCount = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);\n"
      "  }\n  return cpuCount;\n#else\n  int schedCount = -1;\n#ifdef CPU_COUNT\n"
      "  cpu_set_t set;\n  if (sched_getaffinity(getpid(), sizeof(set), &set) == 0) {\n"
      "    schedCount = CPU_COUNT(&set);\n  }\n#endif\n  return schedCount;\n#endif\n}\n";
  return file;
}

// Was conflict (hunk 2 unknown: "blank or trivial lines only"), so the whole patch read
// conflict where git blame says both lines stand. Hunk 1 is found by drift; it places hunk 2's
// `#endif` at line 37, right after the loop's `}` run, and the comment it replaces is gone.
TEST(DriftTrivial, ATrivialLinePlacedByAFoundNeighbourWhereTheOldLineIsGoneIsPresent) {
  const std::vector<HunkMatch> m = run_path("src/util.cc", later_processor_count("#endif\n"),
                                            kWin64Guard);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].status, HunkStatus::kApplied);
  EXPECT_EQ(m[0].line, 20u);
  EXPECT_EQ(m[1].status, HunkStatus::kApplied);
  EXPECT_EQ(m[1].kind, MatchKind::kDrifted);
  EXPECT_EQ(m[1].presence, Presence::kPresent);
  EXPECT_EQ(m[1].line, 37u);
}

// The same tree without the fix's second half: the comment stands where the `#endif` would.
TEST(DriftTrivial, TheOldLineStillStandingKeepsATrivialHunkFromPresent) {
  const std::vector<HunkMatch> m = run_path(
      "src/util.cc", later_processor_count("  // fallback just in case\n"), kWin64Guard);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].status, HunkStatus::kApplied);
  EXPECT_NE(m[1].status, HunkStatus::kApplied);
  EXPECT_NE(m[1].presence, Presence::kPresent);
}

// The comment re-indented (white space is no evidence that the old code left), or moved a few
// lines down past an `#endif` that belongs to something else: not present either.
TEST(DriftTrivial, TheOldLineReindentedOrMovedKeepsATrivialHunkFromPresent) {
  for (const char* end : {"#endif\n    // fallback just in case\n",
                          "#endif\n#ifdef FALLBACK\n  // fallback just in case\n#endif\n"}) {
    const std::vector<HunkMatch> m =
        run_path("src/util.cc", later_processor_count(end), kWin64Guard);
    ASSERT_EQ(m.size(), 2u);
    EXPECT_NE(m[1].status, HunkStatus::kApplied) << end;
    EXPECT_NE(m[1].presence, Presence::kPresent) << end;
  }
}

// The old line gone but no `#endif` right after the `}` run (the code rewritten some other
// way): the trivial line found a few lines off, without its context next to it, is not the fix.
TEST(DriftTrivial, ATrivialLineAwayFromItsContextIsNotPresent) {
  const std::vector<HunkMatch> m = run_path(
      "src/util.cc", later_processor_count("  cpuCount = std::max(cpuCount, 1);\n#endif\n"),
      kWin64Guard);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_NE(m[1].status, HunkStatus::kApplied);
  EXPECT_NE(m[1].presence, Presence::kPresent);
}

// Without a found neighbour nothing places the trivial line: the second hunk alone stays
// unknown, as before.
TEST(DriftTrivial, ATrivialHunkWithoutAFoundNeighbourStaysUnknown) {
  const std::string_view second = kWin64Guard.substr(kWin64Guard.find("@@ -25"));
  const std::vector<HunkMatch> m =
      run_path("src/util.cc", later_processor_count("#endif\n"), second);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].presence, Presence::kUnknown);
  EXPECT_EQ(m[0].presence_reason, "trivial-lines");
}

// Two places for the trivial line within the hunk's length of where the neighbour puts it:
// position does not tell, unknown.
TEST(DriftTrivial, TwoPlacesNearTheExpectedLineStayUnknown) {
  const std::vector<HunkMatch> m = run_path(
      "src/util.cc", later_processor_count("#endif\n  }\n#endif\n"), kWin64Guard);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_NE(m[1].status, HunkStatus::kApplied);
  EXPECT_NE(m[1].presence, Presence::kPresent);
}

// fla a9dac8b17b hunk 1, reduced: a comment replaced by a blank line and another blank added
// above it; a later lint commit dropped one of the two blanks in a row. Blame calls the added
// blank gone; a run of blank lines places nothing, so the hunk stays unknown although the
// comment is gone and the block (blank, comment, blank) stands before the trailing context.
TEST(DriftTrivial, BlankLinesAddedAreNeverPlacedByANeighbour) {
  const std::string file =
      "import triton\n\n\ndef kernel(x):\n    if IS_VARLEN:\n        T = eos - bos\n"
      "    else:\n        bos, eos = i_n * T, i_n * T + T\n"
      "        boh_large = i_n * tl.cdiv(T, S)\n\n    # offset calculations\n\n"
      "    do += (bos * HQ + i_hq) * V\n    dk += (bos * HQ + i_hq) * K\n"
      "    dv += (bos * HQ + i_hq) * K\n\n    b_g_cumsum_k = None\n\n"
      "    b_dk = tl.zeros([BT, BK], dtype=tl.float32)\n\n"
      "    last_chunk_start = tl.floor(i_t*BT / S).to(tl.int32) * S\n"
      "    idx_j = (tl.floor(i_t * BT / S).to(tl.int32) + 1).to(tl.int32)\n";
  const std::vector<HunkMatch> m =
      run(file,
          "@@ -8,8 +8,9 @@ def kernel(x):\n"
          "         bos, eos = i_n * T, i_n * T + T\n"
          "         boh_large = i_n * tl.cdiv(T, S)\n \n+\n"
          "     # offset calculations\n-    # q += (bos * HQ + i_hq) * K\n+\n"
          "     do += (bos * HQ + i_hq) * V\n     dk += (bos * HQ + i_hq) * K\n"
          "     dv += (bos * HQ + i_hq) * K\n"
          "@@ -17,6 +18,6 @@ def kernel(x):\n"
          "     b_g_cumsum_k = None\n \n"
          "-    b_dk = tl.zeros([BT, K], dtype=tl.float32)\n"
          "+    b_dk = tl.zeros([BT, BK], dtype=tl.float32)\n \n"
          "     last_chunk_start = tl.floor(i_t*BT / S).to(tl.int32) * S\n"
          "     idx_j = (tl.floor(i_t * BT / S).to(tl.int32) + 1).to(tl.int32)\n");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[1].status, HunkStatus::kApplied);
  EXPECT_NE(m[0].status, HunkStatus::kApplied);
  EXPECT_EQ(m[0].presence, Presence::kUnknown);
  EXPECT_EQ(m[0].presence_reason, "trivial-lines");
}

// Liger-Kernel 116e4d7238 hunks 5 and 6, reduced: the same change in two copies of a call
// (`loss_type,` -> `"bnpo",`, `True,` -> `False,`), and at a later head a `"token",` line
// inserted between the groups of each. Each hunk's `"bnpo",` group fits both calls equally;
// was unknown ("part of the change fits several places equally") for both, so the patch read
// unknown where git blame says every line stands. Hunk order tells which is which.
constexpr std::string_view kTwoCalls =
    "@@ -10,7 +10,7 @@ def test_functional_correctness(\n"
    " ):\n"
    "     # Reset torch compiler cache for each parameter of the test case\n"
    "     torch.compiler.reset()\n"
    "-    max_completion_length = T if loss_type == \"dr_grpo\" else None\n"
    "+    max_completion_length = T\n"
    "     _input = torch.randn(B, T, H, device=device, dtype=dtype) * scalar\n"
    "     input1 = _input.detach().clone().requires_grad_(True)\n"
    "     input2 = _input.detach().clone().requires_grad_(True)\n"
    "@@ -24,10 +24,10 @@ def test_functional_correctness(\n"
    "         0.04,\n         0.2,\n         0.2,\n"
    "-        loss_type,\n+        \"bnpo\",\n"
    "         max_completion_length,\n         1.0,\n"
    "-        True,\n+        False,\n"
    "         True,\n         1,\n     )\n"
    "@@ -41,10 +41,10 @@ def test_functional_correctness(\n"
    "         0.04,\n         0.2,\n         0.2,\n"
    "-        loss_type,\n+        \"bnpo\",\n"
    "         max_completion_length,\n         1.0,\n"
    "-        True,\n+        False,\n"
    "         True,\n         1,\n     )\n";

/// The test at a later head: each call's `loss` and `flag` arguments as given.
std::string later_two_calls(std::string_view loss1, std::string_view flag1,
                            std::string_view loss2, std::string_view flag2) {
  auto call = [](std::string_view name, char k, std::string_view loss, std::string_view flag) {
    std::string c = "    loss" + std::string(1, k) + ", aux" + std::string(1, k) + " = " +
                    std::string(name) + "(\n";
    c += "        input" + std::string(1, k) + ",\n        weight" + std::string(1, k) + ",\n";
    c += "        selected_token_ids,\n        ref_bias" + std::string(1, k) + ",\n";
    c += "        0.04,\n        0.2,\n        0.2,\n        " + std::string(loss) + ",\n";
    c += "        max_completion_length,\n        \"token\",\n        1.0,\n        " +
         std::string(flag) + ",\n        True,\n        1,\n    )\n";
    return c;
  };
  std::string file = "import torch\n\n\n";
  for (int i = 0; i < 30; ++i) file += "# filler " + std::to_string(i) + "\n";
  file +=
      "def test_functional_correctness(\n    B,\n    T,\n    bias,\n):\n"
      "    # Reset torch compiler cache for each parameter of the test case\n"
      "    torch.compiler.reset()\n    max_completion_length = T\n"
      "    _input = torch.randn(B, T, H, device=device, dtype=dtype) * scalar\n"
      "    input1 = _input.detach().clone().requires_grad_(True)\n"
      "    input2 = _input.detach().clone().requires_grad_(True)\n\n"
      "    weight1 = torch.randn(V, H, device=device, dtype=dtype)\n"
      "    weight2 = weight1.detach().clone()\n\n";
  file += call("liger_fused_linear_grpo", '1', loss1, flag1) + "\n";
  file += call("LigerFusedLinearGRPOFunction.apply", '2', loss2, flag2);
  file += "\n    assert not torch.isnan(loss1)\n    assert not torch.isnan(loss2)\n";
  return file;
}

TEST(DriftTrivial, TwoHunksWithOneChangeInTwoCopiesAreTakenInHunkOrder) {
  const std::vector<HunkMatch> m = run(
      later_two_calls("\"bnpo\"", "False", "\"bnpo\"", "False"), kTwoCalls);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].status, HunkStatus::kApplied);
  EXPECT_EQ(m[1].status, HunkStatus::kApplied);
  EXPECT_EQ(m[1].presence, Presence::kPresent);
  EXPECT_EQ(m[1].line, 57u);
  EXPECT_EQ(m[2].status, HunkStatus::kApplied);
  EXPECT_EQ(m[2].presence, Presence::kPresent);
  EXPECT_EQ(m[2].line, 74u);
}

// Either copy without the change: its `"bnpo",` is gone, one place is left for two hunks, and
// neither hunk reads present (the one whose change is absent least of all).
TEST(DriftTrivial, OneCopyWithoutTheChangeIsNotTakenForIt) {
  for (const bool first : {true, false}) {
    const std::string file =
        first ? later_two_calls("loss_type", "True", "\"bnpo\"", "False")
              : later_two_calls("\"bnpo\"", "False", "loss_type", "True");
    const std::vector<HunkMatch> m = run(file, kTwoCalls);
    ASSERT_EQ(m.size(), 3u);
    const HunkMatch& without = m[first ? 1 : 2];
    EXPECT_NE(without.status, HunkStatus::kApplied) << first;
    EXPECT_NE(without.presence, Presence::kPresent) << first;
  }
}

// Three copies of the call: the first with the change, the second without it, and a third
// added later that has the new lines of its own. The `"bnpo",` group fits the first and third
// equally, as many places as there are hunks, so pairing in order would take the third copy
// for the second hunk; the old code standing in the second copy is weighed first (the
// second hunk reads absent), and pairing never sees it.
TEST(DriftTrivial, CopiesPairedInOrderStillWeighTheOldCode) {
  std::string file = later_two_calls("\"bnpo\"", "False", "loss_type", "True");
  file +=
      "\n    loss3, aux3 = liger_fused_linear_grpo(\n        input3,\n        weight3,\n"
      "        selected_token_ids,\n        ref_bias3,\n        0.04,\n        0.2,\n"
      "        0.2,\n        \"bnpo\",\n        max_completion_length,\n        \"token\",\n"
      "        1.0,\n        False,\n        True,\n        1,\n    )\n";
  const std::vector<HunkMatch> m = run(file, kTwoCalls);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_NE(m[2].status, HunkStatus::kApplied);
  EXPECT_NE(m[2].presence, Presence::kPresent);
}

// The trivial group (`True,` -> `False,`) not made in one copy or in both: each group is looked
// for on its own (the `"token",` line splits them) and the trivial one was never looked for,
// so the `"bnpo",` group alone made the hunk present (both copies: paired in order). A
// trivial group's added lines must stand where the present group puts them.
TEST(DriftTrivial, ATrivialGroupNotMadeKeepsTheHunkFromPresent) {
  for (const bool both : {true, false}) {
    const std::string file =
        later_two_calls("\"bnpo\"", "True", "\"bnpo\"", both ? "True" : "False");
    const std::vector<HunkMatch> m = run(file, kTwoCalls);
    ASSERT_EQ(m.size(), 3u);
    EXPECT_NE(m[1].status, HunkStatus::kApplied) << both;
    EXPECT_NE(m[1].presence, Presence::kPresent) << both;
    if (both) {
      EXPECT_NE(m[2].presence, Presence::kPresent);
    }
  }
}

// The same for one hunk on its own: its informative group stands, its trivial group does not.
TEST(DriftTrivial, ATrivialGroupNotMadeInASplitHunkIsNotPresent) {
  const std::string hunk =
      "@@ -3,9 +3,9 @@ def test_f():\n     run(\n         0.04,\n         0.2,\n"
      "-        loss_type,\n+        \"bnpo\",\n         max_len,\n         1.0,\n"
      "-        True,\n+        False,\n         True,\n     )\n";
  auto file = [](std::string_view flag) {
    return "import torch\n\n\ndef test_f():\n    run(\n        0.04,\n        0.2,\n"
           "        \"bnpo\",\n        max_len,\n        \"token\",\n        1.0,\n        " +
           std::string(flag) + ",\n        True,\n    )\n";
  };
  const HunkMatch with = run(file("False"), hunk)[0];
  EXPECT_EQ(with.presence, Presence::kPresent);
  const HunkMatch without = run(file("True"), hunk)[0];
  EXPECT_NE(without.status, HunkStatus::kApplied);
  EXPECT_NE(without.presence, Presence::kPresent);
}


// --- Part of the change there, edited: unknown, neither applicable nor absent ------------------

// FlashInfer #2670 at a later head, reduced: a pure insertion of launch(); the head has it
// made a template, its two launch calls changed. The function's last lines repeat the hunk's
// leading context, so the pre-image matches right after it (`git apply --check`: "Hunk #1
// succeeded at 22 (offset 15 lines)") and applying would define launch() twice.
constexpr std::string_view kLaunchFix =
    "@@ -7,6 +7,20 @@ void launch_impl(float* a, float* b, int n, bool pdl) {\n"
    "   }\n"
    " }\n"
    " \n"
    "+void launch(float* a, float* b, int n, bool pdl) {\n"
    "+  // Shared memory per stage group: 4 * (16 * 64 + 8 * 64) * 2 bytes.\n"
    "+  static constexpr int kStageBytes = 12288;\n"
    "+  int max_smem = get_max_smem();\n"
    "+  int max_stages = max_smem / kStageBytes;\n"
    "+  if (max_stages >= 16) {\n"
    "+    launch_impl<16>(a, b, n, pdl);\n"
    "+  } else if (max_stages >= 4) {\n"
    "+    launch_impl<4>(a, b, n, pdl);\n"
    "+  } else {\n"
    "+    fail(\"insufficient shared memory\", max_smem);\n"
    "+  }\n"
    "+}\n"
    "+\n"
    " void gemm_op(Tensor a, Tensor b, bool pdl) {\n"
    "   auto stream = get_stream(a);\n"
    "   launch_impl<16>(a.data(), b.data(), a.size(), pdl);\n";

/// The file before the fix, with `middle` between launch_impl() and gemm_op().
std::string launch_file(std::string_view middle) {
  return "int get_max_smem();\n\ntemplate <int STAGES>\n"
         "void launch_impl(float* a, float* b, int n, bool pdl) {\n"
         "  if (n > 0) {\n    run<STAGES>(a, b, n, pdl);\n  }\n}\n\n" +
         std::string(middle) +
         "void gemm_op(Tensor a, Tensor b, bool pdl) {\n"
         "  auto stream = get_stream(a);\n"
         "  launch_impl<16>(a.data(), b.data(), a.size(), pdl);\n}\n";
}

/// launch() as a later head has it (`name` for the function's name).
std::string edited_launch(std::string_view name) {
  return "template <bool BIAS>\nvoid " + std::string(name) +
         "(float* a, float* b, int n, bool pdl) {\n"
         "  // Shared memory per stage group: 4 * (16 * 64 + 8 * 64) * 2 bytes.\n"
         "  static constexpr int kStageBytes = 12288;\n"
         "  int max_smem = get_max_smem();\n"
         "  int max_stages = max_smem / kStageBytes;\n"
         "  if (max_stages >= 16) {\n"
         "    launch_impl<16, BIAS>(a, b, n, pdl);\n"
         "  } else if (max_stages >= 4) {\n"
         "    launch_impl<4, BIAS>(a, b, n, pdl);\n"
         "  } else {\n"
         "    fail(\"insufficient shared memory\", max_smem);\n"
         "  }\n"
         "}\n\n";
}

TEST(DriftPartly, TheFunctionAHunkAddsStandingEditedBesideItsPlaceIsNotApplicable) {
  const HunkMatch m = test::match_one_hunk(launch_file(edited_launch("launch")), kLaunchFix, "f.cu");
  EXPECT_EQ(m.status, HunkStatus::kUnknown) << presence_words(m);
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_EQ(m.presence_reason, "partly-present");
  EXPECT_EQ(m.places, (std::vector<std::size_t>{11, 22}));
  // --strict keeps git's answer.
  MatchOptions strict;
  strict.drift = false;
  const std::string diff = "--- a/f.cu\n+++ b/f.cu\n" + std::string(kLaunchFix);
  const std::vector<Patch> patches = parse_patches(diff, "t.diff");
  const FileText text(launch_file(edited_launch("launch")));
  EXPECT_EQ(match_hunks(text, patches.at(0).files.at(0).hunks, strict).at(0).status,
            HunkStatus::kApplicable);
  // Controls: before the fix, applicable; a sibling with another name just as like (a copy the
  // fix's author would have started from), applicable.
  EXPECT_EQ(test::match_one_hunk(launch_file(""), kLaunchFix, "f.cu").status,
            HunkStatus::kApplicable);
  const HunkMatch sibling =
      test::match_one_hunk(launch_file(edited_launch("launch_bias")), kLaunchFix, "f.cu");
  EXPECT_EQ(sibling.status, HunkStatus::kApplicable) << presence_words(sibling);
}

// FlashInfer 17770f5c7 (#2574), utils.py at a later head, reduced: the hunk raises a CUDA
// version in is_sm121a_supported() and adds is_sm12x_supported(); a later commit (e4dc66f0f)
// put the old version back in both, so the line the hunk replaces stands at its place and the
// new function stands with two of its lines changed. Was "change absent"
// (removed-lines-present): most of the change is there.
TEST(DriftPartly, PartOfTheChangeBesideTheOldCodeIsNotAbsent) {
  const std::string hunk =
      "@@ -5,7 +5,19 @@ def is_sm120a_supported(device):\n"
      " \n"
      " def is_sm121a_supported(device):\n"
      "     major, minor = get_compute_capability(device)\n"
      "-    return major == 12 and minor == 1 and version_at_least(torch.version.cuda, \"12.9\")\n"
      "+    return major == 12 and minor == 1 and version_at_least(torch.version.cuda, \"13.0\")\n"
      "+\n"
      "+\n"
      "+def is_sm12x_supported(device):\n"
      "+    \"\"\"Check if the device is any SM12x GPU (SM120a, SM121a, or later variants).\n"
      "+\n"
      "+    SM120a requires CUDA 12.8, SM121a requires CUDA 13.0.\n"
      "+    \"\"\"\n"
      "+    major, minor = get_compute_capability(device)\n"
      "+    if major != 12:\n"
      "+        return False\n"
      "+    min_cuda = \"13.0\" if minor >= 1 else \"12.8\"\n"
      "+    return version_at_least(torch.version.cuda, min_cuda)\n"
      " \n"
      " \n"
      " def determine_backend(device):\n";
  const auto file = [](std::string_view version, bool added) {
    std::string f =
        "import torch\n\n\n"
        "def is_sm120a_supported(device):\n"
        "    major, minor = get_compute_capability(device)\n"
        "    return major == 12 and minor == 0 and version_at_least(torch.version.cuda, \"12.8\")\n"
        "\n\n"
        "def is_sm121a_supported(device):\n"
        "    major, minor = get_compute_capability(device)\n"
        "    return major == 12 and minor == 1 and version_at_least(torch.version.cuda, \"12.9\")\n";
    if (added)
      f += "\n\ndef is_sm12x_supported(device):\n"
           "    \"\"\"Check if the device is any SM12x GPU (SM120a, SM121a, or later variants).\n"
           "\n"
           "    SM120a requires CUDA 12.8, SM121a requires CUDA " +
           std::string(version) +
           ".\n"
           "    \"\"\"\n"
           "    major, minor = get_compute_capability(device)\n"
           "    if major != 12:\n"
           "        return False\n"
           "    min_cuda = \"" +
           std::string(version) +
           "\" if minor >= 1 else \"12.8\"\n"
           "    return version_at_least(torch.version.cuda, min_cuda)\n";
    f += "\n\ndef determine_backend(device):\n    return \"fa2\"\n\n\n"
         "def is_cvt_rs_supported(device):\n    return False\n";
    return f;
  };
  const HunkMatch m = test::match_one_hunk(file("12.9", true), hunk, "utils.py");
  EXPECT_EQ(m.status, HunkStatus::kConflict);
  EXPECT_EQ(m.presence, Presence::kUnknown) << presence_words(m);
  EXPECT_EQ(m.presence_reason, "partly-present");
  EXPECT_EQ(m.places, (std::vector<std::size_t>{11, 14}));
  // Control: without the new function (the parent with two functions after it), applicable.
  const HunkMatch absent = test::match_one_hunk(file("12.9", false), hunk, "utils.py");
  EXPECT_EQ(absent.status, HunkStatus::kApplicable) << presence_words(absent);
  EXPECT_EQ(absent.presence, Presence::kAbsent);
}

}  // namespace
}  // namespace sm120check
