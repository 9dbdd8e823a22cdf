// What ships beside the binary, checked against the binary: the man page (docs/sm120check.1)
// and the bash and zsh completions (completions/) against every command's --help, and the
// commit --version names (cmake/GitVersion.cmake) in a git checkout, a `git archive` tarball
// and a plain folder.
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

const std::vector<std::string> kCommands = {"verify", "apply", "log",  "scan",
                                            "kernels", "show", "grep", "gpu"};

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

/// Option names in `text` (a --help option column, a man page tag line, a completion word
/// list): "-p", "--strip", ... in order of appearance, each once.
std::vector<std::string> option_names(const std::string& text) {
  static const std::regex kOption(R"((^|[^A-Za-z0-9_-])(--?[A-Za-z][A-Za-z0-9-]*))");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kOption);
       it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[2];
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

/// The options `sm120check CMD --help` lists (CMD "" for the top level): the first column of
/// each line of its "Options:" block, e.g. "-p,--strip N" gives -p and --strip.
std::vector<std::string> help_options(const std::string& cmd) {
  std::vector<std::string> args;
  if (!cmd.empty()) args.push_back(cmd);
  args.push_back("--help");
  RunResult r = run_sm120check(args);
  EXPECT_EQ(r.exit_code, 0) << cmd << r.err;
  std::vector<std::string> out;
  std::istringstream lines(r.out);
  std::string line;
  bool in_options = false;
  while (std::getline(lines, line)) {
    if (line == "Options:") {
      in_options = true;
      continue;
    }
    if (!in_options) continue;
    if (line.empty() || line[0] != ' ') break;  // the block ends at a blank or unindented line
    if (line.rfind("  -", 0) != 0) continue;    // a wrapped description
    const std::string column = line.substr(2, line.find(' ', 2) - 2);
    for (const std::string& name : option_names(column)) out.push_back(name);
  }
  EXPECT_FALSE(out.empty()) << "no options parsed from " << cmd << " --help:\n" << r.out;
  return out;
}

/// The man page's text with troff's escapes undone (\- is -, fonts dropped), by section: each
/// ".SH NAME" and ".SS NAME" starts a section named NAME; its text runs to the next one.
std::map<std::string, std::string> man_sections(const std::string& troff) {
  std::map<std::string, std::string> sections;
  std::string current;
  std::istringstream lines(troff);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(".\\\"", 0) == 0) continue;  // a comment
    line = std::regex_replace(line, std::regex(R"(\\f[BIRP])"), "");
    line = std::regex_replace(line, std::regex(R"(\\-)"), "-");
    if (line.rfind(".SH ", 0) == 0 || line.rfind(".SS ", 0) == 0) {
      current = line.substr(4);
      std::erase(current, '"');
      continue;
    }
    sections[current] += line + "\n";
  }
  return sections;
}

/// The option names on the tag lines (the line after each .TP) of a man page section.
std::vector<std::string> man_tag_options(const std::string& section) {
  std::string tags;
  std::istringstream lines(section);
  std::string line;
  bool next_is_tag = false;
  while (std::getline(lines, line)) {
    if (next_is_tag) tags += line + "\n";
    next_is_tag = line == ".TP";
  }
  return option_names(tags);
}

TEST(ManPage, DocumentsEveryOptionOfEveryCommandAndNoOther) {
  const std::string troff = read_file(source_path("docs/sm120check.1"));
  // The title line names the version the binary has (project(VERSION) in CMakeLists.txt).
  const std::size_t title = troff.find("\n.TH SM120CHECK 1 ");
  ASSERT_NE(title, std::string::npos) << "docs/sm120check.1 has no .TH line";
  EXPECT_NE(troff.substr(title, troff.find('\n', title + 1) - title)
                .find(std::string(" \"sm120check ") + SM120CHECK_VERSION + "\" "),
            std::string::npos)
      << "docs/sm120check.1: .TH must name sm120check " << SM120CHECK_VERSION;
  const std::map<std::string, std::string> man = man_sections(troff);
  std::map<std::string, std::vector<std::string>> helps;
  for (const std::string& cmd : kCommands) helps[cmd] = help_options(cmd);
  ASSERT_TRUE(man.count("COMMON OPTIONS")) << "docs/sm120check.1 lacks .SH COMMON OPTIONS";
  // Documented = named on an item's tag line (.TP), not merely mentioned in the prose.
  const std::vector<std::string> common = man_tag_options(man.at("COMMON OPTIONS"));
  const auto documented = [](const std::vector<std::string>& tags, const std::string& name) {
    return std::find(tags.begin(), tags.end(), name) != tags.end();
  };
  for (const std::string& name : help_options(""))
    EXPECT_TRUE(documented(common, name)) << "sm120check --help lists " << name
                                          << ": document it under COMMON OPTIONS";
  ASSERT_TRUE(man.count("SYNOPSIS"));
  for (const std::string& cmd : kCommands) {
    ASSERT_TRUE(man.count(cmd)) << "docs/sm120check.1 lacks a section .SS " << cmd;
    EXPECT_NE(man.at("SYNOPSIS").find("sm120check " + cmd), std::string::npos) << cmd;
    const std::vector<std::string>& help = helps[cmd];
    const std::vector<std::string> tags = man_tag_options(man.at(cmd));
    for (const std::string& name : help)
      EXPECT_TRUE(documented(tags, name) || documented(common, name))
          << "sm120check " << cmd << " --help lists " << name << ": document it in .SS " << cmd
          << " of docs/sm120check.1 (or under COMMON OPTIONS if every command has it)";
    // The other way: an option the page documents for the command must exist (stale pages).
    for (const std::string& name : tags)
      EXPECT_NE(std::find(help.begin(), help.end(), name), help.end())
          << "docs/sm120check.1 documents " << name << " for " << cmd
          << ", which its --help does not list";
  }
  for (const std::string& name : common)
    for (const std::string& cmd : kCommands) {
      const std::vector<std::string>& help = helps[cmd];
      EXPECT_NE(std::find(help.begin(), help.end(), name), help.end())
          << "COMMON OPTIONS documents " << name << ", which " << cmd << " --help lacks";
    }
}

TEST(ManPage, FormatsWithoutWarnings) {
  SKIP_WITHOUT_TOOL("groff");
  // -ww: every warning; -z: no output. groff prints warnings on stderr and exits 0 regardless.
  RunResult r = run_shell("groff -man -ww -z " + quote(source_path("docs/sm120check.1")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

/// Candidates bash offers after `words` (the last being the word under the cursor), through
/// completions/sm120check.bash sourced in a bash subprocess, sorted.
std::vector<std::string> bash_complete(const std::vector<std::string>& words) {
  TempDir dir;
  std::string script = "set -u\nsource " + quote(source_path("completions/sm120check.bash")) +
                       "\n[ \"$(complete -p sm120check)\" = 'complete -F _sm120check sm120check' ]"
                       " || { echo 'not registered' >&2; exit 9; }\nCOMP_WORDS=(";
  for (const std::string& w : words) script += quote(w) + " ";
  script += ")\nCOMP_CWORD=" + std::to_string(words.size() - 1) +
            "\n_sm120check\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n";
  write_file(dir.path() / "complete.bash", script);
  RunResult r = run_shell("cd " + quote(dir.path().string()) + " && bash complete.bash");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::vector<std::string> out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) out.push_back(line);
  std::sort(out.begin(), out.end());
  return out;
}

using Names = std::vector<std::string>;

TEST(BashCompletion, CommandsOptionsAndValues) {
  SKIP_WITHOUT_TOOL("bash");
  EXPECT_EQ(bash_complete({"sm120check", "ver"}), Names{"verify"});
  EXPECT_EQ(bash_complete({"sm120check", ""}),
            (Names{"--help", "--version", "-h", "apply", "gpu", "grep", "kernels", "log", "scan",
                   "show", "verify"}));
  EXPECT_EQ(bash_complete({"sm120check", "verify", "--no-"}),
            (Names{"--no-gpu", "--no-relocate", "--no-repo"}));
  EXPECT_EQ(bash_complete({"sm120check", "verify", "--format", ""}),
            (Names{"github", "json", "junit", "sarif", "text"}));
  EXPECT_EQ(bash_complete({"sm120check", "show", "--format", ""}), (Names{"json", "text"}));
  EXPECT_EQ(bash_complete({"sm120check", "apply", "--color", "a"}), (Names{"always", "auto"}));
  // An option of another command is not offered.
  EXPECT_EQ(bash_complete({"sm120check", "gpu", "--li"}), Names{"--limits"});
  EXPECT_EQ(bash_complete({"sm120check", "show", "--li"}), Names{});
  // Every option each command's --help lists, and none it does not (a stale list).
  for (const std::string& cmd : kCommands) {
    const Names offered = bash_complete({"sm120check", cmd, "-"});
    const Names help = help_options(cmd);
    for (const std::string& name : help)
      EXPECT_TRUE(std::binary_search(offered.begin(), offered.end(), name))
          << "completions/sm120check.bash does not offer " << name << " for " << cmd;
    for (const std::string& name : offered)
      EXPECT_NE(std::find(help.begin(), help.end(), name), help.end())
          << "completions/sm120check.bash offers " << name << " for " << cmd
          << ", which its --help does not list";
  }
}

/// Candidates zsh's completion system offers for each of `lines` (TAB typed at its end),
/// through completions/_sm120check in one interactive zsh (tests/packaging/zsh_complete.zsh).
std::map<std::string, Names> zsh_complete(const std::vector<std::string>& lines) {
  std::string command = "timeout 60 zsh -f " +
                        quote(source_path("tests/packaging/zsh_complete.zsh")) + " " +
                        quote(source_path("completions"));
  for (const std::string& line : lines) command += " " + quote(line);
  RunResult r = run_shell(command);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, Names> out;
  Names* current = nullptr;
  std::istringstream text(r.out);
  for (std::string l; std::getline(text, l);) {
    if (l.rfind("== ", 0) == 0)
      current = &out[l.substr(3)];
    else if (current != nullptr && !l.empty())
      current->push_back(l);
  }
  EXPECT_EQ(out.size(), lines.size()) << r.out;
  return out;
}

TEST(ZshCompletion, CommandsOptionsAndValues) {
  SKIP_WITHOUT_TOOL("zsh");
  std::vector<std::string> lines = {"sm120check ver", "sm120check verify --no-",
                                    "sm120check verify --format ", "sm120check gpu --li"};
  for (const std::string& cmd : kCommands) lines.push_back("sm120check " + cmd + " -");
  std::map<std::string, Names> offered = zsh_complete(lines);
  EXPECT_EQ(offered["sm120check ver"], Names{"verify"});
  EXPECT_EQ(offered["sm120check verify --no-"],
            (Names{"--no-gpu", "--no-relocate", "--no-repo"}));
  EXPECT_EQ(offered["sm120check verify --format "],
            (Names{"github", "json", "junit", "sarif", "text"}));
  EXPECT_EQ(offered["sm120check gpu --li"], Names{"--limits"});
  for (const std::string& cmd : kCommands) {
    const Names& options = offered["sm120check " + cmd + " -"];
    const Names help = help_options(cmd);
    for (const std::string& name : help)
      EXPECT_TRUE(std::binary_search(options.begin(), options.end(), name))
          << "completions/_sm120check does not offer " << name << " for " << cmd;
    for (const std::string& name : options)
      EXPECT_NE(std::find(help.begin(), help.end(), name), help.end())
          << "completions/_sm120check offers " << name << " for " << cmd
          << ", which its --help does not list";
  }
}

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
