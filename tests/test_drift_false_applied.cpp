// Tests of the drift search's guards against a false `applied` (src/match/drift.cpp): a
// change found drifted while the code it replaces still stands where the hunk belongs is never
// `present`. Cases from the hostile review of 2026-12-02 (/tmp/hr21), each reduced to a small
// inline file; every one read `applied` (drifted) before the rule its comment names.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "sm120check/match.hpp"
#include "sm120check/patch.hpp"
#include "test_util.hpp"
#include "../src/match/drift.hpp"

namespace sm120check {
namespace {

HunkMatch run_one(const std::string& file, std::string_view hunk, std::string_view name) {
  return test::match_one_hunk(file, hunk, name);
}

// Liger-Kernel 2fcfe7e416: a hunk changing mixtral's signature, whose leading context holds
// `def apply_to_mixtral(`; git's section is the function before, mistral, which already has
// the added lines. Mixtral's signature drifted in two lines and still has the old line.
constexpr std::string_view kMixtralFix =
    "@@ -9,7 +9,8 @@ def apply_to_mistral(\n"
    " \n"
    " def apply_to_mixtral(\n"
    "     rope: bool = True,\n"
    "-    cross_entropy: bool = True,\n"
    "+    cross_entropy: bool = False,\n"
    "+    fused_linear_cross_entropy: bool = True,\n"
    "     rms_norm: bool = True,\n"
    "     swiglu: bool = True,\n"
    " ) -> None:\n";

const std::string kMistral =
    "def apply_to_mistral(\n"
    "    rope: bool = True,\n"
    "    cross_entropy: bool = False,\n"
    "    fused_linear_cross_entropy: bool = True,\n"
    "    rms_norm: bool = True,\n"
    "    swiglu: bool = True,\n"
    ") -> None:\n"
    "    patch_mistral(rope, cross_entropy)\n";

TEST(DriftFalseApplied, TheSectionBeforeTheHunksOwnDefinitionDoesNotPlaceIt) {
  const std::string file = kMistral +
                           "\n\ndef apply_to_mixtral(\n"
                           "    rope: bool = True,\n"
                           "    cross_entropy: bool = True,\n"
                           "    rms_norm: bool = False,\n"
                           "    swiglu: bool = False,\n"
                           ") -> None:\n"
                           "    patch_mixtral(rope, cross_entropy)\n";
  const HunkMatch m = run_one(file, kMixtralFix, "monkey_patch.py");
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_NE(m.presence, Presence::kPresent);
  // Control: mixtral fixed (and drifted): present there, not in mistral.
  const std::string fixed = kMistral +
                            "\n\ndef apply_to_mixtral(\n"
                            "    rope: bool = True,\n"
                            "    cross_entropy: bool = False,\n"
                            "    fused_linear_cross_entropy: bool = True,\n"
                            "    rms_norm: bool = False,\n"
                            "    swiglu: bool = False,\n"
                            ") -> None:\n"
                            "    patch_mixtral(rope, cross_entropy)\n";
  const HunkMatch f = run_one(fixed, kMixtralFix, "monkey_patch.py");
  EXPECT_EQ(f.status, HunkStatus::kApplied) << presence_words(f);
  EXPECT_EQ(f.line, 13u);
}

// Hostile review hr26: a guard the fix adds at the end of extend_config(), its trailing context
// ending with `def prefill_config(dim):`. In the tree extend_config() was edited since and lacks
// the guard; prefill_config(), the function after it, has one of its own with the hunk's
// leading context around it. The change stands before the trailing context's definition,
// never inside it: not applied (it read applied at line 19, exit 0). With the guard added to
// extend_config() it is present there.
TEST(DriftFalseApplied, TheChangeIsNeverInsideTheDefinitionItsTrailingContextBegins) {
  const std::string hunk =
      "@@ -10,6 +10,8 @@\n"
      "     num_warps = 8\n"
      "     num_stages = 3\n"
      "     block = 128\n"
      "+    if torch.cuda.get_device_capability()[0] == 12:\n"
      "+        num_stages = 1\n"
      "     return num_warps, num_stages, block\n"
      " \n"
      " def prefill_config(dim):\n";
  auto tree = [](const std::string& name, const std::string& guard) {
    return "import torch\n\ndef decode_config(dim):\n    num_warps = 4\n    num_stages = 2\n"
           "    block = 64\n    return num_warps, num_stages, block\n\n"
           "def " + name + "(dim, causal=False):\n    num_warps = 8 if causal else 4\n"
           "    num_stages = 3\n    block = 256\n" + guard +
           "    return num_warps, num_stages, block\n\n"
           "def prefill_config(dim):\n    num_warps = 8\n    num_stages = 3\n    block = 128\n"
           "    if torch.cuda.get_device_capability()[0] == 12:\n        num_stages = 1\n"
           "    return num_warps, num_stages, block\n";
  };
  const HunkMatch m = run_one(tree("extend_config", ""), hunk, "k.py");
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_NE(m.presence, Presence::kPresent) << presence_words(m);
  // The same with a git section naming a function the tree renamed since.
  std::string with_section = hunk;
  with_section.replace(with_section.find("@@\n"), 3, "@@ def extend_config(dim):\n");
  const HunkMatch r = run_one(tree("extend_cfg", ""), with_section, "k.py");
  EXPECT_NE(r.status, HunkStatus::kApplied) << presence_words(r);
  EXPECT_NE(r.presence, Presence::kPresent) << presence_words(r);
  // Control: the guard in extend_config() too: present there.
  const std::string guard =
      "    if torch.cuda.get_device_capability()[0] == 12:\n        num_stages = 1\n";
  const HunkMatch f = run_one(tree("extend_config", guard), hunk, "k.py");
  EXPECT_EQ(f.presence, Presence::kPresent) << presence_words(f);
  EXPECT_EQ(f.line, 13u) << presence_words(f);
}

// bitsandbytes b72b766ee3a3 adds `set(BUILD_HIP OFF)` to the xpu branch of CMakeLists.txt,
// before `set(BUILD_XPU ON)` and `else()`. drift_acceptance's negative control (HEAD's file
// with that line taken out again) read applied: the else branch's own `set(BUILD_HIP OFF)`,
// its leading context matched above those two trailing-context lines. Context found past a
// line only the other side's context has is not the placement's: unknown, both places.
TEST(DriftFalseApplied, ContextFoundPastTheOtherSidesContextIsNotThePlacements) {
  const std::string hunk =
      "@@ -70,6 +70,7 @@ elseif(${COMPUTE_BACKEND} STREQUAL \"xpu\")\n"
      "         message(FATAL_ERROR \"XPU is not supported on macOS\" )\n"
      "     endif()\n"
      "     set(BUILD_CUDA OFF)\n"
      "+    set(BUILD_HIP OFF)\n"
      "     set(BUILD_MPS OFF)\n"
      "     set(BUILD_XPU ON)\n"
      " else()\n";
  auto tree = [](const std::string& fixed) {
    return "if(${COMPUTE_BACKEND} STREQUAL \"hip\")\n"
           "    set(BUILD_CUDA OFF)\n"
           "    set(BUILD_HIP ON)\n"
           "elseif(${COMPUTE_BACKEND} STREQUAL \"xpu\")\n"
           "    if(APPLE)\n"
           "        message(FATAL_ERROR \"XPU is not supported on macOS\" )\n"
           "    endif()\n"
           "    set(BUILD_CUDA OFF)\n" +
           fixed +
           "    set(BUILD_XPU ON)\n"
           "else()\n"
           "    set(BUILD_CUDA OFF)\n"
           "    set(BUILD_HIP OFF)\n"
           "    set(BUILD_XPU OFF)\n"
           "    set(BUILD_CPU ON)\n"
           "endif()\n";
  };
  const HunkMatch m = run_one(tree(""), hunk, "CMakeLists.txt");
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_NE(m.presence, Presence::kPresent) << presence_words(m);
  // Control: the line where the fix put it (MPS gone since): present there.
  const HunkMatch f = run_one(tree("    set(BUILD_HIP OFF)\n"), hunk, "CMakeLists.txt");
  EXPECT_EQ(f.presence, Presence::kPresent) << presence_words(f);
  EXPECT_EQ(f.line, 9u) << presence_words(f);
}

// Hostile review hr27: the hunk's own method was edited since (its changed line and a context
// line), and a sibling method holds a copy of the added line with less of the context. The
// context fits better where the change belongs: both stand as far as the file tells, unknown
// (it read applied, exit 0, in C++ and in Python, whether or not the trailing context reaches
// the next definition's line).
TEST(DriftFalseApplied, ASiblingsCopyLosesToTheEditedPlaceTheContextFitsBetter) {
  const std::string cpp_hunk =
      "@@ -4,7 +4,7 @@ struct Runner {\n"
      "     this->counter += 1;\n"
      "     this->log_step(n);\n"
      "     acc += reduce_rest(x, n);\n"
      "-    acc = clamp_range(acc, 255);\n"
      "+    acc = clamp_range(acc, 127);\n"
      "     return acc;\n"
      "   }\n"
      " \n";
  auto cpp = [](const std::string& own) {
    return "struct Runner {\n"
           "  float first(const float* x, int n) {\n"
           "    float acc = load_first_v2(x);\n"
           "    this->counter += 1;\n"
           "    this->log_step(n);\n"
           "    acc += reduce_rest(x, n, 2);\n" +
           own +
           "    return acc;\n"
           "  }\n"
           "\n"
           "  float second(const float* x, int n) {\n"
           "    float acc = load_first(x);\n"
           "    acc += reduce_rest(x, n);\n"
           "    acc = clamp_range(acc, 127);\n"
           "    return acc;\n"
           "  }\n"
           "};\n";
  };
  const HunkMatch m = run_one(cpp("    acc = saturate(acc, 255);\n"), cpp_hunk, "f.cpp");
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_NE(m.presence, Presence::kPresent) << presence_words(m);
  // Control: the fix in first() too: present there.
  const HunkMatch f = run_one(cpp("    acc = clamp_range(acc, 127);\n"), cpp_hunk, "f.cpp");
  EXPECT_EQ(f.presence, Presence::kPresent) << presence_words(f);
  EXPECT_EQ(f.line, 7u) << presence_words(f);

  const std::string py_hunk =
      "@@ -4,7 +4,7 @@ class Runner:\n"
      "         self.counter += 1\n"
      "         self.log(\"first\")\n"
      "         shifted = base + self.scale\n"
      "-        result = shifted.clamp_values(0, 255)\n"
      "+        result = shifted.clamp_values(0, 127)\n"
      "         return result\n"
      " \n"
      "     @staticmethod\n";
  const std::string py =
      "class Runner:\n"
      "    def first(self, x):\n"
      "        base = x.load_tensor_v2()\n"
      "        self.counter += 1\n"
      "        self.log(\"first\")\n"
      "        shifted = base + self.scale * 2\n"
      "        result = shifted.saturate(0, 255)\n"
      "        return result\n"
      "\n"
      "    @staticmethod\n"
      "    def second(x, scale):\n"
      "        base = x.load_tensor()\n"
      "        shifted = base + scale\n"
      "        result = shifted.clamp_values(0, 127)\n"
      "        return result\n";
  const HunkMatch p = run_one(py, py_hunk, "f.py");
  EXPECT_NE(p.status, HunkStatus::kApplied) << presence_words(p);
  EXPECT_NE(p.presence, Presence::kPresent) << presence_words(p);
}

// Liger-Kernel f8f1055abd on a tree four commits older: the hunk's own function (falcon_h1)
// is not in the file at all, and the added lines stand in internvl, the section's function.
TEST(DriftFalseApplied, TheSectionsFunctionIsNotTheHunksWhenItsOwnDefinitionDiffers) {
  constexpr std::string_view hunk =
      "@@ -9,8 +9,8 @@ def apply_to_internvl(\n"
      " \n"
      " def apply_to_falcon_h1(\n"
      "     rope: bool = True,\n"
      "-    cross_entropy: bool = True,\n"
      "-    fused_linear_cross_entropy: bool = False,\n"
      "+    cross_entropy: bool = False,\n"
      "+    fused_linear_cross_entropy: bool = True,\n"
      "     rms_norm: bool = True,\n"
      "     swiglu: bool = False,\n"
      "     model: PreTrainedModel = None,\n";
  const std::string file =
      "def apply_to_internvl(\n"
      "    rope: bool = True,\n"
      "    cross_entropy: bool = False,\n"
      "    fused_linear_cross_entropy: bool = True,\n"
      "    rms_norm: bool = True,\n"
      "    swiglu: bool = False,\n"
      "    model: PreTrainedModel = None,\n"
      ") -> None:\n"
      "    patch_internvl(rope, cross_entropy)\n";
  const HunkMatch m = run_one(file, hunk, "monkey_patch.py");
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_NE(m.presence, Presence::kPresent);
}

// lmdeploy 967df47f57: a hunk removing ten lines and adding back their first two, on the
// pre-image with one context line changed: the two lines are found, and so is the whole old
// block around them (it reaches past them farther than the context does: no shadow).
TEST(DriftFalseApplied, ARemovedBlockStandingAroundItsAddedPrefixIsOldCode) {
  constexpr std::string_view hunk =
      "@@ -1,16 +1,8 @@ class Base:\n"
      " class Llama(Base):\n"
      "     def decorate(self, prompt):\n"
      "         if self.suffix_first:\n"
      "-            return self.prefix + prompt\n"
      "-        return prompt + self.suffix\n"
      "-\n"
      "-class ChatGLM2(Base):\n"
      "-    def decorate(self, prompt):\n"
      "-        return self.system + prompt\n"
      "-\n"
      "-class Solar(Base):\n"
      "-    def decorate(self, prompt):\n"
      "-        return self.solar + prompt\n"
      "+            return self.prefix + prompt\n"
      "+        return prompt + self.suffix\n"
      " \n"
      " class Tail(Base):\n"
      "     name = \"tail\"\n";
  const std::string file =
      "class Llama(Base):\n"
      "    def decorate(self, prompt):\n"
      "        if self.suffix_first is True:\n"
      "            return self.prefix + prompt\n"
      "        return prompt + self.suffix\n"
      "\n"
      "class ChatGLM2(Base):\n"
      "    def decorate(self, prompt):\n"
      "        return self.system + prompt\n"
      "\n"
      "class Solar(Base):\n"
      "    def decorate(self, prompt):\n"
      "        return self.solar + prompt\n"
      "\n"
      "class Tail(Base):\n"
      "    name = \"tail\"\n";
  const HunkMatch m = run_one(file, hunk, "model.py");
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_NE(m.presence, Presence::kPresent);
  // Control: the old classes gone (and the context line still drifted): present.
  const std::string fixed =
      "class Llama(Base):\n"
      "    def decorate(self, prompt):\n"
      "        if self.suffix_first is True:\n"
      "            return self.prefix + prompt\n"
      "        return prompt + self.suffix\n"
      "\n"
      "class Tail(Base):\n"
      "    name = \"tail\"\n";
  const HunkMatch f = run_one(fixed, hunk, "model.py");
  EXPECT_EQ(f.status, HunkStatus::kApplied) << presence_words(f);
}

// lightllm 72c5fa8ba8: a call rewritten in decode_b; decode_a, far above, already has the new
// call with more of the hunk's context around it (decode_b's slice was reformatted and the
// next method renamed), while the old call still stands in decode_b, where the header puts it.
TEST(DriftFalseApplied, ASiblingsBetterContextDoesNotOutweighOldCodeWhereTheHunkBelongs) {
  constexpr std::string_view hunk =
      "@@ -33,7 +33,12 @@ class Layer(Base):\n"
      "             :, self.k_heads : self.k_heads + self.v_heads, :\n"
      "         ]\n"
      "         return flash_decoding(\n"
      "-            q, infer_state, cache_k, cache_v, out=out\n"
      "+            q,\n"
      "+            infer_state,\n"
      "+            cache_k,\n"
      "+            cache_v,\n"
      "+            out=out,\n"
      "+            alloc_tensor_func=self.alloc_tensor,\n"
      "         )\n"
      " \n"
      "     def decode_int8(self, q, infer_state):\n";
  std::string file =
      "class Layer(Base):\n"
      "    def decode_a(self, q, infer_state):\n"
      "        cache_k = infer_state.kv[:, 0 : self.k_heads, :]\n"
      "        cache_v = infer_state.kv[\n"
      "            :, self.k_heads : self.k_heads + self.v_heads, :\n"
      "        ]\n"
      "        return flash_decoding(\n"
      "            q,\n"
      "            infer_state,\n"
      "            cache_k,\n"
      "            cache_v,\n"
      "            out=out,\n"
      "            alloc_tensor_func=self.alloc_tensor,\n"
      "        )\n"
      "\n"
      "    def decode_ppl(self, q, infer_state):\n";
  for (int i = 0; i < 12; ++i) file += "        step_" + std::to_string(i) + "(q, infer_state)\n";
  file +=
      "\n"
      "    def decode_b(self, q, infer_state):\n"
      "        cache_k = infer_state.kv[:, 0 : self.k_heads, :]\n"
      "        cache_v = infer_state.kv[\n"
      "            :, self.k_heads:self.k_heads + self.v_heads, :\n"
      "        ]\n"
      "        return flash_decoding(\n"
      "            q, infer_state, cache_k, cache_v, out=out\n"
      "        )\n"
      "\n"
      "    def decode_int8_v2(self, q, infer_state):\n"
      "        return None\n";
  // The old call is at line 36, where the header (33, plus three context lines) puts it.
  ASSERT_NE(file.find("        ]\n        return flash_decoding(\n            q, infer_state,"),
            std::string::npos);
  const HunkMatch m = run_one(file, hunk, "layer_infer.py");
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_NE(m.presence, Presence::kPresent);
}

// FlashInfer f4043ef18c's test hunk #7 on the fix's parent with every non-blank context line
// edited (hr21 harness drift.py): the old decorator line still stands right where the header
// puts the hunk, with none of its context; another test method of the class, far above, already
// has the new decorator with two context lines around it. That copy read `applied` (drifted);
// the hunk's whole removed block (a strong one) standing within the hunk's length of its place
// is the old code there: both stand.
TEST(DriftFalseApplied, TheRemovedBlockAtItsPlaceOutweighsAFarCopyWhateverItsContext) {
  const std::string_view hunk =
      "@@ -30,7 +30,9 @@ class TestMoe:\n"
      "             f\"than SwiGLU reference ({err:.4f})\"\n"
      "         )\n"
      " \n"
      "-    @pytest.mark.parametrize(\"use_per_token_activation\", [False, True])\n"
      "+    @pytest.mark.parametrize(\n"
      "+        \"quant_mode,use_per_token_activation\", _QUANT_MODE_CASES\n"
      "+    )\n"
      "     @pytest.mark.parametrize(\n"
      "         \"situ_beta,situ_linear_beta\",\n"
      "         [(1.75, None), (0.8, 1.5)],\n";
  std::string file =
      "import pytest\n\n"
      "class TestMoe:\n"
      "    @pytest.mark.parametrize(\n"
      "        \"quant_mode,use_per_token_activation\", _QUANT_MODE_CASES\n"
      "    )\n"
      "    @pytest.mark.parametrize(\n"
      "        \"hidden_size\", [256, 1024]\n"
      "    )\n"
      "    def test_accuracy(self, quant_mode, use_per_token_activation, hidden_size):\n";
  for (int i = 0; i < 17; ++i) file += "        check_case(" + std::to_string(i) + ")\n";
  file +=
      "        assert err < ref_err, (\n"
      "            f\"than the SwiGLU reference ({err:.3f})\"  # edited\n"
      "        )  # edited\n"
      "\n"
      "    @pytest.mark.parametrize(\"use_per_token_activation\", [False, True])\n"
      "    @pytest.mark.parametrize(  # edited\n"
      "        \"situ_beta,situ_linear_beta\",  # edited\n"
      "        [(1.75, None), (0.8, 1.5)],  # edited\n"
      "    )\n"
      "    def test_situ_accuracy(self, use_per_token_activation, situ_beta, situ_linear_beta):\n"
      "        check_situ(situ_beta, situ_linear_beta)\n";
  const HunkMatch m = run_one(file, hunk, "test_moe.py");
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_NE(m.presence, Presence::kPresent);
  EXPECT_EQ(m.presence_reason, "removed-lines-present");
  EXPECT_EQ(m.places, (std::vector<std::size_t>{32, 4}));
  // Control: with the old line gone from its place (the fix in there, its context edited),
  // the block found there is the change.
  const std::string at =
      "    @pytest.mark.parametrize(\"use_per_token_activation\", [False, True])\n";
  std::string fixed = file;
  fixed.replace(fixed.find(at), at.size(),
                "    @pytest.mark.parametrize(\n"
                "        \"quant_mode,use_per_token_activation\", _QUANT_MODE_CASES\n"
                "    )\n");
  const HunkMatch f = run_one(fixed, hunk, "test_moe.py");
  EXPECT_EQ(f.status, HunkStatus::kApplied) << presence_words(f);
}

// The same with a hunk of two change groups (f4043ef18c's test hunks #9 and #10 on the edited
// parent): the context between the groups was rewritten too, so the removed block as a whole
// stands nowhere; its first run of removed lines, a strong one, still stands at its place.
TEST(DriftFalseApplied, ARunOfRemovedLinesAtItsPlaceOutweighsAFarCopy) {
  const std::string_view hunk =
      "@@ -30,10 +30,9 @@ class TestMoe:\n"
      "             situ_beta=situ_beta,\n"
      "             situ_linear_beta=situ_linear_beta,\n"
      "-            per_token_scale=tensors[\"x_per_token_scale\"],\n"
      "+            **api_inputs,\n"
      "         )\n"
      " \n"
      "         ref_output = compute_reference(\n"
      "-            hidden_states=tensors[\"x_ref\"].float().cuda(),\n"
      "-            gemm1_weights=tensors[\"w1_weight_bf16\"].float().cuda(),\n"
      "+            **reference_inputs,\n"
      "             token_selected_experts=tensors[\"token_selected_experts\"],\n"
      "             num_tokens=num_tokens,\n";
  std::string file =
      "import pytest\n\n"
      "class TestMoe:\n"
      "    def test_a(self):\n"
      "        result = run_moe(\n"
      "            situ_beta=situ_beta,\n"
      "            situ_linear_beta=situ_linear_beta,\n"
      "            **api_inputs,\n"
      "        )\n"
      "\n"
      "        ref_output = compute_reference(\n"
      "            **reference_inputs,\n"
      "            token_selected_experts=tensors[\"token_selected_experts\"],\n"
      "            num_tokens=n,\n"
      "        )\n";
  for (int i = 0; i < 12; ++i) file += "        check_case(" + std::to_string(i) + ")\n";
  file +=
      "    def test_b(self):\n"
      "        result = run_moe(\n"
      "            situ_beta=beta,\n"
      "            situ_linear_beta=linear_beta,\n"
      "            per_token_scale=tensors[\"x_per_token_scale\"],\n"
      "        )  # b\n"
      "\n"
      "        ref = compute_reference(\n"
      "            hidden_states=tensors[\"x_ref\"].float().cuda(),\n"
      "            gemm1_weights=tensors[\"w1_weight_bf16\"].float().cuda(),\n"
      "            token_selected_experts=tensors[\"experts\"],\n"
      "            num_tokens=count,\n"
      "        )\n";
  const HunkMatch m = run_one(file, hunk, "test_moe.py");
  EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m);
  EXPECT_NE(m.presence, Presence::kPresent);
  EXPECT_EQ(m.presence_reason, "removed-lines-present");
  // Control: test_b fixed as well (its context still rewritten): present (test_a's copy has
  // more of the context).
  std::string fixed = file;
  const std::string run1 = "            per_token_scale=tensors[\"x_per_token_scale\"],\n";
  fixed.replace(fixed.find(run1), run1.size(), "            **api_inputs,\n");
  const std::string run2 =
      "            hidden_states=tensors[\"x_ref\"].float().cuda(),\n"
      "            gemm1_weights=tensors[\"w1_weight_bf16\"].float().cuda(),\n";
  fixed.replace(fixed.find(run2), run2.size(), "            **reference_inputs,\n");
  const HunkMatch f = run_one(fixed, hunk, "test_moe.py");
  EXPECT_EQ(f.status, HunkStatus::kApplied) << presence_words(f);
  EXPECT_EQ(f.presence, Presence::kPresent);
}


// --- The hr21 drift harness on real commits (context of the hunk edited in the parent) ---------

/// All hunks of the one file patch `hunks` (of file `name`) matched against `file`.
std::vector<HunkMatch> run_all(const std::string& file, std::string_view hunks,
                               std::string_view name) {
  const std::string diff = "--- a/" + std::string(name) + "\n+++ b/" + std::string(name) + "\n" +
                           std::string(hunks);
  const std::vector<Patch> patches = parse_patches(diff, "t.diff");
  const FileText text(file);
  return match_hunks(text, patches.at(0).files.at(0).hunks, {});
}

// FlashInfer f4043ef18c hunk 7 (fused_moe.py): two keyword arguments added to the w4a16 branch's
// call; the nvfp4 branch's call above already has them, with all six context lines around
// them. The parent with the hunk's context edited: hunks 1 and 3 match at offset 0, the block
// stands only before hunk 1. Was `applied` (drifted, line 8): out of hunk order it is not the
// fix.
constexpr std::string_view kBranchFix =
    "@@ -14,7 +14,7 @@ def run(mode, a, b):\n"
    "         return launch(cfg, inputs)\n"
    "     elif mode == \"y\":\n"
    "         prepare(a)\n"
    "-        check_y(a)\n"
    "+        check_y(a, b)\n"
    "         note(a)\n"
    "         warm(a)\n"
    "         log(a)\n"
    "@@ -25,6 +25,8 @@ def run(mode, a, b):\n"
    "             alpha=a,\n"
    "             beta=b,\n"
    "             limit=None,\n"
    "+            situ_beta=sb,\n"
    "+            situ_linear_beta=slb,\n"
    "         )\n"
    "         inputs = [\n"
    "             b,\n"
    "@@ -33,5 +35,5 @@ def run(mode, a, b):\n"
    "         record(b)\n"
    "         flush(b)\n"
    "         close(b)\n"
    "-        finish(b)\n"
    "+        finish(b, a)\n"
    "         return launch(cfg, inputs)\n";

/// The function with both branches; the y branch's call as `call` (its edited context).
std::string two_branches(std::string_view call) {
  return std::string(
             "def run(mode, a, b):\n"
             "    if mode == \"x\":\n"
             "        check_x(a)\n"
             "        cfg = make(\n"
             "            alpha=a,\n"
             "            beta=b,\n"
             "            limit=None,\n"
             "            situ_beta=sb,\n"
             "            situ_linear_beta=slb,\n"
             "        )\n"
             "        inputs = [\n"
             "            a,\n"
             "        ]\n"
             "        return launch(cfg, inputs)\n"
             "    elif mode == \"y\":\n"
             "        prepare(a)\n"
             "        check_y(a)\n"
             "        note(a)\n"
             "        warm(a)\n"
             "        log(a)\n"
             "        trace(a)\n"
             "        sync(a)\n"
             "        wait(a)\n"
             "        cfg = make(\n") +
         std::string(call) +
         "        ]\n"
         "        tune(b)\n"
         "        record(b)\n"
         "        flush(b)\n"
         "        close(b)\n"
         "        finish(b)\n"
         "        return launch(cfg, inputs)\n";
}

TEST(DriftFalseApplied, ABlockStandingOutOfHunkOrderIsNotTheFix) {
  const std::string file = two_branches(
      "            alpha=a,  # edited\n"
      "            beta=b,  # edited\n"
      "            limit=None,  # edited\n"
      "        )  # edited\n"
      "        inputs = [  # edited\n"
      "            b,  # edited\n");
  const std::vector<HunkMatch> m = run_all(file, kBranchFix, "fused_moe.py");
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].status, HunkStatus::kApplicable);
  EXPECT_EQ(m[2].status, HunkStatus::kApplicable);
  EXPECT_NE(m[1].status, HunkStatus::kApplied) << presence_words(m[1]);
  EXPECT_EQ(m[1].presence, Presence::kUnknown);
  EXPECT_EQ(m[1].presence_reason, "out-of-hunk-order");
  EXPECT_EQ(m[1].places, std::vector<std::size_t>{8});
  // Control: the y branch's call fixed (its context still edited): present, in order.
  const std::string fixed = two_branches(
      "            alpha=a,  # edited\n"
      "            beta=b,  # edited\n"
      "            limit=None,\n"
      "            situ_beta=sb,\n"
      "            situ_linear_beta=slb,\n"
      "        )\n"
      "        inputs = [  # edited\n"
      "            b,  # edited\n");
  const std::vector<HunkMatch> f = run_all(fixed, kBranchFix, "fused_moe.py");
  EXPECT_EQ(f[1].status, HunkStatus::kApplied) << presence_words(f[1]);
  EXPECT_EQ(f[1].line, 28u);
}

/// A hunk that adds twenty lines to forward(), then Liger-Kernel 5057ca8799's hunk 4 (the GEMMA
/// branch of the second loop made like the first loop's), the second starting at "-" line
/// `old_start`.
std::string gemma_fix(int old_start) {
  std::string p =
      "@@ -3,6 +3,26 @@ import triton\n"
      " \n"
      " def forward(x):\n"
      "     y = x + 1\n";
  for (int i = 0; i < 20; ++i)
    p += "+    z" + std::to_string(i) + " = helper_" + std::to_string(i) + "(x)\n";
  p += "     return y\n \n \n";
  p += "@@ -" + std::to_string(old_start) + ",8 +" + std::to_string(old_start + 20) +
       ",8 @@ def backward(dY, X, W, mode):\n"
       "         if mode == LLAMA:\n"
       "             m = (dY_block * W_offset).to(f32)\n"
       "         elif mode == GEMMA:\n"
       "-            dY_block_fp32 = dY_block.to(f32)\n"
       "-            m = dY_block_fp32 * W_offset\n"
       "+            dY_block = dY_block.to(f32)\n"
       "+            m = dY_block * W_offset\n"
       "         else:\n"
       "             m = dY_block * W_offset\n"
       "         store(dY, i, m * scale)\n";
  return p;
}

/// The parent: the first loop already has the fixed GEMMA branch (followed by the store the
/// hunk's last context line is when `store_first`), the second has the old one with every
/// context line of the hunk edited since.
std::string gemma_tree(bool store_first) {
  return std::string(
             "import triton\n\n\ndef forward(x):\n    y = x + 1\n    return y\n\n\n"
             "def backward(dY, X, W, mode):\n"
             "    total = 0.0\n"
             "    for i in range(4):\n"
             "        dY_block = load(dY, i)\n"
             "        X_block = load(X, i)\n"
             "        W_offset = load(W, i) + 1\n"
             "        if mode == LLAMA:\n"
             "            m = (dY_block * W_offset).to(f32)\n"
             "        elif mode == GEMMA:\n"
             "            dY_block = dY_block.to(f32)\n"
             "            m = dY_block * W_offset\n"
             "        else:\n"
             "            m = dY_block * W_offset\n") +
         (store_first ? "        store(dY, i, m * scale)\n" : "") +
         "        total += sum(m * X_block)\n"
         "    scale = -(1.0 / 4) * total\n"
         "    for i in range(4):\n"
         "        dY_block = load(dY, i)\n"
         "        X_block = load(X, i)\n"
         "        W_block = load(W, i)\n"
         "        X_block = X_block.to(f32)\n"
         "        W_offset = W_block + 1\n"
         "\n"
         "        if mode == LLAMA:  # edited\n"
         "            m = (dY_block * W_offset).to(f32)  # edited\n"
         "        elif mode == GEMMA:  # edited\n"
         "            dY_block_fp32 = dY_block.to(f32)\n"
         "            m = dY_block_fp32 * W_offset\n"
         "        else:  # edited\n"
         "            m = dY_block * W_offset  # edited\n"
         "        store(dY, i, m * scale)  # edited\n"
         "    return total\n";
}

// Liger-Kernel 5057ca8799 hunk 4: the whole post-image stands 17 lines above the hunk's place
// (the first loop), while the two lines it replaces stand at that place, their context edited.
// Was `applied` (exact, offset -37): the old code in place makes it unknown.
TEST(DriftFalseApplied, AFarExactPostImageDoesNotOutweighTheRemovedLinesInPlace) {
  const std::vector<HunkMatch> m = run_all(gemma_tree(true), gemma_fix(32), "rms_norm.py");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].status, HunkStatus::kApplicable);
  EXPECT_NE(m[1].status, HunkStatus::kApplied) << presence_words(m[1]);
  EXPECT_EQ(m[1].presence, Presence::kUnknown);
  EXPECT_EQ(m[1].presence_reason, "removed-lines-present");
  EXPECT_EQ(m[1].places, (std::vector<std::size_t>{15, 35}));
}

// The same with the first loop's copy drifted too (no store after it): the drift search's
// expected line came from the "+" header line plus the applicable hunk 1's offset, 20 lines
// past the hunk's place, so the removed lines there were not "in place". Was `applied`
// (drifted, line 18); an offset from an applicable hunk counts from the "-" line.
TEST(DriftFalseApplied, AnApplicableNeighboursOffsetPlacesTheHunkByItsMinusLine) {
  const std::vector<HunkMatch> m = run_all(gemma_tree(false), gemma_fix(31), "rms_norm.py");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].status, HunkStatus::kApplicable);
  EXPECT_NE(m[1].status, HunkStatus::kApplied) << presence_words(m[1]);
  EXPECT_NE(m[1].presence, Presence::kPresent);
  EXPECT_EQ(m[1].presence_reason, "removed-lines-present");
}


// lmdeploy 70bf1f47c2 hunk 1 (mp_engine/base.py): two cleanup lines added to the cancel
// branch of async_stream_infer(); async_end() above already has them in its `finally:`. The
// parent with the hunk's context edited: hunk 2 matches at offset 0, the block stands 15 lines
// up, in another method, with almost none of the hunk's context. Was `applied` (drifted, line
// 16).
TEST(DriftFalseApplied, AWeakFarBlockInAnotherMethodIsNotTheFix) {
  const std::string hunks =
      "@@ -29,6 +29,8 @@ class Instance(Base):\n"
      "         state = self.session_states[session_id]\n"
      "         if state.cancelled or session_id in self.engine.pending_cancel_sessions:\n"
      "             state.init_done.set()\n"
      "+            self.session_states.pop(session_id, None)\n"
      "+            self.engine.pending_cancel_sessions.discard(session_id)\n"
      "             yield EngineOutput(ResponseType.CANCEL, [])\n"
      "             return\n"
      "         kwargs['session_id'] = session_id\n"
      "@@ -42,4 +44,4 @@ class Instance(Base):\n"
      " \n"
      "     async def close(self):\n"
      "         \"\"\"Close the instance.\"\"\"\n"
      "-        await self.engine.close_async()\n"
      "+        await self.engine.close_async(wait=True)\n";
  // `fixed`: the lines after the cancel branch not edited.
  const auto file = [](std::string_view cancel_branch, bool fixed = false) {
    return "class Instance(Base):\n"
           "\n"
           "    def __init__(self, engine):\n"
           "        self.engine = engine\n"
           "        self.session_states = {}\n"
           "\n"
           "    async def async_end(self, session_id: int):\n"
           "        \"\"\"End a session.\"\"\"\n"
           "        if session_id not in self.session_states:\n"
           "            return ResponseType.SESSION_NOT_EXIST\n"
           "        state = self.session_states[session_id]\n"
           "        await state.init_done.wait()\n"
           "        try:\n"
           "            return await self.engine.call_async('end', session_id)\n"
           "        finally:\n"
           "            self.session_states.pop(session_id, None)\n"
           "            self.engine.pending_cancel_sessions.discard(session_id)\n"
           "\n"
           "    async def async_cancel(self, session_id: int):\n"
           "        \"\"\"Stop current streaming inference.\"\"\"\n"
           "        if session_id not in self.session_states:\n"
           "            return ResponseType.SESSION_NOT_EXIST\n"
           "        state = self.session_states[session_id]\n"
           "        self.engine.pending_cancel_sessions.add(session_id)\n"
           "        return await self.engine.call_async('cancel', session_id)\n"
           "\n"
           "    async def async_stream_infer(self, session_id: int, *args, **kwargs):\n"
           "        \"\"\"Send stream inference request.\"\"\"\n"
           "        state = self.session_states[session_id]  # edited\n"
           "        if state.cancelled or session_id in self.engine.pending_cancel_sessions:  # edited\n" +
           std::string(cancel_branch) +
           (fixed ? "            yield EngineOutput(ResponseType.CANCEL, [])\n"
                    "            return\n"
                  : "            yield EngineOutput(ResponseType.CANCEL, [])  # edited\n"
                    "            return  # edited\n") +
           "        kwargs['session_id'] = session_id  # edited\n"
           "        generator = self.engine.stream_async('infer', state.init_done, *args, **kwargs)\n"
           "        try:\n"
           "            async for result in generator:\n"
           "                yield result\n"
           "        except Exception:\n"
           "            logger.exception('stream inference failed.')\n"
           "            raise\n"
           "\n"
           "    async def close(self):\n"
           "        \"\"\"Close the instance.\"\"\"\n"
           "        await self.engine.close_async()\n";
  };
  const std::vector<HunkMatch> m =
      run_all(file("            state.init_done.set()  # edited\n"), hunks, "base.py");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[1].status, HunkStatus::kApplicable);
  EXPECT_NE(m[0].status, HunkStatus::kApplied) << presence_words(m[0]);
  EXPECT_EQ(m[0].presence, Presence::kUnknown);
  EXPECT_EQ(m[0].presence_reason, "found-elsewhere");
  EXPECT_EQ(m[0].places, std::vector<std::size_t>{16});
  // Control: the cancel branch fixed (its context still edited): present there.
  const std::vector<HunkMatch> f =
      run_all(file("            state.init_done.set()\n"
                   "            self.session_states.pop(session_id, None)\n"
                   "            self.engine.pending_cancel_sessions.discard(session_id)\n",
                   true),
              hunks, "base.py");
  EXPECT_EQ(f[0].status, HunkStatus::kApplied) << presence_words(f[0]);
  EXPECT_EQ(f[0].line, 32u);
}

// Hostile review hr28 (F1): a fix inserting a line its leading context already has two lines
// up (a second `torch.cuda.synchronize()`, a CUDA `__syncthreads();`), checked on the old code
// whose line between the two was edited since. The context's own copy read as the fix: applied,
// exit 0, and `apply` refused to add it. Where the fix stands, edited or not, it is found.
TEST(DriftFalseApplied, AContextLineEqualToTheAddedLineIsNotTheFix) {
  const std::string hunk =
      "@@ -6,6 +6,7 @@ def bench(fn, x):\n"
      "     warmup(fn, x)\n"
      "     torch.cuda.synchronize()\n"
      "     out = fn(x)\n"
      "+    torch.cuda.synchronize()\n"
      "     end = time.perf_counter()\n"
      "     report(out, end)\n"
      "     return out\n";
  auto file_with = [](const std::string& body) {
    return "import time\nimport torch\n\n\ndef bench(fn, x):\n    warmup(fn, x)\n"
           "    torch.cuda.synchronize()\n" +
           body + "    end = time.perf_counter()\n    report(out, end)\n    return out\n";
  };
  const HunkMatch old_edited = run_one(file_with("    out = fn(x, **kw)\n"), hunk, "bench.py");
  EXPECT_NE(old_edited.status, HunkStatus::kApplied) << presence_words(old_edited);
  EXPECT_NE(old_edited.presence, Presence::kPresent) << presence_words(old_edited);
  const HunkMatch fixed_edited = run_one(
      file_with("    out = fn(x, **kw)\n    torch.cuda.synchronize()\n"), hunk, "bench.py");
  EXPECT_EQ(fixed_edited.status, HunkStatus::kApplied) << presence_words(fixed_edited);
  EXPECT_EQ(fixed_edited.line, 9u);
  const HunkMatch fixed =
      run_one(file_with("    out = fn(x)\n    torch.cuda.synchronize()\n"), hunk, "bench.py");
  EXPECT_EQ(fixed.status, HunkStatus::kApplied);
  EXPECT_EQ(fixed.kind, MatchKind::kExact);

  const std::string race =
      "@@ -4,6 +4,7 @@ __global__ void shift_kernel(const float* in, float* out, int n) {\n"
      "   smem[tid] = in[blockIdx.x * 256 + tid];\n"
      "   __syncthreads();\n"
      "   float a = smem[(tid + 1) % 256];\n"
      "+  __syncthreads();\n"
      "   smem[tid] = a * 2.0f;\n"
      "   __syncthreads();\n"
      "   out[blockIdx.x * 256 + tid] = smem[255 - tid];\n";
  auto kernel_with = [](const std::string& body) {
    return "__global__ void shift_kernel(const float* in, float* out, int n) {\n"
           "  __shared__ float smem[256];\n  int tid = threadIdx.x;\n"
           "  smem[tid] = in[blockIdx.x * 256 + tid];\n  __syncthreads();\n" +
           body + "  smem[tid] = a * 2.0f;\n  __syncthreads();\n"
                  "  out[blockIdx.x * 256 + tid] = smem[255 - tid];\n}\n";
  };
  const HunkMatch war = run_one(kernel_with("  float a = smem[(tid + 1) & 255];\n"), race, "s.cu");
  EXPECT_NE(war.presence, Presence::kPresent) << presence_words(war);
  const HunkMatch war_fixed = run_one(
      kernel_with("  float a = smem[(tid + 1) & 255];\n  __syncthreads();\n"), race, "s.cu");
  EXPECT_EQ(war_fixed.presence, Presence::kPresent) << presence_words(war_fixed);

  // A two-line block whose second line is the context's first and whose first is the line
  // above the hunk (hr28's fuzzer): the pre-image, edited since, still fits over it.
  const std::string loop =
      "@@ -4,6 +4,8 @@ def walk(node):\n"
      "             if accepts(part):\n"
      "                 emit(part)\n"
      " \n"
      "+        for part in chunk:\n"
      "+            if accepts(part):\n"
      " \n"
      " def finish(node, strict=True):\n"
      "     \"\"\"Close the walk.\"\"\"\n";
  auto walk_with = [](const std::string& emit_line, const std::string& added) {
    return "def walk(node):\n    for name, chunk in parts(node):\n"
           "        for part in chunk:\n            if accepts(part):\n" + emit_line +
           "\n" + added + "\ndef finish(node, strict=True):\n    \"\"\"Close the walk.\"\"\"\n"
           "    return node\n";
  };
  const HunkMatch old_loop =
      run_one(walk_with("                emit_all(part)\n", ""), loop, "walk.py");
  EXPECT_NE(old_loop.presence, Presence::kPresent) << presence_words(old_loop);
  const HunkMatch fixed_loop = run_one(
      walk_with("                emit(part)\n",
                "        for part in chunk:\n            if accepts(part):\n"),
      loop, "walk.py");
  EXPECT_EQ(fixed_loop.presence, Presence::kPresent) << presence_words(fixed_loop);

  // The fix standing with a blank line between the two barriers (hostile review hr29): the
  // pre-image fits there no better than the post-image, so the block stays the fix's (a tie
  // had dropped it: conflict, change absent).
  const std::string barrier =
      "@@ -2,5 +2,6 @@ __global__ void k(float* a, float* b) {\n"
      "     int i = threadIdx.x;\n"
      "     b[i] = a[i];\n"
      "     __syncthreads();\n"
      "+    __syncthreads();\n"
      "     a[i] = b[255 - i];\n"
      "     b[i] = 0.0f;\n";
  const HunkMatch spaced = run_one(
      "__global__ void k(float* a, float* b) {\n    int i = threadIdx.x;\n    b[i] = a[i];\n"
      "    __syncthreads();\n\n    __syncthreads();\n    a[i] = b[255 - i];\n    b[i] = 0.0f;\n}\n",
      barrier, "k.cu");
  EXPECT_EQ(spaced.status, HunkStatus::kApplied) << presence_words(spaced);
  EXPECT_EQ(spaced.presence, Presence::kPresent);
}

// Hostile review hr30: the lines a fix removes, left in right next to the lines it adds (the
// `raise` still fires before the new SM120 branch; a merge that kept both sides). With one of
// its context lines now between them, the removed block read as the found block's "shadow",
// and the hunk read applied (59% of such trees in hr30's fuzzer). Each shape: not present,
// and the fixed file (the old lines gone, the context drifted the same way) still present.
TEST(DriftFalseApplied, TheRemovedLinesLeftBesideTheAddedOnesAreOldCode) {
  const std::string hunk =
      "@@ -4,7 +4,7 @@ import torch\n"
      " def launch(q, major):\n"
      "     grid = make_grid(q)\n"
      "     cfg = default_config()\n"
      "-    if major >= 10:\n"
      "-        raise RuntimeError(\"Blackwell is not supported\")\n"
      "+    if major == 12:\n"
      "+        cfg = sm120_config(cfg)\n"
      "     kernel[grid](q, cfg)\n"
      "     return q\n";
  const std::string head = "import torch\n\n\ndef launch(q, major):\n    grid = make_grid(q)\n"
                           "    cfg = default_config()\n";
  const std::string old_lines =
      "    if major >= 10:\n        raise RuntimeError(\"Blackwell is not supported\")\n";
  const std::string new_lines = "    if major == 12:\n        cfg = sm120_config(cfg)\n";
  const std::string tail = "    kernel[grid](q, cfg)\n    return q\n";
  for (const std::string& file : {head + old_lines + new_lines + tail,    // above
                                  head + new_lines + old_lines + tail}) {  // below
    const HunkMatch m = run_one(file, hunk, "m.py");
    EXPECT_NE(m.status, HunkStatus::kApplied) << presence_words(m) << "\n" << file;
    EXPECT_NE(m.presence, Presence::kPresent) << presence_words(m) << "\n" << file;
  }
  // The fix, with a line inserted into its context: present, drifted.
  const HunkMatch fixed =
      run_one(head + "    log(cfg)\n" + new_lines + tail, hunk, "m.py");
  EXPECT_EQ(fixed.status, HunkStatus::kApplied) << presence_words(fixed);
  EXPECT_EQ(fixed.presence, Presence::kPresent) << presence_words(fixed);
  // The unfixed file: applicable, exact.
  const HunkMatch old = run_one(head + old_lines + tail, hunk, "m.py");
  EXPECT_EQ(old.status, HunkStatus::kApplicable);
}

// Hostile review hr30: a hunk without context at either edge but with context between its
// changes is no `diff -U0` hunk: as git apply has it, it ends at the end of the file, and one
// at line 1 is the whole file. The 3-line file that still ends with the line the fix deletes
// read applied at line 1, also with --strict.
TEST(DriftFalseApplied, AWholeFileHunkMatchesOnlyAsTheWholeFile) {
  const std::string hunk =
      "@@ -1,3 +1,2 @@\n"
      "-ARCHS = \"80;90\"\n"
      "+ARCHS = \"80;90;120\"\n"
      " build_kernels(ARCHS)\n"
      "-force_sm90_path()\n";
  const HunkMatch left =
      run_one("ARCHS = \"80;90;120\"\nbuild_kernels(ARCHS)\nforce_sm90_path()\n", hunk, "s.py");
  EXPECT_NE(left.status, HunkStatus::kApplied) << presence_words(left);
  EXPECT_NE(left.presence, Presence::kPresent) << presence_words(left);
  EXPECT_EQ(left.diagnostic, "not-whole-file");
  const HunkMatch fixed = run_one("ARCHS = \"80;90;120\"\nbuild_kernels(ARCHS)\n", hunk, "s.py");
  EXPECT_EQ(fixed.status, HunkStatus::kApplied);
  EXPECT_EQ(fixed.kind, MatchKind::kExact);
  const HunkMatch old =
      run_one("ARCHS = \"80;90\"\nbuild_kernels(ARCHS)\nforce_sm90_path()\n", hunk, "s.py");
  EXPECT_EQ(old.status, HunkStatus::kApplicable);
  // A true -U0 hunk (no context line at all) keeps its expected line.
  const HunkMatch u0 = run_one("a\nARCHS = \"80;90;120\"\nb\n",
                               "@@ -2 +2 @@\n-ARCHS = \"80;90\"\n+ARCHS = \"80;90;120\"\n", "s.py");
  EXPECT_EQ(u0.status, HunkStatus::kApplied);
}

// Hostile recheck hr31 (a regression of the whole-file anchor): such a hunk's change standing
// verbatim at line 1 with lines added after it since (or before it) is the fix in, drifted, as
// any hunk whose context moved; the unfixed file so grown is the fix absent (git refuses both
// ways there, so each is a conflict for `git apply`, not for the question asked).
TEST(DriftFalseApplied, AWholeFileHunkWithLinesAddedSinceIsSearchedForAsDrifted) {
  const std::string hunk =
      "@@ -1,2 +1,3 @@\n"
      "-    x_eta = iota(44)\n"
      "+    x_iota = kappa(93)\n"
      "     x_kappa = zeta(58)\n"
      "+    x_iota = gamma(66)\n";
  const std::string fixed = "    x_iota = kappa(93)\n    x_kappa = zeta(58)\n    x_iota = gamma(66)\n";
  const std::string unfixed = "    x_eta = iota(44)\n    x_kappa = zeta(58)\n";
  const std::string extra = "    x_delta = iota(52)\n";
  for (const std::string& file : {fixed + extra, extra + fixed}) {
    const HunkMatch m = run_one(file, hunk, "f.py");
    EXPECT_EQ(m.status, HunkStatus::kApplied) << file << presence_words(m);
    EXPECT_EQ(m.kind, MatchKind::kDrifted) << file;
    EXPECT_EQ(m.presence, Presence::kPresent) << file;
    EXPECT_EQ(m.context_lines, 0u) << file;
  }
  for (const std::string& file : {unfixed + extra, extra + unfixed}) {
    const HunkMatch m = run_one(file, hunk, "f.py");
    EXPECT_EQ(m.status, HunkStatus::kConflict) << file << presence_words(m);
    EXPECT_EQ(m.presence, Presence::kAbsent) << file << presence_words(m);
    EXPECT_EQ(m.diagnostic, "not-whole-file") << file;
  }
  // Exactly the patch's files: exact verdicts, as before.
  EXPECT_EQ(run_one(fixed, hunk, "f.py").kind, MatchKind::kExact);
  EXPECT_EQ(run_one(unfixed, hunk, "f.py").status, HunkStatus::kApplicable);
  // Half of the fix (its first change only) with a line appended: not present.
  const HunkMatch half =
      run_one("    x_iota = kappa(93)\n    x_kappa = zeta(58)\n" + extra, hunk, "f.py");
  EXPECT_NE(half.presence, Presence::kPresent) << presence_words(half);
}

// Hostile review hr30: the added block found past the statement the hunk puts next to it,
// that statement edited since, so the block no longer does what the fix does. Each reads
// unknown ("context-crossed"); the same block on its own side of the edited line stays present.
TEST(DriftFalseApplied, ABlockOnTheOtherSideOfItsEditedNeighbourIsNotPresent) {
  struct Case {
    const char* name;
    std::string hunk, crossed, in_place;
  };
  const std::vector<Case> cases = {
      {"override above the value it overrides",
       "@@ -8,6 +8,8 @@ def pick_stages(major):\n"
       "     \"\"\"\n"
       " \n"
       "     num_stages = 3\n"
       "+    if major == 12:\n"
       "+        num_stages = 1\n"
       " \n"
       "     return num_stages\n"
       " \n",
       "import torch\n\n\ndef pick_stages(major):\n    \"\"\"Pick.\n\n    Fits.\n    \"\"\"\n\n"
       "    if major == 12:\n        num_stages = 1\n    num_stages = 4\n\n    return num_stages\n"
       "\n\ndef other():\n    return 1\n",
       "import torch\n\n\ndef pick_stages(major):\n    \"\"\"Pick.\n\n    Fits.\n    \"\"\"\n\n"
       "    num_stages = 4\n    if major == 12:\n        num_stages = 1\n\n    return num_stages\n"
       "\n\ndef other():\n    return 1\n"},
      {"code after an edited return",
       "@@ -5,6 +5,8 @@ def smem_limit(major):\n"
       "     limit = 232448\n"
       "     if major == 9:\n"
       "         limit = 227 * 1024\n"
       "+    if major == 12:\n"
       "+        limit = 101376\n"
       "     return limit\n"
       " \n"
       " \n",
       "import torch\n\n\ndef smem_limit(major):\n    limit = 232448\n    if major == 9:\n"
       "        limit = 227 * 1024\n    return int(limit)\n    if major == 12:\n"
       "        limit = 101376\n\n\ndef other(major):\n    return major + 1\n",
       "import torch\n\n\ndef smem_limit(major):\n    limit = 232448\n    if major == 9:\n"
       "        limit = 227 * 1024\n    if major == 12:\n        limit = 101376\n"
       "    return int(limit)\n\n\ndef other(major):\n    return major + 1\n"},
      {"synchronize before an edited launch",
       "@@ -7,6 +7,7 @@ def run(q, k, v, out):\n"
       "     grid = (q.shape[0], q.shape[1])\n"
       "     stream = torch.cuda.current_stream()\n"
       "     attention_kernel[grid](q, k, v, out)\n"
       "+    torch.cuda.synchronize()\n"
       "     result = out.float()\n"
       "     check(result)\n"
       "     return result\n",
       "import torch\n\n\ndef run(q, k, v, out):\n    prepare(q, k, v)\n"
       "    grid = (q.shape[0], q.shape[1])\n    stream = torch.cuda.current_stream()\n"
       "    torch.cuda.synchronize()\n    attention_kernel[grid](q, k, v, out, num_warps=4)\n"
       "    result = out.float()\n    check(result)\n    return result\n",
       "import torch\n\n\ndef run(q, k, v, out):\n    prepare(q, k, v)\n"
       "    grid = (q.shape[0], q.shape[1])\n    stream = torch.cuda.current_stream()\n"
       "    attention_kernel[grid](q, k, v, out, num_warps=4)\n    torch.cuda.synchronize()\n"
       "    result = out.float()\n    check(result)\n    return result\n"},
  };
  for (const Case& c : cases) {
    const HunkMatch crossed = run_one(c.crossed, c.hunk, "m.py");
    EXPECT_NE(crossed.presence, Presence::kPresent) << c.name << ": " << presence_words(crossed);
    EXPECT_NE(crossed.status, HunkStatus::kApplied) << c.name;
    EXPECT_EQ(crossed.presence_reason, "context-crossed") << c.name;
    const HunkMatch kept = run_one(c.in_place, c.hunk, "m.py");
    EXPECT_EQ(kept.status, HunkStatus::kApplied) << c.name << ": " << presence_words(kept);
    EXPECT_EQ(kept.presence, Presence::kPresent) << c.name;
  }
}

// Hostile review hr30: a fix to a file's last line, made where the file lacked its final
// newline ("\ No newline at end of file" on both sides), is there byte for byte in a file an
// editor gave the newline, with or without code appended since; it read absent.
TEST(DriftFalseApplied, AFixedLastLineIsPresentWithTheNewlineAnEditorAdded) {
  const std::string hunk =
      "@@ -4,4 +4,4 @@ import torch\n"
      " def smem_limit(major):\n"
      "     if major == 9:\n"
      "         return 232448\n"
      "-    return 166912\n"
      "\\ No newline at end of file\n"
      "+    return 101376 if major == 12 else 166912\n"
      "\\ No newline at end of file\n";
  const std::string head =
      "import torch\n\n\ndef smem_limit(major):\n    if major == 9:\n        return 232448\n";
  const std::string fixed = head + "    return 101376 if major == 12 else 166912";
  EXPECT_EQ(run_one(fixed, hunk, "m.py").kind, MatchKind::kExact);
  for (const std::string& file :
       {fixed + "\n", fixed + "\n\n\ndef other():\n    return 1\n"}) {
    const HunkMatch m = run_one(file, hunk, "m.py");
    EXPECT_EQ(m.status, HunkStatus::kApplied) << file << presence_words(m);
    EXPECT_EQ(m.presence, Presence::kPresent) << file;
  }
  // The unfixed file so changed: not present.
  for (const std::string& file : {head + "    return 166912\n",
                                  head + "    return 166912\n\n\ndef other():\n    return 1\n"}) {
    const HunkMatch m = run_one(file, hunk, "m.py");
    EXPECT_NE(m.presence, Presence::kPresent) << file << presence_words(m);
    EXPECT_NE(m.status, HunkStatus::kApplied) << file;
  }
}

// The same for a hunk without context that replaces the whole file (every line changed, so
// `git diff -U3` has no context): as the whole file, its image's unterminated last line also
// matches the file that ends with a newline, as `git apply` matches it going forward.
TEST(DriftFalseApplied, AWholeFileImageWithoutFinalNewlineMatchesTheFileWithOne) {
  const std::string hunk =
      "@@ -1 +1,2 @@\n"
      "-    x_kappa = gamma(86)\n"
      "+    x_theta = eta(15)\n"
      "+    x_kappa = gamma(34)\n"
      "\\ No newline at end of file\n";
  const std::string fixed = "    x_theta = eta(15)\n    x_kappa = gamma(34)";
  for (const std::string& file : {fixed, fixed + "\n"}) {
    const HunkMatch m = run_one(file, hunk, "f.py");
    EXPECT_EQ(m.status, HunkStatus::kApplied) << file;
    EXPECT_EQ(m.presence, Presence::kPresent) << file;
  }
  EXPECT_EQ(run_one("    x_kappa = gamma(86)\n", hunk, "f.py").status, HunkStatus::kApplicable);
  // Only as the whole file: with a line appended it is not at its place.
  EXPECT_NE(run_one(fixed + "\n    x = 1\n", hunk, "f.py").presence, Presence::kPresent);
}

// Hostile recheck hr32 of the rules above, each a tree built from real git history.
TEST(DriftFalseApplied, HostileRecheckOfTheEdgeNewlineAndCrossedRules) {
  // A hunk that only drops the final newline: its lines stand in the parent with a line
  // appended, the newline with them. Not present.
  const HunkMatch nl_only = run_one(
      "import os\nx = compute(1)\ny = 2\n",
      "@@ -1,2 +1,2 @@\n import os\n-x = compute(1)\n+x = compute(1)\n\\ No newline at end of file\n",
      "f.py");
  EXPECT_NE(nl_only.presence, Presence::kPresent) << presence_words(nl_only);
  // A hunk with context only between its changes: the line it removes standing near the
  // block, on either side, is the old code kept.
  const HunkMatch other_side =
      run_one("legacy_cleanup(dev)\ncheck(dev)\nsetup(dev)\nrun(dev)\n",
              "@@ -1,3 +1,3 @@\n+check(dev)\n setup(dev)\n run(dev)\n-legacy_cleanup(dev)\n", "f.py");
  EXPECT_NE(other_side.presence, Presence::kPresent) << presence_words(other_side);
  const std::string both_edge =
      "@@ -1,2 +1,3 @@\n-num_stages = get_stages(4)\n+num_stages = get_stages(2)\n"
      " num_warps = get_warps(8)\n+BLOCK = get_block(64)\n";
  const HunkMatch override_after = run_one(
      "num_stages = get_stages(2)\nnum_warps = get_warps(8)\nBLOCK = get_block(64)\n"
      "num_stages = get_stages(4)\n",
      both_edge, "f.py");
  EXPECT_NE(override_after.presence, Presence::kPresent) << presence_words(override_after);
  const HunkMatch in = run_one(
      "num_stages = get_stages(2)\nnum_warps = get_warps(8)\nBLOCK = get_block(64)\nx = 1\n",
      both_edge, "f.py");
  EXPECT_EQ(in.presence, Presence::kPresent) << presence_words(in);
  // context-crossed only for the statement itself on the other side: neighbours that gained a
  // comment, another subscript of the same dict, a clamp below an edited value, an early
  // return above the edited one are the fix in place.
  const HunkMatch comments = run_one(
      "def cfg(major, config):\n    x = 1\n    config[\"BLOCK_M\"] = 128  # edited\n"
      "    if major == 9:\n        grid = 64\n    config[\"BLOCK_N\"] = 256  # edited\n"
      "    return config\n",
      "@@ -1,5 +1,7 @@\n def cfg(major, config):\n     x = 1\n     config[\"BLOCK_M\"] = 128\n"
      "+    if major == 9:\n+        grid = 64\n     config[\"BLOCK_N\"] = 256\n     return config\n",
      "f.py");
  EXPECT_EQ(comments.presence, Presence::kPresent) << presence_words(comments);
  const HunkMatch clamp = run_one(
      "import torch\n\n\ndef other():\n    pass\n\n\ndef cfg(major):\n    BLOCK = 64\n"
      "    num_stages = 3\n    if major == 12:\n        num_stages = 1\n"
      "    num_stages = max(num_stages, 1)\n    num_warps = 8\n    return num_stages, num_warps\n",
      "@@ -8,5 +8,7 @@ def other():\n def cfg(major):\n     BLOCK = 64\n     num_stages = 4\n"
      "+    if major == 12:\n+        num_stages = 1\n     num_warps = 8\n"
      "     return num_stages, num_warps\n",
      "f.py");
  // The statement assigned again right after the block: here a clamp that keeps the fix's
  // value, but just as well an override (hostile review hr33: `num_stages = 5` above and
  // below it); the file cannot tell which. Unknown.
  EXPECT_EQ(clamp.presence, Presence::kUnknown) << presence_words(clamp);
  EXPECT_EQ(clamp.presence_reason, "context-crossed");
  const HunkMatch sandwich = run_one(
      "def cfg(x, major):\n    y = x * 2\n    num_stages = 5\n    if major == 12:\n"
      "        num_stages = 1\n    num_stages = 5\n    kernel_0[grid](x, y, num_stages)\n",
      "@@ -1,4 +1,6 @@\n def cfg(x, major):\n     y = x * 2\n     num_stages = 2\n"
      "+    if major == 12:\n+        num_stages = 1\n     kernel_0[grid](x, y, num_stages)\n",
      "f.py");
  EXPECT_NE(sandwich.presence, Presence::kPresent) << presence_words(sandwich);
  const HunkMatch quoted = run_one(
      "def cfg(major, config):\n    x = 1\n    if major == 9:\n        grid = 64\n"
      "    config['BLOCK_M'] = 256\n    config[\"BLOCK_N\"] = 256\n    return config\n",
      "@@ -1,5 +1,7 @@\n def cfg(major, config):\n     x = 1\n     config[\"BLOCK_M\"] = 128\n"
      "+    if major == 9:\n+        grid = 64\n     config[\"BLOCK_N\"] = 256\n     return config\n",
      "f.py");
  EXPECT_NE(quoted.presence, Presence::kPresent) << presence_words(quoted);
  const HunkMatch early_return = run_one(
      "import torch\n\n\ndef other():\n    pass\n\n\ndef run(x, y):\n    kernel[grid](x, y)\n"
      "    if y is None:\n        return x  # empty\n    torch.cuda.synchronize()\n"
      "    return y  # done\n",
      "@@ -9,4 +9,5 @@ def run(x, y):\n     kernel[grid](x, y)\n     if y is None:\n"
      "         return x\n+    torch.cuda.synchronize()\n     return y\n",
      "f.py");
  EXPECT_EQ(early_return.presence, Presence::kPresent) << presence_words(early_return);
  // The fix in a file that lost its final newline: not absent (its lines stand).
  const HunkMatch lost_newline = run_one("\nx = compute(1)\ny = launch(2)",
                                         "@@ -1 +1,3 @@\n+\n x = compute(1)\n+y = launch(2)\n",
                                         "f.py");
  EXPECT_NE(lost_newline.presence, Presence::kAbsent) << presence_words(lost_newline);
  // With leading context the drift search still finds it there (hostile review hr33); the
  // unfixed file that lost its newline stays absent.
  const std::string ctx_hunk =
      "@@ -1,3 +1,4 @@\n a = prepare(1)\n b = prepare(2)\n+c = launch(3)\n d = finish(4)\n";
  EXPECT_EQ(run_one("a = prepare(1)\nb = prepare(2)\nc = launch(3)\nd = finish(4)", ctx_hunk, "f.py")
                .presence,
            Presence::kPresent);
  EXPECT_EQ(run_one("a = prepare(1)\nb = prepare(2)\nd = finish(4)", ctx_hunk, "f.py").presence,
            Presence::kAbsent);
}

TEST(DriftStatementHead, NamesTheStatementAndLeavingKeywords) {
  EXPECT_EQ(detail::statement_head("    num_stages = 4"), "num_stages");
  EXPECT_EQ(detail::statement_head("self.limit += 1"), "self.limit");
  EXPECT_EQ(detail::statement_head("attention_kernel[grid](q, k)"), "attention_kernel[grid]");
  EXPECT_EQ(detail::statement_head("config[\"BLOCK_M\"] = 128  # edited"), "config[\"BLOCK_M\"]");
  EXPECT_NE(detail::statement_head("config[\"BLOCK_N\"] = 256"),
            detail::statement_head("config[\"BLOCK_M\"] = 128"));
  EXPECT_EQ(detail::statement_head("  return int(limit)"), "return");
  EXPECT_EQ(detail::statement_head("x: int = 3"), "");  // a name of one character
  EXPECT_EQ(detail::statement_head("if major == 12:"), "");
  EXPECT_EQ(detail::statement_head("major == 12"), "");  // a comparison
  EXPECT_EQ(detail::statement_head("int limit = 3;"), "");
  EXPECT_EQ(detail::statement_head("# a comment"), "");
  EXPECT_EQ(detail::statement_head(""), "");
}

}  // namespace
}  // namespace sm120check
