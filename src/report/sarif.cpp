// SARIF 2.1.0 logs of `verify` and `scan` (docs/formats.md), for code-scanning uploads: one run,
// the rules in tool.driver, one result per finding located at the target file and line. The
// shape follows the OASIS standard's schema (tests/data/sarif/ holds it; the tests validate
// every log against it). Messages are the text report's words, escaped for a terminal; strings
// go through sanitize_utf8() so that dump() never throws.
#include <fmt/format.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ci_internal.hpp"
#include "words.hpp"

namespace sm120check {
namespace {

using json = nlohmann::ordered_json;

/// The URI of the OASIS SARIF 2.1.0 schema (with errata 01), written as "$schema".
constexpr const char* kSarifSchemaUri =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// One rule of tool.driver.rules.
struct Rule {
  const char* id;
  const char* name;
  const char* level;  ///< its default level: "error" or "warning"
  const char* text;   ///< short description
};

json rules_json(const std::vector<Rule>& rules) {
  json out = json::array();
  for (const Rule& r : rules)
    out.push_back({{"id", r.id},
                   {"name", r.name},
                   {"shortDescription", {{"text", r.text}}},
                   {"defaultConfiguration", {{"level", r.level}}}});
  return out;
}

/// A physicalLocation for `path` (as the CI system sees it: relative to the working directory,
/// or absolute) at `line` (0: no region).
json location(const std::string& path, std::size_t line) {
  json artifact;
  if (!path.empty() && path.front() == '/') {
    artifact["uri"] = "file://" + uri_escape_path(path);
  } else {
    artifact["uri"] = uri_escape_path(path);
    artifact["uriBaseId"] = "%SRCROOT%";
  }
  json physical;
  physical["artifactLocation"] = std::move(artifact);
  if (line != 0) physical["region"] = {{"startLine", line}};
  return json::array({{{"physicalLocation", std::move(physical)}}});
}

/// A result of rule `rules[index]` with `message` (escaped already), at `path`:`line` when
/// `path` is non-empty.
json result(const std::vector<Rule>& rules, std::size_t index, std::string_view level,
            const std::string& message, const std::string& path, std::size_t line) {
  json out;
  out["ruleId"] = rules[index].id;
  out["ruleIndex"] = index;
  out["level"] = std::string(level);
  out["message"] = {{"text", sanitize_utf8(message)}};
  if (!path.empty()) out["locations"] = location(path, line);
  return out;
}

/// The log around one run: $schema, version, and the run's tool, base URI, results and
/// invocation (its exit code; executionSuccessful unless the code is 3).
json log(const std::vector<Rule>& rules, json results, int exit_code, const CiContext& context,
         json properties) {
  json run;
  run["tool"] = {{"driver",
                  {{"name", "sm120check"},
                   {"version", SM120CHECK_VERSION},
                   {"semanticVersion", SM120CHECK_VERSION},
                   {"rules", rules_json(rules)}}}};
  if (!context.cwd.empty()) {
    std::string base = context.cwd;
    if (base.back() != '/') base += '/';
    run["originalUriBaseIds"] = {{"%SRCROOT%", {{"uri", "file://" + uri_escape_path(base)}}}};
  }
  run["results"] = std::move(results);
  run["invocations"] = json::array({{{"executionSuccessful", exit_code != 3},
                                     {"exitCode", exit_code}}});
  run["properties"] = std::move(properties);
  json out;
  out["$schema"] = kSarifSchemaUri;
  out["version"] = "2.1.0";
  out["runs"] = json::array({std::move(run)});
  return out;
}

/// TARGET as a location, for results that have no file of their own.
std::string target_dir(const CiContext& context) {
  return context.path_prefix.empty() ? "." : context.path_prefix;
}

const std::vector<Rule>& verify_rules() {
  static const std::vector<Rule> rules = {
      {"verify/applicable", "FixApplicable", "error",
       "The patch's change is not in the file; it can be applied"},
      {"verify/partial", "FixPartlyApplied", "error",
       "Some hunks of the patch are in the file, the others can be applied"},
      {"verify/conflict", "FixConflicts", "error",
       "The patch's change is not in the file and cannot be applied as it is"},
      {"verify/unknown", "FixUndecided", "warning",
       "Whether the patch's change is in the file cannot be decided (reason given)"},
      {"verify/error", "FixNotVerified", "error", "The patch or file could not be verified"},
  };
  return rules;
}

std::size_t verify_rule(Status status) {
  switch (status) {
    case Status::kApplicable: return 0;
    case Status::kPartial: return 1;
    case Status::kConflict: return 2;
    case Status::kUnknown: return 3;
    default: return 4;
  }
}

}  // namespace

json verify_to_sarif(const VerifyReport& report, const CiContext& context) {
  const std::vector<Rule>& rules = verify_rules();
  json results = json::array();
  for (std::size_t i = 0; i < report.patches.size(); ++i) {
    const PatchReport& p = report.patches[i];
    if (p.status == Status::kSkipped) continue;
    const std::string patch = ci::patch_name(report, i);
    if (!p.error.empty() || p.files.empty()) {
      const std::string error = p.error.empty() ? "patch changes no file" : p.error;
      // At the patch file's offending line; a patch read from standard input at TARGET.
      results.push_back(result(rules, verify_rule(Status::kError), "error",
                               patch + "\n" + escape_for_terminal(error),
                               p.source == "-" ? target_dir(context) : p.source,
                               p.source == "-" ? 0 : p.patch_line));
      continue;
    }
    for (const FileReport& f : p.files) {
      if (!ci::fails(f.status)) continue;
      std::string message =
          patch + "\n" + report_words::file_label(f, p.strip) + ": " + ci::file_verdict(f);
      for (const std::string& line : ci::hunk_verdicts(f)) message += "\n" + line;
      const std::optional<std::string> path = ci::target_file(f, p.strip);
      const HunkReport* h = ci::first_open_hunk(f);
      const std::size_t rule = verify_rule(f.status);
      // At the target file; where the patch names no path there, at the file patch in the
      // patch file (or at TARGET for standard input).
      json r = path ? result(rules, rule, rules[rule].level, message, context.path_prefix + *path,
                             h ? ci::hunk_line(*h) : 0)
               : p.source != "-"
                   ? result(rules, rule, rules[rule].level, message, p.source, f.patch_line)
                   : result(rules, rule, rules[rule].level, message, target_dir(context), 0);
      r["properties"] = {{"patch", sanitize_utf8(p.source)},
                         {"subject", p.subject ? json(sanitize_utf8(*p.subject)) : json(nullptr)},
                         {"status", std::string(to_string(f.status))},
                         {"presence", std::string(to_string(f.presence))}};
      results.push_back(std::move(r));
    }
  }
  return log(rules, std::move(results), report.exit_code(), context,
             {{"command", "verify"}, {"target", sanitize_utf8(report.target)}});
}

json scan_to_sarif(const ScanReport& report, const CiContext& context) {
  static const std::vector<Rule> rules = {
      {"scan/missing", "FixMissing", "error", "A known fix is missing from an install"},
      {"scan/unknown", "FixUndecided", "warning",
       "Whether a known fix is in an install cannot be told (reason given)"},
      {"scan/no-kernel-image", "NoKernelImage", "error",
       "A shared object's CUDA code has no kernel image this GPU can run"},
      {"scan/unreadable-object", "UnreadableObject", "warning",
       "A shared object could not be read whole"},
      {"scan/incomplete-walk", "IncompleteWalk", "warning",
       "The walk of TARGET stopped early or could not list a directory: installs may be missed"},
  };
  json results = json::array();
  for (const ci::ScanFinding& f : ci::scan_findings(report, context)) {
    const auto rule = static_cast<std::size_t>(f.kind);
    // Every result is located: one without a file of its own points at TARGET.
    const std::string path = !f.path.empty() ? f.path : target_dir(context);
    results.push_back(
        result(rules, rule, rules[rule].level, f.title + "\n" + f.message, path, f.line));
  }
  return log(rules, std::move(results), report.exit_code(), context,
             {{"command", "scan"}, {"target", sanitize_utf8(report.target)}});
}

}  // namespace sm120check
