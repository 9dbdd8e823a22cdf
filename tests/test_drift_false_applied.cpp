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

}  // namespace
}  // namespace sm120check
