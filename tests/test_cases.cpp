// Every tree of every input case in tests/cases (real bug reports against other diff tools, see
// tests/cases/README.md) verified end to end with the built binary: status, exit code, strip
// level, per-file verdicts and diagnostics as case.json expects.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace sm120check::test {
namespace {

struct CaseTree {
  std::string case_id;
  std::string tree;       // "original", "applied" or "variants/NAME"
  std::string verdict;    // case.json verdict word
  std::vector<std::string> acceptable;  // alternatives case.json allows
  std::string name() const {
    std::string n = case_id + "_" + tree;
    for (char& c : n)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
  }
};

void PrintTo(const CaseTree& t, std::ostream* os) { *os << t.case_id << "/" << t.tree; }

std::string first_word(const std::string& s) { return s.substr(0, s.find(' ')); }

std::vector<CaseTree> list_case_trees() {
  std::vector<CaseTree> out;
  fs::path root = SM120CHECK_CASES_DIR;
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory() && fs::exists(e.path() / "case.json")) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& dir : dirs) {
    std::ifstream in(dir / "case.json");
    json c = json::parse(in);
    const json& e = c["expected"];
    std::string id = c["id"];
    auto list = [](const json& j, const char* key) {
      std::vector<std::string> v;
      if (j.contains(key))
        for (const auto& s : j[key]) v.push_back(first_word(s.get<std::string>()));
      return v;
    };
    out.push_back({id, "original", e["verdict"], list(e, "acceptable")});
    if (c["trees"].contains("applied") && c["trees"]["applied"].is_string())
      out.push_back({id, "applied", first_word(e["verdict_on_applied"].get<std::string>()),
                     list(e, "acceptable_on_applied")});
    if (c["trees"].contains("variants") && c["trees"]["variants"].is_array()) {
      for (const auto& v : c["trees"]["variants"]) {
        std::string rel = v.get<std::string>();
        while (!rel.empty() && rel.back() == '/') rel.pop_back();
        std::string name = rel.substr(rel.rfind('/') + 1);
        out.push_back({id, rel, e["variants"][name]["verdict"], {}});
      }
    }
  }
  return out;
}

/// Statuses a verdict word allows, and the exit codes that go with them.
std::set<std::string> allowed_statuses(const std::string& verdict) {
  if (verdict == "APPLICABLE") return {"applicable"};
  if (verdict == "ALREADY-APPLIED") return {"applied"};
  if (verdict == "CONFLICT") return {"conflict"};
  if (verdict == "PARTIALLY-APPLIED") return {"partial"};
  if (verdict == "UNSUPPORTED") return {"unknown", "error"};
  return {};
}

int exit_for(const std::string& status) {
  if (status == "applied") return 0;
  if (status == "applicable") return 1;
  if (status == "error") return 3;
  return 2;
}

/// Copies a case tree into a temp folder (the shared copy is read-only, and verification must
/// be checked not to write). The shared copy of case 36 lost its symlink: `latest` in its applied
/// tree is restored as the symlink git made (its content is the link target).
void materialise(const fs::path& from, const fs::path& to, const CaseTree& ct) {
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  if (ct.case_id == "36-symlink-mode-120000" && ct.tree == "applied") {
    std::string target = read_file(to / "latest");
    fs::remove(to / "latest");
    fs::create_symlink(target, to / "latest");
  }
}

class CaseTest : public ::testing::TestWithParam<CaseTree> {};

TEST_P(CaseTest, VerdictMatchesCase) {
  const CaseTree& ct = GetParam();
  fs::path case_dir = fs::path(SM120CHECK_CASES_DIR) / ct.case_id;
  std::ifstream in(case_dir / "case.json");
  json c = json::parse(in);

  TempDir tmp;
  fs::path tree = tmp.path() / "tree";
  materialise(case_dir / ct.tree, tree, ct);
  RunResult before = run_shell("find . -print0 | sort -z | xargs -0 ls -ld --time-style=+%s; "
                               "find . -type f -print0 | sort -z | xargs -0 -r sha1sum",
                               tree);

  RunResult r = run_sm120check(
      {"verify", "--format", "json", (case_dir / "patch.diff").string(), tree.string()});
  SCOPED_TRACE("stdout: " + r.out + "\nstderr: " + r.err);

  RunResult after = run_shell("find . -print0 | sort -z | xargs -0 ls -ld --time-style=+%s; "
                              "find . -type f -print0 | sort -z | xargs -0 -r sha1sum",
                              tree);
  EXPECT_EQ(before.out, after.out) << "verification changed the target tree";

  // A patch that cannot be parsed is still reported: one patch with status error, its line and
  // message, and the same one line on stderr.
  const auto expect_parse_error = [&] {
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(r.err.rfind("sm120check: error: ", 0), 0u);
    EXPECT_NE(r.err.find("patch.diff:"), std::string::npos) << "error must name the patch line";
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line";
    json j = json::parse(r.out);
    ASSERT_EQ(j["patches"].size(), 1u);
    const json& p = j["patches"][0];
    EXPECT_EQ(p["status"], "error");
    EXPECT_TRUE(p["files"].empty());
    EXPECT_GT(p["line"].get<std::size_t>(), 0u);
    EXPECT_NE(r.err.find(p["error"].get<std::string>()), std::string::npos);
    EXPECT_EQ(j["exit_code"], 3);
  };
  if (ct.verdict == "PARSE-ERROR") {
    expect_parse_error();
    return;
  }

  std::set<std::string> allowed = allowed_statuses(ct.verdict);
  for (const std::string& alt : ct.acceptable) {
    std::set<std::string> more = allowed_statuses(alt);
    allowed.insert(more.begin(), more.end());
  }
  ASSERT_FALSE(allowed.empty()) << "unknown verdict " << ct.verdict;

  json j = json::parse(r.out);
  ASSERT_EQ(j["patches"].size(), 1u);
  const json& p = j["patches"][0];
  if (p["status"] == "error" && p["files"].empty()) {
    // Refused as a whole (e.g. an unsupported format): only an error verdict allows that.
    EXPECT_TRUE(allowed.count("error")) << "not parsed, but " << ct.verdict << " was expected";
    expect_parse_error();
    return;
  }
  std::string status = p["status"];
  EXPECT_TRUE(allowed.count(status)) << "status " << status << " for verdict " << ct.verdict;
  EXPECT_EQ(r.exit_code, exit_for(status));
  EXPECT_EQ(p["strip"], c["strip"]) << "detected strip level";
  EXPECT_EQ(p["strip_detected"], true);

  const json& e = c["expected"];
  if (ct.tree == "original" && e.contains("per_file")) {
    for (const auto& [path, verdict] : e["per_file"].items()) {
      bool found = false;
      for (const json& f : p["files"]) {
        if (f["target_path"] == path) {
          found = true;
          EXPECT_TRUE(allowed_statuses(verdict).count(f["status"].get<std::string>()))
              << path << ": " << f["status"];
        }
      }
      EXPECT_TRUE(found) << "no file report for " << path;
    }
  }
  if (ct.tree == "original" && e.contains("diagnostic")) {
    bool found = false;
    for (const json& f : p["files"])
      for (const json& h : f["hunks"])
        if (h["diagnostic"] == e["diagnostic"]) found = true;
    EXPECT_TRUE(found) << "expected a hunk with diagnostic " << e["diagnostic"];
  }
}

INSTANTIATE_TEST_SUITE_P(SharedCases, CaseTest, ::testing::ValuesIn(list_case_trees()),
                         [](const ::testing::TestParamInfo<CaseTree>& info) {
                           return info.param.name();
                         });

TEST(SharedCasesInventory, AllCasesAndTreesAreCovered) {
  std::vector<CaseTree> trees = list_case_trees();
  std::set<std::string> ids;
  for (const CaseTree& t : trees) ids.insert(t.case_id);
  EXPECT_EQ(ids.size(), 25u);
  EXPECT_EQ(trees.size(), 53u);
}

}  // namespace
}  // namespace sm120check::test
