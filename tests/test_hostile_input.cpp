// Hostile input through the CLI (issue 11): every bad input gets a clear one-line error naming
// the file and line and a documented exit code, never a crash, a hang or a change to the target.
// Every run here goes through run_leaving_unchanged(): the target's files, modes and times are
// the same after `verify` (and after an `apply` that fails) as before.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "fuzz/fuzz_targets.hpp"
#include "test_util.hpp"

namespace sm120check {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::read_file;
using test::run_leaving_unchanged;
using test::RunResult;
using test::TempDir;
using test::write_file;

constexpr const char* kError = "sm120check: error: ";

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

/// A modification of f.txt ("x" -> "y") that is applicable on the fixture's tree.
constexpr const char* kGood =
    "diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-x\n+y\n";

/// A target "t" holding f.txt ("x\n") and g.txt, and patches written beside it.
struct Fixture {
  TempDir dir;
  std::string tree = dir / "t";
  Fixture() {
    write_file(dir / "t/f.txt", "x\n");
    write_file(dir / "t/g.txt", "g1\ng2\n");
  }
  /// Writes `text` as patch `name` beside the tree; returns its path.
  std::string patch(const std::string& name, std::string_view text) const {
    write_file(dir / name, text);
    return dir / name;
  }
  /// verify --no-gpu ARGS... TARGET, which must leave the tree unchanged.
  RunResult verify(std::vector<std::string> args, std::string_view stdin_data = {}) const {
    args.insert(args.begin(), {"verify", "--no-gpu"});
    args.push_back(tree);
    return run_leaving_unchanged(tree, args, stdin_data);
  }
  /// apply ARGS... TARGET that must fail and leave the tree byte-identical.
  RunResult failing_apply(std::vector<std::string> args) const {
    args.insert(args.begin(), "apply");
    args.push_back(tree);
    RunResult r = run_leaving_unchanged(tree, args);
    EXPECT_NE(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.exit_code, 1) << r.out << r.err;
    return r;
  }
};

/// The JSON document of a run; fails the test when stdout is not one.
json parse_json(const RunResult& r) {
  json doc = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << "not JSON: " << r.out << "\nstderr: " << r.err;
  return doc;
}

/// The number of lines of `text`.
std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// --- Finding 7: one bad patch among many ------------------------------------------------------

// `verify p1 bad p3 TARGET` gave no report at all (the parse error was thrown before any
// verdict): a fleet script lost every verdict. The bad patch is now an error entry with its
// file, line and message; the others are still judged; the exit code is 3 (the error wins).
TEST(HostileInput, OneBadPatchAmongManyIsAnErrorEntry) {
  Fixture f;
  const std::string p1 = f.patch("p1.patch", kGood);
  const std::string bad = f.patch("bad.patch",
                                  "diff --git a/g.txt b/g.txt\n--- a/g.txt\n+++ b/g.txt\n"
                                  "@@ -1,3 +1,3 @@\n g1\n-g2\n+G2\n");  // counts 3 lines, has 2
  const std::string p3 =
      f.patch("p3.patch", "--- a/g.txt\n+++ b/g.txt\n@@ -1,2 +1,2 @@\n g1\n-g2\n+G2\n");
  const std::string message =
      "hunk body does not match header @@ -1,3 +1,3 @@ (header at line 4): expected 3 pre-image "
      "lines, found 2; expected 3 post-image lines, found 2 before the end of the patch";
  RunResult json_run = f.verify({"--format", "json", p1, bad, p3});
  EXPECT_EQ(json_run.exit_code, 3);
  EXPECT_EQ(json_run.err, kError + bad + ":4: " + message + "\n");
  json doc = parse_json(json_run);
  ASSERT_EQ(doc["patches"].size(), 3u);
  EXPECT_EQ(doc["patches"][0]["status"], "applicable");
  EXPECT_EQ(doc["patches"][1]["source"], bad);
  EXPECT_EQ(doc["patches"][1]["status"], "error");
  EXPECT_EQ(doc["patches"][1]["line"], 4);
  EXPECT_EQ(doc["patches"][1]["error"], message);
  EXPECT_TRUE(doc["patches"][1]["files"].empty());
  EXPECT_EQ(doc["patches"][2]["status"], "applicable");
  EXPECT_EQ(doc["summary"]["error"], 1);
  EXPECT_EQ(doc["summary"]["applicable"], 2);
  EXPECT_EQ(doc["exit_code"], 3);

  RunResult text = f.verify({p1, bad, p3});
  EXPECT_EQ(text.exit_code, 3);
  EXPECT_TRUE(contains(text.out, "patch 2/3: " + bad + ":4  [error]\n  error: " + message + "\n"))
      << text.out;
  EXPECT_TRUE(contains(text.out, "summary: 3 patches: 2 applicable, 1 error  -> exit 3"))
      << text.out;

  // apply: all or nothing; the report still names every patch.
  RunResult apply = f.failing_apply({"--format", "json", p1, bad, p3});
  EXPECT_EQ(apply.exit_code, 3);
  json plan = parse_json(apply);
  EXPECT_EQ(plan["written"].size(), 0u);
  ASSERT_EQ(plan["blockers"].size(), 1u);
  EXPECT_TRUE(contains(plan["blockers"][0].get<std::string>(), message)) << plan["blockers"];
  EXPECT_EQ(plan["verify"]["patches"][1]["status"], "error");
}

// In a file of several patches (an mbox) only the bad one is an error entry (with its
// subject), the next one is parsed from its "From " line on; an input over the size limit and
// an empty input are error entries too, without line.
TEST(HostileInput, BadInputsOfEveryKindAreErrorEntries) {
  Fixture f;
  const std::string good = f.patch("good.patch", kGood);
  const std::string from =
      "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n";
  const std::string mbox =
      f.patch("series.mbox", from + "Subject: [PATCH 1/3] one\n\n---\n" +
                                 "--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-g1\n+G1\n" + from +
                                 "Subject: [PATCH 2/3] two\n\n---\n" +
                                 "--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n+an addition only\n" +
                                 from + "Subject: [PATCH 3/3] three\n\n---\n" +
                                 "--- a/g.txt\n+++ b/g.txt\n@@ -2 +2 @@\n-g2\n+G2\n");
  const std::string empty = f.patch("empty.patch", "");
  const std::string huge = f.patch("huge.patch", "");
  fs::resize_file(huge, (std::uintmax_t{64} << 20) + 1);  // sparse
  RunResult r = f.verify({"--format", "json", good, mbox, empty, huge});
  EXPECT_EQ(r.exit_code, 3);
  json doc = parse_json(r);
  ASSERT_EQ(doc["patches"].size(), 6u);
  const std::vector<std::string> statuses = {"applicable", "applicable", "error",
                                             "applicable", "error",      "error"};
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(doc["patches"][i]["status"], statuses[i]) << i;
  EXPECT_EQ(doc["patches"][2]["subject"], "two");
  EXPECT_EQ(doc["patches"][2]["line"], 18);
  EXPECT_EQ(doc["patches"][3]["subject"], "three");
  EXPECT_EQ(doc["patches"][3]["line"], 18);
  EXPECT_EQ(doc["patches"][4]["line"], 0);
  EXPECT_TRUE(contains(doc["patches"][4]["error"], "no patch found")) << doc["patches"][4];
  EXPECT_EQ(doc["patches"][5]["error"], "patch is larger than the limit of 67108864 bytes");
  EXPECT_EQ(line_count(r.err), 3u) << r.err;
  EXPECT_TRUE(contains(r.err, kError + mbox + ":18: ")) << r.err;
  EXPECT_TRUE(contains(r.err, kError + empty + ": no patch found")) << r.err;
  // show still refuses the file as a whole.
  EXPECT_EQ(test::run_sm120check({"show", mbox}).exit_code, 3);
}

// --- Finding 4: malformed git headers ---------------------------------------------------------

// `rename to ../../etc/passwd` read as a rename of f.txt to itself ("applied"). Names on
// rename/copy lines that are absolute or climb out with ".." are refused at their line; names
// on "---"/"+++"/"diff --git" lines that do so after stripping are refused (never read).
TEST(HostileInput, PathsOutsideTheTargetAreRefusedInEveryHeader) {
  Fixture f;
  TempDir outside;
  write_file(outside / "secret", "x\n");
  const std::string out = outside.path().string();
  struct Case {
    std::string name, text, error;
    std::vector<std::string> options = {};
  };
  const std::vector<Case> cases = {
      {"rename-to.patch",
       "diff --git a/f.txt b/f.txt\nsimilarity index 100%\nrename from f.txt\n"
       "rename to ../../etc/passwd\n",
       ":4: file name '../../etc/passwd' climbs out of the tree ('..'); refused"},
      {"rename-from.patch",
       "diff --git a/x b/f.txt\nsimilarity index 100%\nrename from d/../../x\nrename to f.txt\n",
       ":3: file name 'd/../../x' climbs out of the tree ('..'); refused"},
      {"copy-to.patch",
       "diff --git a/f.txt b/" + out + "/c\nsimilarity index 100%\ncopy from f.txt\ncopy to " +
           out + "/c\n",
       ":4: file name '" + out + "/c' is absolute; refused"},
      {"copy-from.patch",
       "diff --git a/x b/c\nsimilarity index 100%\ncopy from " + out + "/secret\ncopy to c\n",
       ":3: file name '" + out + "/secret' is absolute; refused"},
      {"minus-plus.patch",
       "--- a/../" + fs::path(out).filename().string() + "/secret\n+++ b/../" +
           fs::path(out).filename().string() + "/secret\n@@ -1 +1 @@\n-x\n+y\n",
       ":1: path '../" + fs::path(out).filename().string() +
           "/secret' climbs out of the target; refused (never read)",
       {"-p1"}},
      {"diff-git.patch",
       "diff --git a/x/../../secret b/x/../../secret\nold mode 100644\nnew mode 100755\n",
       ":1: path 'x/../../secret' climbs out of the target; refused (never read)"},
      {"absolute.patch",
       "--- " + out + "/secret\n+++ " + out + "/secret\n@@ -1 +1 @@\n-x\n+y\n",
       ":1: path '" + out + "/secret' is absolute; refused (never read)",
       {"-p0"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string patch = f.patch(c.name, c.text);
    std::vector<std::string> args = c.options;
    args.push_back(patch);
    RunResult r = f.verify(args);
    EXPECT_EQ(r.exit_code, 3) << r.out;
    EXPECT_EQ(r.err, kError + patch + c.error + "\n");
    r = f.failing_apply(args);
    EXPECT_EQ(r.exit_code, 3) << r.out;
    EXPECT_EQ(read_file(outside / "secret"), "x\n");
    EXPECT_EQ(std::distance(fs::directory_iterator(outside.path()), fs::directory_iterator()), 1);
  }
}

// Contradictory git headers are refused at their line, as git apply refuses them (its
// messages: "expected /dev/null", "inconsistent header lines", "new file depends on old
// contents", "deleted file still has contents", "lacks filename information").
TEST(HostileInput, ContradictoryGitHeadersAreRefusedAsGitApplyRefusesThem) {
  Fixture f;
  struct Case {
    std::string name, text, error;
  };
  const std::vector<Case> cases = {
      {"new-minus.patch",
       "diff --git a/f.txt b/f.txt\nnew file mode 100644\n--- a/f.txt\n+++ b/f.txt\n"
       "@@ -0,0 +1 @@\n+y\n",
       ":3: 'new file mode' (line 2) but '--- a/f.txt': expected '--- /dev/null'"},
      {"deleted-plus.patch",
       "diff --git a/f.txt b/f.txt\ndeleted file mode 100644\n--- a/f.txt\n+++ b/f.txt\n"
       "@@ -1 +0,0 @@\n-x\n",
       ":4: 'deleted file mode' (line 2) but '+++ b/f.txt': expected '+++ /dev/null'"},
      {"new-deleted.patch",
       "diff --git a/f.txt b/f.txt\nnew file mode 100644\ndeleted file mode 100644\n",
       ":3: inconsistent headers of the file patch at line 1: 'new file mode' (line 2) and "
       "'deleted file mode' contradict each other"},
      {"rename-copy.patch",
       "diff --git a/f.txt b/h.txt\nrename from f.txt\nrename to h.txt\ncopy from f.txt\n"
       "copy to h.txt\n",
       ":5: inconsistent headers of the file patch at line 1: 'rename' (line 3) and 'copy' "
       "contradict each other"},
      {"new-rename.patch",
       "diff --git a/f.txt b/h.txt\nnew file mode 100644\nrename from f.txt\nrename to h.txt\n",
       ":4: inconsistent headers of the file patch at line 1: 'new file mode' (line 2) and "
       "'rename' contradict each other"},
      {"rename-half.patch",
       "diff --git a/f.txt b/h.txt\nsimilarity index 100%\nrename from f.txt\n",
       ":3: 'rename from' without 'rename to'"},
      {"new-old-lines.patch",
       "diff --git a/h.txt b/h.txt\nnew file mode 100644\n--- /dev/null\n+++ b/h.txt\n"
       "@@ -1 +1 @@\n-x\n+y\n",
       ":5: new file 'b/h.txt' has a hunk with pre-image lines (it depends on old contents)"},
      {"deleted-new-lines.patch", "--- a/f.txt\n+++ /dev/null\n@@ -1 +1 @@\n-x\n+y\n",
       ":3: deleted file 'a/f.txt' has a hunk with post-image lines (it still has contents)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string patch = f.patch(c.name, c.text);
    RunResult r = f.verify({patch});
    EXPECT_EQ(r.exit_code, 3) << r.out;
    EXPECT_EQ(r.err, kError + patch + c.error + "\n");
    EXPECT_EQ(f.failing_apply({patch}).exit_code, 3);
  }
  // What git apply accepts stays accepted: "---"/"+++" names other than the "diff --git" line's
  // (git takes the "---"/"+++" names), and a new file's mode beside "old mode".
  const std::string other = f.patch(
      "other-names.patch", "diff --git a/x b/x\n--- a/g.txt\n+++ b/g.txt\n@@ -2 +2 @@\n-g2\n+G2\n");
  EXPECT_EQ(f.verify({other}).exit_code, 1);
}

// --- NUL bytes, non-UTF-8 ---------------------------------------------------------------------

TEST(HostileInput, NulBytesInNamesAreRefusedAndInContentAreData) {
  Fixture f;
  using namespace std::string_literals;
  const std::string plain =
      f.patch("nul-name.patch", "--- a/f\0.txt\n+++ b/f\0.txt\n@@ -1 +1 @@\n-x\n+y\n"s);
  const std::string quoted =
      f.patch("nul-quoted.patch",
              "diff --git \"a/f\\000.txt\" \"b/f\\000.txt\"\n--- \"a/f\\000.txt\"\n"
              "+++ \"b/f\\000.txt\"\n@@ -1 +1 @@\n-x\n+y\n");
  const std::string rename = f.patch(
      "nul-rename.patch", "diff --git a/f.txt b/h.txt\nrename from f.txt\nrename to h\0.txt\n"s);
  const std::string content =
      f.patch("nul-content.patch", "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-x\n+y\0z\n"s);
  RunResult r = f.verify({"--format", "json", plain, quoted, rename, content});
  EXPECT_EQ(r.exit_code, 3);
  json doc = parse_json(r);
  ASSERT_EQ(doc["patches"].size(), 4u);
  EXPECT_EQ(doc["patches"][0]["error"], "file name contains a NUL byte");
  EXPECT_EQ(doc["patches"][0]["line"], 1);
  EXPECT_EQ(doc["patches"][1]["error"], "malformed quoted file name");
  EXPECT_EQ(doc["patches"][1]["line"], 2);
  EXPECT_EQ(doc["patches"][2]["error"], "file name contains a NUL byte");
  EXPECT_EQ(doc["patches"][2]["line"], 3);
  EXPECT_EQ(doc["patches"][3]["status"], "applicable");
  EXPECT_EQ(line_count(r.err), 3u) << r.err;
  // A NUL in an added line is data; a file holding a NUL byte is binary, on which text hunks
  // are a conflict with that reason (git diff writes "Binary files ... differ" for it).
  write_file(f.dir / "t/f.txt", "y\0z\n"s);
  RunResult binary = f.verify({"--format", "json", content});
  EXPECT_EQ(binary.exit_code, 2);
  EXPECT_EQ(parse_json(binary)["patches"][0]["files"][0]["reason"],
            "'f.txt' is a binary file but the patch has text hunks");
  // The text report escapes it.
  RunResult text = f.verify({plain});
  EXPECT_FALSE(contains(text.out, std::string(1, '\0')));
  EXPECT_FALSE(contains(text.err, std::string(1, '\0')));
}

// Names and content that are not UTF-8: JSON stays valid JSON (ill-formed bytes become U+FFFD,
// as docs/json.md says), the text output escapes them, the file is still found and judged.
TEST(HostileInput, NonUtf8NamesAndContentGiveValidJson) {
  Fixture f;
  write_file(f.dir / "t/f\xff\xfe.txt", "caf\xe9\n");
  const std::string patch = f.patch(
      "latin1.patch",
      "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\nSubject: caf\xe9 "
      "\x1b[31mred\n\n---\n"
      "--- a/f\xff\xfe.txt\n+++ b/f\xff\xfe.txt\n@@ -1 +1 @@ def caf\xe9\n-caf\xe9\n+caf\xc3\n");
  RunResult r = f.verify({"--format", "json", patch});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  json doc = parse_json(r);
  const json& file = doc["patches"][0]["files"][0];
  EXPECT_EQ(file["target_path"], "f\xef\xbf\xbd\xef\xbf\xbd.txt");
  EXPECT_EQ(file["status"], "applicable");
  EXPECT_EQ(doc["patches"][0]["subject"], "caf\xef\xbf\xbd \x1b[31mred");
  RunResult text = f.verify({patch});
  EXPECT_TRUE(contains(text.out, "M f\\xff\\xfe.txt")) << text.out;
  EXPECT_TRUE(contains(text.out, "caf\\xe9 \\x1b[31mred")) << text.out;
  EXPECT_FALSE(contains(text.out, "\x1b")) << text.out;
  // show and apply --dry-run too.
  RunResult show = test::run_sm120check({"show", "--format", "json", patch});
  EXPECT_EQ(show.exit_code, 0);
  EXPECT_FALSE(json::parse(show.out, nullptr, false).is_discarded()) << show.out;
  RunResult dry =
      run_leaving_unchanged(f.tree, {"apply", "--dry-run", "--format", "json", patch, f.tree});
  EXPECT_EQ(dry.exit_code, 1) << dry.err;
  EXPECT_FALSE(json::parse(dry.out, nullptr, false).is_discarded()) << dry.out;
}

// --- FIFOs, devices, sockets ------------------------------------------------------------------

// A FIFO or socket where the patch names a file is never opened (opening a FIFO for reading
// blocks until a writer comes): the file is "not a regular file", the run ends at once.
TEST(HostileInput, FifoAndSocketInTheTargetAreNeverOpened) {
  Fixture f;
  ASSERT_EQ(::mkfifo((f.dir / "t/fifo").c_str(), 0644), 0);
  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string sock_path = f.dir / "t/sock";
  ASSERT_LT(sock_path.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, sock_path.c_str(), sock_path.size() + 1);
  ASSERT_EQ(::bind(sock, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
  // A character device where the system lets us make one (root); /dev/null's numbers.
  const bool device = ::mknod((f.dir / "t/dev").c_str(), S_IFCHR | 0644, makedev(1, 3)) == 0;
  for (const std::string name : {"fifo", "sock", "dev"}) {
    if (name == "dev" && !device) continue;
    SCOPED_TRACE(name);
    const std::string modify =
        f.patch(name + ".patch", "--- a/" + name + "\n+++ b/" + name + "\n@@ -1 +1 @@\n-x\n+y\n");
    const std::string remove =
        f.patch(name + "-rm.patch", "diff --git a/" + name + " b/" + name +
                                        "\ndeleted file mode 100644\n--- a/" + name +
                                        "\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n");
    RunResult r = f.verify({"--format", "json", modify, remove});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    json doc = parse_json(r);
    EXPECT_EQ(doc["patches"][0]["files"][0]["status"], "conflict");
    EXPECT_EQ(doc["patches"][0]["files"][0]["reason"], "'" + name + "' is not a regular file");
    EXPECT_EQ(doc["patches"][1]["files"][0]["status"], "conflict");
    EXPECT_EQ(f.failing_apply({modify}).exit_code, 2);
    EXPECT_EQ(f.failing_apply({remove}).exit_code, 2);
    // The marker search and grep skip it too.
    EXPECT_EQ(f.verify({"--marker", "x", modify}).exit_code, 2);
    RunResult grep = test::run_sm120check_within(60, {"grep", f.tree, "x"});
    EXPECT_EQ(grep.exit_code, 0) << grep.err;
    EXPECT_EQ(grep.out, f.tree + "/f.txt:1:x\n");
  }
  ::close(sock);
  // A FIFO as TARGET: refused, not opened.
  ASSERT_EQ(::mkfifo((f.dir / "fifo-target").c_str(), 0644), 0);
  RunResult r = test::run_sm120check_within(
      60, {"verify", "--no-gpu", f.patch("good.patch", kGood), f.dir / "fifo-target"});
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(contains(r.err, "not a directory")) << r.err;
}

// A FIFO (or /dev/stdin, a process substitution) as PATCH is read as a stream, as cat reads it;
// a character device too, up to the patch size limit (/dev/zero is refused, not read forever).
TEST(HostileInput, FifoAndDeviceAsPatchAreReadAsStreams) {
  Fixture f;
  const std::string fifo = f.dir / "p.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);  // blocks until the reader opens it
    out << kGood;
  });
  RunResult r = f.verify({"--format", "json", fifo});
  writer.join();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(parse_json(r)["patches"][0]["status"], "applicable");
  r = f.verify({"/dev/null", f.patch("good.patch", kGood)});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, std::string(kError) +
                       "/dev/null: no patch found (no 'diff --git' header and "
                       "no '---'/'+++'/'@@' file patch)\n");
  EXPECT_TRUE(contains(r.out, "[applicable]")) << r.out;
  r = f.verify({"/dev/zero"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, std::string(kError) +
                       "/dev/zero: patch is larger than the limit of 67108864 "
                       "bytes\n");
}

// --- Size: long lines, many hunks -------------------------------------------------------------

// One added line of 60 MiB (the largest that fits the 64 MiB patch limit): judged, memory
// bounded by the text (bench/README.md: peak RSS), no quadratic step. A 200 MB patch is refused
// by its size before it is read; on standard input after 64 MiB.
TEST(HostileInput, LongLinesAreJudgedOrRefusedBySize) {
  Fixture f;
  const std::string line(std::size_t{60} << 20, 'a');
  const std::string patch =
      f.patch("long.patch", "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-x\n+" + line + "\n");
  const auto start = std::chrono::steady_clock::now();
  RunResult r = f.verify({patch});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  const std::string huge = f.patch("huge.patch", "");
  fs::resize_file(huge, std::uintmax_t{200} << 20);
  r = f.verify({huge});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(contains(r.err, "patch is larger than the limit")) << r.err;
  r = f.verify({"-"}, "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-x\n+" + line + line + "\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, std::string(kError) + "-: patch is larger than the limit of 67108864 bytes\n");
}

// 100k hunks on a 200k-line file: judged in linear time (bench/README.md measures 62.5k to
// 500k hunks). A quadratic step over hunks would take hours here.
TEST(HostileInput, ManyHunksAreJudgedInLinearTime) {
  Fixture f;
  constexpr std::size_t kHunks = 100000;
  std::string file, patch = "--- a/big.txt\n+++ b/big.txt\n";
  for (std::size_t i = 0; i < 2 * kHunks; ++i) file += "l" + std::to_string(i) + "\n";
  for (std::size_t k = 0; k < kHunks; ++k) {
    const std::size_t line = 2 * k + 1;
    patch += "@@ -" + std::to_string(line) + " +" + std::to_string(line) + " @@\n-l" +
             std::to_string(line - 1) + "\n+L" + std::to_string(line - 1) + "\n";
  }
  write_file(f.dir / "t/big.txt", file);
  const std::string path = f.patch("many.patch", patch);
  RunResult r =
      test::run_sm120check_within(120, {"verify", "--no-gpu", "--format", "json", path, f.tree});
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  json doc = parse_json(r);
  EXPECT_EQ(doc["patches"][0]["files"][0]["hunks"].size(), kHunks);
}

// --- Lying counts, truncation, empty and binary patches ---------------------------------------

TEST(HostileInput, HunkCountsThatLieAreErrorsAtTheHunk) {
  Fixture f;
  struct Case {
    std::string name, text, error;
  };
  const std::vector<Case> cases = {
      {"too-many.patch", "--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-g1\n+G1\n-g2\n+G2\n",
       ":6: hunk body does not match header @@ -1 +1 @@ (header at line 3): more hunk lines than the "
       "header counts"},
      {"too-few.patch", "--- a/g.txt\n+++ b/g.txt\n@@ -1,5 +1,5 @@\n-g1\n+G1\n g2\n",
       ":3: hunk body does not match header @@ -1,5 +1,5 @@ (header at line 3): expected 5 pre-image "
       "lines, found 2; expected 5 post-image lines, found 2 before the end of the patch"},
      {"too-few-then-text.patch",
       "--- a/g.txt\n+++ b/g.txt\n@@ -1,3 +1,3 @@\n-g1\n+G1\n g2\nSigned-off-by: x\n",
       ":7: hunk body does not match header @@ -1,3 +1,3 @@ (header at line 3): expected 3 pre-image "
       "lines, found 2; expected 3 post-image lines, found 2 before 'Signed-off-by: x', which "
       "is not a hunk line"},
      {"zero.patch", "--- a/g.txt\n+++ b/g.txt\n@@ -0,0 +0,0 @@\n",
       ":3: hunk has no lines: '@@ -0,0 +0,0 @@' counts no pre-image and no post-image line"},
      {"huge-count.patch", "--- a/g.txt\n+++ b/g.txt\n@@ -1,4294967296 +1 @@\n-g1\n+G1\n",
       ":3: number too large in hunk header '@@ -1,4294967296 +1 @@'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string patch = f.patch(c.name, c.text);
    RunResult r = f.verify({patch});
    EXPECT_EQ(r.exit_code, 3) << r.out;
    EXPECT_EQ(r.err, kError + patch + c.error + "\n");
  }
  // A count that takes in the next file's "---"/"+++" lines as a removed and an added line
  // reads them so, as git apply and GNU patch do (counts rule): two hunks of g.txt, a conflict.
  const std::string swallowed = f.patch("swallowed.patch",
                                        "--- a/g.txt\n+++ b/g.txt\n@@ -1,3 +1,3 @@\n-g1\n+G1\n g2\n"
                                        "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-x\n+y\n");
  RunResult r = f.verify({"--format", "json", swallowed});
  EXPECT_EQ(r.exit_code, 2);
  const json file = parse_json(r)["patches"][0]["files"];
  ASSERT_EQ(file.size(), 1u);
  EXPECT_EQ(file[0]["target_path"], "g.txt");
  EXPECT_EQ(file[0]["hunks"].size(), 2u);
}

// A patch cut anywhere (mid-header, mid-hunk, mid-line) is refused with a line or judged as what
// it holds: never a crash. Every prefix of a real patch goes through the fuzz entry points
// (parse, match, apply both ways, verify, plan, render: their invariants checked), and a few
// through the binary.
TEST(HostileInput, TruncatedPatchesNeverCrash) {
  const std::string patch = read_file(fs::path(SM120CHECK_SOURCE_DIR) /
                                      "patches/0001-extend_attention-smaller-Triton-tiles-on-"
                                      "SM120.patch");
  const std::string file =
      read_file(fs::path(SM120CHECK_SOURCE_DIR) /
                "examples/tree/python/sglang/srt/layers/attention/triton_ops/extend_attention.py");
  ASSERT_GT(patch.size(), 1000u);
  for (std::size_t cut = 0; cut <= patch.size(); ++cut) {
    const std::string input =
        "@" + file + std::string(fuzz::kPatchSeparator) + patch.substr(0, cut);
    ASSERT_NO_THROW(fuzz::apply_one(input)) << "cut at byte " << cut;
    ASSERT_NO_THROW(fuzz::render_one(input)) << "cut at byte " << cut;
  }
  Fixture f;
  fs::copy(fs::path(SM120CHECK_SOURCE_DIR) / "examples/tree", f.tree,
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  for (const std::string& marker :
       {std::string("\nindex "), std::string("\n@@ "), std::string("\n+        if CUDA")}) {
    const std::size_t cut = patch.find(marker) + marker.size() / 2;
    const std::string cut_patch = f.patch("cut.patch", patch.substr(0, cut));
    RunResult r = f.verify({"--format", "json", cut_patch});
    SCOPED_TRACE(marker);
    EXPECT_TRUE(r.exit_code >= 1 && r.exit_code <= 3) << r.err;
    parse_json(r);
  }
}

TEST(HostileInput, EmptyAndBinaryPatchesAndStandardInput) {
  Fixture f;
  const std::string empty = f.patch("empty.patch", "");
  RunResult r = f.verify({empty});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, kError + empty +
                       ": no patch found (no 'diff --git' header and no '---'/'+++'/'@@' file "
                       "patch)\n");
  r = f.verify({"-"}, "");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(contains(r.err, std::string(kError) + "-: no patch found")) << r.err;
  // Binary patches: judged by their blob ids (unknown without), never decoded by verify;
  // apply refuses to write them.
  write_file(f.dir / "t/img.png", std::string("\x89PNG\r\n\x1a\n\0\0", 10));
  const std::string git_binary =
      f.patch("bin.patch",
              "diff --git a/img.png b/img.png\nindex 1234567..89abcde 100644\nGIT binary patch\n"
              "literal 5\nMcmZQzWMXCj0000P01p5F\n\nliteral 10\nRcmeZF4*>xH{}BKH0|38g1hD`A\n\n");
  const std::string differ =
      f.patch("differ.patch",
              "diff --git a/img.png b/img.png\nBinary files a/img.png and b/img.png differ\n");
  r = f.verify({"--format", "json", git_binary, differ});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  json doc = parse_json(r);
  EXPECT_EQ(doc["patches"][0]["files"][0]["change"], "binary");
  EXPECT_EQ(doc["patches"][0]["files"][0]["status"], "conflict");
  EXPECT_EQ(doc["patches"][1]["files"][0]["status"], "unknown");
  EXPECT_EQ(f.failing_apply({differ}).exit_code, 2);
  // A truncated payload is an error at its line.
  const std::string cut_binary =
      f.patch("cut-bin.patch",
              "diff --git a/img.png b/img.png\nindex 1234567..89abcde 100644\nGIT binary patch\n"
              "literal 5\n");
  r = f.verify({cut_binary});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_TRUE(contains(r.err, cut_binary + ":")) << r.err;
  // A patch on standard input, beside files: source "-".
  r = f.verify({"--format", "json", "-", empty}, kGood);
  EXPECT_EQ(r.exit_code, 3);
  doc = parse_json(r);
  EXPECT_EQ(doc["patches"][0]["source"], "-");
  EXPECT_EQ(doc["patches"][0]["status"], "applicable");
  RunResult applied = test::run_sm120check({"apply", "-", f.tree}, kGood);
  EXPECT_EQ(applied.exit_code, 0) << applied.err;
  EXPECT_EQ(read_file(f.dir / "t/f.txt"), "y\n");
}

// The guard itself: a run that writes is caught (here an apply that succeeds), naming the file.
TEST(HostileInput, TheUnchangedTreeCheckCatchesAWrite) {
  Fixture f;
  const std::string good = f.patch("good.patch", kGood);
  EXPECT_NONFATAL_FAILURE(run_leaving_unchanged(f.tree, {"apply", good, f.tree}),
                          "the run changed '.', 'f.txt' under");
  EXPECT_EQ(read_file(f.dir / "t/f.txt"), "y\n");
  // Touching a file's time alone counts too.
  EXPECT_NONFATAL_FAILURE(run_leaving_unchanged(f.tree, {"apply", "--reverse", good, f.tree}),
                          "the run changed");
}

// A failing apply leaves the tree byte-identical: a conflict in the last patch of a series
// whose first patches apply, a missing file, and a file that turns read-only between staging
// and writing are all "nothing written".
TEST(HostileInput, FailingApplyLeavesTheTreeByteIdentical) {
  Fixture f;
  const std::string good = f.patch("good.patch", kGood);
  const std::string conflict =
      f.patch("conflict.patch", "--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-nope\n+G1\n");
  const std::string missing =
      f.patch("missing.patch", "--- a/none.txt\n+++ b/none.txt\n@@ -1 +1 @@\n-a\n+b\n");
  EXPECT_EQ(f.failing_apply({good, conflict}).exit_code, 2);
  EXPECT_EQ(f.failing_apply({good, missing}).exit_code, 2);
  EXPECT_EQ(f.failing_apply({"--backup", good, conflict}).exit_code, 2);
  // Nothing to take out: exit 0, nothing touched.
  EXPECT_EQ(run_leaving_unchanged(f.tree, {"apply", "--reverse", good, f.tree}).exit_code, 0);
}

}  // namespace
}  // namespace sm120check
