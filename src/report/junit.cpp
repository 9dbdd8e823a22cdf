// JUnit XML reports of `verify` and `scan` (docs/formats.md), in the shape CI systems read (Ant's
// and Jenkins' junit.xsd: testsuites / testsuite / properties / testcase / failure | error |
// skipped / system-out). Every string is escaped for a terminal first (it ends up in a browser
// or a log) and then by xml_escape(); the XML is built as text, no DOM.
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ci_internal.hpp"
#include "sm120check/error.hpp"
#include "words.hpp"

namespace sm120check {
namespace {

/// ` name="VALUE"` with VALUE escaped for an attribute.
std::string attr(std::string_view name, std::string_view value) {
  return fmt::format(" {}=\"{}\"", name, xml_escape(value, true));
}

/// What one <testcase> says: a failure, an error, skipped, or nothing (passed).
struct Case {
  std::string name;
  std::string classname;
  enum class Outcome { kPassed, kFailure, kError, kSkipped } outcome = Outcome::kPassed;
  std::string type;     ///< failure or error type (the status or verdict)
  std::string message;  ///< one line
  std::string text;     ///< the element's text: the details
};

/// Counts and cases of one <testsuite>.
struct Suite {
  std::string name;
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<Case> cases;
  std::string system_out;
};

std::size_t count(const Suite& suite, Case::Outcome outcome) {
  std::size_t n = 0;
  for (const Case& c : suite.cases) n += c.outcome == outcome ? 1u : 0u;
  return n;
}

void write_case(std::string& out, const Case& c) {
  out += "    <testcase" + attr("name", c.name) + attr("classname", c.classname) +
         attr("time", "0");
  if (c.outcome == Case::Outcome::kPassed) {
    out += "/>\n";
    return;
  }
  out += ">\n";
  if (c.outcome == Case::Outcome::kSkipped) {
    out += "      <skipped" + attr("message", c.message) + "/>\n";
  } else {
    const char* element = c.outcome == Case::Outcome::kFailure ? "failure" : "error";
    out += fmt::format("      <{}{}{}>{}</{}>\n", element, attr("message", c.message),
                       attr("type", c.type), xml_escape(c.text, false), element);
  }
  out += "    </testcase>\n";
}

/// The whole document: <testsuites NAME> and every suite, counts summed.
std::string write_document(std::string_view name, const std::vector<Suite>& suites,
                           const CiContext& context) {
  std::size_t tests = 0, failures = 0, errors = 0, skipped = 0;
  for (const Suite& s : suites) {
    tests += s.cases.size();
    failures += count(s, Case::Outcome::kFailure);
    errors += count(s, Case::Outcome::kError);
    skipped += count(s, Case::Outcome::kSkipped);
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites" + attr("name", name) + attr("tests", std::to_string(tests)) +
         attr("failures", std::to_string(failures)) + attr("errors", std::to_string(errors)) +
         attr("skipped", std::to_string(skipped)) +
         attr("time", fmt::format("{:.3f}", context.seconds)) + ">\n";
  for (std::size_t i = 0; i < suites.size(); ++i) {
    const Suite& s = suites[i];
    out += "  <testsuite" + attr("name", s.name) + attr("tests", std::to_string(s.cases.size())) +
           attr("failures", std::to_string(count(s, Case::Outcome::kFailure))) +
           attr("errors", std::to_string(count(s, Case::Outcome::kError))) +
           attr("skipped", std::to_string(count(s, Case::Outcome::kSkipped))) + attr("time", "0") +
           attr("id", std::to_string(i)) + ">\n";
    if (!s.properties.empty()) {
      out += "    <properties>\n";
      for (const auto& [key, value] : s.properties)
        out += "      <property" + attr("name", key) + attr("value", value) + "/>\n";
      out += "    </properties>\n";
    }
    for (const Case& c : s.cases) write_case(out, c);
    if (!s.system_out.empty())
      out += "    <system-out>" + xml_escape(s.system_out, false) + "</system-out>\n";
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

/// A hunk body line as a diff shows it (" ", "+" or "-" first), escaped for a terminal except
/// its tabs.
std::string diff_line(const HunkLine& line) {
  std::string out(1, static_cast<char>(line.kind));
  std::string_view rest = line.text;
  for (std::size_t tab; (tab = rest.find('\t')) != std::string_view::npos;) {
    out += escape_for_terminal(rest.substr(0, tab)) + "\t";
    rest.remove_prefix(tab + 1);
  }
  return out + escape_for_terminal(rest);
}

/// The failure text of a file: where it is, its verdict, and per hunk the verdict and, for a
/// hunk not applied, its lines (kMaxJunitHunkLines at most).
std::string file_details(const FileReport& f, const FilePatch* patch, const std::string& where) {
  std::string out = "file: " + escape_for_terminal(where) + "\n";
  out += "verdict: " + ci::file_verdict(f) + "\n";
  if (!f.relocation.empty())
    out += (f.relocated ? "relocated: " : "not relocated: ") + escape_for_terminal(f.relocation) +
           "\n";
  for (const std::string& c : f.candidates) out += "candidate: " + escape_for_terminal(c) + "\n";
  const std::vector<std::string> verdicts = ci::hunk_verdicts(f);
  for (std::size_t k = 0; k < f.hunks.size(); ++k) {
    const HunkReport& h = f.hunks[k];
    out += verdicts[k] + "\n";
    if (h.match.status == HunkStatus::kApplied || patch == nullptr ||
        h.index == 0 || h.index > patch->hunks.size())
      continue;
    const Hunk& hunk = patch->hunks[h.index - 1];
    out += "    " + report_words::hunk_range(hunk.old_start, hunk.old_lines, hunk.new_start,
                                             hunk.new_lines);
    if (!hunk.section.empty()) out += " " + escape_for_terminal(hunk.section);
    out += "\n";
    const std::size_t shown = std::min(hunk.lines.size(), kMaxJunitHunkLines);
    for (std::size_t l = 0; l < shown; ++l) {
      out += "    " + diff_line(hunk.lines[l]) + "\n";
      if (hunk.lines[l].no_newline_at_eof) out += "    \\ No newline at end of file\n";
    }
    if (hunk.lines.size() > shown)
      out += fmt::format("    ... {} more lines\n", hunk.lines.size() - shown);
  }
  return out;
}

/// The one-line message of a file's failure: its verdict and its first hunk not applied.
std::string file_message(const FileReport& f) {
  std::string out = ci::file_verdict(f);
  if (const HunkReport* h = ci::first_open_hunk(f))
    out += fmt::format("; hunk {}: {}", h->index, report_words::hunk_verdict(h->match, false));
  return out;
}

}  // namespace

std::string verify_to_junit(const VerifyReport& report, const std::vector<Patch>& patches,
                            const CiContext& context) {
  std::vector<Suite> suites;
  for (std::size_t i = 0; i < report.patches.size(); ++i) {
    const PatchReport& p = report.patches[i];
    const Patch* patch = patches.size() == report.patches.size() ? &patches[i] : nullptr;
    Suite s;
    s.name = ci::patch_name(report, i);
    s.properties = {{"source", escape_for_terminal(p.source)},
                    {"status", std::string(to_string(p.status))},
                    {"presence", std::string(to_string(p.presence))},
                    {"strip", std::to_string(p.strip)},
                    {"target", escape_for_terminal(report.target)}};
    s.system_out = report_words::patch_block(report, i);
    if (!p.error.empty() || p.files.empty()) {
      Case c{escape_for_terminal(p.source), s.name, Case::Outcome::kError, "error",
             escape_for_terminal(p.error.empty() ? "patch changes no file" : p.error),
             escape_for_terminal(Error(p.source, p.patch_line, p.error).what()) + "\n"};
      s.cases.push_back(std::move(c));
    }
    for (std::size_t k = 0; k < p.files.size(); ++k) {
      const FileReport& f = p.files[k];
      Case c;
      c.name = report_words::file_label(f, p.strip);
      c.classname = s.name;
      c.type = std::string(to_string(f.status));
      const std::string where =
          context.path_prefix + ci::target_file(f, p.strip).value_or(f.new_path);
      const FilePatch* fp = patch != nullptr && k < patch->files.size() ? &patch->files[k] : nullptr;
      if (p.status == Status::kSkipped) {
        c.outcome = Case::Outcome::kSkipped;
        c.message = "targets other architectures than this GPU's (--only-relevant)";
      } else if (f.status == Status::kError) {
        c.outcome = Case::Outcome::kError;
        c.message = escape_for_terminal(f.reason);
        c.text = file_details(f, fp, where);
      } else if (ci::fails(f.status)) {
        c.outcome = Case::Outcome::kFailure;
        c.message = file_message(f);
        c.text = file_details(f, fp, where);
      }
      s.cases.push_back(std::move(c));
    }
    suites.push_back(std::move(s));
  }
  return write_document("sm120check verify " + escape_for_terminal(report.target), suites,
                        context);
}

std::string scan_to_junit(const ScanReport& report, const CiContext& context) {
  std::vector<Suite> suites;
  for (std::size_t n = 0; n < report.installs.size(); ++n) {
    const InstallReport& ir = report.installs[n];
    const Install& i = ir.install;
    Suite s;
    s.name = report_words::install_title(i);
    s.properties = {{"kind", std::string(to_string(i.kind))},
                    {"root", escape_for_terminal(i.root)},
                    {"distribution", escape_for_terminal(i.distribution)},
                    {"version", escape_for_terminal(i.version)}};
    if (!i.unreadable.empty()) s.system_out = "not read: " + escape_for_terminal(i.unreadable) + "\n";
    for (const FixResult& f : ir.fixes) {
      Case c;
      c.name = ci::fix_name(report, f);
      c.classname = s.name;
      c.type = std::string(to_string(f.verdict));
      if (f.skipped || f.verdict == FixVerdict::kNotInstalled) {
        c.outcome = Case::Outcome::kSkipped;
        c.message = f.skipped ? "for other GPUs than this one (--only-relevant)" : "not installed";
      } else if (ci::fails(f)) {
        c.outcome = Case::Outcome::kFailure;
        c.message = c.type + ": " + escape_for_terminal(f.why);
        c.text = ci::fix_details(report, f);
      }
      s.cases.push_back(std::move(c));
    }
    suites.push_back(std::move(s));
  }
  if (!report.not_installed.empty()) {
    Suite s;
    s.name = "not installed";
    for (const FixResult& f : report.not_installed)
      s.cases.push_back({ci::fix_name(report, f), s.name, Case::Outcome::kSkipped, "not-installed",
                         "none of its project's installs was found under TARGET", ""});
    suites.push_back(std::move(s));
  }
  for (const KernelGroup& g : report.kernels.groups) {
    if (g.objects.empty()) continue;
    Suite s;
    s.name = "kernels: " + (g.install ? report_words::install_title(report.installs[*g.install].install)
                                      : report_words::group_title(g));
    for (std::size_t i = 0; i < g.objects.size(); ++i) {
      const KernelListing& o = g.objects[i];
      const std::optional<KernelFit> worst =
          i < g.fits.size() ? worst_fit(g.fits[i]) : std::nullopt;
      Case c;
      c.name = escape_for_terminal(o.path);
      c.classname = s.name;
      const std::string details = escape_for_terminal(ci::target_path(context, o.path)) + ": " +
                                  ci::object_details(report, g, i) + "\n";
      if (!o.fatbins.empty() && worst.value_or(KernelFit::kExact) >= KernelFit::kPartial) {
        c.outcome = Case::Outcome::kFailure;
        c.type = "no-kernel-image";
        c.message = "no kernel image for this GPU";
        c.text = details;
      } else if (!o.error.empty()) {
        c.outcome = Case::Outcome::kError;
        c.type = "unreadable-object";
        c.message = escape_for_terminal(o.error);
        c.text = details;
      }
      s.cases.push_back(std::move(c));
    }
    suites.push_back(std::move(s));
  }
  Suite walk;
  walk.name = "walk";
  Case complete{"walk complete", walk.name, Case::Outcome::kPassed, "", "", ""};
  for (const ci::ScanFinding& f : ci::scan_findings(report, context))
    if (f.kind == ci::ScanFinding::Kind::kIncompleteWalk) {
      complete.outcome = Case::Outcome::kFailure;
      complete.type = "incomplete-walk";
      complete.message = "the walk was incomplete: installs may be missed";
      complete.text = f.message;
    }
  walk.cases.push_back(std::move(complete));
  suites.push_back(std::move(walk));
  return write_document("sm120check scan " + escape_for_terminal(report.target), suites, context);
}

}  // namespace sm120check
