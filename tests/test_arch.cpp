// Tests of architecture target inference (one line, the Arch: trailer, whole patches), coverage
// and relevance, and verify's --cc / --no-gpu / --only-relevant end to end.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sm120check/arch.hpp"
#include "sm120check/patch.hpp"
#include "sm120check/verify.hpp"
#include "test_util.hpp"

namespace sm120check {
namespace {

using json = nlohmann::json;
using Names = std::vector<std::string>;

Names line_targets(std::string_view line) { return targets_in_line(line).names(); }

bool line_covers(std::string_view line, ComputeCapability cc) {
  return covers(targets_in_line(line), cc);
}

constexpr ComputeCapability kSm120{12, 0};
constexpr ComputeCapability kSm90{9, 0};

// ---------------------------------------------------------------------------------------------
// Rules over one line

TEST(ArchLine, SmTokens) {
  EXPECT_EQ(line_targets("    # SM120 (RTX PRO 6000): 101376 bytes"), Names{"sm_120"});
  EXPECT_EQ(line_targets("if is_sm120_supported():"), Names{"sm_120"});
  EXPECT_EQ(line_targets("nvcc -arch=sm_120a x.cu"), Names{"sm_120"});
  EXPECT_EQ(line_targets("using Arch = cutlass::arch::Sm120;"), Names{"sm_120"});
  EXPECT_EQ(line_targets("kernels for sm_12x"), Names{"sm_12x"});
  EXPECT_EQ(line_targets("sm_90a and sm_100f"), (Names{"sm_90", "sm_100"}));
  EXPECT_EQ(line_targets("-gencode arch=compute_120,code=sm_120"), Names{"sm_120"});
  EXPECT_EQ(line_targets("-gencode arch=compute_90a,code=sm_90a"), Names{"sm_90"});
  // Not tokens: inside a word, too many digits, no digits.
  EXPECT_EQ(line_targets("ASM120 prism120 sm_1200 sm_scale smem"), Names{});
}

TEST(ArchLine, MajorComparisons) {
  EXPECT_EQ(line_targets("    if CUDA_CAPABILITY[0] == 12:"), Names{"sm_12x"});
  EXPECT_EQ(line_targets("elif CUDA_CAPABILITY[0] >= 9:"), Names{">=sm_90"});
  EXPECT_EQ(line_targets("if torch.cuda.get_device_capability()[0] >= 10:"), Names{">=sm_100"});
  EXPECT_EQ(line_targets("if major == 12:"), Names{"sm_12x"});
  EXPECT_EQ(line_targets("if (prop.major == 12 || prop.major == 10) {"),
            (Names{"sm_10x", "sm_12x"}));
  EXPECT_EQ(line_targets("x = 64 if CUDA_CAPABILITY[0] < 12 else 32"), Names{"<sm_120"});
  EXPECT_EQ(line_targets("if CUDA_CAPABILITY[0] != 12:"), (Names{"<sm_120", ">=sm_130"}));
  // Chained and and-ed comparisons intersect.
  EXPECT_EQ(line_targets("if 9 <= CUDA_CAPABILITY[0] < 12:"), (Names{"sm_9x", "sm_10x", "sm_11x"}));
  EXPECT_EQ(line_targets("if cc[0] >= 10 and cc[0] < 12:"), (Names{"sm_10x", "sm_11x"}));
  // Membership.
  EXPECT_EQ(line_targets("if CUDA_CAPABILITY[0] in (10, 12):"), (Names{"sm_10x", "sm_12x"}));
  // Python's version is no capability.
  EXPECT_EQ(line_targets("if sys.version_info.major >= 3:"), Names{});
}

TEST(ArchLine, RangesCoverWhatTheyShould) {
  EXPECT_TRUE(line_covers("if CUDA_CAPABILITY[0] >= 9:", kSm120));
  EXPECT_TRUE(line_covers("if CUDA_CAPABILITY[0] >= 9:", kSm90));
  EXPECT_FALSE(line_covers("if CUDA_CAPABILITY[0] == 9:", kSm120));
  EXPECT_FALSE(line_covers("if CUDA_CAPABILITY[0] == 12:", kSm90));
  EXPECT_TRUE(line_covers("if CUDA_CAPABILITY[0] == 12:", (ComputeCapability{12, 1})));
  EXPECT_FALSE(line_covers("if CUDA_CAPABILITY[0] < 12:", kSm120));
  EXPECT_TRUE(line_covers("if CUDA_CAPABILITY[0] < 12:", kSm90));
  EXPECT_FALSE(line_covers("if CUDA_CAPABILITY[0] > 9:", kSm90));
  EXPECT_TRUE(line_covers("if CUDA_CAPABILITY[0] > 9:", (ComputeCapability{10, 0})));
}

TEST(ArchLine, TupleComparisons) {
  EXPECT_EQ(line_targets("if torch.cuda.get_device_capability() == (12, 0):"), Names{"sm_120"});
  EXPECT_EQ(line_targets("if get_device_capability() >= (12, 0):"), Names{">=sm_120"});
  EXPECT_EQ(line_targets("if capability < (12, 0):"), Names{"<sm_120"});
  EXPECT_EQ(line_targets("if cc > (9, 0):"), Names{">=sm_91"});
  EXPECT_EQ(line_targets("if cap >= (9, 0):"), Names{">=sm_90"});
  EXPECT_EQ(line_targets("ok = cc == (12, 0) or cc == (9, 0)"), (Names{"sm_90", "sm_120"}));
  EXPECT_EQ(line_targets("if get_device_capability() in [(12, 0), (12, 1)]:"),
            (Names{"sm_120", "sm_121"}));
  EXPECT_FALSE(line_covers("if get_device_capability() >= (12, 0):", kSm90));
  EXPECT_TRUE(line_covers("if get_device_capability() >= (9, 0):", kSm120));
}

TEST(ArchLine, CudaArchGuards) {
  EXPECT_EQ(line_targets("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1200"), Names{">=sm_120"});
  EXPECT_EQ(line_targets("#if __CUDA_ARCH__ == 1200"), Names{"sm_120"});
  EXPECT_EQ(line_targets("#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1000"), Names{"sm_9x"});
  EXPECT_EQ(line_targets("#if (__CUDA_ARCH__ < 1200)"), Names{"<sm_120"});
  EXPECT_EQ(line_targets("#if 1200 <= __CUDA_ARCH__"), Names{">=sm_120"});
  EXPECT_EQ(line_targets("#if __CUDA_ARCH_FAMILY_SPECIFIC__ == 1200"), Names{"sm_120"});
}

TEST(ArchLine, SmVersionCalls) {
  EXPECT_EQ(line_targets("if (getSMVersion() >= 120) {"), Names{">=sm_120"});
  EXPECT_EQ(line_targets("int sm = getSMVersion(); if (sm == 120) return;"), Names{"sm_120"});
  EXPECT_EQ(line_targets("if (sm >= 100 && sm < 120)"), (Names{"sm_10x", "sm_11x"}));
  EXPECT_EQ(line_targets("if current_platform.has_device_capability(90):"), Names{">=sm_90"});
  EXPECT_EQ(line_targets("if current_platform.is_device_capability(120):"), Names{"sm_120"});
  EXPECT_EQ(line_targets("current_platform.is_device_capability_family(120)"), Names{"sm_12x"});
  EXPECT_EQ(line_targets("has_device_capability((10, 0))"), Names{">=sm_100"});
}

TEST(ArchLine, ArchLists) {
  EXPECT_EQ(line_targets("set(CMAKE_CUDA_ARCHITECTURES 90 120a)"), (Names{"sm_90", "sm_120"}));
  EXPECT_EQ(line_targets("set_target_properties(k PROPERTIES CUDA_ARCHITECTURES \"120a-real\")"),
            Names{"sm_120"});
  EXPECT_EQ(
      line_targets("cuda_archs_loose_intersection(FA3_ARCHS \"9.0a;12.0\" \"${CUDA_ARCHS}\")"),
      (Names{"sm_90", "sm_120"}));
  EXPECT_EQ(line_targets("export TORCH_CUDA_ARCH_LIST=\"9.0;12.0+PTX\""),
            (Names{"sm_90", "sm_120"}));
  // A version number before the list keyword is no architecture.
  EXPECT_EQ(line_targets("if(CUDA_VERSION VERSION_GREATER_EQUAL 12.8)"), Names{});
}

TEST(ArchLine, NoEvidence) {
  for (std::string_view line :
       {"BLOCK_M, BLOCK_N = (64, 64)", "std::vector<int> v;", "if (x->y > 3) return;", "a <<= 90;",
        "num_stages = 1", "if Lq <= 128:", "for cc in caps:", ""}) {
    EXPECT_EQ(line_targets(line), Names{}) << line;
    EXPECT_EQ(targets_in_line(line).source, ArchSource::kNone);
  }
}

// ---------------------------------------------------------------------------------------------
// Target sets

TEST(ArchTargetsSet, MergesAndNames) {
  ArchTargets t;
  t.add(ArchRange{120, 121});
  t.add(ArchRange{120, 130});
  t.add(ArchRange{90, 91});
  EXPECT_EQ(t.ranges, (std::vector<ArchRange>{{90, 91}, {120, 130}}));
  EXPECT_EQ(t.names(), (Names{"sm_90", "sm_12x"}));
  t.add(ArchRange{91, 120});  // adjacent ranges merge
  EXPECT_EQ(t.ranges, (std::vector<ArchRange>{{90, 130}}));
  t.add(ArchRange{0, kSmUnbounded});
  EXPECT_EQ(t.names(), Names{"any"});
  ArchTargets odd;
  odd.add(ArchRange{80, 95});
  EXPECT_EQ(odd.names(), Names{">=sm_80 <sm_95"});
}

TEST(ArchRelevance, AnyDeviceDecides) {
  ArchTargets sm120;
  sm120.add(ArchRange{120, 130});
  GpuReport both;
  both.devices.resize(2);
  both.devices[0].cc = kSm90;
  both.devices[1].cc = kSm120;
  EXPECT_EQ(arch_relevant(sm120, override_gpu(kSm120)), true);
  EXPECT_EQ(arch_relevant(sm120, override_gpu(kSm90)), false);
  EXPECT_EQ(arch_relevant(sm120, both), true);
  EXPECT_EQ(arch_relevant(sm120, unprobed_gpu()), std::nullopt);
  EXPECT_EQ(arch_relevant(ArchTargets{}, override_gpu(kSm90)), std::nullopt);
}

// ---------------------------------------------------------------------------------------------
// Trailer and whole patches

TEST(ArchTrailer, Forms) {
  ArchTargets t = parse_arch_trailer("Subject: x\n\nbody\n\nArch: sm_120, sm_121\n---\n");
  EXPECT_EQ(t.source, ArchSource::kTrailer);
  EXPECT_EQ(t.names(), (Names{"sm_120", "sm_121"}));
  EXPECT_EQ(t.evidence, "trailer: Arch: sm_120, sm_121");
  EXPECT_EQ(parse_arch_trailer("    arch: 12.x\n").names(), Names{"sm_12x"});
  EXPECT_EQ(parse_arch_trailer("Arch: sm_90+\n").names(), Names{">=sm_90"});
  EXPECT_EQ(parse_arch_trailer("Arch: 9.0 12.0 bogus\n").names(), (Names{"sm_90", "sm_120"}));
  EXPECT_EQ(parse_arch_trailer("Arch: any\n").names(), Names{"any"});
  EXPECT_TRUE(parse_arch_trailer("Arch: bogus\nSearch: sm_120\n").empty());
  EXPECT_TRUE(parse_arch_trailer("The arch: sm_120 is new\n").empty());
}

constexpr std::string_view kInferredPatch =
    R"(From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001
From: dev <dev@example.invalid>
Subject: [PATCH] attn: smaller tiles on SM120

---
diff --git a/python/kern/attn.py b/python/kern/attn.py
--- a/python/kern/attn.py
+++ b/python/kern/attn.py
@@ -6,6 +6,9 @@ CUDA_CAPABILITY = torch.cuda.get_device_capability()
 def block_sizes(head_dim):
     num_stages = 2
-    if CUDA_CAPABILITY[0] >= 9:
+    if CUDA_CAPABILITY[0] == 12:
+        BLOCK_M, BLOCK_N = (64, 32)
+        num_stages = 1
+    elif CUDA_CAPABILITY[0] >= 9:
         BLOCK_M, BLOCK_N = (128, 64)
     else:
         BLOCK_M, BLOCK_N = (64, 64)
)";

TEST(ArchPatch, InferredFromAddedLinesWithPostImageLine) {
  std::vector<Patch> patches = parse_patches(kInferredPatch, "p.patch");
  ASSERT_EQ(patches.size(), 1u);
  ArchTargets t = infer_arch_targets(patches[0], 1);
  EXPECT_EQ(t.source, ArchSource::kInferred);
  // The rewritten ">= 9" condition (removed "if", added "elif") is no new target.
  EXPECT_EQ(t.names(), Names{"sm_12x"});
  EXPECT_EQ(t.evidence, "python/kern/attn.py:8: if CUDA_CAPABILITY[0] == 12:");
  EXPECT_FALSE(covers(t, kSm90));
  EXPECT_TRUE(covers(t, kSm120));
}

TEST(ArchPatch, TrailerWinsAndContextLinesDoNotCount) {
  std::string text(kInferredPatch);
  text.replace(text.find("---\n"), 4, "Arch: sm_120, sm_121\n---\n");
  std::vector<Patch> patches = parse_patches(text, "p.patch");
  ArchTargets t = infer_arch_targets(patches[0], 1);
  EXPECT_EQ(t.source, ArchSource::kTrailer);
  EXPECT_EQ(t.names(), (Names{"sm_120", "sm_121"}));

  constexpr std::string_view kContextOnly = R"(--- a/k.py
+++ b/k.py
@@ -1,3 +1,4 @@
 if CUDA_CAPABILITY[0] == 12:
     BLOCK = 64
+    STAGES = 1
 # SM120
)";
  std::vector<Patch> plain = parse_patches(kContextOnly, "c.diff");
  ArchTargets none = infer_arch_targets(plain[0], 1);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.source, ArchSource::kNone);
  EXPECT_EQ(none.evidence, "");
}

TEST(ArchPatch, CppAndCmakeAcrossFiles) {
  constexpr std::string_view kPatch = R"(diff --git a/csrc/k.cu b/csrc/k.cu
--- a/csrc/k.cu
+++ b/csrc/k.cu
@@ -10,2 +10,5 @@
 __global__ void k() {
+#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1200
+  small_tiles();
+#endif
 }
diff --git a/CMakeLists.txt b/CMakeLists.txt
--- a/CMakeLists.txt
+++ b/CMakeLists.txt
@@ -1 +1 @@
-set(CMAKE_CUDA_ARCHITECTURES 90)
+set(CMAKE_CUDA_ARCHITECTURES 90 120a)
)";
  std::vector<Patch> patches = parse_patches(kPatch, "k.diff");
  ArchTargets t = infer_arch_targets(patches[0], 1);
  EXPECT_EQ(t.names(), (Names{"sm_90", ">=sm_120"}));
  EXPECT_EQ(t.evidence, "csrc/k.cu:11: #if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1200");
  EXPECT_TRUE(covers(t, kSm90));  // the CMake line also builds for sm_90
}

// ---------------------------------------------------------------------------------------------
// verify end to end

class ArchE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    test::write_file(dir.path() / "tree/python/kern/attn.py",
                     "import torch\n\nCUDA_CAPABILITY = torch.cuda.get_device_capability()\n\n\n"
                     "def block_sizes(head_dim):\n    num_stages = 2\n"
                     "    if CUDA_CAPABILITY[0] >= 9:\n        BLOCK_M, BLOCK_N = (128, 64)\n"
                     "    else:\n        BLOCK_M, BLOCK_N = (64, 64)\n"
                     "    return BLOCK_M, BLOCK_N, num_stages\n");
    test::write_file(dir.path() / "sm120.patch", kInferredPatch);
    // A patch without arch evidence that is applied already.
    test::write_file(dir.path() / "plain.patch",
                     "--- a/python/kern/attn.py\n+++ b/python/kern/attn.py\n@@ -1 +1 @@\n"
                     "-import os\n+import torch\n");
  }
  json run_json(std::vector<std::string> args, int expected_exit) {
    std::vector<std::string> full{"verify", "--format", "json"};
    full.insert(full.end(), args.begin(), args.end());
    full.push_back(dir / "sm120.patch");
    full.push_back(dir / "plain.patch");
    full.push_back(dir / "tree");
    test::RunResult r = test::run_sm120check(full);
    EXPECT_EQ(r.exit_code, expected_exit) << r.err << r.out;
    EXPECT_EQ(r.err, "");
    return json::parse(r.out);
  }
  test::TempDir dir;
};

TEST_F(ArchE2E, OnlyRelevantWithCc120KeepsTheFix) {
  json doc = run_json({"--cc", "12.0", "--only-relevant"}, 1);
  EXPECT_EQ(doc["gpu"]["source"], "override");
  EXPECT_EQ(doc["gpu"]["error"], nullptr);
  ASSERT_EQ(doc["gpu"]["devices"].size(), 1u);
  EXPECT_EQ(doc["gpu"]["devices"][0]["compute_capability"], "12.0");
  EXPECT_EQ(doc["gpu"]["devices"][0]["major"], 12);
  EXPECT_EQ(doc["gpu"]["devices"][0]["minor"], 0);
  EXPECT_EQ(doc["gpu"]["devices"][0]["shared_memory_per_block_optin"], 101376);
  const json& p = doc["patches"][0];
  EXPECT_EQ(p["status"], "applicable");
  EXPECT_EQ(p["arch"], json::parse(R"({"targets": ["sm_12x"], "source": "inferred",
      "relevant": true, "evidence": "python/kern/attn.py:8: if CUDA_CAPABILITY[0] == 12:"})"));
  EXPECT_EQ(doc["patches"][1]["status"], "applied");
  EXPECT_EQ(doc["patches"][1]["arch"], json::parse(R"({"targets": [], "source": "none",
      "relevant": null, "evidence": null})"));
  EXPECT_EQ(doc["summary"]["applicable"], 1);
  EXPECT_EQ(doc["summary"]["skipped"], 0);
}

TEST_F(ArchE2E, OnlyRelevantWithCc90SkipsTheFix) {
  json doc = run_json({"--cc", "sm_90", "--only-relevant"}, 0);
  const json& p = doc["patches"][0];
  EXPECT_EQ(p["status"], "skipped");
  EXPECT_EQ(p["arch"]["relevant"], false);
  EXPECT_EQ(p["files"][0]["status"], "applicable");   // files keep their verdicts
  EXPECT_EQ(doc["patches"][1]["status"], "applied");  // no evidence: never skipped
  EXPECT_EQ(doc["summary"]["skipped"], 1);
  EXPECT_EQ(doc["summary"]["applied"], 1);
  EXPECT_EQ(doc["exit_code"], 0);
}

TEST_F(ArchE2E, WithoutOnlyRelevantNothingIsSkipped) {
  json doc = run_json({"--cc", "9.0"}, 1);
  EXPECT_EQ(doc["patches"][0]["status"], "applicable");
  EXPECT_EQ(doc["patches"][0]["arch"]["relevant"], false);
}

TEST_F(ArchE2E, NoGpuAndProbe) {
  json doc = run_json({"--no-gpu", "--only-relevant"}, 1);
  EXPECT_EQ(doc["gpu"], json::parse(R"({"source": "none", "state": "not-probed", "devices": [],
      "error": null, "driver_version": null, "runtime_version": null, "probe_ms": null})"));
  EXPECT_EQ(doc["patches"][0]["arch"]["relevant"], nullptr);
  EXPECT_EQ(doc["patches"][0]["status"], "applicable");

  json probed = run_json({}, 1);
  if (probed["gpu"]["state"] == "ok") GTEST_SKIP() << "a CUDA device is present";
  EXPECT_EQ(probed["gpu"]["devices"], json::array());
  EXPECT_TRUE(probed["gpu"]["error"].is_string());
  EXPECT_EQ(probed["gpu"]["source"], built_with_cuda() ? "cuda-runtime" : "none");
}

TEST_F(ArchE2E, TextReport) {
  test::RunResult r = test::run_sm120check(
      {"verify", "--cc", "9.0", "--only-relevant", dir / "sm120.patch", dir / "tree"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("gpu: compute capability 9.0 (sm_90), given with --cc\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  [skipped]\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  arch: sm_12x  relevant to this GPU: no (skipped: --only-relevant)\n"
                       "    from python/kern/attn.py:8: if CUDA_CAPABILITY[0] == 12:\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("summary: 1 patch: 1 skipped  -> exit 0\n"), std::string::npos);
}

TEST_F(ArchE2E, UsageErrors) {
  test::RunResult bad =
      test::run_sm120check({"verify", "--cc", "sm_1x", dir / "sm120.patch", dir / "tree"});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("--cc: bad compute capability 'sm_1x'"), std::string::npos) << bad.err;
  test::RunResult both = test::run_sm120check(
      {"verify", "--cc", "12.0", "--no-gpu", dir / "sm120.patch", dir / "tree"});
  EXPECT_EQ(both.exit_code, 3);
  EXPECT_NE(both.err.find("excludes"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace sm120check
