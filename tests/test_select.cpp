// --include / --exclude (git apply's): path_selected() against git apply itself, and verify and
// apply end to end against a pip-style tree that lacks the patch's tests.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "sm120check/patch.hpp"
#include "sm120check/verify.hpp"
#include "test_util.hpp"

namespace sm120check {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::read_file;
using test::run_sm120check;
using test::RunResult;
using test::TempDir;
using test::write_file;

TEST(PathRules, FirstMatchDecidesAndAnIncludeLeavesOutTheRest) {
  EXPECT_TRUE(path_selected("tests/a.py", {}));
  EXPECT_FALSE(path_selected("tests/a.py", {{"tests/*", false}}));
  EXPECT_TRUE(path_selected("pkg/a.py", {{"tests/*", false}}));
  // '*' matches '/' too (git's wildmatch without WM_PATHNAME).
  EXPECT_FALSE(path_selected("tests/deep/a.py", {{"tests/*", false}}));
  EXPECT_FALSE(path_selected("pkg/tests/a.py", {{"*/tests/*", false}}));
  // An include: what no rule matches is left out.
  EXPECT_TRUE(path_selected("pkg/a.py", {{"pkg/*", true}}));
  EXPECT_FALSE(path_selected("docs/a.md", {{"pkg/*", true}}));
  // Order: the first rule that matches decides.
  EXPECT_FALSE(path_selected("pkg/t.py", {{"pkg/t.py", false}, {"pkg/*", true}}));
  EXPECT_TRUE(path_selected("pkg/t.py", {{"pkg/*", true}, {"pkg/t.py", false}}));
  EXPECT_TRUE(path_selected("[x].py", {{"\\[x\\].py", true}}));
}

/// The paths `git apply --numstat` keeps of `patch` under `rules` (the same options in order).
std::set<std::string> git_kept(const fs::path& dir, const fs::path& patch,
                               const std::vector<PathRule>& rules) {
  std::string cmd = "cd '" + dir.string() + "' && git apply --numstat";
  for (const PathRule& r : rules)
    cmd += std::string(r.include ? " --include='" : " --exclude='") + r.pattern + "'";
  cmd += " '" + patch.string() + "' > numstat.txt";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::set<std::string> kept;
  const std::string text = read_file(dir / "numstat.txt");
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t eol = text.find('\n', at);
    if (eol == std::string::npos) eol = text.size();
    const std::string line = text.substr(at, eol - at);
    kept.insert(line.substr(line.rfind('\t') + 1));
    at = eol + 1;
  }
  return kept;
}

// Ground truth from git itself: the same rules keep the same files as `git apply --include
// --exclude` (its --numstat lists the file patches it uses).
TEST(PathRules, KeepTheFilesGitApplyKeeps) {
  TempDir dir;
  const std::vector<std::string> paths = {"pkg/a.py",       "pkg/sub/b.py", "tests/t_a.py",
                                          "pkg/tests/t.py", "docs/x.md",    "setup.py",
                                          ".github/w.yml"};
  std::string text;
  for (const std::string& p : paths)
    text += "diff --git a/" + p + " b/" + p + "\n--- a/" + p + "\n+++ b/" + p +
            "\n@@ -1 +1 @@\n-old\n+new\n";
  const fs::path patch = dir.path() / "p.patch";
  write_file(patch, text);
  const std::vector<std::vector<PathRule>> cases = {
      {},
      {{"tests/*", false}},
      {{"*/tests/*", false}, {"tests/*", false}},
      {{"pkg/*", true}},
      {{"pkg/tests/*", false}, {"pkg/*", true}},
      {{"pkg/*", true}, {"pkg/tests/*", false}},
      {{"*.py", true}, {"setup.py", false}},
      {{"setup.py", false}, {"*.py", true}},
      {{"*", false}},
      {{"?kg/a.py", true}, {"docs/*", true}},
      {{"[pt]*/*", false}},
      {{".github/*", false}},
  };
  for (const std::vector<PathRule>& rules : cases) {
    std::vector<Patch> patches = parse_patches(text, patch.string());
    const std::vector<std::vector<std::string>> out = select_file_patches(patches, {1}, rules);
    std::set<std::string> kept;
    for (const FilePatch& f : patches[0].files) kept.insert(*strip_path(f.new_path, 1));
    EXPECT_EQ(kept, git_kept(dir.path(), patch, rules)) << "rules: " << rules.size();
    EXPECT_EQ(kept.size() + out[0].size(), paths.size());
  }
}

// A pip install has the package, not its tests: the upstream patch reads conflict there (the
// test file does not exist); --exclude 'tests/*' judges the package alone, and says what it
// left out.
struct PipFixture {
  TempDir dir;
  std::string tree = dir / "site-packages";
  std::string patch = dir / "fix.patch";
  PipFixture() {
    write_file(dir.path() / "site-packages" / "pkg" / "k.py",
               "def tile(cc):\n    if cc == 12:\n        return 64\n    return 128\n");
    write_file(patch,
               "diff --git a/pkg/k.py b/pkg/k.py\n--- a/pkg/k.py\n+++ b/pkg/k.py\n"
               "@@ -1,2 +1,4 @@\n def tile(cc):\n+    if cc == 12:\n+        return 64\n"
               "     return 128\n"
               "diff --git a/tests/test_k.py b/tests/test_k.py\n--- a/tests/test_k.py\n"
               "+++ b/tests/test_k.py\n@@ -1,2 +1,2 @@\n def test_tile():\n-    pass\n"
               "+    assert tile(12) == 64\n");
  }
};

TEST(PathRulesCli, ExcludeLeavesTheTestsOutOfAPipInstallsVerdict) {
  PipFixture f;
  RunResult before = run_sm120check({"verify", "--no-gpu", f.patch, f.tree});
  EXPECT_EQ(before.exit_code, 2) << before.out << before.err;
  EXPECT_NE(before.err.find("1 file the patches modify is not in the target and looks like tests "
                            "(tests/test_k.py); an installed package has none: --exclude GLOB"),
            std::string::npos)
      << before.err;
  RunResult r = run_sm120check({"verify", "--no-gpu", "--exclude", "tests/*", f.patch, f.tree});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("tests/test_k.py  left out (--include/--exclude)"), std::string::npos)
      << r.out;
  RunResult j = run_sm120check(
      {"verify", "--no-gpu", "--format", "json", "--include", "pkg/*", f.patch, f.tree});
  ASSERT_EQ(j.exit_code, 0) << j.out << j.err;
  const json doc = json::parse(j.out);
  const json& p = doc["patches"][0];
  EXPECT_EQ(p["status"], "applied");
  EXPECT_EQ(p["files"].size(), 1u);
  EXPECT_EQ(p["excluded"], json::array({"tests/test_k.py"}));
}

// The note names test files only: a missing package file is not one.
TEST(PathRulesCli, NoTestNoteForAMissingPackageFile) {
  TempDir dir;
  write_file(dir.path() / "t" / "other.py", "x = 1\n");
  write_file(dir.path() / "p.patch",
             "diff --git a/pkg/k.py b/pkg/k.py\n--- a/pkg/k.py\n+++ b/pkg/k.py\n"
             "@@ -1 +1 @@\n-a = 1\n+a = 2\n");
  RunResult r = run_sm120check({"verify", "--no-gpu", dir / "p.patch", dir / "t"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err.find("like tests"), std::string::npos) << r.err;
}

// A patch whose every file is left out is unknown: never "applied" or skipped (nothing of it was
// checked; a typo in --include must not pass a CI gate: hostile review hr24).
TEST(PathRulesCli, APatchWithEveryFileLeftOutIsUnknownNotApplied) {
  PipFixture f;
  RunResult r = run_sm120check(
      {"verify", "--no-gpu", "--format", "json", "--exclude", "*", f.patch, f.tree});
  ASSERT_EQ(r.exit_code, 2) << r.out << r.err;
  const json p = json::parse(r.out)["patches"][0];
  EXPECT_EQ(p["status"], "unknown");
  EXPECT_EQ(p["presence"], "unknown");
  EXPECT_TRUE(p["error"].is_null());
  EXPECT_EQ(p["excluded"].size(), 2u);
  RunResult text = run_sm120check({"verify", "--no-gpu", "--exclude", "*", f.patch, f.tree});
  EXPECT_NE(text.out.find("unknown: --include/--exclude left out every file"), std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("--only-relevant"), std::string::npos) << text.out;
}

// apply writes only what the rules keep; a patch left without files is a note, not an error.
TEST(PathRulesCli, ApplyWritesOnlyTheFilesTheRulesKeep) {
  TempDir dir;
  write_file(dir.path() / "t" / "pkg" / "k.py", "def tile(cc):\n    return 128\n");
  write_file(dir.path() / "t" / "tests" / "test_k.py", "def test_tile():\n    pass\n");
  const PipFixture f;
  write_file(dir.path() / "fix.patch", read_file(f.patch));
  RunResult r = run_sm120check(
      {"apply", "--exclude", "tests/*", dir / "fix.patch", dir / "t"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(read_file(dir.path() / "t" / "pkg" / "k.py"),
            "def tile(cc):\n    if cc == 12:\n        return 64\n    return 128\n");
  EXPECT_EQ(read_file(dir.path() / "t" / "tests" / "test_k.py"), "def test_tile():\n    pass\n");
  RunResult none =
      run_sm120check({"apply", "--include", "docs/*", dir / "fix.patch", dir / "t"});
  EXPECT_EQ(none.exit_code, 0) << none.out << none.err;
  EXPECT_NE(none.err.find("every file is left out by --include / --exclude"), std::string::npos)
      << none.err;
  EXPECT_EQ(none.out.find("every patch is applied"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("1 patch left out whole (not applied, not checked)"), std::string::npos)
      << none.out;
  EXPECT_EQ(read_file(dir.path() / "t" / "tests" / "test_k.py"), "def test_tile():\n    pass\n");
}

}  // namespace
}  // namespace sm120check
