// The fuzz entry points (tests/fuzz/fuzz_targets.hpp) over their seed corpus and over every
// input a fuzzer has crashed on (tests/fuzz/regressions/<target>/), kept once fixed: the suite
// runs them through the same code the libFuzzer binaries run, without libFuzzer.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "fuzz/fuzz_targets.hpp"
#include "test_util.hpp"

namespace sm120check::fuzz {
namespace {

namespace fs = std::filesystem;

struct Target {
  const char* name;
  void (*run)(std::string_view);
};

constexpr Target kTargets[] = {
    {"parse", parse_one}, {"apply", apply_one}, {"render", render_one}, {"arch", arch_one}};

/// Runs every file under tests/fuzz/<folder>/<target> through the target; returns how many.
std::size_t run_folder(const Target& target, std::string_view folder) {
  const fs::path dir = fs::path(SM120CHECK_SOURCE_DIR) / "tests/fuzz" / folder / target.name;
  std::size_t count = 0;
  if (!fs::is_directory(dir)) return 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    ++count;
    const std::string input = test::read_file(e.path());
    try {
      target.run(input);
    } catch (const std::exception& ex) {
      ADD_FAILURE() << target.name << " " << e.path().string() << ": " << ex.what();
    }
  }
  return count;
}

TEST(FuzzSeeds, EveryTargetRunsItsCorpus) {
  for (const Target& t : kTargets) EXPECT_GT(run_folder(t, "corpus"), 10u) << t.name;
}

TEST(FuzzRegressions, EverySavedCrashRunsClean) {
  for (const Target& t : kTargets) run_folder(t, "regressions");
}

// A tree input in every option combination, and the other targets' simplest inputs, run clean.
TEST(FuzzTargets, TreeInputOptionsAndSeparator) {
  // A plain applicable patch: nothing to report, in every option combination.
  const std::string body =
      "a\nb\nc\n=== patch ===\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
  for (char options : {'@', 'A', 'D', 'H', 'P', '`', '\0'}) {
    EXPECT_NO_THROW(apply_one(std::string(1, options) + body)) << int{options};
    EXPECT_NO_THROW(render_one(std::string(1, options) + body)) << int{options};
  }
  EXPECT_NO_THROW(parse_one(body));
  EXPECT_NO_THROW(arch_one("+#if __CUDA_ARCH__ >= 1200\n"));
}

}  // namespace
}  // namespace sm120check::fuzz
