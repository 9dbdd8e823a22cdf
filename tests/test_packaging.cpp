// What ships beside the binary: the commit --version names (cmake/GitVersion.cmake) in a git
// checkout, a `git archive` tarball and a plain folder.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace sm120check {
namespace {

namespace fs = std::filesystem;
using test::read_file;
using test::run_sm120check;
using test::run_shell;
using test::RunResult;
using test::TempDir;
using test::write_file;

std::string source_path(const std::string& rel) {
  return std::string(SM120CHECK_SOURCE_DIR) + "/" + rel;
}

std::string quote(const std::string& s) { return "'" + s + "'"; }

/// A tool the test needs is missing: a skip, or a failure where SM120CHECK_REQUIRE_TOOLS is set
/// (CI installs every tool, so there a skip would hide a test that did not run).
#define SKIP_WITHOUT_TOOL(tool)                                                       \
  do {                                                                                \
    if (run_shell("command -v " tool " >/dev/null").exit_code != 0) {                 \
      if (std::getenv("SM120CHECK_REQUIRE_TOOLS") != nullptr) FAIL() << tool " missing"; \
      GTEST_SKIP() << tool " is not installed";                                       \
    }                                                                                 \
  } while (0)

// --- the commit --version names (cmake/GitVersion.cmake) --------------------------------------

/// Runs cmake/GitVersion.cmake for the tree `source` into `out`; returns cmake's result.
RunResult generate_version(const fs::path& source, const fs::path& out,
                           const std::string& commit = "") {
  return run_shell(std::string(quote(SM120CHECK_CMAKE_COMMAND)) + " -DSOURCE_DIR=" +
                   quote(source.string()) + " -DOUT=" + quote(out.string()) +
                   " -DGIT=git -DCOMMIT=" + quote(commit) + " -P " +
                   quote(source_path("cmake/GitVersion.cmake")));
}

/// The three facts a generated version.cpp defines, as "commit|dirty|source".
std::string version_facts(const fs::path& file) {
  const std::string text = read_file(file);
  std::smatch m;
  static const std::regex kFacts(
      "kBuildCommit = \"([0-9a-f]*)\";\nconst bool kBuildDirty = (true|false);\n"
      "const char\\* const kBuildCommitSource = \"([a-z]+)\";");
  if (!std::regex_search(text, m, kFacts)) return "unparsed: " + text;
  return std::string(m[1]) + "|" + std::string(m[2]) + "|" + std::string(m[3]);
}

std::string git_env(const fs::path& home) {
  return "export HOME=" + quote(home.string()) +
         " GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e "
         "GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e; ";
}

TEST(GitVersion, CheckoutArchiveAndPlainFolder) {
  SKIP_WITHOUT_TOOL("git");
  TempDir dir;
  const fs::path tree = dir.path() / "tree";
  const fs::path out = dir.path() / "version.cpp";
  // A plain folder (an unpacked tarball not made by git archive): unknown.
  write_file(tree / "cmake/git-commit.txt", "$Format:%H$\n");
  write_file(tree / ".gitattributes", "cmake/git-commit.txt export-subst\n");
  write_file(tree / "a.txt", "a\n");
  ASSERT_EQ(generate_version(tree, out).exit_code, 0);
  EXPECT_EQ(version_facts(out), "|false|unknown");
  // A configure-time commit wins over everything.
  ASSERT_EQ(generate_version(tree, out, "ABCDEF0123").exit_code, 0);
  EXPECT_EQ(version_facts(out), "abcdef0123|false|configure");
  EXPECT_NE(generate_version(tree, out, "not-a-sha").exit_code, 0);

  // A git checkout: HEAD, clean; then a tracked file changed: dirty; untracked files do not
  // count (the build folder is usually one).
  const std::string env = git_env(dir.path());
  RunResult r = run_shell(env + "cd " + quote(tree.string()) +
                          " && git init -q -b main && git add -A && git commit -q -m base && "
                          "git rev-parse HEAD");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string head = r.out.substr(0, 40);
  write_file(tree / "untracked.txt", "u\n");
  ASSERT_EQ(generate_version(tree, out).exit_code, 0);
  EXPECT_EQ(version_facts(out), head + "|false|git");
  // Unchanged facts leave the file alone (ninja then rebuilds nothing): same mtime.
  struct stat before {};
  ASSERT_EQ(::stat(out.c_str(), &before), 0);
  ASSERT_EQ(generate_version(tree, out).exit_code, 0);
  struct stat after {};
  ASSERT_EQ(::stat(out.c_str(), &after), 0);
  EXPECT_EQ(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
  EXPECT_EQ(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
  write_file(tree / "a.txt", "changed\n");
  ASSERT_EQ(generate_version(tree, out).exit_code, 0);
  EXPECT_EQ(version_facts(out), head + "|true|git");

  // git archive fills in cmake/git-commit.txt: the unpacked tarball knows its commit.
  r = run_shell(env + "cd " + quote(tree.string()) +
                " && mkdir ../unpacked && git archive HEAD | tar -x -C ../unpacked");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(generate_version(dir.path() / "unpacked", out).exit_code, 0);
  EXPECT_EQ(version_facts(out), head + "|false|archive");

  // A tree inside another repository (a tarball unpacked in someone's checkout) is not that
  // repository's commit.
  r = run_shell(env + "cd " + quote(tree.string()) +
                " && mkdir -p sub/cmake && cp cmake/git-commit.txt sub/cmake/");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(generate_version(tree / "sub", out).exit_code, 0);
  EXPECT_EQ(version_facts(out), "|false|unknown");
}

}  // namespace
}  // namespace sm120check
