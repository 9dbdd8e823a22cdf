// Tests of the drift search's section rule (src/match/drift.cpp, Drift::section_veto()): a
// change found only under another definition than the one the hunk's section names is never
// `present`. Cases from the hostile review of 2026-12-02 (/tmp/hv, F2-F7), each reduced to a
// minimal inline file; every one read `present` (exit 0) before the rule named below.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "../src/match/drift.hpp"
#include "sm120check/match.hpp"
#include "sm120check/patch.hpp"

namespace sm120check {
namespace {

HunkMatch run_one(const std::string& file, std::string_view hunk, std::string_view name) {
  const std::string diff =
      "--- a/" + std::string(name) + "\n+++ b/" + std::string(name) + "\n" + std::string(hunk);
  const std::vector<Patch> patches = parse_patches(diff, "t.diff");
  const FileText text(file);
  return match_hunks(text, patches.at(0).files.at(0).hunks, {}).at(0);
}

// The SM120 fix of a top-level Python function `decode` (git's default rule: the section is
// the def line at column 0).
constexpr std::string_view kDecodeFix =
    "@@ -10,7 +10,10 @@ def decode(self, q, k, v):\n"
    "     batch = q.shape[0]\n"
    "     heads = self.cfg.num_heads\n"
    "     block_n = 64\n"
    "-    num_stages = 3\n"
    "+    if torch.cuda.get_device_capability()[0] == 12:\n"
    "+        num_stages = 1  # SM120: 101376 bytes of shared memory\n"
    "+    else:\n"
    "+        num_stages = 3\n"
    "     out = launch_decode(q, k, v, batch, heads, block_n, num_stages)\n"
    "     return out\n"
    " \n";

/// A file with `decode` (rewritten, without the fix) declared by `decode_def`, then
/// decode_v2 holding the fix's block (optionally after a docstring).
std::string sibling_file(std::string_view decode_def, std::string_view v2_doc = "") {
  return "import torch\n\n\n\ndef __init__(self, cfg):\n    self.cfg = cfg\n\n" +
         std::string(decode_def) +
         "\n    batch, heads = q.shape[0], self.cfg.num_heads\n"
         "    return launch_decode(q, k, v, batch, heads, block_n=64, num_stages=3)\n\n"
         "def decode_v2(self, q, k, v):\n" +
         std::string(v2_doc) +
         "    batch = q.shape[0]\n    heads = self.cfg.num_heads\n    block_n = 32\n"
         "    if torch.cuda.get_device_capability()[0] == 12:\n"
         "        num_stages = 1  # SM120: 101376 bytes of shared memory\n"
         "    else:\n        num_stages = 3\n"
         "    out = launch_decode_v2(q, k, v, batch, heads, block_n, num_stages)\n"
         "    return out\n";
}

// F2: the named function is still there, its signature grew a parameter: the section's text
// stands nowhere, but the name it defines does (it was taken for a renamed function).
TEST(SectionRule, ANamedFunctionWhoseSignatureChangedIsStillTheFunction) {
  const HunkMatch m =
      run_one(sibling_file("def decode(self, q, k, v, scale=None):"), kDecodeFix, "attn.py");
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_NE(m.status, HunkStatus::kApplied);
  EXPECT_EQ(m.presence_reason, "other-section");
  // Control: renamed away (no `def decode` at all), the one copy is still taken.
  const HunkMatch r =
      run_one(sibling_file("def decode_dense(self, q, k, v):"), kDecodeFix, "attn.py");
  EXPECT_NE(r.presence_reason, "other-section");
}

// F6: a docstring line equal to the section inside the sibling is text, not a definition.
TEST(SectionRule, ASectionLineInsideADocstringIsNoHeader) {
  const std::string file = sibling_file(
      "def decode(self, q, k, v):",
      "    \"\"\"Paged variant. Replaces the older entry point:\n\n"
      "        def decode(self, q, k, v):\n\n    which is kept for the dense cache.\n"
      "    \"\"\"\n");
  const HunkMatch m = run_one(file, kDecodeFix, "attn.py");
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_EQ(m.presence_reason, "other-section");
  EXPECT_EQ(m.places, std::vector<std::size_t>{22});
}

// F7: a fix block that holds a nested def is still inside the function around it (the
// exemption for blocks holding a header is for hunks that add a function).
TEST(SectionRule, ANestedDefInTheBlockDoesNotExemptIt) {
  const std::string_view hunk =
      "@@ -10,7 +10,10 @@ def decode(self, q, k, v):\n"
      "     batch = q.shape[0]\n"
      "     heads = self.cfg.num_heads\n"
      "     block_n = 64\n"
      "-    num_stages = 3\n"
      "+    def _stages():\n"
      "+        # SM120: 101376 bytes of shared memory\n"
      "+        return 1 if torch.cuda.get_device_capability()[0] == 12 else 3\n"
      "+    num_stages = _stages()\n"
      "     out = launch_decode(q, k, v, batch, heads, block_n, num_stages)\n"
      "     return out\n"
      " \n";
  const std::string file =
      "import torch\n\n\n\ndef decode(self, q, k, v):\n"
      "    batch, heads = q.shape[0], self.cfg.num_heads\n"
      "    return launch_decode(q, k, v, batch, heads, block_n=64, num_stages=3)\n\n"
      "def decode_v2(self, q, k, v):\n"
      "    batch = q.shape[0]\n    heads = self.cfg.num_heads\n    block_n = 32\n"
      "    def _stages():\n        # SM120: 101376 bytes of shared memory\n"
      "        return 1 if torch.cuda.get_device_capability()[0] == 12 else 3\n"
      "    num_stages = _stages()\n"
      "    out = launch_decode_v2(q, k, v, batch, heads, block_n, num_stages)\n"
      "    return out\n";
  const HunkMatch m = run_one(file, hunk, "attn.py");
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_EQ(m.presence_reason, "other-section");
}

// The CUDA fix of the first of two overloads with multi-line signatures.
constexpr std::string_view kLaunchFix =
    "@@ -5,6 +5,10 @@ void launch_decode_kernel(\n"
    "   const int block_n = 64;\n"
    "   const int smem = params.head_dim * block_n * 4;\n"
    "   int num_stages = 3;\n"
    "+  if (params.arch_major == 12) {\n"
    "+    // SM120: 99 KiB of opt-in shared memory per block\n"
    "+    num_stages = 1;\n"
    "+  }\n"
    "   decode_kernel<<<params.grid, 128, smem, stream>>>(params, num_stages);\n"
    "   check_launch();\n"
    " }\n";

// F3: overloads: the section is the line of two definitions; the fix stands in one, the
// context only in part: which overload is the hunk's cannot be told.
TEST(SectionRule, OverloadsSharingTheSectionAreAmbiguous) {
  const std::string file =
      "#include \"params.h\"\n\nvoid launch_decode_kernel(\n"
      "    const DecodeParams& params, cudaStream_t stream) {\n"
      "  run_decode(params, stream, /*block_n=*/64, /*num_stages=*/3);\n}\n\n"
      "void launch_decode_kernel(\n    const PagedDecodeParams& params, cudaStream_t stream) {\n"
      "  const int smem = params.head_dim * 32 * 4;\n  int num_stages = 3;\n"
      "  if (params.arch_major == 12) {\n"
      "    // SM120: 99 KiB of opt-in shared memory per block\n    num_stages = 1;\n  }\n"
      "  paged_decode_kernel<<<params.grid, 128, smem, stream>>>(params, num_stages);\n"
      "  check_launch();\n}\n";
  const HunkMatch m = run_one(file, kLaunchFix, "launch.cu");
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_NE(m.status, HunkStatus::kApplied);
  EXPECT_EQ(m.presence_reason, "section-ambiguous");
  // Control: one definition of that name, the same block and context: present.
  std::string single = file;
  single.replace(single.find("void launch_decode_kernel(\n    const DecodeParams&"), 25,
                 "void launch_dense_kernel(");
  EXPECT_EQ(run_one(single, kLaunchFix, "launch.cu").presence, Presence::kPresent);
}

// F4: git cuts a section at 80 bytes; the cut text begins both overloads' signatures.
TEST(SectionRule, ASectionCutAt80BytesIsAPrefixOnlyWhenUnique) {
  const std::string_view hunk =
      "@@ -4,6 +4,10 @@ void flash_fwd_splitkv_combine_launcher_paged(const "
      "Flash_fwd_params& params, in\n"
      "   const int block_n = 64;\n"
      "   const int smem = params.d * block_n * 4;\n"
      "   int num_stages = 3;\n"
      "+  if (params.arch_major == 12) {\n"
      "+    // SM120: 99 KiB of opt-in shared memory per block\n"
      "+    num_stages = 1;\n"
      "+  }\n"
      "   combine_kernel<<<params.grid, 128, smem, stream>>>(params, num_splits, num_stages);\n"
      "   check_launch();\n"
      " }\n";
  const std::string file =
      "#include \"flash.h\"\n\n"
      "void flash_fwd_splitkv_combine_launcher_paged(const Flash_fwd_params& params, int "
      "num_splits, cudaStream_t stream) {\n"
      "  run_combine(params, num_splits, stream, /*num_stages=*/3);\n}\n\n"
      "void flash_fwd_splitkv_combine_launcher_paged(const Flash_fwd_params& params, int "
      "num_splits, bool is_causal, cudaStream_t stream) {\n"
      "  const int smem = params.d * 32 * 4;\n  int num_stages = 3;\n"
      "  if (params.arch_major == 12) {\n"
      "    // SM120: 99 KiB of opt-in shared memory per block\n    num_stages = 1;\n  }\n"
      "  combine_kernel_causal<<<params.grid, 128, smem, stream>>>(params, num_splits, "
      "num_stages);\n  check_launch();\n}\n";
  const HunkMatch m = run_one(file, hunk, "combine.cu");
  EXPECT_EQ(m.presence, Presence::kUnknown);
  EXPECT_EQ(m.presence_reason, "section-ambiguous");
}

// The names a section defines.
TEST(SectionRule, DefinitionNames) {
  EXPECT_EQ(detail::definition_name("def decode(self, q, k, v):"), "def decode");
  EXPECT_EQ(detail::definition_name("    async def run(x):"), "async def run");
  EXPECT_EQ(detail::definition_name("class DecodeAttention(nn.Module):"), "class DecodeAttention");
  EXPECT_EQ(detail::definition_name("void launch_decode_kernel("), "launch_decode_kernel");
  EXPECT_EQ(detail::definition_name("__global__ void __launch_bounds__(256) decode_kernel("),
            "decode_kernel");
  EXPECT_EQ(detail::definition_name("Runner::Runner(int x) {"), "Runner::Runner");
  EXPECT_EQ(detail::definition_name("const Foo& get_foo(int i) {"), "get_foo");
  EXPECT_EQ(detail::definition_name("setup("), "");
  EXPECT_EQ(detail::definition_name("torch.ops.load(lib)"), "");
  EXPECT_EQ(detail::definition_name("if (x) {"), "");
  EXPECT_EQ(detail::definition_name("int f(int x);"), "");
}

}  // namespace
}  // namespace sm120check
