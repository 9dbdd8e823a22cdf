// Tests of architecture target inference (one line, the Arch: trailer, whole patches), coverage
// and relevance, and verify's --cc / --no-gpu / --only-relevant end to end.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "../src/arch/scan.hpp"
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
  EXPECT_EQ(line_targets("sm_90a and sm_100f"), (Names{"sm_90", "sm_10x"}));  // f: the family
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

TEST(ArchLine, SlashListsCountEveryItem) {
  // Issue 8: a comment listing SM86/89/120/121 was read as sm_86 only.
  const Names four{"sm_86", "sm_89", "sm_120", "sm_121"};
  EXPECT_EQ(line_targets("// keep smem within budget on 99KB archs (SM86/89/120/121)"), four);
  EXPECT_EQ(line_targets("# sm_86/sm_89/sm_120/sm_121 have 99 KB"), four);
  EXPECT_EQ(line_targets("opt-in limit of SM 8.6/8.9/12.0/12.1 parts"), four);
  EXPECT_EQ(line_targets("sm86, sm89, sm120, sm121"), four);
  EXPECT_EQ(line_targets("(SM100/SM120)"), (Names{"sm_100", "sm_120"}));
  EXPECT_EQ(line_targets("SM10x/12x kernels"), (Names{"sm_10x", "sm_12x"}));
  EXPECT_EQ(line_targets("sm_90a/100a/120a"), (Names{"sm_90", "sm_100", "sm_120"}));
  EXPECT_EQ(line_targets("    # SM12x only"), Names{"sm_12x"});
  // Division is no list: only the first item is an architecture.
  EXPECT_EQ(line_targets("n = SM90/2 + sm_count/4"), Names{"sm_90"});
}

TEST(ArchLine, LaterEarlierAndFamilies) {
  EXPECT_EQ(line_targets("head_dim > 256 is only supported on SM100+"), Names{">=sm_100"});
  EXPECT_EQ(line_targets("if is_sm90_or_later():"), Names{">=sm_90"});
  EXPECT_EQ(line_targets("requires SM100 or newer"), Names{">=sm_100"});
  EXPECT_EQ(line_targets("so on pre-SM100 the JIT spec-gen skips"), Names{"<sm_100"});
  EXPECT_EQ(line_targets("if is_sm100_family():"), Names{"sm_10x"});
  EXPECT_EQ(line_targets("Blackwell (SM120) tiles"), (Names{"sm_10x", "sm_11x", "sm_12x"}));
  EXPECT_EQ(line_targets("if is_blackwell():"), (Names{"sm_10x", "sm_11x", "sm_12x"}));
  EXPECT_EQ(line_targets("using Traits = fmha::Hopper;"), Names{"sm_9x"});
  EXPECT_EQ(line_targets("on the RTX 5090 and RTX PRO 6000"), Names{"sm_120"});
  EXPECT_EQ(line_targets("DGX Spark / GB10"), Names{"sm_121"});
  EXPECT_EQ(line_targets("grasshopper GB100 rtx 500"), Names{});
}

TEST(ArchLine, MoreSolvedForms) {
  EXPECT_EQ(line_targets("if self.arch >= Arch.sm_100 and self.arch <= Arch.sm_103:"),
            (Names{"sm_100", "sm_101", "sm_102", "sm_103"}));
  EXPECT_EQ(line_targets("and get_device_arch() in (\"100a\", \"103a\")"),
            (Names{"sm_100", "sm_103"}));
  EXPECT_EQ(line_targets("@supported_compute_capability([100, 103, 107])"),
            (Names{"sm_100", "sm_103", "sm_107"}));
  EXPECT_EQ(line_targets("    supported_major_versions=[10, 12],"), (Names{"sm_10x", "sm_12x"}));
  EXPECT_EQ(line_targets("if capability >= 8.9:"), Names{">=sm_89"});
  // A compiler or library version's major is no capability.
  EXPECT_EQ(
      line_targets("#if (__CUDACC_VER_MAJOR__ >= 12 && defined(__CUDA_ARCH__) && (__CUDA_ARCH__ "
                   ">= 900))"),
      Names{">=sm_90"});
  EXPECT_EQ(line_targets("if cuda_major >= 13 or get_cuda_version().major < 13:"), Names{});
}

TEST(ArchLine, CodeCommentsAndStrings) {
  LineArch a =
      arch_in_line("if is_sm120a_supported(dev):  # SM90 goes elsewhere", LineSyntax::kHash);
  EXPECT_EQ(a.code.names(), Names{"sm_120"});
  EXPECT_EQ(a.text.names(), Names{"sm_90"});
  a = arch_in_line("    raise ValueError(\"requires SM100\")", LineSyntax::kHash);
  EXPECT_TRUE(a.code.empty());
  EXPECT_EQ(a.text.names(), Names{"sm_100"});
  // Compile flags count as code, also in strings.
  a = arch_in_line("flags = [\"-gencode=arch=compute_120a,code=sm_120a\"]", LineSyntax::kHash);
  EXPECT_EQ(a.code.names(), Names{"sm_120"});
  // Imports and includes only name things; prose words in code lines (a docstring whose quotes
  // lie outside the hunk) are text.
  EXPECT_TRUE(arch_in_line("from flashinfer.utils import is_sm100a_supported", LineSyntax::kHash)
                  .code.empty());
  EXPECT_TRUE(arch_in_line("#include \"gemm_sm90.cuh\"", LineSyntax::kCFamily).code.empty());
  a = arch_in_line("    Fused MoE kernel for SM100 GPUs.", LineSyntax::kHash);
  EXPECT_TRUE(a.code.empty());
  EXPECT_EQ(a.text.names(), Names{"sm_100"});
  // '#' is a comment in Python but a directive in C++; '//' the other way round.
  EXPECT_EQ(arch_in_line("#if __CUDA_ARCH__ >= 1200", LineSyntax::kCFamily).code.names(),
            Names{">=sm_120"});
  EXPECT_TRUE(arch_in_line("# if CUDA_CAPABILITY[0] >= 9:", LineSyntax::kHash).code.empty());
  // A comparison inside a string is no condition.
  EXPECT_TRUE(
      arch_in_line("src = f\"if (sm == {sm} && d == 128)\"", LineSyntax::kHash).code.empty());
  // Prose files are all text.
  a = arch_in_line("Supported: `CUDA_CAPABILITY[0] >= 9` (SM90+)", LineSyntax::kProse);
  EXPECT_TRUE(a.code.empty());
  EXPECT_EQ(a.text.names(), Names{">=sm_90"});
}

TEST(ArchLine, UnsolvedCapabilityTests) {
  for (std::string_view line :
       {"if torch.cuda.get_device_capability() >= min_cc:", "if arch >= SM_MIN:",
        "if cc in SUPPORTED_CCS:", "if current_platform.has_device_capability(min_cap):",
        "if (getSMVersion() < kMinSm) return;", "if props.major == required_major:"}) {
    LineArch a = arch_in_line(line, LineSyntax::kPlain);
    EXPECT_FALSE(a.unsolved.empty()) << line;
    EXPECT_TRUE(a.code.empty()) << line;
  }
  EXPECT_EQ(arch_in_line("if arch >= SM_MIN:", LineSyntax::kPlain).unsolved, "arch >= SM_MIN");
  for (std::string_view line :
       {"for sm in range(num_sms):", "for (int sm = 0; sm < num_sms; ++sm) {",
        "if a_major == \"k\":", "if cc is None or cc == None:", "if sm < sm_count:",
        "if CUDA_CAPABILITY[0] >= 9:", "x = [sm for sm in sms if sm >= 90]"})
    EXPECT_EQ(arch_in_line(line, LineSyntax::kPlain).unsolved, "") << line;
}

TEST(ArchLine, SyntaxForPath) {
  EXPECT_EQ(syntax_for_path("python/sglang/attn.py"), LineSyntax::kHash);
  EXPECT_EQ(syntax_for_path("CMakeLists.txt"), LineSyntax::kHash);
  EXPECT_EQ(syntax_for_path("csrc/xqa/mha.cu"), LineSyntax::kCFamily);
  EXPECT_EQ(syntax_for_path("csrc/xqa/mhaUtils.cuh"), LineSyntax::kCFamily);
  EXPECT_EQ(syntax_for_path("docs/arch.md"), LineSyntax::kProse);
  EXPECT_EQ(syntax_for_path("LICENSE"), LineSyntax::kProse);
}

// ---------------------------------------------------------------------------------------------
// Target sets

// may_name_arch() passes over a line only where no rule finds anything: every line below and
// of the corpus, in each syntax, gives arch_in_line() what every rule run on it gives.
// The corpus: this file (its strings are the rules' examples), the rules' own source, the
// catalog's patches, the shared cases and docs/; SM120CHECK_ARCH_CORPUS names a file listing more
// files, one path a line (a whole checkout of FlashInfer, say: bench/arch_survey.py).
TEST(ArchLine, FilterHidesNoTarget) {
  namespace fs = std::filesystem;
  using arch_scan::arch_in_line_all_rules;
  using arch_scan::may_name_arch;
  std::vector<std::string> lines = {
      "smem_size = 101376",  // "sm" in smem: nothing
      "if cap >= 90:",       // cap alone: a capability
      "x = props.capacity",  // capacity: nothing
      "if torch.cuda.get_device_capability()[0] == 12:",
      "if CUDA_CAPABILITY[0] >= 9:",
      "#if __CUDA_ARCH__ >= 1200",
      "#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 1210)",
      "if sm == 120:",
      "if self.arch >= 100:",
      "if getSMVersion() >= 100:",
      "if get_sm_version() >= 90:",
      "if s_m >= 90:",
      "if cc[0] >= 9:",
      "if access >= 9:",
      "if research >= 90:",
      "if major >= 10:",
      "if device_major == 12:",
      "if (major, minor) >= (12, 0):",
      "supported_compute_capability([90, 120])",
      "SUPPORTED_SM = (90, 100)",
      "supported_major_versions=[10, 12]",
      "SM_VERSIONS = [90, 100]",
      "SUPPORTED_ARCHS = [90, 120]",
      "supported_cc = [(9, 0), (12, 0)]",
      "set(CMAKE_CUDA_ARCHITECTURES 90 120)",
      "TORCH_CUDA_ARCH_LIST=\"9.0;12.0+PTX\"",
      "cuda_archs = 90;120a",
      "kernels for SM 120 and SM 12.0",
      "tuned_for_SM 120, built_sm 90",  // "sm" ends an identifier, then " 120"
      "SM120/121 and sm_100f",
      "if _has_sm90_target():",
      "is_sm120_supported()",
      "pre-SM100 parts",
      "-gencode arch=compute_120a,code=sm_120a",
      "Blackwell, Hopper, RTX 5090, RTX PRO 6000, GB10, DGX Spark",
      "fmha::Hopper KernelHopper is_blackwell",
      "has_device_capability(90) is_device_capability(120) is_device_capability_family(120)",
      "if cap_ab >= 9:",
      "if gpu_arch >= 90 and target_arch < 120:",
      "if arch_number >= 90 or device_arch == 120 or getDeviceArch() == 100:",
      "if sm_arch >= 90 or get_sm_arch() >= 100 or getSM() == 120:",
      "for sm in [90, 100]:",
      "if x_sm_version >= 90 or smversion == 120:",
      "// search the smem capacity: access the cache",
  };
  std::vector<fs::path> files = {fs::path(SM120CHECK_SOURCE_DIR) / "tests/test_arch.cpp",
                                 fs::path(SM120CHECK_SOURCE_DIR) / "src/arch/scan.cpp",
                                 fs::path(SM120CHECK_SOURCE_DIR) / "src/arch/infer.cpp"};
  for (const fs::path& root :
       {fs::path(SM120CHECK_SOURCE_DIR) / "patches",
        fs::path(SM120CHECK_SOURCE_DIR) / "tests/cases", fs::path(SM120CHECK_SOURCE_DIR) / "docs"})
    if (fs::is_directory(root))
      for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file()) files.push_back(e.path());
  if (const char* more = std::getenv("SM120CHECK_ARCH_CORPUS")) {
    std::ifstream list(more);
    for (std::string path; std::getline(list, path);)
      if (!path.empty()) files.push_back(path);
  }
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  ASSERT_GT(lines.size(), 10000u);  // the corpus is there
  std::size_t passed_over = 0, failures = 0;
  for (const std::string& line : lines) {
    if (!may_name_arch(line)) ++passed_over;
    for (const LineSyntax syntax :
         {LineSyntax::kHash, LineSyntax::kCFamily, LineSyntax::kPlain, LineSyntax::kProse}) {
      const LineArch filtered = arch_in_line(line, syntax);
      const LineArch all = arch_in_line_all_rules(line, syntax);
      if (filtered.code.names() == all.code.names() && filtered.text.names() == all.text.names() &&
          filtered.unsolved == all.unsolved)
        continue;
      if (++failures <= 20) ADD_FAILURE() << "syntax " << static_cast<int>(syntax) << ": " << line;
    }
  }
  EXPECT_EQ(failures, 0u);
  EXPECT_GT(passed_over, lines.size() / 2);  // the filter does pass over most lines
  // The words' identifiers that name nothing are passed over; those that may, kept.
  EXPECT_FALSE(may_name_arch("smem_size = 101376 + access + props.capacity + research"));
  EXPECT_TRUE(may_name_arch("if cap >= 90:"));
  EXPECT_TRUE(may_name_arch("if _has_sm90_target():"));
  EXPECT_TRUE(may_name_arch("SM 120"));
  EXPECT_TRUE(may_name_arch("smem = 1; SM 120"));
  EXPECT_TRUE(may_name_arch("SM rules"));  // "sm" alone is a name classify() takes
}

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

// The patches of a run on several threads: the same targets, in order, as one by one; the
// first exception (a strip level missing for a patch) comes back to the caller.
TEST(ArchPatch, ManyPatchesOnThreadsGiveWhatEachGivesAlone) {
  std::string trailer(kInferredPatch);
  trailer.replace(trailer.find("---\n"), 4, "Arch: sm_100\n---\n");
  std::vector<Patch> patches;
  for (int i = 0; i < 40; ++i)
    for (const Patch& p : parse_patches(i % 2 == 0 ? std::string(kInferredPatch) : trailer,
                                        "p" + std::to_string(i) + ".patch"))
      patches.push_back(p);
  const std::vector<unsigned> strips(patches.size(), 1);
  for (const unsigned threads : {0u, 1u, 4u, 64u}) {
    const std::vector<ArchTargets> all = infer_arch_targets(patches, strips, threads);
    ASSERT_EQ(all.size(), patches.size());
    for (std::size_t i = 0; i < patches.size(); ++i) {
      const ArchTargets one = infer_arch_targets(patches[i], 1);
      EXPECT_EQ(all[i].names(), one.names()) << i << " threads " << threads;
      EXPECT_EQ(all[i].source, one.source) << i;
      EXPECT_EQ(all[i].evidence, one.evidence) << i;
    }
    EXPECT_EQ(all[1].names(), Names{"sm_100"});
    EXPECT_EQ(all[0].names(), Names{"sm_12x"});
  }
  EXPECT_THROW(infer_arch_targets(patches, std::vector<unsigned>(3, 1), 4), std::out_of_range);
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

/// A one-file patch of `path` whose single hunk has `body` (lines with ' ', '-', '+').
Patch one_hunk(std::string_view path, std::string_view body, std::string_view message = {}) {
  std::size_t old_lines = 0;
  std::size_t new_lines = 0;
  for (std::size_t at = 0; at < body.size();) {
    old_lines += body[at] != '+';
    new_lines += body[at] != '-';
    const std::size_t eol = body.find('\n', at);
    at = eol == std::string_view::npos ? body.size() : eol + 1;
  }
  std::string text(message);
  text += fmt::format("--- a/{0}\n+++ b/{0}\n@@ -10,{1} +10,{2} @@\n{3}", path, old_lines,
                      new_lines, body);
  std::vector<Patch> patches = parse_patches(text, "t.diff");
  EXPECT_EQ(patches.size(), 1u);
  return patches.at(0);
}

ArchTargets infer(std::string_view path, std::string_view body, std::string_view message = {}) {
  return infer_arch_targets(one_hunk(path, body, message), 1);
}

std::optional<bool> relevant_to(const ArchTargets& t, ComputeCapability cc) {
  return arch_relevant(t, override_gpu(cc));
}

TEST(ArchConcern, NarrowedConditionConcernsWhatItDropped) {
  // Issue 8, verbatim: ">= 9" -> ">= 9 and CUDA_CAPABILITY[0] != 12" concerns 12.x.
  ArchTargets t = infer("attn.py",
                        "-    if CUDA_CAPABILITY[0] >= 9:\n"
                        "+    if CUDA_CAPABILITY[0] >= 9 and CUDA_CAPABILITY[0] != 12:\n"
                        "         BLOCK_M, BLOCK_N = (128, 64)\n");
  EXPECT_EQ(t.names(), Names{"sm_12x"});
  EXPECT_EQ(t.confidence, ArchConfidence::kConfident);
  EXPECT_EQ(t.evidence, "attn.py:10: if CUDA_CAPABILITY[0] >= 9 and CUDA_CAPABILITY[0] != 12:");
  EXPECT_EQ(relevant_to(t, kSm120), true);
  EXPECT_EQ(relevant_to(t, kSm90), false);  // 9.x behaves as before

  // ">= 9" -> "== 9" concerns 10.0 and later; ">= 9" -> "in (9, 10)" concerns 11.0 and later.
  t = infer("attn.py", "-    if CUDA_CAPABILITY[0] >= 9:\n+    if CUDA_CAPABILITY[0] == 9:\n");
  EXPECT_EQ(t.names(), Names{">=sm_100"});
  EXPECT_EQ(relevant_to(t, kSm120), true);
  t = infer("attn.py",
            "-    if CUDA_CAPABILITY[0] >= 9:\n+    if CUDA_CAPABILITY[0] in (9, 10):\n");
  EXPECT_EQ(t.names(), Names{">=sm_110"});
  EXPECT_EQ(relevant_to(t, kSm120), true);
  // Widened: "== 9" -> "in (9, 12)" concerns 12.x only.
  t = infer("attn.py",
            "-    if CUDA_CAPABILITY[0] == 9:\n+    if CUDA_CAPABILITY[0] in (9, 12):\n");
  EXPECT_EQ(t.names(), Names{"sm_12x"});
  EXPECT_EQ(relevant_to(t, kSm90), false);
  // C++: a guard narrowed to exclude 12.0.
  t = infer("k.cu",
            "-#if __CUDA_ARCH__ >= 900\n+#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ != 1200\n");
  EXPECT_EQ(t.names(), Names{"sm_120"});
}

TEST(ArchConcern, PairsAndUnions) {
  // Two conditions rewritten in one block pair by position (a union per side would lose 11.x:
  // "< 12 or == 12" -> "< 10 or == 11" differs only on 10.x and 12.x).
  ArchTargets t = infer("attn.py",
                        "-    a = 64 if CUDA_CAPABILITY[0] < 12 else 32\n"
                        "-    b = 2 if CUDA_CAPABILITY[0] == 12 else 1\n"
                        "+    a = 64 if CUDA_CAPABILITY[0] < 10 else 32\n"
                        "+    b = 2 if CUDA_CAPABILITY[0] == 11 else 1\n");
  EXPECT_EQ(t.names(), (Names{"sm_10x", "sm_11x", "sm_12x"}));
  EXPECT_EQ(t.confidence, ArchConfidence::kConfident);
  // Code beside the condition changed too: everything either side names.
  t = infer("attn.py",
            "-    if CUDA_CAPABILITY[0] >= 9:\n"
            "-        BLOCK = 128\n"
            "+    if CUDA_CAPABILITY[0] >= 9 and CUDA_CAPABILITY[0] != 12:\n"
            "+        BLOCK = 64\n");
  EXPECT_EQ(t.names(), Names{">=sm_90"});
  EXPECT_EQ(relevant_to(t, kSm90), true);
  // Same targets, other code in the condition: it concerns its range.
  t = infer("attn.py", "-    if cc[0] >= 9 and use_tma:\n+    if cc[0] >= 9 and not use_tma:\n");
  EXPECT_EQ(t.names(), Names{">=sm_90"});
  // Same targets and same code apart from them ("if" -> "elif", another spelling): no change.
  t = infer("attn.py",
            "-    if cc[0] >= 9:\n+    elif cc[0] > 8:\n         BLOCK = 64\n"
            "+    x = 1  # SM120\n");
  EXPECT_EQ(t.names(), Names{"sm_120"});  // only the comment is left
  EXPECT_EQ(t.confidence, ArchConfidence::kUnsure);
}

TEST(ArchConcern, RemovedConditionConcernsWhatItNamed) {
  // A deleted "if cc == 12" branch concerns 12.x.
  ArchTargets t = infer("cfg.py",
                        "     num_stages = 2\n"
                        "-    if CUDA_CAPABILITY[0] == 12:\n"
                        "-        num_stages = 1\n"
                        "     return num_stages\n");
  EXPECT_EQ(t.names(), Names{"sm_12x"});
  EXPECT_EQ(t.confidence, ArchConfidence::kConfident);
  EXPECT_EQ(t.evidence, "cfg.py:11 (removed): if CUDA_CAPABILITY[0] == 12:");
  EXPECT_EQ(relevant_to(t, kSm120), true);
  // Its code kept for everyone (re-indented): unsure.
  t = infer("cfg.py",
            "-    if CUDA_CAPABILITY[0] == 9:\n"
            "-        num_stages = 3\n"
            "+    num_stages = 3\n");
  EXPECT_EQ(t.confidence, ArchConfidence::kUnsure);
  EXPECT_EQ(t.doubt,
            "cfg.py:10 (removed): condition removed around re-indented code: if "
            "CUDA_CAPABILITY[0] == 9:");
  EXPECT_EQ(relevant_to(t, kSm120), std::nullopt);
}

TEST(ArchConcern, NewConditionAroundOldCodeIsUnsure) {
  // "if (sm == 90) {" around an unchanged line: 12.0 loses that line.
  ArchTargets t = infer("k.cu",
                        "+  if (getSMVersion() == 90) {\n"
                        "     use_tma_multicast();\n"
                        "+  }\n");
  EXPECT_EQ(t.names(), Names{"sm_90"});
  EXPECT_EQ(t.confidence, ArchConfidence::kUnsure);
  EXPECT_EQ(t.doubt, "k.cu:10: condition added around unchanged code: if (getSMVersion() == 90) {");
  EXPECT_EQ(relevant_to(t, kSm120), std::nullopt);
  // Python: the wrapped lines are re-indented.
  t = infer("k.py",
            "-    use_tma_multicast()\n"
            "+    if CUDA_CAPABILITY[0] == 9:\n"
            "+        use_tma_multicast()\n");
  EXPECT_EQ(t.confidence, ArchConfidence::kUnsure);
  // Moved under a new condition further down the hunk (two change blocks).
  t = infer("aot.py",
            "     specs = [\n"
            "         gen_spec(\"a\"),\n"
            "-        gen_spec(\"trtllm_utils\"),\n"
            "     ]\n"
            "+    if has_sm90:\n"
            "+        specs.append(\n"
            "+            gen_spec(\"trtllm_utils\"),\n"
            "+        )\n");
  EXPECT_EQ(t.names(), Names{"sm_90"});
  EXPECT_EQ(t.doubt, "aot.py:13: condition added around re-indented code: if has_sm90:");
  // Code replaced by a branch: the other architectures lost it.
  t = infer("k.py",
            "-    backend = \"fa2\"\n"
            "+    if CUDA_CAPABILITY[0] == 9:\n"
            "+        backend = \"fa3\"\n");
  EXPECT_EQ(t.confidence, ArchConfidence::kUnsure);
  EXPECT_EQ(t.doubt,
            "k.py:10 (removed): code removed beside an added condition: backend = \"fa2\"");
  // A new branch with new code only stays confident (the SM120 fix shape of patches/).
  t = infer("k.py",
            "     if M <= E:\n"
            "         config[\"BLOCK_SIZE_M\"] = 16\n"
            "+    if major == 12:\n"
            "+        config[\"BLOCK_SIZE_K\"] = 64\n"
            "     return config\n");
  EXPECT_EQ(t.names(), Names{"sm_12x"});
  EXPECT_EQ(t.confidence, ArchConfidence::kConfident);
}

TEST(ArchConcern, EarlyExitGuardBeforeNewCode) {
  // New code after "if cc != 12: return" runs on 12.x: the block concerns both sides.
  ArchTargets t = infer("cfg.py",
                        "+    if CUDA_CAPABILITY[0] != 12:\n"
                        "+        return config\n"
                        "+    config[\"num_stages\"] = 1\n"
                        "     return config\n");
  EXPECT_EQ(t.names(), Names{"any"});
  EXPECT_EQ(relevant_to(t, kSm120), true);
  t = infer("k.cu", "+  if (getSMVersion() != 120) return;\n+  shrink_tiles();\n");
  EXPECT_TRUE(covers(t, kSm120));
  // An early exit alone concerns only where it exits.
  t = infer("cfg.py", "+    if CUDA_CAPABILITY[0] != 12:\n+        return config\n     x = 1\n");
  EXPECT_FALSE(covers(t, kSm120));
}

TEST(ArchConcern, DoubtMeansUnknown) {
  // A capability test the rules cannot solve.
  ArchTargets t = infer("attn.py",
                        "+    if CUDA_CAPABILITY[0] == 9:\n"
                        "+        BLOCK = 128\n"
                        "+    if torch.cuda.get_device_capability() >= min_cc:\n"
                        "+        BLOCK = 64\n");
  EXPECT_EQ(t.names(), Names{"sm_9x"});
  EXPECT_EQ(t.confidence, ArchConfidence::kUnsure);
  EXPECT_EQ(t.doubt,
            "attn.py:12: capability test not solved: torch.cuda.get_device_capability() >= min_cc");
  EXPECT_EQ(relevant_to(t, kSm120), std::nullopt);
  EXPECT_EQ(relevant_to(t, kSm90), true);
  // Targets only from comments and strings.
  t = infer("attn.py", "+    # Hopper: bigger tiles\n+    BLOCK = 128\n");
  EXPECT_EQ(t.names(), Names{"sm_9x"});
  EXPECT_EQ(t.confidence, ArchConfidence::kUnsure);
  EXPECT_EQ(relevant_to(t, kSm120), std::nullopt);
  // A trailer is confident.
  t = infer("attn.py", "+    BLOCK = 128\n", "Subject: x\n\nArch: sm_90\n---\n");
  EXPECT_EQ(t.confidence, ArchConfidence::kConfident);
  EXPECT_EQ(relevant_to(t, kSm120), false);
}

TEST(ArchConcern, NegatedTestsAreNeverSkipped) {
  // Hostile review: "if not is_sm100_family():" runs on SM120 exactly; read as sm_10x it was
  // skipped for 12.0. A negated architecture test is unsure: kept.
  for (const char* line : {"+    if not is_sm100_family():\n", "+    if (!is_sm100_family()) {\n",
                           "+    if not (CUDA_CAPABILITY[0] == 10):\n"}) {
    const ArchTargets t = infer("moe.py", std::string(line) + "+        BLOCK = 64\n");
    EXPECT_EQ(t.confidence, ArchConfidence::kUnsure) << line;
    EXPECT_NE(relevant_to(t, kSm120), false) << line;
  }
  // "!=" is no negation of the test: confident as before.
  const ArchTargets ne =
      infer("moe.py", "+    if CUDA_CAPABILITY[0] != 12:\n+        BLOCK = 64\n");
  EXPECT_EQ(ne.confidence, ArchConfidence::kConfident);
}

/// A runtime file patch whose new condition names SM 9.x: code targets, no doubt of its own.
constexpr std::string_view kDispatchSm9 = R"(--- a/python/moe/dispatch.py
+++ b/python/moe/dispatch.py
@@ -3,2 +3,4 @@
 def pick(cc):
+    if cc[0] == 9:
+        return "fa3"
     return "fa2"
)";

TEST(ArchConcern, RewrittenLinesAreNoUntargetedCode) {
  // A changed comment changes no code: each added line pairs with the first removed line of
  // the same code not paired yet, and the doubt names the first line left, here the second of
  // two equal removed lines (a hunk naming no architecture is read without its full scan).
  const std::string kPatch = std::string(kDispatchSm9) + R"(--- a/python/moe/shared.py
+++ b/python/moe/shared.py
@@ -8,5 +8,4 @@
 def scale(x):
-    y = x  # first
-    y = x  # second
-    z = y
+    y = x  # one
+    z = y  # same code
     return y
)";
  ArchTargets t = infer_arch_targets(parse_patches(kPatch, "p.diff")[0], 1);
  EXPECT_EQ(t.confidence, ArchConfidence::kUnsure);
  EXPECT_EQ(t.doubt,
            "python/moe/shared.py:10 (removed): code changed with no architecture named in its "
            "hunk or path: y = x  # second");
  // With the second copy paired too, only comments changed: no doubt.
  std::string both(kPatch);
  both.replace(both.find("@@ -8,5 +8,4 @@"), 15, "@@ -8,5 +8,5 @@");
  both.insert(both.find("+    z = y"), "+    y = x  # two\n");
  t = infer_arch_targets(parse_patches(both, "p.diff")[0], 1);
  EXPECT_EQ(t.names(), Names{"sm_9x"});
  EXPECT_EQ(t.confidence, ArchConfidence::kConfident);
  EXPECT_EQ(t.doubt, "");
}

TEST(ArchConcern, AnEarlierUntargetedHunkKeepsTheFirstDoubt) {
  // The doubt about an untargeted hunk is looked at only once the patch has code targets, but
  // keeps its place: before the doubt of a later hunk (a negated test), and reported as the
  // patch's one.
  constexpr std::string_view kPatch = R"(--- a/python/moe/shared.py
+++ b/python/moe/shared.py
@@ -8,2 +8,2 @@
 def scale(x):
-    return x * 2
+    return x * 4
--- a/python/moe/dispatch.py
+++ b/python/moe/dispatch.py
@@ -3,2 +3,4 @@
 def pick(cc):
+    if not is_sm100_family():
+        return "fa3"
     return "fa2"
)";
  ArchTargets t = infer_arch_targets(parse_patches(kPatch, "p.diff")[0], 1);
  EXPECT_EQ(t.names(), Names{"sm_10x"});
  EXPECT_EQ(t.confidence, ArchConfidence::kUnsure);
  EXPECT_EQ(t.doubt,
            "python/moe/shared.py:9 (removed): code changed with no architecture named in its hunk "
            "or path: return x * 2");
  // Without the code targets the untargeted hunk's doubt is not the one reported.
  std::string text_only(kPatch);
  text_only.replace(text_only.find("if not is_sm100_family():"), 25, "# Blackwell: fa3");
  t = infer_arch_targets(parse_patches(text_only, "p.diff")[0], 1);
  EXPECT_EQ(t.confidence, ArchConfidence::kUnsure);
  EXPECT_EQ(t.doubt,
            "no code line names an architecture: targets only from comments, strings, names, "
            "paths or the message");
}

TEST(ArchConcern, UntargetedRuntimeHunksAreUnsure) {
  const std::string kPatch = std::string(kDispatchSm9) + R"(--- a/python/moe/shared.py
+++ b/python/moe/shared.py
@@ -8,2 +8,2 @@
 def scale(x):
-    return x * 2
+    return x * 4
)";
  std::vector<Patch> p = parse_patches(kPatch, "p.diff");
  ArchTargets t = infer_arch_targets(p[0], 1);
  EXPECT_EQ(t.names(), Names{"sm_9x"});
  EXPECT_EQ(t.confidence, ArchConfidence::kUnsure);
  EXPECT_EQ(t.doubt,
            "python/moe/shared.py:9 (removed): code changed with no architecture named in its hunk "
            "or path: return x * 2");
  EXPECT_EQ(relevant_to(t, kSm120), std::nullopt);
  // A submodule pointer (a file of unknown kind) is runtime content too.
  std::string bump(kPatch.substr(0, kPatch.find("--- a/python/moe/shared.py")));
  bump +=
      "--- a/3rdparty/cutlass\n+++ b/3rdparty/cutlass\n@@ -1 +1 @@\n"
      "-Subproject commit 1111111111111111111111111111111111111111\n"
      "+Subproject commit 2222222222222222222222222222222222222222\n";
  t = infer_arch_targets(parse_patches(bump, "b.diff")[0], 1);
  EXPECT_EQ(t.confidence, ArchConfidence::kUnsure);
  EXPECT_EQ(t.doubt.substr(0, 31), "3rdparty/cutlass:1 (removed): c");
  // The same change under tests/, or in a file whose path names an architecture, is governed.
  for (std::string_view path : {"tests/moe/test_shared.py", "python/moe/shared_sm90.py"}) {
    std::string text(kPatch);
    for (std::size_t at = text.find("python/moe/shared.py"); at != std::string::npos;
         at = text.find("python/moe/shared.py", at))
      text.replace(at, 20, path);
    t = infer_arch_targets(parse_patches(text, "p.diff")[0], 1);
    EXPECT_EQ(t.confidence, ArchConfidence::kConfident) << path << ": " << t.doubt;
    EXPECT_EQ(relevant_to(t, kSm120), false) << path;
  }
}

TEST(ArchConcern, MessageAndPathsAddTargets) {
  // The subject names SM120; the code names only SM100.
  ArchTargets t = infer("gemm.py", "+    if CUDA_CAPABILITY[0] == 10:\n+        x = 1\n",
                        "From: a <a@b.c>\nSubject: [PATCH] fix cudnn sm120 nan\n\nbody\n---\n"
                        " gemm_sm90.py | 2 +-\n");
  EXPECT_EQ(t.names(), (Names{"sm_10x", "sm_120"}));  // not the diffstat's sm90
  EXPECT_EQ(relevant_to(t, kSm120), true);
  // A kernel file named for an architecture.
  t = infer("csrc/gemm_sm120.cu", "-  int stages = 3;\n+  int stages = 2;\n");
  EXPECT_EQ(t.names(), Names{"sm_120"});
  EXPECT_EQ(t.evidence, "csrc/gemm_sm120.cu (path)");
  EXPECT_EQ(t.confidence, ArchConfidence::kUnsure);
}

TEST(ArchConcern, FlashInferSm12xCommentRegression) {
  // Paraphrased from FlashInfer fafab4727 (XQA head_dim 512 on SM12x): the only SM12x evidence
  // in the changed lines is a comment listing 99 KB parts; the code names sm_90.
  constexpr std::string_view kPatch = R"(--- a/csrc/xqa/mha.cu
+++ b/csrc/xqa/mha.cu
@@ -2,3 +2,5 @@
 constexpr uint32_t headElems = HEAD_ELEMS;
-constexpr uint32_t cacheVTileSeqLen = 32;
+// Large heads hold the whole head in one V tile: halve the V tile sequence length to keep
+// smem within budget on 99KB archs (SM86/89/120/121).
+constexpr uint32_t cacheVTileSeqLen = headElems > 256 ? 16 : 32;
 constexpr uint32_t nbVSplit = 1;
--- a/flashinfer/jit/xqa.py
+++ b/flashinfer/jit/xqa.py
@@ -5,2 +5,2 @@
 def gen_xqa_module(head_dim):
-    if _has_sm90_target():
+    if _has_sm90_target() and head_dim <= 256:
)";
  ArchTargets t = infer_arch_targets(parse_patches(kPatch, "p.diff")[0], 1);
  EXPECT_EQ(t.names(), (Names{"sm_86", "sm_89", "sm_90", "sm_120", "sm_121"}));
  EXPECT_EQ(relevant_to(t, kSm120), true);
  EXPECT_EQ(relevant_to(t, ComputeCapability{12, 1}), true);
}

TEST(ArchConcern, ExistingVerdictsStay) {
  // A patch that only adds Hopper code is still irrelevant to 12.0.
  ArchTargets t = infer("attn.py",
                        "     num_stages = 2\n"
                        "+    if CUDA_CAPABILITY[0] == 9:\n"
                        "+        num_stages = 3\n"
                        "     return num_stages\n");
  EXPECT_EQ(t.names(), Names{"sm_9x"});
  EXPECT_EQ(t.confidence, ArchConfidence::kConfident);
  EXPECT_EQ(relevant_to(t, kSm120), false);
  // The SM120 fix of the examples: relevant to 12.0, not to 9.0.
  t = infer_arch_targets(parse_patches(kInferredPatch, "p.patch")[0], 1);
  EXPECT_EQ(t.confidence, ArchConfidence::kConfident) << t.doubt;
  EXPECT_EQ(relevant_to(t, kSm120), true);
  EXPECT_EQ(relevant_to(t, kSm90), false);
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
      "relevant": true, "evidence": "python/kern/attn.py:8: if CUDA_CAPABILITY[0] == 12:",
      "confidence": "confident", "doubt": null})"));
  EXPECT_EQ(doc["patches"][1]["status"], "applied");
  EXPECT_EQ(doc["patches"][1]["arch"], json::parse(R"({"targets": [], "source": "none",
      "relevant": null, "evidence": null, "confidence": null, "doubt": null})"));
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
      "error": null, "driver_version": null, "runtime_version": null, "driver_release": null,
      "fallback": null, "probe_ms": null})"));
  EXPECT_EQ(doc["patches"][0]["arch"]["relevant"], nullptr);
  EXPECT_EQ(doc["patches"][0]["status"], "applicable");

  json probed = run_json({}, 1);
  if (probed["gpu"]["state"] == "ok") GTEST_SKIP() << "a CUDA device is present";
  EXPECT_EQ(probed["gpu"]["devices"], json::array());
  EXPECT_TRUE(probed["gpu"]["error"].is_string());
  if (probed["gpu"]["source"] != "nvml")
    EXPECT_EQ(probed["gpu"]["source"], built_with_cuda() ? "cuda-runtime" : "none");
}

TEST_F(ArchE2E, ProbeThroughFakeNvml) {
  // The probe's fast path: the relevance of the SM120 fix to a 12.0 + 12.1 host, then to an H200.
  const std::string library = std::string("SM120CHECK_NVML_LIBRARY=") + SM120CHECK_FAKE_NVML;
  test::RunResult r = test::run_sm120check(
      {"verify", "--format", "json", "--only-relevant", dir / "sm120.patch", dir / "tree"}, {},
      {library, "FAKE_NVML_SCENARIO=two"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["gpu"]["source"], "nvml");
  EXPECT_EQ(doc["gpu"]["devices"].size(), 2u);
  EXPECT_EQ(doc["patches"][0]["arch"]["relevant"], true);
  EXPECT_EQ(doc["patches"][0]["status"], "applicable");

  r = test::run_sm120check(
      {"verify", "--format", "json", "--only-relevant", dir / "sm120.patch", dir / "tree"}, {},
      {library, "FAKE_NVML_SCENARIO=hopper"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  doc = json::parse(r.out);
  EXPECT_EQ(doc["gpu"]["devices"][0]["name"], "NVIDIA H200");
  EXPECT_EQ(doc["patches"][0]["arch"]["relevant"], false);
  EXPECT_EQ(doc["patches"][0]["status"], "skipped");

  r = test::run_sm120check({"verify", dir / "sm120.patch", dir / "tree"}, {},
                           {library, "FAKE_NVML_SCENARIO=one-120"});
  EXPECT_NE(r.out.find("gpu 0: NVIDIA RTX PRO 6000 Blackwell Workstation Edition, compute "
                       "capability 12.0 (sm_120), through nvml\n"),
            std::string::npos)
      << r.out;
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

TEST_F(ArchE2E, CommentListKeepsTheSm12xFix) {
  // Issue 8 end to end: the FlashInfer-shaped fix (paraphrased) is kept with --cc 12.0
  // --only-relevant (it was skipped, exit 0, when the comment read as sm_86 only).
  test::write_file(dir.path() / "fi/csrc/xqa/mha.cu",
                   "// XQA decode\nconstexpr uint32_t headElems = HEAD_ELEMS;\n"
                   "constexpr uint32_t cacheVTileSeqLen = 32;\nconstexpr uint32_t nbVSplit = 1;\n");
  test::write_file(dir.path() / "fi.patch",
                   "--- a/csrc/xqa/mha.cu\n+++ b/csrc/xqa/mha.cu\n@@ -2,3 +2,5 @@\n"
                   " constexpr uint32_t headElems = HEAD_ELEMS;\n"
                   "-constexpr uint32_t cacheVTileSeqLen = 32;\n"
                   "+// Halve the V tile sequence length to keep smem within budget\n"
                   "+// on 99KB archs (SM86/89/120/121).\n"
                   "+constexpr uint32_t cacheVTileSeqLen = headElems > 256 ? 16 : 32;\n"
                   " constexpr uint32_t nbVSplit = 1;\n");
  test::RunResult r = test::run_sm120check({"verify", "--format", "json", "--cc", "12.0",
                                            "--only-relevant", dir / "fi.patch", dir / "fi"});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  json p = json::parse(r.out)["patches"][0];
  EXPECT_EQ(p["status"], "applicable");
  EXPECT_EQ(p["arch"]["targets"], json::parse(R"(["sm_86", "sm_89", "sm_120", "sm_121"])"));
  EXPECT_EQ(p["arch"]["relevant"], true);
  EXPECT_EQ(p["arch"]["evidence"], "csrc/xqa/mha.cu:4: // on 99KB archs (SM86/89/120/121).");
  EXPECT_EQ(p["arch"]["confidence"], "unsure");
  EXPECT_EQ(p["arch"]["doubt"],
            "no code line names an architecture: targets only from comments, strings, names, "
            "paths or the message");
}

TEST_F(ArchE2E, UnsureIsNeverSkipped) {
  // Hopper code next to a capability test the rules cannot solve: unknown for 12.0, kept.
  test::write_file(dir.path() / "u.patch",
                   "--- a/python/kern/attn.py\n+++ b/python/kern/attn.py\n@@ -12,1 +12,5 @@\n"
                   "     return BLOCK_M, BLOCK_N, num_stages\n"
                   "+    if CUDA_CAPABILITY[0] == 9:\n+        num_stages = 3\n"
                   "+    if torch.cuda.get_device_capability() >= min_cc:\n"
                   "+        num_stages = 1\n");
  test::RunResult r = test::run_sm120check(
      {"verify", "--cc", "12.0", "--only-relevant", dir / "u.patch", dir / "tree"});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_NE(r.out.find("  arch: sm_9x  relevant to this GPU: unknown (unsure evidence)\n"
                       "    from python/kern/attn.py:13: if CUDA_CAPABILITY[0] == 9:\n"
                       "    unsure: python/kern/attn.py:15: capability test not solved: "
                       "torch.cuda.get_device_capability() >= min_cc\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("summary: 1 patch: 1 applicable  -> exit 1\n"), std::string::npos) << r.out;
  // The same patch without the unsolved test is confidently Hopper-only: skipped.
  test::write_file(dir.path() / "h.patch",
                   "--- a/python/kern/attn.py\n+++ b/python/kern/attn.py\n@@ -12,1 +12,3 @@\n"
                   "     return BLOCK_M, BLOCK_N, num_stages\n"
                   "+    if CUDA_CAPABILITY[0] == 9:\n+        num_stages = 3\n");
  test::RunResult h = test::run_sm120check({"verify", "--format", "json", "--cc", "12.0",
                                            "--only-relevant", dir / "h.patch", dir / "tree"});
  EXPECT_EQ(h.exit_code, 0) << h.err << h.out;
  json doc = json::parse(h.out);
  EXPECT_EQ(doc["patches"][0]["status"], "skipped");
  EXPECT_EQ(doc["patches"][0]["arch"]["relevant"], false);
  EXPECT_EQ(doc["patches"][0]["arch"]["confidence"], "confident");
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
