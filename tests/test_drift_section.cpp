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
#include "test_util.hpp"

namespace sm120check {
namespace {

HunkMatch run_one(const std::string& file, std::string_view hunk, std::string_view name) {
  return test::match_one_hunk(file, hunk, name);
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

// --- Where the section is not the hunk's function (hostile review hv16) ---------------------

/// `def fname(` with the parameters rope, x and y (x's default given).
std::string defaults(std::string_view fname, std::string_view x) {
  return "def " + std::string(fname) + "(\n    rope: bool = True,\n    x: bool = " +
         std::string(x) + ",\n    y: bool = True,\n):\n    pass\n\n\n";
}

// Liger-Kernel 3c8d57a2 (`cross_entropy` default under `def apply_liger_kernel_to_gemma(`),
// at a later head with the fix reverted: the hunk's section names the function above gemma's
// at the time (mixtral), and functions added since moved mixtral away. The pre-image stands
// whole under gemma (the def line is in the hunk's context), yet the section sent the hunk to
// mixtral's like line: `applied`, drifted (was a false applied, exit 0).
constexpr std::string_view kGemmaDefault =
    "@@ -8,6 +8,6 @@ def a(\n"
    " \n"
    " def b(\n"
    "     rope: bool = True,\n"
    "-    x: bool = True,\n"
    "+    x: bool = False,\n"
    "     y: bool = True,\n"
    " ):\n";

TEST(SectionPlace, TheDefinitionInTheHunksContextIsItsFunction) {
  std::string later = defaults("a", "False");
  for (const char* f : {"c1", "c2", "c3", "c4", "c5", "c6"}) later += defaults(f, "False");
  const std::string reverted = later + defaults("b", "True");
  const HunkMatch absent = run_one(reverted, kGemmaDefault, "m.py");
  EXPECT_EQ(absent.status, HunkStatus::kApplicable) << presence_words(absent);
  EXPECT_EQ(absent.line, 56u);
  const HunkMatch present = run_one(later + defaults("b", "False"), kGemmaDefault, "m.py");
  EXPECT_EQ(present.status, HunkStatus::kApplied) << presence_words(present);
  EXPECT_EQ(present.kind, MatchKind::kExact);
  EXPECT_EQ(present.line, 56u);
}

// Liger-Kernel 19654059 (a skipif decorator added before `def test_..._smollm3():`) and
// FlashInfer 0ba7a3f6 (a skip reason in a decorator) at later heads: the section names the
// test function before the decorator, hundreds of lines up now. The hunk's own lines leave that
// function (a decorator at column 0), so the exact post-image is the fix, not "found elsewhere"
// (was a false conflict).
constexpr std::string_view kSkipDecorator =
    "@@ -5,6 +5,7 @@ def test_glm4():\n"
    "     assert glm4_ok()\n"
    " \n"
    " \n"
    "+@pytest.mark.skipif(not smollm3_available(), reason=\"smollm3 module not available\")\n"
    " def test_smollm3():\n"
    "     with patch(\"transformers.models.smollm3\"):\n"
    "         pass\n";

TEST(SectionPlace, AHunkThatLeavesItsSectionIsNotHeldToIt) {
  std::string later = "import pytest\n\n\ndef test_glm4():\n    assert glm4_ok()\n\n\n";
  for (int i = 0; i < 40; ++i)
    later += "def test_other_" + std::to_string(i) + "():\n    assert other(" +
             std::to_string(i) + ")\n\n\n";
  later += "def test_qwen():\n    assert glm4_ok()\n\n\n";
  const std::string tail =
      "def test_smollm3():\n    with patch(\"transformers.models.smollm3\"):\n        pass\n";
  const std::string with_fix = later +
                               "@pytest.mark.skipif(not smollm3_available(), "
                               "reason=\"smollm3 module not available\")\n" +
                               tail;
  const HunkMatch present = run_one(with_fix, kSkipDecorator, "test_m.py");
  EXPECT_EQ(present.status, HunkStatus::kApplied) << presence_words(present);
  EXPECT_EQ(present.kind, MatchKind::kExact);
  const HunkMatch absent = run_one(later + tail, kSkipDecorator, "test_m.py");
  EXPECT_EQ(absent.status, HunkStatus::kApplicable) << presence_words(absent);
}

// The section rule still holds for a change inside the named function: its lines found under
// another function only are not the fix (own_definition() and leaves_section() are both false).
TEST(SectionPlace, ALeavingLineIsOnlyOneAtColumnZero) {
  detail::HunkImages images;
  const std::vector<Patch> inside = parse_patches(
      "--- a/m.py\n+++ b/m.py\n@@ -3,3 +3,3 @@ def decode(self):\n     a = 1\n-    b = 2\n"
      "+    b = 3\n     # done\n",
      "t.diff");
  images.build(inside.at(0).files.at(0).hunks.at(0));
  EXPECT_FALSE(detail::leaves_section(images));
  EXPECT_FALSE(detail::own_definition(images).has_value());
  const std::vector<Patch> comment = parse_patches(
      "--- a/m.c\n+++ b/m.c\n@@ -3,4 +3,4 @@ int f(void)\n #ifdef X\n   a = 1;\n-  b = 2;\n"
      "+  b = 3;\n   c();\n",
      "t.diff");
  images.build(comment.at(0).files.at(0).hunks.at(0));
  EXPECT_FALSE(detail::leaves_section(images));  // a preprocessor line inside the function
  const std::vector<Patch> closing = parse_patches(
      "--- a/m.c\n+++ b/m.c\n@@ -3,3 +3,4 @@ int f(void)\n   return 0;\n }\n+int g;\n \n",
      "t.diff");
  images.build(closing.at(0).files.at(0).hunks.at(0));
  EXPECT_TRUE(detail::leaves_section(images));  // after f's closing brace
}

// --- Changed lines that repeat the lines around them (hostile review hv16) -----------------

// Liger-Kernel 49fc8d84, hunk 26: two `None,` added to a run of twenty. In the unpatched file
// the post-image stands two lines above the pre-image, inside the run: the old rule (the
// longer image wins) read the hunk applied on the parent (a false partial; alone, a false
// applied). Alone such a hunk is unknown; the file's other hunks decide it when they agree.
std::string nones(int n) {
  std::string out = "def backward(ctx):\n    g = grad(ctx)\n    return (\n        g,\n";
  for (int i = 0; i < n; ++i) out += "        None,\n";
  return out + "    )\n\n\nclass Loss:\n    pass\n";
}

constexpr std::string_view kMoreNones =
    "@@ -22,6 +22,8 @@ def backward(ctx):\n"
    "         None,\n         None,\n         None,\n+        None,\n+        None,\n"
    "     )\n \n \n";

TEST(RepeatsContext, AloneTheHunkIsUnknown) {
  for (const int n : {20, 22}) {
    const HunkMatch m = run_one(nones(n), kMoreNones, "loss.py");
    EXPECT_EQ(m.status, HunkStatus::kUnknown) << n;
    EXPECT_EQ(m.presence_reason, "repeats-context") << n;
    EXPECT_TRUE(m.both_images);
  }
}

TEST(RepeatsContext, TheFilesOtherHunksDecideIt) {
  const std::string diff = std::string(
                               "--- a/loss.py\n+++ b/loss.py\n"
                               "@@ -1,3 +1,3 @@\n def backward(ctx):\n-    g = grad(ctx)\n"
                               "+    g = grad(ctx, scale=True)\n     return (\n") +
                           std::string(kMoreNones);
  const std::vector<Patch> patches = parse_patches(diff, "t.diff");
  const auto& hunks = patches.at(0).files.at(0).hunks;
  const FileText before(nones(20));
  const std::vector<HunkMatch> b = match_hunks(before, hunks, {});
  EXPECT_EQ(b.at(0).status, HunkStatus::kApplicable);
  EXPECT_EQ(b.at(1).status, HunkStatus::kApplicable);
  EXPECT_EQ(b.at(1).line, 22u);
  std::string patched = nones(22);
  patched.replace(patched.find("grad(ctx)"), 9, "grad(ctx, scale=True)");
  const FileText after(patched);
  const std::vector<HunkMatch> a = match_hunks(after, hunks, {});
  EXPECT_EQ(a.at(0).status, HunkStatus::kApplied);
  EXPECT_EQ(a.at(1).status, HunkStatus::kApplied);
  EXPECT_EQ(a.at(1).line, 22u);
  // A file whose other hunk conflicts decides nothing.
  std::string other = nones(20);
  other.replace(other.find("grad(ctx)"), 9, "grad2(ctx)");
  EXPECT_EQ(match_hunks(FileText(other), hunks, {}).at(1).status, HunkStatus::kUnknown);
}

// A pure insertion at the edge of its context is not a coincidence: its pre-image stands inside
// the post-image where the hunk puts it, and the longer image wins as before.
// (Fuzz dropping the leading context leaves the added line at the top edge.)
TEST(RepeatsContext, AnInsertionAtTheEdgeOfItsContextStillDecides) {
  const std::vector<Patch> patches = parse_patches(
      "--- a/f.txt\n+++ b/f.txt\n@@ -3,4 +3,5 @@\n y\n+new\n c1\n c2\n c3\n", "t.diff");
  MatchOptions options;
  options.fuzz = 1;
  const FileText file("x\nzz\nnew\nc1\nc2\nc3\n");
  const HunkMatch m = match_hunks(file, patches.at(0).files.at(0).hunks, options).at(0);
  EXPECT_EQ(m.status, HunkStatus::kApplied);
  EXPECT_EQ(m.fuzz, 1u);
  EXPECT_TRUE(m.both_images);
}

// Hostile review hv17 (ninja 4b07ca35 at a later head): `#ifndef _WIN64` added at column 0
// inside `int GetProcessorCount() {`, whose section names the function before it. The added
// line is a preprocessor line: how deep the change is, the code after it tells. Was "its change
// stands only under another function" (a false conflict).
TEST(SectionPlace, APreprocessorLineIsAsDeepAsTheCodeAfterIt) {
  constexpr std::string_view kHunk =
      "@@ -5,6 +5,7 @@ std::string StripAnsi(const std::string& in) {\n"
      " \n"
      " int GetProcessorCount() {\n"
      " #ifdef _WIN32\n"
      "+#ifndef _WIN64\n"
      "   // Need GetLogicalProcessorInformationEx for the real core count\n"
      "   // on machines with more than 64 cores.\n"
      "   DWORD len = 0;\n";
  std::string later =
      "#include <string>\n\nstd::string StripAnsi(const std::string& in) {\n  return in;\n}\n\n";
  for (int i = 0; i < 30; ++i)
    later += "int Helper" + std::to_string(i) + "() {\n  return " + std::to_string(i) + ";\n}\n\n";
  const std::string body =
      "int GetProcessorCount() {\n#ifdef _WIN32\n#ifndef _WIN64\n"
      "  // Need GetLogicalProcessorInformationEx for the real core count\n"
      "  // on machines with more than 64 cores (see the docs).\n"
      "  DWORD len = 0;\n#endif\n#endif\n  return 1;\n}\n";
  const HunkMatch m = run_one(later + body, kHunk, "util.cc");
  EXPECT_EQ(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_EQ(m.kind, MatchKind::kDrifted);
}

// Hostile review hv17 (Liger 64f5e1d3 at a later head): an import added with a blank line after
// it; a later commit put another import between the two. The block without its blank edge line
// stands right after its leading context: present (was "change absent: the code it replaces
// stands where it belongs", a false absent for a pure insertion).
TEST(SectionPlace, ABlankLineAtTheBlocksEdgeIsLayout) {
  constexpr std::string_view kHunk =
      "@@ -2,6 +2,8 @@ def apply_glm4(rope=True, rms_norm=True):\n"
      "     from transformers.models.glm4 import modeling_glm4\n"
      "     from transformers.models.glm4.modeling_glm4 import Glm4Model\n"
      " \n"
      "+    from liger.glm4 import lce_forward as glm4_lce_forward\n"
      "+\n"
      "     if rope:\n"
      "         raise NotImplementedError(\"no rope for glm4\")\n"
      "     if rms_norm:\n";
  const std::string head =
      "def apply_glm4(rope=True, rms_norm=True):\n"
      "    from transformers.models.glm4 import modeling_glm4\n"
      "    from transformers.models.glm4.modeling_glm4 import Glm4Model\n\n";
  const std::string tail =
      "    from liger.rms_norm import LigerRMSNormForGlm4\n\n"
      "    if rope:\n        raise NotImplementedError(\"no rope for glm4\")\n"
      "    if rms_norm:\n        modeling_glm4.Glm4RMSNorm = LigerRMSNormForGlm4\n";
  const HunkMatch present = run_one(
      head + "    from liger.glm4 import lce_forward as glm4_lce_forward\n" + tail, kHunk, "m.py");
  EXPECT_EQ(present.status, HunkStatus::kApplied) << presence_words(present);
  const HunkMatch absent = run_one(head + tail, kHunk, "m.py");
  EXPECT_NE(absent.status, HunkStatus::kApplied) << presence_words(absent);
  EXPECT_NE(absent.presence, Presence::kPresent);
}

// --- Sections that say nothing of the change's place (hostile review hv17) -----------------

// ninja 3253f66fd1 at a later head: configure.py's `--debug` help text. The hunk's section is
// the line above its first context line, `parser.add_option('--host',`, a call statement; the
// change sits under `parser.add_option('--debug',`, a line of the hunk's own at column 0, and
// options were inserted between since. Was "its change stands only under another function than
// the one the hunk names" (a false conflict).
TEST(SectionPlace, ACallStatementTheHunkLeavesDoesNotVeto) {
  constexpr std::string_view kHunk =
      "@@ -6,7 +6,7 @@ parser.add_option('--host',\n"
      "                   help='host platform',\n"
      "                   choices=platforms)\n"
      " parser.add_option('--debug', action='store_true',\n"
      "-                  help='enable debugging flags',)\n"
      "+                  help='enable debugging extras',)\n"
      " parser.add_option('--profile', metavar='TYPE',\n"
      "                   choices=profilers,\n"
      "                   help='enable profiling',)\n";
  const std::string head =
      "import sys\n\nparser = OptionParser()\n"
      "parser.add_option('--verbose', action='store_true',\n"
      "                  help='enable verbose build',)\n"
      "parser.add_option('--host',\n"
      "                  help='host platform (' + '/'.join(platforms) + ')',\n"
      "                  choices=platforms)\n"
      "parser.add_option('--platform',\n                  help='target platform',\n"
      "                  choices=platforms)\n"
      "parser.add_option('--bootstrap', action='store_true',\n"
      "                  help='bootstrap a ninja binary from nothing')\n"
      "parser.add_option('--debug', action='store_true',\n";
  const std::string tail =
      "parser.add_option('--profile', metavar='TYPE',\n                  choices=profilers,\n"
      "                  help='enable profiling (' + '/'.join(profilers) + ')',)\n"
      "(options, args) = parser.parse_args()\n";
  const HunkMatch present =
      run_one(head + "                  help='enable debugging extras',)\n" + tail, kHunk,
              "configure.py");
  EXPECT_EQ(present.status, HunkStatus::kApplied) << presence_words(present);
  EXPECT_EQ(present.kind, MatchKind::kDrifted);
  EXPECT_EQ(present.line, 15u);
  const HunkMatch absent =
      run_one(head + "                  help='enable debugging flags',)\n" + tail, kHunk,
              "configure.py");
  EXPECT_NE(absent.presence, Presence::kPresent) << presence_words(absent);
}

// Liger 116e4d7238 at a later head: parametrize decorators of test_correctness changed, the
// section naming the class before them (`)` at column 0 in the hunk's context: its lines leave
// the class); a test function was inserted between the class and them since. Was "its change
// stands only under another function" (a false conflict).
TEST(SectionPlace, DecoratorsAfterAnInsertedFunctionAreNotVetoedByAClassSection) {
  constexpr std::string_view kHunk =
      "@@ -10,13 +10,12 @@ class LigerLMHeadGRPO(torch.nn.Module):\n"
      "     ],\n"
      " )\n"
      " @pytest.mark.parametrize(\n"
      "-    \"use_ref_model, use_ref_logps\",\n"
      "+    \"use_ref_model, use_ref_logps, old_logps\",\n"
      "     [\n"
      "-        (True, True),\n"
      "-        (False, False),\n"
      "+        (True, True, True),\n"
      "+        (False, False, True),\n"
      "     ],\n"
      " )\n"
      "-@pytest.mark.parametrize(\"old_logps\", [True, False])\n"
      " @pytest.mark.parametrize(\"loss_type\", [\"bnpo\", \"grpo\"])\n"
      " def test_correctness(\n"
      "     B,\n";
  const std::string top =
      "import pytest\nimport torch\n\n\nclass LigerLMHeadGRPO(torch.nn.Module):\n"
      "    def forward(self, x):\n        return x\n\n\n"
      "@pytest.mark.parametrize(\"loss_type\", [\"dapo\", \"grpo\"])\n"
      "@pytest.mark.parametrize(\"compiled\", [True, False])\n"
      "def test_large_seq_exercises_chunking(loss_type, compiled):\n"
      "    assert run_chunked(loss_type, compiled)\n\n\n"
      "@pytest.mark.parametrize(\n    \"B, T\",\n    [\n        (8, 128),\n    ],\n)\n";
  const std::string fixed =
      "@pytest.mark.parametrize(\n    \"use_ref_model, use_ref_logps, old_logps\",\n    [\n"
      "        (True, True, True),\n        (False, False, True),\n    ],\n)\n";
  const std::string old =
      "@pytest.mark.parametrize(\n    \"use_ref_model, use_ref_logps\",\n    [\n"
      "        (True, True),\n        (False, False),\n    ],\n)\n"
      "@pytest.mark.parametrize(\"old_logps\", [True, False])\n";
  const std::string tail =
      "@pytest.mark.parametrize(\"loss_type\", [\"bnpo\", \"grpo\", \"dr_grpo\", \"dapo\"])\n"
      "@pytest.mark.parametrize(\"delta\", [None, 2.0])\n"
      "def test_correctness(\n    B,\n    T,\n    loss_type,\n):\n"
      "    assert run(B, T, loss_type)\n";
  const HunkMatch present = run_one(top + fixed + tail, kHunk, "test_grpo.py");
  EXPECT_EQ(present.status, HunkStatus::kApplied) << presence_words(present);
  EXPECT_EQ(present.kind, MatchKind::kDrifted);
  const HunkMatch absent = run_one(top + old + tail, kHunk, "test_grpo.py");
  EXPECT_NE(absent.presence, Presence::kPresent) << presence_words(absent);
}

// FlashInfer 0d25b18340 on its own commit's tree: the patch renames impl_nvfp4() to
// _impl_fusion() (hunk 1) and adds a wrapper under the old signature at the end of the file
// (hunk 3) that holds the old body lines; hunk 2's section names the old function. The section
// sent hunk 2 to the wrapper's like lines (its pre-image) over its post-image at the expected
// line, and hunk 3 out of order: a false conflict. A section the patch rewrites tells neither
// image's place: the nearer match wins.
// expect_renamed_section_does_not_steer() takes the old and the new function name.
void expect_renamed_section_does_not_steer(const std::string& old_name,
                                           const std::string& new_name) {
  const std::string diff =
      "--- a/m.py\n+++ b/m.py\n"
      "@@ -3,3 +3,3 @@ import torch\n \n-def " + old_name + "(\n+def " + new_name + "(\n     a,\n"
      "@@ -10,5 +10,5 @@ def " + old_name + "(\n     u = scale(x)\n     v = scale(y)\n"
      "-    z = combine(u, v, mode=\"old\")\n+    z = combine(u, v, mode=\"new\")\n"
      "     w = finish(z)\n     return w\n"
      "@@ -17,2 +17,15 @@ def " + old_name + "(\n def other():\n     return 1\n+\n+\n"
      "+def " + old_name + "(\n+    a,\n+    b,\n+):\n+    x = prepare(a)\n+    y = prepare(b)\n"
      "+    u = scale(x)\n+    v = scale(y)\n+    z = combine(u, v, mode=\"old\")\n"
      "+    w = finish(z)\n+    return w\n";
  const std::string body = "    a,\n    b,\n):\n    x = prepare(a)\n    y = prepare(b)\n"
                           "    u = scale(x)\n    v = scale(y)\n";
  const std::string end = "    w = finish(z)\n    return w\n\n\ndef other():\n    return 1\n";
  const std::string pre =
      "import torch\n\n\ndef " + old_name + "(\n" + body + "    z = combine(u, v, mode=\"old\")\n" + end;
  const std::string post = "import torch\n\n\ndef " + new_name + "(\n" + body +
                           "    z = combine(u, v, mode=\"new\")\n" + end + "\n\ndef " + old_name + "(\n" +
                           body + "    z = combine(u, v, mode=\"old\")\n" +
                           "    w = finish(z)\n    return w\n";
  const std::vector<Patch> patches = parse_patches(diff, "t.diff");
  const std::vector<Hunk>& hunks = patches.at(0).files.at(0).hunks;
  const FileText after(post);
  const std::vector<HunkMatch> applied = match_hunks(after, hunks, {});
  ASSERT_EQ(applied.size(), 3u);
  for (const HunkMatch& m : applied) EXPECT_EQ(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_EQ(applied[1].line, 10u);
  const FileText before(pre);
  for (const HunkMatch& m : match_hunks(before, hunks, {}))
    EXPECT_EQ(m.status, HunkStatus::kApplicable) << presence_words(m);
}

TEST(SectionPlace, ASectionThePatchRenamesDoesNotSteer) {
  expect_renamed_section_does_not_steer("impl_nvfp4", "_impl_fusion");
}

// The same with a section shorter than the 8 bytes sections are looked up by ("def f("): the
// rewritten-section lookup takes a shorter section by its whole length.
TEST(SectionPlace, AShortSectionThePatchRenamesDoesNotSteerEither) {
  expect_renamed_section_does_not_steer("f", "_g");
}

// lightllm 62c006c83c at 96c5e235c1 (hr21 section_moved_exact_conflict): the argument parsing
// the hunk changes moved from main() (still in the file) into make_argument_parser(), fix and
// all. The post-image stands once, exactly; nothing of the pre-image is left, and main() holds
// none of its lines: the fix is in (was conflict, "found-elsewhere"; git apply -R finds it).
constexpr std::string_view kParserFix =
    "@@ -302,7 +302,8 @@ def main():\n"
    "         \"--tokenizer_mode\",\n"
    "         type=str,\n"
    "         default=\"slow\",\n"
    "-        help=\"\"\"tokenizer load mode, can be slow or auto\"\"\",\n"
    "+        help=\"\"\"tokenizer load mode, can be slow, fast or auto,\n"
    "+          fast mode gets the best performance\"\"\",\n"
    "     )\n"
    "     parser.add_argument(\n"
    "         \"--load_way\",\n";

/// make_argument_parser() holding `option` (the --tokenizer_mode argument), then main() with
/// `main_body`.
std::string parser_file(std::string_view option, std::string_view main_body) {
  std::string file = "import argparse\n\n\n";
  for (int i = 0; i < 12; ++i)
    file += "ROUTE_" + std::to_string(i) + " = \"/v" + std::to_string(i) + "\"\n";
  file +=
      "\n\ndef make_argument_parser():\n    parser = argparse.ArgumentParser()\n\n"
      "    parser.add_argument(\"--host\", type=str, default=\"127.0.0.1\")\n"
      "    parser.add_argument(\n" +
      std::string(option) +
      "    )\n    parser.add_argument(\n        \"--load_way\",\n        type=str,\n"
      "        default=\"HF\",\n    )\n    return parser\n\n\ndef main():\n" +
      std::string(main_body);
  return file;
}

constexpr std::string_view kFixedOption =
    "        \"--tokenizer_mode\",\n        type=str,\n        default=\"slow\",\n"
    "        help=\"\"\"tokenizer load mode, can be slow, fast or auto,\n"
    "          fast mode gets the best performance\"\"\",\n";
constexpr std::string_view kMainBody =
    "    parser = make_argument_parser()\n    args = parser.parse_args()\n    serve(args)\n";

TEST(SectionMoved, AnExactPostImageThatMovedOutOfTheNamedFunctionIsApplied) {
  const HunkMatch m = run_one(parser_file(kFixedOption, kMainBody), kParserFix, "api_server.py");
  EXPECT_EQ(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_EQ(m.presence, Presence::kPresent);
  EXPECT_EQ(m.kind, MatchKind::kExact);
  EXPECT_EQ(m.line, 23u);
}

// The limits: each of these keeps the copy set aside (never applied).
TEST(SectionMoved, ACopyIsNotTheFixWhileAnyOfTheOldCodeRemains) {
  // The named function still holds the old line (a sibling carries the fix).
  const std::string old_main =
      "    parser = argparse.ArgumentParser()\n    parser.add_argument(\n"
      "        \"--mode\",\n"
      "        help=\"\"\"tokenizer load mode, can be slow or auto\"\"\",\n    )\n";
  HunkMatch m = run_one(parser_file(kFixedOption, old_main), kParserFix, "api_server.py");
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_NE(m.presence, Presence::kPresent);
  // The named function still holds one of the hunk's context lines: its code is still there.
  const std::string near_main =
      std::string(kMainBody) + "    x = dict(\n        default=\"slow\",\n    )\n";
  m = run_one(parser_file(kFixedOption, near_main), kParserFix, "api_server.py");
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  // The post-image stands twice: which copy is the hunk's cannot be told.
  std::string twice = parser_file(kFixedOption, kMainBody);
  twice +=
      "\n\ndef make_other_parser():\n    parser = argparse.ArgumentParser()\n"
      "    parser.add_argument(\n" +
      std::string(kFixedOption) +
      "    )\n    parser.add_argument(\n        \"--load_way\",\n    )\n    return parser\n";
  m = run_one(twice, kParserFix, "api_server.py");
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_NE(m.presence, Presence::kPresent);
}

// Liger-Kernel c5bda07f36 after an extract-function refactor (hr21
// extract_function_false_conflict): a pure addition whose code, context and all, moved
// from the kernel its section names into a new helper. The named kernel keeps only its
// prologue: the fix is in. With the named kernel still holding the unfixed lines (the pre-image)
// the copy in the helper is not its fix.
TEST(SectionMoved, AFixMovedIntoAnExtractedHelperIsApplied) {
  const std::string_view hunk =
      "@@ -40,6 +40,8 @@ def liger_cross_entropy_kernel(\n"
      "     X_ptr += program_id * X_stride\n"
      "     Y_ptr += program_id * Y_stride\n"
      "     y = tl.load(Y_ptr)\n"
      "+    if y == ignore_index:\n"
      "+        return\n"
      "     m = float(\"-inf\")\n"
      "     d = 0.0\n"
      "     ori_X_y = tl.load(X_ptr + y)\n";
  const std::string body =
      "    X_ptr += program_id * X_stride\n    Y_ptr += program_id * Y_stride\n"
      "    y = tl.load(Y_ptr)\n";
  const std::string rest =
      "    m = float(\"-inf\")\n    d = 0.0\n    ori_X_y = tl.load(X_ptr + y)\n"
      "    tl.store(X_ptr, ori_X_y - m - d)\n";
  const std::string fixed = "    if y == ignore_index:\n        return\n";
  const std::string head =
      "import triton\nimport triton.language as tl\n\n\n"
      "def liger_cross_entropy_kernel(X_ptr, X_stride, Y_ptr, Y_stride, ignore_index):\n"
      "    program_id = tl.program_id(0)\n";
  const std::string helper =
      "\n\ndef _moved_part(X_ptr, X_stride, Y_ptr, Y_stride, ignore_index, program_id):\n";
  HunkMatch m = run_one(head + helper + body + fixed + rest, hunk, "cross_entropy.py");
  EXPECT_EQ(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_EQ(m.presence, Presence::kPresent);
  EXPECT_EQ(m.line, 10u);
  // The named kernel still has the unfixed code: the helper's copy is not its fix.
  m = run_one(head + body + rest + helper + body + fixed + rest, hunk, "cross_entropy.py");
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_NE(m.presence, Presence::kPresent);
}

// FlashInfer c35fb9935c (#3708) at fb28d7242 (new-user pass fu25): get_trtllm_moe_sm100_module()
// became a wrapper that calls _get_trtllm_moe_sm100_module_impl(), which holds its former body.
// A pure deletion in a nested op of it: its context meets exactly once, under the _impl, and
// the removed lines stand nowhere. Was conflict ("found-elsewhere": the section steered the
// hunk away, and a pure deletion was never taken as moved); git apply -R and --strict find it.
constexpr std::string_view kLoraCheckRemoved =
    "@@ -12,13 +12,6 @@ def get_moe_module():\n"
    "             if quant_type == QuantType.DeepSeekFp8\n"
    "             else DtypeTrtllmGen.MxE4m3\n"
    "         )  # FP8 weights\n"
    "-        if (\n"
    "-            gemm1_lora_delta is not None\n"
    "-            and quant_type != QuantType.MxFp8\n"
    "-        ):\n"
    "-            raise NotImplementedError(\n"
    "-                \"LoRA delta is only supported for MxFp8 block-scale MoE.\"\n"
    "-            )\n"
    "         _validate_gemm1_activation_params(\n"
    "             quant_type,\n"
    "             activation_type,\n";

/// The wrapper get_moe_module() with `wrapper_body`, then the _impl it may call, whose nested
/// op holds `op_body` between the weights' dtype and the validation call.
std::string moe_module(std::string_view wrapper_body, std::string_view op_body) {
  std::string file = "import functools\n\n\ndef get_moe_module():\n" + std::string(wrapper_body);
  file += "\n\n@functools.cache\ndef _get_moe_module_impl(enable_rubin: bool):\n"
          "    module = gen_moe_module(enable_rubin=enable_rubin)\n\n"
          "    def fp8_block_scale_moe_op(hidden_states, quant_type, gemm1_lora_delta):\n";
  for (int i = 0; i < 20; ++i) file += "        step_" + std::to_string(i) + "(hidden_states)\n";
  file += "        dtype_weights = (\n"
          "            DtypeTrtllmGen.E4m3\n"
          "            if quant_type == QuantType.DeepSeekFp8\n"
          "            else DtypeTrtllmGen.MxE4m3\n"
          "        )  # FP8 weights\n";
  file += op_body;
  file += "        _validate_gemm1_activation_params(\n"
          "            quant_type,\n"
          "            activation_type,\n"
          "        )\n"
          "        return module.run(hidden_states)\n\n"
          "    return fp8_block_scale_moe_op\n";
  return file;
}

constexpr std::string_view kWrapperBody =
    "    device = torch.device(\"cuda\", torch.cuda.current_device())\n"
    "    enable_rubin = get_compute_capability(device) == (10, 7)\n"
    "    return _get_moe_module_impl(enable_rubin)\n";

constexpr std::string_view kLoraCheck =
    "        if (\n"
    "            gemm1_lora_delta is not None\n"
    "            and quant_type != QuantType.MxFp8\n"
    "        ):\n"
    "            raise NotImplementedError(\n"
    "                \"LoRA delta is only supported for MxFp8 block-scale MoE.\"\n"
    "            )\n";

TEST(SectionDelegated, ADeletionInTheFunctionTheNamedWrapperCallsIsApplied) {
  const HunkMatch m = run_one(moe_module(kWrapperBody, ""), kLoraCheckRemoved, "core.py");
  EXPECT_EQ(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_EQ(m.presence, Presence::kPresent);
  EXPECT_EQ(m.kind, MatchKind::kExact);
  EXPECT_EQ(m.line, 37u);
  // Not yet applied: the pre-image stands there, applicable.
  const HunkMatch a = run_one(moe_module(kWrapperBody, kLoraCheck), kLoraCheckRemoved, "core.py");
  EXPECT_EQ(a.status, HunkStatus::kApplicable) << presence_words(a);
}

// The limits: each keeps the match set aside (never applied).
TEST(SectionDelegated, TheMatchIsNotTheFixUnlessTheNamedFunctionHandsItsWorkThere) {
  // The named function does not call the _impl: another function's like lines.
  const std::string own_body =
      "    module = load_prebuilt_module()\n    return module\n";
  HunkMatch m = run_one(moe_module(own_body, ""), kLoraCheckRemoved, "core.py");
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_NE(m.presence, Presence::kPresent);
  // It calls the _impl but still holds a line of the hunk (its validation call): its code is
  // still its own.
  const std::string still =
      std::string(kWrapperBody) + "    _validate_gemm1_activation_params(\n";
  m = run_one(moe_module(still, ""), kLoraCheckRemoved, "core.py");
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  // The removed lines still stand elsewhere in the file (another op kept the check): the
  // meeting context alone does not say the deletion was made where the hunk belongs.
  std::string kept = moe_module(kWrapperBody, "");
  kept += "\n\ndef fp4_block_scale_moe_op(quant_type, gemm1_lora_delta):\n" +
          std::string(kLoraCheck) + "        return None\n";
  m = run_one(kept, kLoraCheckRemoved, "core.py");
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_NE(m.presence, Presence::kPresent);
}

// FlashInfer 5e0bd1ee8e-era hunks at fb28d7242 (0003's hunk 4, 0013's hunks 6-7 of the
// fu25 batch): a parameter added to the signature of an op nested in the _impl, whose sibling
// ops have like parameters without it (five of its six context lines meet there). Was conflict
// ("found-elsewhere": the siblings' signatures read as the old code left somewhere).
TEST(SectionDelegated, AnAdditionInTheFunctionTheNamedWrapperCallsIsApplied) {
  const std::string_view hunk =
      "@@ -20,6 +20,7 @@ def get_moe_module():\n"
      "         activation_type: int = ActivationType.Swiglu.value,\n"
      "         norm_topk_prob: bool = True,\n"
      "         routing_replay_out: Optional[torch.Tensor] = None,\n"
      "+        output: Optional[torch.Tensor] = None,\n"
      "     ) -> List[torch.Tensor]:\n"
      "         if enable_pdl is None:\n"
      "             enable_pdl = device_support_pdl(hidden_states.device)\n";
  const auto op = [](std::string_view name, std::string_view extra, std::string_view norm) {
    return "    def " + std::string(name) +
           "(\n"
           "        hidden_states: torch.Tensor,\n"
           "        enable_pdl: Optional[bool] = None,\n"
           "        activation_type: int = ActivationType.Swiglu.value,\n"
           "        norm_topk_prob: bool = " + std::string(norm) + ",\n"
           "        routing_replay_out: Optional[torch.Tensor] = None,\n" +
           std::string(extra) +
           "    ) -> List[torch.Tensor]:\n"
           "        if enable_pdl is None:\n"
           "            enable_pdl = device_support_pdl(hidden_states.device)\n"
           "        return run(hidden_states)\n\n";
  };
  const std::string ops =
      op("fp8_per_tensor_moe_op", "        output: Optional[torch.Tensor] = None,\n", "True") +
      op("bf16_moe_op", "", "False") + op("fp4_moe_op", "", "False");
  HunkMatch m = run_one(moe_module(kWrapperBody, "") + "\n" + ops, hunk, "core.py");
  EXPECT_EQ(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_EQ(m.kind, MatchKind::kExact);
  // Without the call in the wrapper, the section keeps it set aside as before.
  m = run_one(moe_module("    return None\n", "") + "\n" + ops, hunk, "core.py");
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_NE(m.presence, Presence::kPresent);
}

}  // namespace
}  // namespace sm120check
