// End-to-end tests of the sm120check binary.
//
// Suites `Cli*` (except CliE2E) exercise what the CLI decides by itself: options, usage errors,
// input reading and target checks. Suite `CliE2E` runs real verifications and needs the parser,
// matcher, verification and report modules.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

constexpr const char* kPrefix = "sm120check: error: ";

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

/// Expects a failed run: exit 3, nothing on stdout, and exactly `message` after the prefix on
/// the first line of stderr.
void expect_error(const RunResult& r, const std::string& message) {
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  std::string first_line = r.err.substr(0, r.err.find('\n'));
  EXPECT_EQ(first_line, kPrefix + message) << "stderr: " << r.err;
}

/// Expects a usage error: exit 3, nothing on stdout, the prefix and `fragment` on stderr.
void expect_usage_error(const RunResult& r, const std::string& fragment) {
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind(kPrefix, 0), 0u) << "stderr: " << r.err;
  EXPECT_TRUE(contains(r.err, fragment)) << "stderr: " << r.err;
}

const char* const kExitCodeLines[] = {
    "Exit codes:",
    "  0  every patch applied",
    "  1  at least one patch applicable, and none partial, conflict or unknown",
    "  2  at least one patch partial, conflict or unknown",
    "  3  could not verify (bad patch, missing target, usage error, a patch or file with\n"
    "     status error)",
};

// --- version and help -------------------------------------------------------------------------

/// What --version must print for the checkout the suite was built from, as git tells it now:
/// HEAD and whether tracked files differ (the build's own state when nothing changed since), or
/// outside a git checkout the commit `git archive` wrote into cmake/git-commit.txt, or unknown.
std::string expected_version_output() {
  const std::string source = SM120CHECK_SOURCE_DIR;
  const std::string prefix = std::string("sm120check ") + SM120CHECK_VERSION + " (commit ";
  RunResult git = test::run_shell("git -C '" + source + "' rev-parse --show-toplevel HEAD");
  const std::size_t newline = git.out.find('\n');
  if (git.exit_code == 0 && newline != std::string::npos &&
      std::filesystem::equivalent(git.out.substr(0, newline), source)) {
    const std::string head = git.out.substr(newline + 1, 40);
    RunResult status = test::run_shell("git --no-optional-locks -C '" + source +
                                       "' status --porcelain --untracked-files=no "
                                       "--ignore-submodules=all");
    return prefix + head + (status.out.empty() ? "" : ", with uncommitted changes") + ")\n";
  }
  std::string archived = test::read_file(source + "/cmake/git-commit.txt");
  archived = archived.substr(0, archived.find('\n'));
  if (archived.find_first_not_of("0123456789abcdef") == std::string::npos && !archived.empty())
    return prefix + archived + ")\n";
  return prefix + "unknown: not built from a git checkout)\n";
}

TEST(CliVersion, PrintsNameVersionAndCommit) {
  RunResult r = run_sm120check({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, expected_version_output());
  EXPECT_EQ(r.err, "");
}

TEST(CliHelp, AppHelpListsSubcommandsAndExitCodes) {
  RunResult r = run_sm120check({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(contains(r.out, "Usage: sm120check [OPTIONS] [SUBCOMMAND]")) << r.out;
  EXPECT_TRUE(contains(r.out, "\n  verify ")) << r.out;
  EXPECT_TRUE(contains(r.out, "\n  show ")) << r.out;
  for (const char* line : kExitCodeLines) EXPECT_TRUE(contains(r.out, line)) << line;
}

TEST(CliHelp, VerifyHelpListsOptionsAndExitCodes) {
  RunResult r = run_sm120check({"verify", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(contains(r.out, "Usage: sm120check verify [OPTIONS] PATCH... TARGET")) << r.out;
  for (const char* option : {"-p,--strip N", "--fuzz N", "--ignore-whitespace",
                             "--format text|json", "--color auto|always|never", "TARGET REQUIRED"})
    EXPECT_TRUE(contains(r.out, option)) << option;
  for (const char* line : kExitCodeLines) EXPECT_TRUE(contains(r.out, line)) << line;
}

// grep's and log's -j took 0 (one thread per CPU, the default) while their help said "1 to 16";
// kernels' exit code 2 covers modules whose functions could not be compared, which its help
// left out.
TEST(CliHelp, ThreadRangesAndKernelsExitCodesSayWhatTheBinaryDoes) {
  for (const char* cmd : {"grep", "log"}) {
    const RunResult r = run_sm120check({cmd, "--help"});
    EXPECT_TRUE(contains(r.out, "0 to 16 (0, the default: one per CPU, at most 16)")) << r.out;
  }
  TempDir tmp;
  write_file(tmp.path() / "a.txt", "x\n");
  const RunResult r = run_sm120check({"grep", "-j", "0", tmp.path().string(), "x"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const RunResult k = run_sm120check({"kernels", "--help"});
  EXPECT_TRUE(contains(k.out, "or a module's functions could not be compared")) << k.out;
}

TEST(CliHelp, ShowHelp) {
  RunResult r = run_sm120check({"show", "-h"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "Usage: sm120check show [OPTIONS] PATCH...")) << r.out;
  EXPECT_TRUE(contains(r.out, "--format text|json")) << r.out;
}

// --- usage errors -----------------------------------------------------------------------------

TEST(CliUsage, NoArgumentsPrintsHelpOnStderr) {
  RunResult r = run_sm120check({});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(contains(r.err, "Usage: sm120check")) << r.err;
  EXPECT_TRUE(
      contains(r.err, "sm120check: error: no command given (use verify, apply, scan, kernels, show, "
                      "grep, gpu or log)\n"))
      << r.err;
}

TEST(CliUsage, UnknownSubcommand) {
  expect_usage_error(run_sm120check({"frobnicate"}), "frobnicate");
}

TEST(CliUsage, OtherCommandsNamedAmongTheArguments) {
  // Only the command named first gets its options (main.cpp, setup_for()); another command's
  // name further on is a patch file, or an unexpected argument, as it always was.
  TempDir dir;
  RunResult r = run_sm120check({"verify", "--no-gpu", "apply", dir.path()});
  expect_error(r, "apply: cannot open patch: No such file or directory");
  expect_usage_error(run_sm120check({"gpu", "apply"}),
                     "The following argument was not expected: apply");
  RunResult help = run_sm120check({"--help"});
  for (const char* cmd : {"verify", "apply", "show", "grep", "gpu", "log"})
    EXPECT_TRUE(contains(help.out, std::string("\n  ") + cmd + " ")) << cmd;
}

TEST(CliUsage, UnknownOption) {
  TempDir dir;
  write_file(dir / "p.patch", "x\n");
  expect_usage_error(run_sm120check({"verify", "--bogus", dir / "p.patch", dir.path()}), "--bogus");
  expect_usage_error(run_sm120check({"--bogus"}), "--bogus");
}

TEST(CliUsage, MissingPositionals) {
  expect_usage_error(run_sm120check({"verify"}), "PATCH is required");
  expect_usage_error(run_sm120check({"verify", "only-one"}), "TARGET is required");
  expect_usage_error(run_sm120check({"show"}), "PATCH is required");
}

TEST(CliUsage, BadFormatValue) {
  expect_usage_error(run_sm120check({"verify", "--format", "xml", "p", "t"}),
                     "--format: must be text, json, junit, github or sarif, not 'xml'");
  expect_usage_error(run_sm120check({"show", "--format=yaml", "p"}),
                     "--format: must be text or json, not 'yaml'");
}

TEST(CliUsage, BadColorValue) {
  expect_usage_error(run_sm120check({"verify", "--color", "sometimes", "p", "t"}),
                     "--color: must be auto, always or never, not 'sometimes'");
}

TEST(CliUsage, NegativeOrNonNumericCounts) {
  expect_usage_error(run_sm120check({"verify", "--fuzz", "-1", "p", "t"}), "--fuzz");
  expect_usage_error(run_sm120check({"verify", "--fuzz=-1", "p", "t"}), "--fuzz");
  expect_usage_error(run_sm120check({"verify", "--fuzz", "two", "p", "t"}), "--fuzz");
  expect_usage_error(run_sm120check({"verify", "-p", "-1", "p", "t"}), "--strip");
  expect_usage_error(run_sm120check({"verify", "--strip=x", "p", "t"}), "--strip");
}

TEST(CliUsage, UsageErrorPointsToHelp) {
  RunResult r = run_sm120check({"verify", "--fuzz", "-1", "p", "t"});
  EXPECT_TRUE(contains(r.err, "(run 'sm120check verify --help' for usage)\n")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
}

TEST(CliUsage, UsageErrorsDoNotEchoTerminalEscapes) {
  RunResult r = run_sm120check({"verify", "--format", "\x1b[31mX", "p", "t"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_TRUE(contains(r.err, "\\x1b[31mX")) << r.err;
}

// --- inputs and target ------------------------------------------------------------------------

TEST(CliInputs, MissingTarget) {
  TempDir dir;
  write_file(dir / "p.patch", "x\n");
  std::string target = dir / "no-such-tree";
  expect_error(run_sm120check({"verify", dir / "p.patch", target}),
               target + ": target does not exist");
}

TEST(CliInputs, TargetIsAFile) {
  TempDir dir;
  write_file(dir / "p.patch", "x\n");
  write_file(dir / "file", "x\n");
  expect_error(run_sm120check({"verify", dir / "p.patch", dir / "file"}),
               dir / "file" + ": target is not a directory");
}

TEST(CliInputs, MissingPatchFile) {
  TempDir dir;
  std::string patch = dir / "missing.patch";
  expect_error(run_sm120check({"verify", patch, dir.path()}),
               patch + ": cannot open patch: No such file or directory");
  expect_error(run_sm120check({"show", patch}),
               patch + ": cannot open patch: No such file or directory");
}

TEST(CliInputs, MissingPatchIsReportedBeforeMissingTarget) {
  TempDir dir;
  std::string patch = dir / "missing.patch";
  expect_error(run_sm120check({"verify", patch, dir / "no-tree"}),
               patch + ": cannot open patch: No such file or directory");
}

TEST(CliInputs, EmptyPatchDirectory) {
  TempDir dir;
  fs::create_directories(dir / "patches");
  write_file(dir / "patches/README.txt", "not a patch\n");
  fs::create_directories(dir / "patches/sub.patch");  // a directory, not a patch file
  fs::create_directories(dir / "tree");
  expect_error(run_sm120check({"verify", dir / "patches", dir / "tree"}),
               dir / "patches" + ": directory holds no *.patch or *.diff file");
}

TEST(CliInputs, StdinTwice) {
  TempDir dir;
  expect_error(run_sm120check({"verify", "-", "-", dir.path()}, "x\n"),
               "-: standard input can be given only once");
  expect_error(run_sm120check({"show", "-", "-"}, "x\n"),
               "-: standard input can be given only once");
}

TEST(CliInputs, PatchLargerThanLimit) {
  TempDir dir;
  std::string patch = dir / "huge.patch";
  write_file(patch, "");
  fs::resize_file(patch, (std::uintmax_t{64} << 20) + 1);  // sparse: no real disk use
  // Reported as a patch with status error (the others of the run are still judged).
  RunResult r = run_sm120check({"verify", "--no-gpu", patch, dir.path()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, kPrefix + patch + ": patch is larger than the limit of 67108864 bytes\n");
  EXPECT_TRUE(contains(r.out, "patch 1/1: " + patch + "  [error]\n  error: patch is larger "
                              "than the limit of 67108864 bytes\n"))
      << r.out;
  // show reads it as a whole or not at all.
  expect_error(run_sm120check({"show", patch}),
               patch + ": patch is larger than the limit of 67108864 bytes");
}

TEST(CliInputs, DirectoryArgumentIsReadBeforeTargetCheck) {
  TempDir dir;
  fs::create_directories(dir / "d.patch/inner");
  write_file(dir / "d.patch/a.patch", "x\n");
  fs::create_directories(dir / "tree");
  // d.patch is a directory: its *.patch files are read (then the target is checked).
  expect_error(run_sm120check({"verify", dir / "d.patch", dir / "no-tree"}),
               dir / "no-tree" + ": target does not exist");
}

// --- end to end (needs parser, matcher, verify and report) ------------------------------------

const char* const kModOld = "def f():\n    a = 1\n    b = 2\n    return a + b\n";
const char* const kModNew = "def f():\n    a = 1\n    b = 3\n    return a + b\n";
const char* const kUtilOld = "X = 1\nY = 2\nZ = 3\n";
const char* const kUtilNew = "X = 1\nY = 20\nZ = 3\n";

/// Changes pkg/mod.py from kModOld to kModNew (git format-patch style).
const char* const kModPatch =
    "From 1234567890abcdef1234567890abcdef12345678 Mon Sep 17 00:00:00 2001\n"
    "From: Dev <dev@example.com>\n"
    "Date: Mon, 1 Jan 2024 00:00:00 +0000\n"
    "Subject: [PATCH] mod: b is 3 on SM120\n"
    "\n"
    "---\n"
    " pkg/mod.py | 2 +-\n"
    " 1 file changed, 1 insertion(+), 1 deletion(-)\n"
    "\n"
    "diff --git a/pkg/mod.py b/pkg/mod.py\n"
    "index a284fd3..33a8786 100644\n"
    "--- a/pkg/mod.py\n"
    "+++ b/pkg/mod.py\n"
    "@@ -1,4 +1,4 @@ def f():\n"
    " def f():\n"
    "     a = 1\n"
    "-    b = 2\n"
    "+    b = 3\n"
    "     return a + b\n"
    "-- \n"
    "2.39.2\n"
    "\n";

/// Changes pkg/util.py from kUtilOld to kUtilNew (plain git diff).
const char* const kUtilPatch =
    "diff --git a/pkg/util.py b/pkg/util.py\n"
    "index 6b67108..83b266c 100644\n"
    "--- a/pkg/util.py\n"
    "+++ b/pkg/util.py\n"
    "@@ -1,3 +1,3 @@\n"
    " X = 1\n"
    "-Y = 2\n"
    "+Y = 20\n"
    " Z = 3\n";

/// Both changes in one patch.
std::string both_patch() {
  std::string mod = kModPatch;
  std::size_t start = mod.find("diff --git");
  std::size_t end = mod.find("-- \n");
  return mod.substr(start, end - start) + kUtilPatch;
}

/// A tree with pkg/mod.py and pkg/util.py holding the given contents.
struct Fixture {
  TempDir dir;
  std::string tree;
  Fixture(const std::string& mod, const std::string& util) : tree(dir / "tree") {
    write_file(dir / "tree/pkg/mod.py", mod);
    write_file(dir / "tree/pkg/util.py", util);
    write_file(dir / "tree/README", "readme\n");
  }
  std::string patch(const std::string& name, const std::string& text) const {
    std::string path = dir / name;
    write_file(path, text);
    return path;
  }
};

/// Runs verify with --format json and parses standard output.
json verify_json(const std::vector<std::string>& args, int expected_exit,
                 std::string_view stdin_data = {}) {
  std::vector<std::string> full{"verify", "--format", "json"};
  full.insert(full.end(), args.begin(), args.end());
  RunResult r = run_sm120check(full, stdin_data);
  EXPECT_EQ(r.exit_code, expected_exit) << "stderr: " << r.err << "\nstdout: " << r.out;
  EXPECT_EQ(r.err, "");
  json doc = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(doc.is_discarded()) << "not JSON: " << r.out;
  if (doc.is_discarded()) return json::object();
  return doc;
}

/// The "summary" object for patches of these statuses, each conflict's change unknown.
json summary_of(std::size_t applied, std::size_t applicable, std::size_t partial,
                std::size_t conflict) {
  return json{{"applied", applied},
              {"applicable", applicable},
              {"partial", partial},
              {"conflict", conflict},
              {"unknown", 0},
              {"error", 0},
              {"skipped", 0},
              {"presence",
               {{"present", applied},
                {"absent", applicable},
                {"unknown", conflict},
                {"partial", partial}}}};
}

TEST(CliE2E, ApplicableJsonSchema) {
  Fixture fx(kModOld, kUtilOld);
  std::string patch = fx.patch("0001-mod.patch", kModPatch);
  json doc = verify_json({patch, fx.tree}, 1);
  EXPECT_EQ(doc["schema"], "sm120check.verify/3");
  EXPECT_EQ(doc["exit_code"], 1);
  EXPECT_EQ(doc["target"]["path"], fx.tree);
  EXPECT_EQ(doc["target"]["strip"], 1);
  EXPECT_EQ(doc["summary"], summary_of(0, 1, 0, 0));
  ASSERT_EQ(doc["patches"].size(), 1u);
  const json& p = doc["patches"][0];
  EXPECT_EQ(p["source"], patch);
  EXPECT_EQ(p["subject"], "mod: b is 3 on SM120");
  EXPECT_EQ(p["line"], 1);
  EXPECT_EQ(p["status"], "applicable");
  EXPECT_EQ(p["error"], nullptr);
  EXPECT_EQ(p["strip"], 1);
  EXPECT_EQ(p["strip_detected"], true);
  ASSERT_EQ(p["files"].size(), 1u);
  const json& f = p["files"][0];
  EXPECT_EQ(f["old_path"], "a/pkg/mod.py");
  EXPECT_EQ(f["new_path"], "b/pkg/mod.py");
  EXPECT_EQ(f["target_path"], "pkg/mod.py");
  EXPECT_EQ(f["change"], "modify");
  EXPECT_EQ(f["status"], "applicable");
  ASSERT_EQ(f["hunks"].size(), 1u);
  const json& h = f["hunks"][0];
  EXPECT_EQ(h["index"], 1);
  EXPECT_EQ(h["old_start"], 1);
  EXPECT_EQ(h["old_lines"], 4);
  EXPECT_EQ(h["new_start"], 1);
  EXPECT_EQ(h["new_lines"], 4);
  EXPECT_EQ(h["status"], "applicable");
  EXPECT_EQ(h["line"], 1);
  EXPECT_EQ(h["offset"], 0);
  EXPECT_EQ(h["fuzz"], 0);
  EXPECT_EQ(h["both_images"], false);
  EXPECT_EQ(h["diagnostic"], nullptr);
}

// Issue 11, finding 8: usage errors are one clear line, exit 3; --version works everywhere.
TEST(CliUsage, BoundsVersionAndUnknownCommand) {
  Fixture fx(kModNew, kUtilOld);
  const std::string patch = fx.patch("p.patch", kModPatch);
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const std::vector<Case> cases{
      {{"verify", "--fuzz", "0x10", patch, fx.tree}, "--fuzz: '0x10' is not a decimal number"},
      {{"verify", "--fuzz", "101", patch, fx.tree}, "--fuzz: 101 is out of range (0 to 100)"},
      {{"verify", "-p", "", patch, fx.tree}, "--strip: '' is not a decimal number"},
      {{"verify", "-p", "65", patch, fx.tree}, "--strip: 65 is out of range (0 to 64)"},
      // Too many digits for any integer type: out of range, not "not a decimal number".
      {{"verify", "-p", "99999999999999999999", patch, fx.tree},
       "--strip: 99999999999999999999 is out of range (0 to 64)"},
      {{"verify", "-p", "0000000000000000000007", "--fuzz", "100000", patch, fx.tree},
       "--fuzz: 100000 is out of range (0 to 100)"},
      // -j is what the README shows: the message names it beside --threads.
      {{"grep", "-j", "17", fx.tree, "x"},
       "--threads: -j 17 is out of range (0 to 16; 0: one thread per CPU)"},
      {{"verify", "-j", "17", patch, fx.tree},
       "--threads: -j 17 is out of range (0 to 16; 0: one thread per CPU)"},
      {{"log", "-j", "99999999999", patch, fx.tree},
       "--threads: -j 99999999999 is out of range (0 to 16; 0: one thread per CPU)"},
      {{"apply", "--dry-run", "-p", "-1", patch, fx.tree}, "--strip"},
      {{"log", "--fuzz", "1e3", patch, fx.tree}, "--fuzz: '1e3' is not a decimal number"},
      {{"verify", "--cc", "120", patch, fx.tree},
       "a major version has one or two digits; for the SM number write sm_120"},
      // Four digits: no such SM number to suggest (sm_1200 is refused too; review fu30).
      {{"verify", "--cc", "1200", patch, fx.tree}, "major version 1200 out of range 1..19"},
      {{"frobnicate", patch}, "unknown command 'frobnicate' (commands: verify, apply, log"},
  };
  for (const Case& c : cases) {
    RunResult r = run_sm120check(c.args);
    EXPECT_EQ(r.exit_code, 3) << c.error;
    EXPECT_EQ(r.out, "") << c.error;
    EXPECT_EQ(r.err.rfind("sm120check: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.error), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  for (const char* cmd : {"verify", "apply", "log", "show", "grep", "gpu"}) {
    RunResult r = run_sm120check({cmd, "--version"});
    EXPECT_EQ(r.exit_code, 0) << cmd << r.err;
    EXPECT_EQ(r.out, expected_version_output()) << cmd;
  }
  RunResult help = run_sm120check({"log", "--help"});
  EXPECT_NE(help.out.find("Usage: sm120check log [OPTIONS] PATCH... TARGET\n"), std::string::npos)
      << help.out;
}

TEST(CliE2E, AnEmptyValueAfterEqualsIsRefusedAndTakesNoOtherWord) {
  // `--output=$REPORT p1.patch ...` with REPORT unset: CLI11 would take p1.patch as the file
  // to write the report over (hostile review hr25). Refused before anything is read.
  TempDir t;
  write_file(t / "p1.patch", "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a\n+b\n");
  write_file(t / "tree/a.py", "a\n");
  const std::string before = read_file(t / "p1.patch");
  RunResult r = run_sm120check({"verify", "--no-gpu", "--output=", t / "p1.patch", t / "tree"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("--output= gives an empty value"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(t / "p1.patch"), before);
  // After "--" the word is a positional, not an option.
  r = run_sm120check({"show", "--", "--x="});
  EXPECT_EQ(r.err.find("gives an empty value"), std::string::npos) << r.err;
  // The top-level --version and --help answer whatever command follows.
  r = run_sm120check({"--version", "verify"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("sm120check ", 0), 0u) << r.out;
  r = run_sm120check({"--help", "scan"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Usage: sm120check"), std::string::npos) << r.out;
  // An option given twice is said so, not in CLI11's words.
  r = run_sm120check({"verify", "-j", "2", "-j", "3", t / "p1.patch", t / "tree"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("--threads: given 2 times; it takes one value"), std::string::npos) << r.err;
}

TEST(CliE2E, AppliedExitsZero) {
  Fixture fx(kModNew, kUtilOld);
  json doc = verify_json({fx.patch("p.patch", kModPatch), fx.tree}, 0);
  EXPECT_EQ(doc["exit_code"], 0);
  EXPECT_EQ(doc["summary"], summary_of(1, 0, 0, 0));
  const json& h = doc["patches"][0]["files"][0]["hunks"][0];
  EXPECT_EQ(h["status"], "applied");
  EXPECT_EQ(h["line"], 1);
  EXPECT_EQ(h["offset"], 0);
  EXPECT_EQ(h["fuzz"], 0);
}

TEST(CliE2E, ApplicableWithOffset) {
  Fixture fx(std::string("import os\nimport sys\n\n") + kModOld, kUtilOld);
  json doc = verify_json({fx.patch("p.patch", kModPatch), fx.tree}, 1);
  const json& h = doc["patches"][0]["files"][0]["hunks"][0];
  EXPECT_EQ(h["status"], "applicable");
  EXPECT_EQ(h["line"], 4);
  EXPECT_EQ(h["offset"], 3);
  EXPECT_EQ(h["fuzz"], 0);
}

TEST(CliE2E, ConflictExitsTwo) {
  Fixture fx("def f():\n    a = 1\n    b = 5\n    return a + b\n", kUtilOld);
  json doc = verify_json({fx.patch("p.patch", kModPatch), fx.tree}, 2);
  EXPECT_EQ(doc["exit_code"], 2);
  EXPECT_EQ(doc["summary"], summary_of(0, 0, 0, 1));
  EXPECT_EQ(doc["patches"][0]["status"], "conflict");
  const json& h = doc["patches"][0]["files"][0]["hunks"][0];
  EXPECT_EQ(h["status"], "conflict");
  EXPECT_EQ(h["line"], nullptr);
  EXPECT_EQ(h["offset"], nullptr);
  EXPECT_EQ(h["fuzz"], nullptr);
}

TEST(CliE2E, PartialAcrossTwoFiles) {
  Fixture fx(kModNew, kUtilOld);  // mod.py already fixed, util.py not yet
  json doc = verify_json({fx.patch("both.patch", both_patch()), fx.tree}, 2);
  EXPECT_EQ(doc["summary"], summary_of(0, 0, 1, 0));
  const json& p = doc["patches"][0];
  EXPECT_EQ(p["status"], "partial");
  EXPECT_EQ(p["subject"], nullptr);
  ASSERT_EQ(p["files"].size(), 2u);
  EXPECT_EQ(p["files"][0]["target_path"], "pkg/mod.py");
  EXPECT_EQ(p["files"][0]["status"], "applied");
  EXPECT_EQ(p["files"][1]["target_path"], "pkg/util.py");
  EXPECT_EQ(p["files"][1]["status"], "applicable");
  EXPECT_EQ(p["files"][1]["hunks"][0]["line"], 1);
}

TEST(CliE2E, StdinPatch) {
  Fixture fx(kModOld, kUtilOld);
  json doc = verify_json({"-", fx.tree}, 1, kUtilPatch);
  ASSERT_EQ(doc["patches"].size(), 1u);
  EXPECT_EQ(doc["patches"][0]["source"], "-");
  EXPECT_EQ(doc["patches"][0]["files"][0]["target_path"], "pkg/util.py");
  EXPECT_EQ(doc["patches"][0]["status"], "applicable");
}

TEST(CliE2E, DirectoryOfPatchesSortedByName) {
  Fixture fx(kModOld, kUtilNew);
  // Written in reverse order; listed by name: 0001 (applicable), 0002 (applied). Other files
  // are ignored.
  std::string dir = fx.dir / "series";
  write_file(dir + "/0002-util.diff", kUtilPatch);
  write_file(dir + "/0001-mod.patch", kModPatch);
  write_file(dir + "/notes.txt", "not a patch\n");
  json doc = verify_json({dir, fx.tree}, 1);
  ASSERT_EQ(doc["patches"].size(), 2u);
  EXPECT_EQ(doc["patches"][0]["source"], dir + "/0001-mod.patch");
  EXPECT_EQ(doc["patches"][0]["status"], "applicable");
  EXPECT_EQ(doc["patches"][1]["source"], dir + "/0002-util.diff");
  EXPECT_EQ(doc["patches"][1]["status"], "applied");
  EXPECT_EQ(doc["summary"], summary_of(1, 1, 0, 0));
}

TEST(CliE2E, ExplicitStrip) {
  Fixture fx(kModOld, kUtilOld);
  std::string patch = fx.patch("p.patch", kUtilPatch);
  json doc = verify_json({"-p", "1", patch, fx.tree}, 1);
  EXPECT_EQ(doc["target"]["strip"], 1);
  EXPECT_EQ(doc["patches"][0]["strip"], 1);
  EXPECT_EQ(doc["patches"][0]["strip_detected"], false);
  // Options may follow the positionals.
  json after = verify_json({patch, fx.tree, "--strip", "1"}, 1);
  EXPECT_EQ(after["patches"][0]["strip_detected"], false);
}

TEST(CliE2E, FuzzOption) {
  // The first context line differs: a conflict at fuzz 0, applicable at fuzz 1.
  const std::string patch_text =
      "--- a/f.txt\n"
      "+++ b/f.txt\n"
      "@@ -1,7 +1,7 @@\n"
      " l1\n l2\n l3\n-old\n+new\n l5\n l6\n l7\n";
  TempDir dir;
  write_file(dir / "tree/f.txt", "CHANGED\nl2\nl3\nold\nl5\nl6\nl7\n");
  write_file(dir / "p.diff", patch_text);
  json strict = verify_json({dir / "p.diff", dir / "tree"}, 2);
  EXPECT_EQ(strict["patches"][0]["files"][0]["hunks"][0]["status"], "conflict");
  json fuzzy = verify_json({"--fuzz", "1", dir / "p.diff", dir / "tree"}, 1);
  const json& h = fuzzy["patches"][0]["files"][0]["hunks"][0];
  EXPECT_EQ(h["status"], "applicable");
  EXPECT_EQ(h["line"], 1) << "the hunk start, as GNU patch reports it";
  EXPECT_EQ(h["offset"], 0);
  EXPECT_EQ(h["fuzz"], 1);
}

TEST(CliE2E, IgnoreWhitespaceOption) {
  Fixture fx("def f():\n    a = 1\n    b  =  2   \n    return a + b\n", kUtilOld);
  std::string patch = fx.patch("p.patch", kModPatch);
  json strict = verify_json({patch, fx.tree}, 2);
  const json& h = strict["patches"][0]["files"][0]["hunks"][0];
  EXPECT_EQ(h["status"], "conflict");
  EXPECT_EQ(h["diagnostic"], "whitespace-only-mismatch");
  json loose = verify_json({"--ignore-whitespace", patch, fx.tree}, 1);
  EXPECT_EQ(loose["patches"][0]["files"][0]["hunks"][0]["status"], "applicable");
}

TEST(CliE2E, TextOutputWithoutColorUnderNoColor) {
  Fixture fx(kModOld, kUtilOld);
  std::string patch = fx.patch("p.patch", kModPatch);
  RunResult r = run_sm120check({"verify", patch, fx.tree}, {}, {"NO_COLOR=1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(contains(r.out, "pkg/mod.py")) << r.out;
  EXPECT_TRUE(contains(r.out, "applicable")) << r.out;
  EXPECT_FALSE(contains(r.out, "\x1b")) << r.out;
  // CLICOLOR_FORCE forces colour in auto mode; --color never wins over it.
  RunResult forced =
      run_sm120check({"verify", patch, fx.tree}, {}, {"NO_COLOR=", "CLICOLOR_FORCE=1"});
  EXPECT_EQ(forced.exit_code, 1);
  EXPECT_TRUE(contains(forced.out, "\x1b[")) << forced.out;
  RunResult never = run_sm120check({"verify", "--color", "never", patch, fx.tree}, {},
                                   {"NO_COLOR=", "CLICOLOR_FORCE=1"});
  EXPECT_FALSE(contains(never.out, "\x1b")) << never.out;
  // NO_COLOR wins over CLICOLOR_FORCE (no-color.org; bixense.com/clicolors: "CLICOLOR_FORCE
  // set, but NO_COLOR unset"), and CLICOLOR_FORCE=0 forces nothing.
  RunResult both = run_sm120check({"verify", patch, fx.tree}, {}, {"CLICOLOR_FORCE=1"});
  EXPECT_FALSE(contains(both.out, "\x1b")) << both.out;
  RunResult zero =
      run_sm120check({"verify", patch, fx.tree}, {}, {"NO_COLOR=", "CLICOLOR_FORCE=0"});
  EXPECT_FALSE(contains(zero.out, "\x1b")) << zero.out;
  RunResult always = run_sm120check({"verify", "--color=always", patch, fx.tree});
  EXPECT_TRUE(contains(always.out, "\x1b[")) << always.out;
}

TEST(CliE2E, VerifyNeverModifiesTarget) {
  Fixture fx(kModNew, kUtilOld);
  ASSERT_TRUE(test::git_init_commit(fx.tree));
  std::map<std::string, std::string> before = test::tree_state(fx.tree);
  ASSERT_GT(before.size(), 5u);
  std::string both = fx.patch("both.patch", both_patch());
  std::string mod = fx.patch("mod.patch", kModPatch);
  EXPECT_EQ(run_sm120check({"verify", both, fx.tree}).exit_code, 2);
  EXPECT_EQ(run_sm120check({"verify", "--format", "json", mod, fx.tree}).exit_code, 0);
  EXPECT_EQ(run_sm120check({"verify", "--fuzz", "3", "--ignore-whitespace", mod, both, fx.tree})
                .exit_code,
            2);
  EXPECT_EQ(test::tree_state(fx.tree), before);
}

TEST(CliE2E, ShowJson) {
  TempDir dir;
  write_file(dir / "p.patch", kModPatch);
  RunResult r = run_sm120check({"show", "--format", "json", dir / "p.patch"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["schema"], "sm120check.show/1");
  const json& f = doc["patches"][0]["files"][0];
  EXPECT_EQ(f["old_path"], "a/pkg/mod.py");
  EXPECT_EQ(f["old_blob"], "a284fd3");
  EXPECT_EQ(f["new_blob"], "33a8786");
  EXPECT_EQ(f["hunks"][0]["added"], 1);
  EXPECT_EQ(f["hunks"][0]["removed"], 1);
  EXPECT_EQ(f["hunks"][0]["section"], "def f():");
}

TEST(CliE2E, MalformedPatchIsAnErrorNamingIt) {
  TempDir dir;
  write_file(dir / "notes.patch", "just some text\nwith no diff in it\n");
  fs::create_directories(dir / "tree");
  RunResult r = run_sm120check({"verify", dir / "notes.patch", dir / "tree"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(contains(r.out, "  error: no patch found")) << r.out;
  EXPECT_EQ(r.err.rfind(kPrefix + dir / "notes.patch" + ":", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // Review: `show` on a file that is not a patch gave no line; it names the file and line as
  // the other parse errors do (verify's line above, and its JSON `line`, too).
  const std::string why = "no patch found (no 'diff --git' header and no '---'/'+++'/'@@' "
                          "file patch in lines 1-2)\n";
  EXPECT_EQ(r.err, kPrefix + dir / "notes.patch" + ":1: " + why);
  RunResult show = run_sm120check({"show", dir / "notes.patch"});
  EXPECT_EQ(show.exit_code, 3);
  EXPECT_EQ(show.err, kPrefix + dir / "notes.patch" + ":1: " + why);
}

TEST(CliE2E, ClosedStdoutExitsQuietly) {
  Fixture fx(kModOld, kUtilOld);
  std::string patch = fx.patch("p.patch", kModPatch);
  // Many copies of the patch: more output than a pipe holds, to a reader that reads nothing.
  std::string series;
  for (int i = 0; i < 300; ++i) series += kModPatch;
  std::string big = fx.patch("series.mbox", series);
  RunResult r = test::run_shell("( '" + std::string(SM120CHECK_BIN) + "' verify --format json '" +
                                big + "' '" + fx.tree + "'; echo \"rc=$?\" >&2 ) | true");
  EXPECT_EQ(r.err, "rc=1\n");
}

}  // namespace
}  // namespace sm120check

namespace sm120check::test {
namespace {

TEST(CliE2E, EscapingPathIsReportedOnStderrAndExitsThree) {
  Fixture f(kModOld, kUtilOld);
  std::string patch = f.patch("evil.patch",
                              "--- a/../../etc/passwd\n"
                              "+++ b/../../etc/passwd\n"
                              "@@ -1 +1 @@\n"
                              "-root\n"
                              "+toor\n");
  RunResult r = run_sm120check({"verify", "--format", "json", patch, f.tree});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "sm120check: error: " + patch +
                       ":1: path 'a/../../etc/passwd' climbs out of the target; refused (never "
                       "read)\n");
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["patches"][0]["status"], "error");
  EXPECT_EQ(doc["patches"][0]["files"][0]["status"], "error");
  EXPECT_EQ(doc["exit_code"], 3);
  EXPECT_EQ(doc["summary"]["error"], 1);
}

TEST(CliE2E, JsonToolNamesTheCommitVersionPrints) {
  // tool.commit and tool.dirty say what `--version` says, so that a fleet's collected
  // reports tell which build wrote each one.
  Fixture f(kModOld, kUtilOld);
  json doc = verify_json({f.patch("m.patch", kModPatch), f.tree}, 1);
  const std::string version = expected_version_output();
  const std::size_t at = version.find("(commit ") + 8;
  const std::string commit = version.substr(at, 40);
  if (commit.find_first_not_of("0123456789abcdef") == std::string::npos) {
    EXPECT_EQ(doc["tool"]["commit"], commit);
    EXPECT_EQ(doc["tool"]["dirty"], version.find("with uncommitted changes") != std::string::npos);
  } else {
    EXPECT_TRUE(doc["tool"]["commit"].is_null()) << doc["tool"];
    EXPECT_EQ(doc["tool"]["dirty"], false);
  }
  EXPECT_EQ(doc["tool"]["version"], SM120CHECK_VERSION);
}

TEST(CliE2E, JsonKeysComeInDocumentedOrder) {
  Fixture f(kModOld, kUtilOld);
  RunResult r =
      run_sm120check({"verify", "--format", "json", f.patch("m.patch", kModPatch), f.tree});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out.rfind("{\n  \"schema\": \"sm120check.verify/3\",\n  \"tool\": {", 0), 0u)
      << r.out;
}

}  // namespace
}  // namespace sm120check::test

namespace sm120check::test {
namespace {

TEST(CliE2E, CoverLetterInPatchDirectoryIsSkippedWithWarning) {
  Fixture f(kModOld, kUtilOld);
  f.patch("series/0000-cover-letter.patch",
          "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
          "Subject: [PATCH 0/1] *** SUBJECT HERE ***\n\n*** BLURB HERE ***\n");
  f.patch("series/0001-mod.patch", kModPatch);
  RunResult r = run_sm120check({"verify", "--format", "json", f.dir / "series", f.tree});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "sm120check: warning: " + (f.dir / "series") +
                       "/0000-cover-letter.patch: no patch found (a cover letter?); skipped\n");
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["patches"].size(), 1u);
  EXPECT_EQ(doc["patches"][0]["subject"], "mod: b is 3 on SM120");
  // Named explicitly, the same file is an error.
  RunResult named = run_sm120check({"verify", f.dir / "series/0000-cover-letter.patch", f.tree});
  EXPECT_EQ(named.exit_code, 3);
  EXPECT_NE(named.err.find("no patch found"), std::string::npos);
  // A numbered patch of the series whose diff was lost is no cover letter: an error, exit 3,
  // never dropped with exit 0 (hostile review hr25).
  f.patch("series/0002-lost.patch",
          "From 1 Mon Sep 17 00:00:00 2001\nSubject: [PATCH 2/2] fix b\n\nthe diff was here\n");
  r = run_sm120check({"verify", "--format", "json", f.dir / "series", f.tree});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  doc = json::parse(r.out);
  ASSERT_EQ(doc["patches"].size(), 2u) << doc;
  EXPECT_EQ(doc["patches"][1]["status"], "error") << doc;
}

TEST(CliE2E, SymlinkOutOfTargetIsAnErrorNotAMissingFile) {
  Fixture f(kModOld, kUtilOld);
  TempDir outside;
  write_file(outside / "mod.py", kModOld);
  std::filesystem::remove_all(f.dir / "tree/pkg");
  std::filesystem::create_directory_symlink(outside.path(), f.dir / "tree/pkg");
  RunResult r =
      run_sm120check({"verify", "--format", "json", f.patch("m.patch", kModPatch), f.tree});
  EXPECT_EQ(r.exit_code, 3);
  json doc = json::parse(r.out);
  const json& file = doc["patches"][0]["files"][0];
  EXPECT_EQ(doc["patches"][0]["strip"], 1) << "the refused path still shows the strip level";
  EXPECT_EQ(file["status"], "error");
  EXPECT_NE(file["reason"].get<std::string>().find("outside the target"), std::string::npos)
      << file["reason"];
  EXPECT_NE(r.err.find("outside the target"), std::string::npos) << r.err;
}

TEST(CliE2E, DeletionAlreadyMadeHasNoLine) {
  Fixture f(kModOld, kUtilOld);
  std::string patch = f.patch("d.patch",
                              "diff --git a/pkg/gone.py b/pkg/gone.py\n"
                              "deleted file mode 100644\n"
                              "index 3b18e51..0000000\n"
                              "--- a/pkg/gone.py\n"
                              "+++ /dev/null\n"
                              "@@ -1 +0,0 @@\n"
                              "-x = 1\n");
  json doc = verify_json({patch, f.tree}, 0);
  const json& h = doc["patches"][0]["files"][0]["hunks"][0];
  EXPECT_EQ(h["status"], "applied");
  EXPECT_TRUE(h["line"].is_null());
}

}  // namespace
}  // namespace sm120check::test

namespace sm120check::test {
namespace {

TEST(CliE2E, NoRepoLeavesOutTheRepositorySection) {
  Fixture f(kModOld, kUtilOld);
  ASSERT_TRUE(git_init_commit(f.tree));
  std::string patch = f.patch("m.patch", kModPatch);
  json with = verify_json({patch, f.tree}, 1);
  ASSERT_TRUE(with["repository"].is_object()) << with.dump();
  EXPECT_EQ(with["repository"]["branch"], "main");
  json without = verify_json({"--no-repo", patch, f.tree}, 1);
  EXPECT_TRUE(without["repository"].is_null());
  EXPECT_EQ(without["patches"][0]["status"], "applicable");
}

// SM120CHECK_TRACE (include/sm120check/trace.hpp): the phase timeline of a run, for speed work.
// The run's output and exit code are those of an untraced run; the file holds Chrome trace
// events whose spans nest in main()'s.
TEST(CliE2E, TraceWritesPhaseTimelineAndChangesNothing) {
  Fixture fx(kModOld, kUtilOld);
  std::string patch = fx.patch("p.patch", kModPatch);
  const std::string trace = fx.dir / "trace.json";
  RunResult plain = run_sm120check({"verify", "--no-gpu", patch, fx.tree});
  RunResult traced =
      run_sm120check({"verify", "--no-gpu", patch, fx.tree}, {}, {"SM120CHECK_TRACE=" + trace});
  EXPECT_EQ(traced.exit_code, plain.exit_code);
  EXPECT_EQ(traced.out, plain.out);
  EXPECT_EQ(traced.err, "");
  std::ifstream in(trace);
  ASSERT_TRUE(in) << trace;
  const json doc = json::parse(in);
  EXPECT_EQ(doc["clock"], "CLOCK_MONOTONIC");
  EXPECT_EQ(doc["dropped"], 0);
  std::map<std::string, json> first;
  for (const json& e : doc["traceEvents"]) {
    EXPECT_EQ(e["ph"], "X");
    EXPECT_GE(e["dur"].get<double>(), 0.0);
    first.emplace(e["name"].get<std::string>(), e);
  }
  for (const char* name : {"main", "cli", "parse", "verify", "verify-file", "report"})
    EXPECT_TRUE(first.count(name)) << name << " missing from " << doc.dump();
  if (first.count("main") && first.count("verify")) {
    const double main_begin = first["main"]["ts"];
    const double main_end = main_begin + first["main"]["dur"].get<double>();
    const double verify_begin = first["verify"]["ts"];
    EXPECT_LE(main_begin, verify_begin);
    EXPECT_LE(verify_begin + first["verify"]["dur"].get<double>(), main_end);
  }
  // Unset, nothing is written.
  std::filesystem::remove(trace);
  RunResult off =
      run_sm120check({"verify", "--no-gpu", patch, fx.tree}, {}, {"SM120CHECK_TRACE="});
  EXPECT_EQ(off.out, plain.out);
  EXPECT_FALSE(std::filesystem::exists(trace));
}

}  // namespace
}  // namespace sm120check::test
