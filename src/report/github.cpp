// GitHub Actions output of `verify` and `scan` (docs/formats.md): workflow commands
// ("::error file=F,line=L,title=T::MESSAGE") that the runner turns into annotations on the
// target's files, and a Markdown job summary for the file GITHUB_STEP_SUMMARY names. Every
// string is escaped for a terminal first, then as GitHub's toolkit escapes properties and data:
// a name holding a line break cannot start a command of its own.
#include <fmt/format.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ci_internal.hpp"
#include "sm120check/error.hpp"
#include "words.hpp"

namespace sm120check {
namespace {

/// One workflow command line: "::LEVEL file=F,line=L,title=T::MESSAGE\n" (file and line left
/// out when empty or 0).
std::string command(std::string_view level, const std::string& file, std::size_t line,
                    const std::string& title, const std::string& message) {
  std::string props;
  const auto add = [&](std::string_view key, const std::string& value) {
    props.append(props.empty() ? " " : ",").append(key).append("=").append(
        github_escape_property(value));
  };
  if (!file.empty()) add("file", sanitize_utf8(file));
  if (!file.empty() && line != 0) add("line", std::to_string(line));
  add("title", title);
  return fmt::format("::{}{}::{}\n", level, props, github_escape_data(message));
}

/// A file's message: the patch, the file and its verdict, then one line per hunk.
std::string file_message(const VerifyReport& report, std::size_t i, const FileReport& f) {
  std::string out = ci::patch_name(report, i) + "\n" +
                    report_words::file_label(f, report.patches[i].strip) + ": " +
                    ci::file_verdict(f);
  if (!f.relocation.empty())
    out += std::string("\n") + (f.relocated ? "relocated: " : "not relocated: ") +
           escape_for_terminal(f.relocation);
  for (const std::string& line : ci::hunk_verdicts(f)) out += "\n" + line;
  return out;
}

/// A patch's subject, else its source, escaped (for titles).
std::string patch_short_name(const PatchReport& p) {
  return escape_for_terminal(p.subject && !p.subject->empty() ? *p.subject : p.source);
}

}  // namespace

std::string verify_to_github(const VerifyReport& report, const CiContext& context) {
  std::string out;
  for (std::size_t i = 0; i < report.patches.size(); ++i) {
    const PatchReport& p = report.patches[i];
    if (p.status == Status::kSkipped) continue;
    if (!p.error.empty() || p.files.empty()) {
      // Points at the patch file's offending line ("-": standard input, nothing to point at).
      const std::string error = p.error.empty() ? "patch changes no file" : p.error;
      out += command("error", p.source == "-" ? "" : p.source, p.patch_line,
                     "sm120check verify: error: " + patch_short_name(p),
                     ci::patch_name(report, i) + "\n" + escape_for_terminal(error));
      continue;
    }
    for (const FileReport& f : p.files) {
      if (!ci::fails(f.status)) continue;
      const std::optional<std::string> path = ci::target_file(f, p.strip);
      const HunkReport* h = ci::first_open_hunk(f);
      // The target file; where the patch names no path there, the file patch in the patch.
      const std::string file = path               ? context.path_prefix + *path
                               : p.source != "-" ? p.source
                                                 : "";
      const std::size_t line = path ? (h != nullptr ? ci::hunk_line(*h) : 0) : f.patch_line;
      out += command(f.status == Status::kUnknown ? "warning" : "error", file, line,
                     fmt::format("sm120check verify: {}: {}", to_string(f.status),
                                 patch_short_name(p)),
                     file_message(report, i, f));
    }
  }
  return out + report_words::summary_line(report, false) + "\n";
}

std::string verify_github_summary(const VerifyReport& report, const CiContext& context) {
  std::string out = fmt::format("### sm120check verify: {} (exit {})\n\n",
                                markdown_escape(escape_for_terminal(report.target)),
                                report.exit_code());
  out += "| # | patch | status | fix | files not applied |\n| ---: | --- | --- | --- | --- |\n";
  for (std::size_t i = 0; i < report.patches.size(); ++i) {
    const PatchReport& p = report.patches[i];
    std::size_t open = 0;
    for (const FileReport& f : p.files) open += f.status != Status::kApplied ? 1u : 0u;
    std::string name = escape_for_terminal(p.source);
    if (p.subject && !p.subject->empty()) name += ": " + escape_for_terminal(*p.subject);
    out += fmt::format("| {} | {} | {} | {} | {} of {} |\n", i + 1, markdown_escape(name),
                       to_string(p.status), to_string(p.presence), open, p.files.size());
  }
  for (std::size_t i = 0; i < report.patches.size(); ++i) {
    const PatchReport& p = report.patches[i];
    if (!ci::fails(p.status)) continue;
    out += "\n#### " + markdown_escape(ci::patch_name(report, i)) + "\n\n";
    if (!p.error.empty()) out += "- error: " + markdown_escape(escape_for_terminal(p.error)) + "\n";
    for (const FileReport& f : p.files) {
      if (f.status == Status::kApplied) continue;
      const std::optional<std::string> path = ci::target_file(f, p.strip);
      out += "- " + markdown_escape(report_words::file_label(f, p.strip)) + ": " +
             markdown_escape(ci::file_verdict(f));
      if (path) out += " (" + markdown_escape(escape_for_terminal(context.path_prefix + *path)) + ")";
      out += "\n";
      for (const std::string& line : ci::hunk_verdicts(f))
        out += "  - " + markdown_escape(line) + "\n";
    }
  }
  return out + "\n" + markdown_escape(report_words::summary_line(report, false)) + "\n";
}

std::string scan_to_github(const ScanReport& report, const CiContext& context) {
  std::string out;
  for (const ci::ScanFinding& f : ci::scan_findings(report, context))
    out += command(ci::is_error(f.kind) ? "error" : "warning", f.path, f.line,
                   "sm120check scan: " + f.title, f.message);
  return out + scan_summary_line(report) + "\n";
}

std::string scan_github_summary(const ScanReport& report, const CiContext& context) {
  std::string out = fmt::format("### sm120check scan: {} (exit {})\n\n",
                                markdown_escape(escape_for_terminal(report.target)),
                                report.exit_code());
  if (!report.installs.empty())
    out += "| install | fix | verdict | relevant |\n| --- | --- | --- | --- |\n";
  for (const InstallReport& ir : report.installs)
    for (const FixResult& f : ir.fixes)
      out += fmt::format("| {} | {} | {}{} | {} |\n",
                         markdown_escape(report_words::install_title(ir.install)),
                         markdown_escape(ci::fix_name(report, f)), to_string(f.verdict),
                         f.skipped ? " (skipped)" : "",
                         f.relevant ? (*f.relevant ? "yes" : "no") : "unknown");
  const std::vector<ci::ScanFinding> findings = ci::scan_findings(report, context);
  if (!findings.empty()) out += "\n#### Findings\n\n";
  for (const ci::ScanFinding& f : findings) {
    out += "- " + markdown_escape(f.title);
    if (!f.path.empty())
      out += " (" + markdown_escape(escape_for_terminal(f.path)) +
             (f.line != 0 ? ":" + std::to_string(f.line) : std::string()) + ")";
    out += "\n";
  }
  return out + "\n" + markdown_escape(scan_summary_line(report)) + "\n";
}

}  // namespace sm120check
