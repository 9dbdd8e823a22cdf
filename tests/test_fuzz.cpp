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
    {"parse", parse_one}, {"apply", apply_one}, {"render", render_one}, {"arch", arch_one},
    {"kernels", kernels_one}};

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
  std::size_t saved = 0;
  for (const Target& t : kTargets) saved += run_folder(t, "regressions");
  EXPECT_GT(saved, 0u);
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

// Findings of the fuzzers, end to end.

// fuzz_apply: a plain diff naming two files ("--- a/scripts/run.sh", "+++ b/bin/run.sh", no
// rename header) was verified on scripts/run.sh, as GNU patch checks it, but `apply` wrote a new
// bin/run.sh and left scripts/run.sh as it was; verify then called bin/run.sh applied.
TEST(FuzzFindings, PlainDiffNamingTwoFilesIsAppliedInPlace) {
  test::TempDir dir;
  test::write_file(dir / "t/scripts/run.sh", "#!/bin/sh\nmode=debug\necho done\n");
  test::write_file(dir / "p.diff",
                   "--- a/scripts/run.sh\n+++ b/bin/run.sh\n@@ -1,3 +1,3 @@\n #!/bin/sh\n"
                   "-mode=debug\n+mode=release\n echo done\n");
  const test::RunResult apply = test::run_sm120check({"apply", dir / "p.diff", dir / "t"});
  EXPECT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  EXPECT_EQ(test::read_file(dir / "t/scripts/run.sh"), "#!/bin/sh\nmode=release\necho done\n");
  EXPECT_FALSE(fs::exists(dir / "t/bin/run.sh"));
  EXPECT_EQ(test::run_sm120check({"verify", "--no-gpu", dir / "p.diff", dir / "t"}).exit_code, 0);
  EXPECT_EQ(test::run_sm120check({"apply", "-R", dir / "p.diff", dir / "t"}).exit_code, 0);
  EXPECT_EQ(test::read_file(dir / "t/scripts/run.sh"), "#!/bin/sh\nmode=debug\necho done\n");
}

// fuzz_apply: "new mode 201510" (no file type git knows) read as a regular file, so the type
// change was "applied" on any regular file, and `apply` then set the executable bit anyway.
TEST(FuzzFindings, TypeChangeToAModeOfNoFileTypeIsUnknown) {
  test::TempDir dir;
  test::write_file(dir / "t/f.sh", "echo\n");
  test::write_file(dir / "p.diff", "diff --git a/f.sh b/f.sh\nold mode 100644\nnew mode 201510\n");
  const test::RunResult verify =
      test::run_sm120check({"verify", "--no-gpu", "--format", "json", dir / "p.diff", dir / "t"});
  EXPECT_EQ(verify.exit_code, 2) << verify.out;
  EXPECT_NE(verify.out.find("\"status\": \"unknown\""), std::string::npos) << verify.out;
  const test::RunResult apply = test::run_sm120check({"apply", dir / "p.diff", dir / "t"});
  EXPECT_EQ(apply.exit_code, 2) << apply.out << apply.err;
  EXPECT_EQ(fs::status(dir / "t/f.sh").permissions() & fs::perms::owner_exec, fs::perms::none);
  // A type change between the types a tree shows still decides: regular file -> symlink is
  // applicable on a regular file.
  test::write_file(dir / "l.diff", "diff --git a/f.sh b/f.sh\nold mode 100644\nnew mode 120000\n");
  EXPECT_EQ(test::run_sm120check({"verify", "--no-gpu", dir / "l.diff", dir / "t"}).exit_code, 1);
}

}  // namespace
}  // namespace sm120check::fuzz
