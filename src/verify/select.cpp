// --include / --exclude: which file patches a run uses (see path_selected()).
#include <fnmatch.h>

#include <algorithm>
#include <initializer_list>
#include <string>
#include <utility>

#include "sm120check/patch.hpp"
#include "sm120check/verify.hpp"

namespace sm120check {

namespace {

/// Whether a folder of `path` (any component but the last) is one of `names`, or its file
/// name is a test's (test_*, *_test.*, *_tests.*, conftest.py).
bool test_path(std::string_view path, std::initializer_list<std::string_view> names) {
  std::size_t at = 0;
  while (at <= path.size()) {
    std::size_t end = path.find('/', at);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view part = path.substr(at, end - at);
    if (end == path.size()) {
      const std::string_view stem = part.substr(0, part.find('.'));
      return part.starts_with("test_") || stem.ends_with("_test") || stem.ends_with("_tests") ||
             part == "conftest.py";
    }
    if (std::find(names.begin(), names.end(), part) != names.end()) return true;
    at = end + 1;
  }
  return false;
}

}  // namespace

bool is_test_file(std::string_view path) { return test_path(path, {"tests", "test"}); }

bool looks_like_test(std::string_view path) {
  return test_path(path, {"tests", "test", "testing", "benchmarks", "benchmark"});
}

bool path_selected(std::string_view path, const std::vector<PathRule>& rules) {
  if (rules.empty()) return true;
  const std::string name(path);  // fnmatch wants a NUL-terminated string
  bool any_include = false;
  for (const PathRule& rule : rules) {
    if (::fnmatch(rule.pattern.c_str(), name.c_str(), 0) == 0) return rule.include;
    any_include = any_include || rule.include;
  }
  return !any_include;
}

std::vector<std::vector<std::string>> select_file_patches(
    std::vector<Patch>& patches, const std::vector<unsigned>& strips,
    const std::vector<PathRule>& rules, std::vector<std::vector<FilePatch>>* left_out) {
  std::vector<std::vector<std::string>> excluded(patches.size());
  if (left_out != nullptr) left_out->assign(patches.size(), {});
  if (rules.empty()) return excluded;
  for (std::size_t i = 0; i < patches.size() && i < strips.size(); ++i) {
    std::vector<FilePatch>& files = patches[i].files;
    std::vector<FilePatch> kept;
    kept.reserve(files.size());
    for (FilePatch& f : files) {
      const std::string& named = f.new_path != "/dev/null" ? f.new_path : f.old_path;
      const std::optional<std::string> path = strip_path(named, strips[i]);
      if (path && !path_selected(*path, rules)) {
        excluded[i].push_back(*path);
        if (left_out != nullptr) (*left_out)[i].push_back(std::move(f));
      } else {
        kept.push_back(std::move(f));
      }
    }
    files = std::move(kept);
  }
  return excluded;
}

void mark_excluded(VerifyReport& report, std::vector<std::vector<std::string>> excluded) {
  for (std::size_t i = 0; i < report.patches.size() && i < excluded.size(); ++i) {
    PatchReport& p = report.patches[i];
    p.excluded = std::move(excluded[i]);
    // Every file taken out: verify() called it "patch changes no file" (a patch that could
    // not be read has no files to take out, so its error stays). Nothing of it was checked:
    // unknown, so that a CI gate does not pass on a pattern that left out the fix (a typo in
    // --include), never skipped or applied.
    if (!p.excluded.empty() && p.files.empty()) {
      p.status = Status::kUnknown;
      p.presence = Presence::kUnknown;
      p.error.clear();
    }
  }
}

}  // namespace sm120check
