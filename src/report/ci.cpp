// What the CI formats share: escaping for XML, GitHub workflow commands, Markdown and URIs;
// report_path_prefix(); and the words and places of a file patch that is not applied.
#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "ci_internal.hpp"
#include "words.hpp"

namespace sm120check {
namespace {

/// The code point of the well-formed UTF-8 sequence at `text[pos]` and its length. `text` has
/// been through sanitize_utf8(), so every sequence is well-formed.
std::pair<char32_t, std::size_t> code_point_at(std::string_view text, std::size_t pos) {
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(text[pos + i]); };
  const unsigned char b0 = b(0);
  if (b0 < 0x80) return {b0, 1};
  if (b0 < 0xE0) return {(char32_t{b0} & 0x1Fu) << 6 | (b(1) & 0x3Fu), 2};
  if (b0 < 0xF0) return {(char32_t{b0} & 0x0Fu) << 12 | (b(1) & 0x3Fu) << 6 | (b(2) & 0x3Fu), 3};
  return {(char32_t{b0} & 0x07u) << 18 | (b(1) & 0x3Fu) << 12 | (b(2) & 0x3Fu) << 6 |
              (b(3) & 0x3Fu),
          4};
}

std::string percent_byte(unsigned char c) { return fmt::format("%{:02X}", c); }

}  // namespace

std::string report_path_prefix(std::string_view target, std::string_view cwd) {
  namespace fs = std::filesystem;
  fs::path t = fs::path(std::string(target)).lexically_normal();
  if (t.is_absolute() && !cwd.empty()) {
    const fs::path rel = t.lexically_relative(fs::path(std::string(cwd)).lexically_normal());
    if (!rel.empty() && *rel.begin() != "..") t = rel;
  }
  std::string out = t.generic_string();
  while (!out.empty() && out.back() == '/') out.pop_back();
  if (out.empty() || out == ".") return t.is_absolute() ? "/" : "";
  return out + "/";
}

std::string xml_escape(std::string_view raw, bool attribute) {
  const std::string text = sanitize_utf8(raw);
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (std::size_t pos = 0; pos < text.size();) {
    const auto [cp, length] = code_point_at(text, pos);
    switch (cp) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += attribute ? "&quot;" : "\""; break;
      case '\r': out += "&#13;"; break;  // else a parser turns "\r\n" into "\n"
      case '\n': out += attribute ? "&#10;" : "\n"; break;  // else normalised to a space
      case '\t': out += attribute ? "&#9;" : "\t"; break;
      default:
        if (cp < 0x20)
          out += fmt::format("\\x{:02x}", static_cast<unsigned>(cp));  // not an XML 1.0 Char
        else if (cp == 0xFFFE || cp == 0xFFFF)
          out += fmt::format("\\u{:04X}", static_cast<unsigned>(cp));
        else
          out.append(text, pos, length);
    }
    pos += length;
  }
  return out;
}

std::string github_escape_data(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else out += c;
  }
  return out;
}

std::string github_escape_property(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '%' || c == ':' || c == ',' || u < 0x20 || u == 0x7F)
      out += percent_byte(u);
    else
      out += c;
  }
  return out;
}

std::string markdown_escape(std::string_view text) {
  static constexpr std::string_view kSpecial = "\\`*_[]<>|~&!#$";
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    if (c == '\n' || c == '\r') {
      out += ' ';
      continue;
    }
    if (kSpecial.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string uri_escape_path(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (const char c : path) {
    const auto u = static_cast<unsigned char>(c);
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    out += keep ? std::string(1, c) : percent_byte(u);
  }
  return out;
}

std::string verify_ci_report(const VerifyReport& report, const std::vector<Patch>& patches,
                             OutputFormat format, const CiContext& context) {
  if (format == OutputFormat::kJunit) return verify_to_junit(report, patches, context);
  if (format == OutputFormat::kGithub) return verify_to_github(report, context);
  return verify_to_sarif(report, context).dump(2, ' ', false,
                                               nlohmann::json::error_handler_t::replace) +
         "\n";
}

std::string scan_ci_report(const ScanReport& report, OutputFormat format,
                           const CiContext& context) {
  if (format == OutputFormat::kJunit) return scan_to_junit(report, context);
  if (format == OutputFormat::kGithub) return scan_to_github(report, context);
  return scan_to_sarif(report, context).dump(2, ' ', false,
                                             nlohmann::json::error_handler_t::replace) +
         "\n";
}

namespace ci {

std::optional<std::string> target_file(const FileReport& file, unsigned strip) {
  if (file.target_path) return file.target_path;
  const std::string& path = file.new_path == "/dev/null" ? file.old_path : file.new_path;
  return strip_path(path, strip);
}

const HunkReport* first_open_hunk(const FileReport& file) {
  for (const HunkReport& h : file.hunks)
    if (h.match.status != HunkStatus::kApplied) return &h;
  return nullptr;
}

std::size_t hunk_line(const HunkReport& hunk) {
  const HunkMatch& m = hunk.match;
  if (m.line != 0) return m.line;
  if (m.closest_line != 0) return m.closest_line;
  if (!m.places.empty()) return m.places.front();
  return hunk.old_start;
}

std::string file_verdict(const FileReport& file) {
  std::string out = fmt::format("{} (fix {})", to_string(file.status), to_string(file.presence));
  if (!file.reason.empty()) out += " (" + escape_for_terminal(file.reason) + ")";
  return out;
}

std::vector<std::string> hunk_verdicts(const FileReport& file) {
  std::vector<std::string> out;
  for (const HunkReport& h : file.hunks)
    out.push_back(fmt::format(
        "hunk {} {}  {}", h.index,
        report_words::hunk_range(h.old_start, h.old_lines, h.new_start, h.new_lines),
        report_words::hunk_verdict(h.match, false)));
  return out;
}

std::string patch_name(const VerifyReport& report, std::size_t i) {
  const PatchReport& p = report.patches[i];
  return report_words::patch_title(i + 1, report.patches.size(), p.source, p.patch_line,
                                   p.subject);
}

bool fails(Status status) { return status != Status::kApplied && status != Status::kSkipped; }

std::string fix_name(const ScanReport& report, const FixResult& fix) {
  const CatalogEntry& e = report.catalog.entries[fix.entry];
  return escape_for_terminal(e.id) + ": " + escape_for_terminal(e.title);
}

std::string target_path(const CiContext& context, const std::string& path) {
  if (!path.empty() && path.front() == '/') return path;
  return context.path_prefix + path;
}

std::string install_file(const CiContext& context, const Install& install,
                         const std::string& path) {
  if (install.root.empty()) return target_path(context, path);
  const std::string root = install.root.back() == '/' ? install.root : install.root + "/";
  return target_path(context, root + path);
}

bool fails(const FixResult& fix) {
  return !fix.skipped && (fix.verdict == FixVerdict::kMissing || fix.verdict == FixVerdict::kUnknown);
}

std::string_view to_string(ScanFinding::Kind kind) {
  switch (kind) {
    case ScanFinding::Kind::kMissing: return "missing";
    case ScanFinding::Kind::kUnknown: return "unknown";
    case ScanFinding::Kind::kNoKernelImage: return "no-kernel-image";
    case ScanFinding::Kind::kUnreadableObject: return "unreadable-object";
    case ScanFinding::Kind::kIncompleteWalk: return "incomplete-walk";
  }
  return "?";
}

bool is_error(ScanFinding::Kind kind) {
  return kind == ScanFinding::Kind::kMissing || kind == ScanFinding::Kind::kNoKernelImage;
}

std::string fix_details(const ScanReport& report, const FixResult& fix) {
  std::string out = report_words::fix_block(report, fix);
  if (!fix.files.empty()) {
    out += "files searched:";
    for (const std::string& f : fix.files) out.append(" ").append(escape_for_terminal(f));
    out += "\n";
  } else if (!fix.looked_for.empty()) {
    out += "looked for:";
    for (const std::string& f : fix.looked_for) out.append(" ").append(escape_for_terminal(f));
    out += "\n";
  }
  return out;
}

std::string object_details(const ScanReport& report, const KernelGroup& group, std::size_t i) {
  return report_words::object_text(report, group, i);
}

namespace {

/// Where a fix is shown: the first hit of a present-when-unfixed marker (the old code standing),
/// else the first file searched, else nothing. Paths relative to the install's root.
std::pair<std::string, std::size_t> fix_place(const FixResult& fix) {
  for (const MarkerFinding& m : fix.markers)
    if (!m.fixed && !m.hits.empty()) return {m.hits.front().path, m.hits.front().line};
  if (!fix.files.empty()) return {fix.files.front(), 0};
  return {"", 0};
}

}  // namespace

std::vector<ScanFinding> scan_findings(const ScanReport& report, const CiContext& context) {
  std::vector<ScanFinding> out;
  for (const InstallReport& ir : report.installs) {
    const std::string install = report_words::install_title(ir.install);
    for (const FixResult& f : ir.fixes) {
      if (!fails(f)) continue;
      ScanFinding finding;
      finding.kind = f.verdict == FixVerdict::kMissing ? ScanFinding::Kind::kMissing
                                                       : ScanFinding::Kind::kUnknown;
      const auto [path, line] = fix_place(f);
      if (!path.empty()) finding.path = install_file(context, ir.install, path);
      finding.line = line;
      finding.title = std::string(to_string(finding.kind)) + ": " +
                      escape_for_terminal(report.catalog.entries[f.entry].id);
      finding.message = install + "\n" + fix_details(report, f);
      out.push_back(std::move(finding));
    }
  }
  for (const KernelGroup& g : report.kernels.groups) {
    const std::string group = g.install ? report_words::install_title(report.installs[*g.install].install)
                                        : report_words::group_title(g);
    for (std::size_t i = 0; i < g.objects.size(); ++i) {
      const KernelListing& o = g.objects[i];
      const std::optional<KernelFit> worst =
          i < g.fits.size() ? worst_fit(g.fits[i]) : std::nullopt;
      ScanFinding finding;
      if (!o.fatbins.empty() && worst.value_or(KernelFit::kExact) >= KernelFit::kPartial)
        finding.kind = ScanFinding::Kind::kNoKernelImage;
      else if (!o.error.empty())
        finding.kind = ScanFinding::Kind::kUnreadableObject;
      else
        continue;
      finding.path = target_path(context, o.path);
      finding.title = std::string(to_string(finding.kind)) + ": " + escape_for_terminal(o.path);
      finding.message = group + "\n" + escape_for_terminal(o.path) + ": " +
                        object_details(report, g, i);
      out.push_back(std::move(finding));
    }
  }
  if (!report.walk.complete()) {
    ScanFinding finding;
    finding.kind = ScanFinding::Kind::kIncompleteWalk;
    finding.title = "incomplete-walk: installs may be missed";
    std::string why;
    if (report.walk.truncated) why += "the walk stopped at --max-entries\n";
    if (report.walk.depth_limited != 0)
      why += fmt::format("{} director{} deeper than --max-depth not entered\n",
                         report.walk.depth_limited, report.walk.depth_limited == 1 ? "y" : "ies");
    for (const std::string& u : report.walk.unreadable)
      why += "not listed: " + escape_for_terminal(u) + "\n";
    for (const std::string& u : report.walk.not_read)
      why += "not read: " + escape_for_terminal(u) + "\n";
    finding.message = why;
    out.push_back(std::move(finding));
  }
  return out;
}

}  // namespace ci
}  // namespace sm120check
