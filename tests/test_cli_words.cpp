// End-to-end tests: every word of a command line reaches the program byte for byte. CLI11 reads
// a word "[a,b]" given to a multi-value option as the list a, b (and "[x]" as x); positionals
// such as grep's PATTERN... and verify's PATCH... TARGET must not (add_positional_words()).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace sm120check {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::RunResult;
using test::TempDir;
using test::write_file;

/// Words CLI11 or a shell-like reader could take apart: list syntax, commas, braces, "-".
const std::vector<std::string> kWords = {"[0-9]", "[a,b]", "[x]", "a,b", "{x}", "{}", "[]", "-"};

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

const char* const kPatch =
    "--- a/a.txt\n"
    "+++ b/a.txt\n"
    "@@ -1,2 +1,2 @@\n"
    " x 7 y\n"
    "-foo\n"
    "+bar\n";

/// Runs the built binary with `args` in folder `cwd` (through sh, each word quoted), so that
/// relative names such as "[t]" reach it as typed (an absolute path never starts with "[").
RunResult run_in(const fs::path& cwd, const std::vector<std::string>& args) {
  std::string command = std::string("NO_COLOR=1 exec '") + SM120CHECK_BIN + "'";
  for (const std::string& arg : args) {
    command += " '";
    for (char c : arg) command += c == '\'' ? std::string("'\\''") : std::string(1, c);
    command += "'";
  }
  return test::run_shell(command, cwd);
}

/// TARGET `dir` holding a.txt to which kPatch applies.
void make_target(const fs::path& dir) { write_file(dir / "a.txt", "x 7 y\nfoo\n"); }

TEST(CliWords, GrepPatternsAreSearchedAsTyped) {
  TempDir tmp;
  make_target(tmp.path() / "t");
  // The repro: "[0-9]" as a regex hits line 1; with list syntax applied it was "0-9": no hit.
  RunResult r = run_in(tmp.path(), {"grep", "-E", "t", "[0-9]"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "t/a.txt:1:x 7 y\n");
  // Fixed "[foo]" is absent (it was "foo", found on line 2).
  r = run_in(tmp.path(), {"grep", "t", "[foo]"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_FALSE(contains(r.out, ":2:foo")) << r.out;
  EXPECT_TRUE(contains(r.err, "not found: [foo]")) << r.err;
  // Every word is one pattern, before and after "--" and among options.
  std::vector<std::string> args = {"grep", "--format", "json", "t", kWords[0]};
  args.insert(args.end(), kWords.begin() + 1, kWords.begin() + 4);
  args.push_back("--gitignore");  // an option among them
  args.push_back("--");
  args.insert(args.end(), kWords.begin() + 4, kWords.end());
  args.push_back("-E");  // after "--": a pattern, not the option
  r = run_in(tmp.path(), args);
  EXPECT_EQ(r.exit_code, 1) << r.err;  // none of them is in a.txt
  const json doc = json::parse(r.out);
  std::vector<std::string> texts;
  for (const json& m : doc["markers"]) texts.push_back(m["text"]);
  std::vector<std::string> expected = kWords;
  expected.push_back("-E");
  EXPECT_EQ(texts, expected);
}

TEST(CliWords, GrepOptionValuesAndTargetAreTakenAsTyped) {
  TempDir tmp;
  write_file(tmp.path() / "[t,u]" / "a.txt", "[x,y] here\n");
  write_file(tmp.path() / "[p]", "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+[x,y] here\n");
  const RunResult r =
      run_in(tmp.path(), {"grep", "--format", "json", "--patch", "[p]", "[t,u]", "[x,y]"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["target"]["path"], "[t,u]");
  EXPECT_EQ(doc["markers"][0]["text"], "[x,y]");
  EXPECT_EQ(doc["markers"][0]["hit_count"], 1);
}

TEST(CliWords, VerifyPatchAndTargetNamesWithBrackets) {
  TempDir tmp;
  for (const std::string& name : {"[p]", "[p].patch", "[a,b]", "{x}", "a,b", "[]"}) {
    SCOPED_TRACE(name);
    make_target(tmp.path() / ("[t" + name + "]"));
    write_file(tmp.path() / name, kPatch);
    const RunResult r =
        run_in(tmp.path(), {"verify", "--no-gpu", "--format", "json", name, "[t" + name + "]"});
    EXPECT_EQ(r.exit_code, 1) << r.err;  // applicable
    const json doc = json::parse(r.out);
    EXPECT_EQ(doc["target"]["path"], "[t" + name + "]");
    EXPECT_EQ(doc["patches"][0]["source"], name);
  }
  // After "--", a word like an option is a PATCH or the TARGET.
  RunResult r = run_in(tmp.path(), {"verify", "--no-gpu", "--", "[p]", "[t[p]]"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  r = run_in(tmp.path(), {"verify", "--no-gpu", "[p]", "--", "-q", "[t[p]]"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(contains(r.err, "-q: cannot open patch")) << r.err;
  // Options after the positionals still count.
  r = run_in(tmp.path(), {"verify", "[p]", "[t[p]]", "--no-gpu", "-q"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CliWords, VerifyMarkerValuesAreTakenAsTyped) {
  TempDir tmp;
  write_file(tmp.path() / "t" / "a.txt", "[x,y]\nx 7 y\nfoo\n");
  write_file(tmp.path() / "p.patch", kPatch);
  const RunResult r = run_in(tmp.path(), {"verify", "--no-gpu", "--format", "json", "--marker",
                                          "[x,y]", "--marker-regex", "[0-9]", "--marker", "{x}",
                                          "p.patch", "t"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json doc = json::parse(r.out);
  const json& markers = doc["patches"][0]["markers"];
  ASSERT_EQ(markers.size(), 3u) << markers.dump();
  EXPECT_EQ(markers[0]["text"], "[x,y]");
  EXPECT_EQ(markers[0]["hit_count"], 1);
  EXPECT_EQ(markers[1]["text"], "{x}");
  EXPECT_EQ(markers[2]["text"], "[0-9]");
  EXPECT_EQ(markers[2]["hit_count"], 1);
}

TEST(CliWords, OutputFileNameWithBrackets) {
  TempDir tmp;
  make_target(tmp.path() / "t");
  write_file(tmp.path() / "p.patch", kPatch);
  const RunResult r =
      run_in(tmp.path(), {"verify", "--no-gpu", "--output", "[o,p]", "p.patch", "t"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(fs::exists(tmp.path() / "[o,p]"));
}

TEST(CliWords, ApplyShowAndLogTakePatchNamesAsTyped) {
  TempDir tmp;
  make_target(tmp.path() / "[t]");
  write_file(tmp.path() / "[p]", kPatch);
  RunResult r = run_in(tmp.path(), {"show", "--format", "json", "[p]", "--", "[p]"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["patches"].size(), 2u);
  EXPECT_EQ(doc["patches"][1]["source"], "[p]");

  r = run_in(tmp.path(), {"apply", "--dry-run", "[p]", "[t]"});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // would change a.txt
  EXPECT_TRUE(contains(r.out, "+bar")) << r.out;
  r = run_in(tmp.path(), {"apply", "[p]", "[t]"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_file(tmp.path() / "[t]" / "a.txt"), "x 7 y\nbar\n");

  ASSERT_TRUE(test::git_init_commit(tmp.path() / "[t]"));
  r = run_in(tmp.path(), {"log", "--format", "json", "[p]", "[t]"});
  EXPECT_EQ(r.exit_code, 0) << r.err;  // applied at the tip ("[p]" read as "p": exit 3)
  EXPECT_EQ(json::parse(r.out)["target"]["path"], "[t]") << r.out;
}

TEST(CliWords, KernelsAndScanPathsAreTakenAsTyped) {
  TempDir tmp;
  RunResult r = run_in(tmp.path(), {"kernels", "--no-gpu", "[k,l]"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "sm120check: error: [k,l]: no such file or directory\n");
  write_file(tmp.path() / "[d]" / "f.txt", "no CUDA here\n");
  r = run_in(tmp.path(), {"kernels", "--no-gpu", "--format", "json", "--", "[d]"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["files_examined"], 1) << r.out;
  r = run_in(tmp.path(), {"scan", "--no-gpu", "--format", "json", "[d]"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["target"]["path"], "[d]") << r.out;
}

}  // namespace
}  // namespace sm120check
