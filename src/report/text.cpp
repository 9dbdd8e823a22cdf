// Text rendering of `verify` and `show` results for people, and the UTF-8 helpers shared with
// the JSON rendering (sanitize_utf8, escape_for_terminal).
//
// Every string that comes from a patch or a tree (sources, subjects, paths, reasons, sections)
// goes through escape_for_terminal() before it is written, so a hostile patch cannot send
// terminal control sequences through the text report.
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "sm120check/report.hpp"
#include "words.hpp"

namespace sm120check {
namespace {

// ---------------------------------------------------------------------------------------------
// UTF-8 decoding

/// One step of UTF-8 decoding: a well-formed sequence (`ok`, its code point and length) or a
/// maximal ill-formed subpart of `length` bytes (at least 1).
struct Decoded {
  bool ok = false;
  char32_t code_point = 0;
  std::size_t length = 1;
};

/// Decodes the sequence starting at `text[pos]` (pos < text.size()), following the table of
/// well-formed byte sequences in the Unicode standard (no overlongs, surrogates or values above
/// U+10FFFF).
Decoded decode_at(std::string_view text, std::size_t pos) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char b0 = byte(pos);
  if (b0 < 0x80) return {true, b0, 1};

  std::size_t need = 0;                // continuation bytes
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  char32_t cp = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
    cp = b0 & 0x1Fu;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    cp = b0 & 0x0Fu;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    cp = b0 & 0x07u;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return {false, 0, 1};  // a continuation byte, C0, C1 or F5..FF as a lead
  }
  for (std::size_t k = 1; k <= need; ++k) {
    if (pos + k >= text.size()) return {false, 0, k};
    const unsigned char b = byte(pos + k);
    const unsigned char min = k == 1 ? lo : 0x80;
    const unsigned char max = k == 1 ? hi : 0xBF;
    if (b < min || b > max) return {false, 0, k};
    cp = (cp << 6) | (b & 0x3Fu);
  }
  return {true, cp, need + 1};
}

/// True for code points that change how a terminal shows what follows: bidirectional marks,
/// embeddings, overrides and isolates ("Trojan Source").
bool is_bidi_control(char32_t cp) {
  return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

// ---------------------------------------------------------------------------------------------
// Layout helpers

/// Columns `text` takes: its code points (the text is well-formed UTF-8 after escaping; wide
/// East Asian characters are counted as one column).
std::size_t display_width(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0u) != 0x80u;
  }));
}

/// Spaces that take text `width` columns wide to `column`; two when it is that wide already.
std::string padding(std::size_t width, std::size_t column) {
  return std::string(width + 2 <= column ? column - width : 2, ' ');
}

/// `left` padded with spaces to `column` (see padding()).
std::string pad_to(const std::string& left, std::size_t column) {
  return left + padding(display_width(left), column);
}

/// Widest column the status of a patch or file is pushed to; longer lines use two spaces.
constexpr std::size_t kMaxStatusColumn = 72;

constexpr std::string_view kReset = "\x1b[0m";
constexpr std::string_view kBold = "\x1b[1m";
constexpr std::string_view kRed = "\x1b[31m";
constexpr std::string_view kGreen = "\x1b[32m";
constexpr std::string_view kYellow = "\x1b[33m";
constexpr std::string_view kMagenta = "\x1b[35m";
constexpr std::string_view kCyan = "\x1b[36m";

/// `text` wrapped in `sgr` ... reset when `color`, else `text` unchanged.
std::string paint(std::string_view text, std::string_view sgr, bool color) {
  if (!color || sgr.empty()) return std::string(text);
  return fmt::format("{}{}{}", sgr, text, kReset);
}

std::string_view status_color(Status status) {
  switch (status) {
    case Status::kApplied:
      return kGreen;
    case Status::kApplicable:
    case Status::kPartial:
      return kYellow;
    case Status::kConflict:
    case Status::kError:
      return kRed;
    case Status::kUnknown:
      return kMagenta;
    case Status::kSkipped:
      return kCyan;
  }
  return {};
}

std::string_view presence_color(Presence presence) {
  switch (presence) {
    case Presence::kPresent:
      return kGreen;
    case Presence::kAbsent:
      return kRed;
    case Presence::kPartial:
      return kYellow;
    case Presence::kUnknown:
      return kMagenta;
  }
  return {};
}

/// " (3 of 4 hunks present, 1 absent; 2 drifted)" for a patch's presence line.
std::string presence_detail(const PatchReport& p) {
  std::size_t hunks = 0, present = 0, absent = 0, unknown = 0, drifted = 0;
  for (const FileReport& f : p.files)
    for (const HunkReport& h : f.hunks) {
      ++hunks;
      present += h.match.presence == Presence::kPresent ? 1u : 0u;
      absent += h.match.presence == Presence::kAbsent ? 1u : 0u;
      unknown += h.match.presence == Presence::kUnknown ? 1u : 0u;
      drifted += h.match.kind == MatchKind::kDrifted ? 1u : 0u;
    }
  if (hunks == 0) return {};
  std::string out = fmt::format(" ({} of {} hunk{} present", present, hunks, hunks == 1 ? "" : "s");
  if (absent != 0) out += fmt::format(", {} absent", absent);
  if (unknown != 0) out += fmt::format(", {} unknown", unknown);
  if (drifted != 0) out += fmt::format("; {} drifted", drifted);
  return out + ")";
}

std::string_view hunk_color(HunkStatus status) {
  switch (status) {
    case HunkStatus::kApplied:
      return kGreen;
    case HunkStatus::kApplicable:
      return kYellow;
    case HunkStatus::kConflict:
      return kRed;
    case HunkStatus::kUnknown:
      return kMagenta;
  }
  return {};
}

char change_letter(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::kModify:
      return 'M';
    case ChangeKind::kAdd:
      return 'A';
    case ChangeKind::kDelete:
      return 'D';
    case ChangeKind::kRename:
      return 'R';
    case ChangeKind::kCopy:
      return 'C';
    case ChangeKind::kMode:
      return 'T';
    case ChangeKind::kBinary:
      return 'B';
  }
  return '?';
}

}  // namespace

namespace report_words {

std::string diagnostic_words(std::string_view code) {
  if (code == "line-ending-mismatch") return "differs only in line endings (CRLF vs LF)";
  if (code == "whitespace-only-mismatch")
    return "differs only in white space (try --ignore-whitespace)";
  if (code == "final-newline-mismatch") return "differs only in the newline at end of file";
  if (code == "out-of-order") return "found only before the previous hunk (hunks in another order)";
  if (code == "claimed-by-run")
    return "its change stands only on lines an earlier file patch of this run wrote, with "
           "another change (the two claim the same lines)";
  if (code == "not-at-start-of-file")
    return "found only away from the start of the file, where a hunk with less leading than "
           "trailing context belongs";
  if (code == "not-at-end-of-file")
    return "found only away from the end of the file, where a hunk with less trailing than "
           "leading context belongs";
  if (code == "not-whole-file")
    return "found only where the file has other lines before or after it; a hunk at line 1 "
           "with context only between its changes is the whole file";
  return escape_for_terminal(code);
}

std::string hunk_range(std::uint32_t old_start, std::uint32_t old_lines, std::uint32_t new_start,
                       std::uint32_t new_lines) {
  return fmt::format("@@ -{},{} +{},{} @@", old_start, old_lines, new_start, new_lines);
}

std::string patch_title(std::size_t number, std::size_t count, const std::string& source,
                        std::size_t patch_line, const std::optional<std::string>& subject) {
  std::string title = fmt::format("patch {}/{}: {}", number, count, escape_for_terminal(source));
  if (patch_line > 1) title += fmt::format(":{}", patch_line);
  if (subject && !subject->empty()) title += ": " + escape_for_terminal(*subject);
  return title;
}

std::string stripped(const std::string& path, unsigned strip) {
  return strip_path(path, strip).value_or(path);
}

std::string file_label(const FileReport& file, unsigned strip) {
  if (file.change == ChangeKind::kRename || file.change == ChangeKind::kCopy)
    return escape_for_terminal(stripped(file.old_path, strip)) + " -> " +
           escape_for_terminal(stripped(file.new_path, strip));
  if (file.target_path) return escape_for_terminal(*file.target_path);
  const std::string& path = file.new_path == "/dev/null" ? file.old_path : file.new_path;
  return escape_for_terminal(stripped(path, strip));
}

std::string hunk_verdict(const HunkMatch& m, bool color) {
  std::string text = paint(to_string(m.status), hunk_color(m.status), color);
  if (m.status == HunkStatus::kConflict || m.status == HunkStatus::kUnknown) {
    if (!m.diagnostic.empty()) text += ": " + diagnostic_words(m.diagnostic);
    if (m.closest_line != 0)
      text += fmt::format(" (nearest: {} at line {}, {} of {} lines agree; line {} differs)",
                          m.closest_image == Image::kPre ? "pre-image" : "post-image",
                          m.closest_line, m.closest_agree, m.closest_lines, m.closest_differs_at);
    const std::string why = presence_words(m);
    if (m.presence == Presence::kAbsent)
      text += "; change absent" + (why.empty() ? std::string() : ": " + why);
    else if (m.presence == Presence::kUnknown && !why.empty())
      text += "; presence unknown: " + why;
    return text;
  }
  if (m.kind == MatchKind::kDrifted) {
    text += fmt::format(" at line {}", m.line);
    if (m.context_agree < m.context_lines)
      return text + fmt::format(" (context differs: {} of {} context lines)", m.context_agree,
                                m.context_lines);
    if (m.context_lines == 0)  // context only between its changes: anchored to an edge
      return text + " (the file has lines before or after it that the patch's file had not)";
    return text + fmt::format(" (context moved: all {} context lines, with other lines between)",
                              m.context_lines);
  }
  if (m.line > 0) text += fmt::format(" at line {}", m.line);
  std::string details;
  if (m.offset != 0) details += fmt::format("offset {:+}", m.offset);
  if (m.fuzz != 0) details += fmt::format("{}fuzz {}", details.empty() ? "" : ", ", m.fuzz);
  if (m.both_images)
    details += fmt::format("{}both images match; chose {}{}", details.empty() ? "" : "; ",
                           to_string(m.status),
                           m.presence_reason == "repeats-context"
                               ? ", as the file's other hunks are (its lines repeat the lines "
                                 "around them)"
                               : "");
  if (!details.empty()) text += " (" + details + ")";
  return text;
}

std::string summary_line(const VerifyReport& report, bool color) {
  const Summary counts = report.summary();
  const std::size_t total = report.patches.size();
  std::string text = fmt::format("summary: {} patch{}", total, total == 1 ? "" : "es");
  std::string parts;
  for (std::size_t i = 0; i < kStatusCount; ++i) {
    if (counts[i] == 0) continue;
    const auto status = static_cast<Status>(i);
    if (!parts.empty()) parts += ", ";
    parts += fmt::format("{} {}", counts[i], paint(to_string(status), status_color(status), color));
  }
  if (!parts.empty()) text += ": " + parts;
  text += fmt::format("  -> exit {}", report.exit_code());
  return text;
}

}  // namespace report_words

namespace {

using report_words::file_label;
using report_words::hunk_range;
using report_words::hunk_verdict;
using report_words::patch_title;
using report_words::summary_line;

/// "mode 100644 -> 100755", "new mode 100755", ... or "" when the patch names no mode.
std::string mode_text(const FilePatch& file) {
  if (file.old_mode && file.new_mode) {
    if (*file.old_mode == *file.new_mode) return fmt::format("mode {:o}", *file.old_mode);
    return fmt::format("mode {:o} -> {:o}", *file.old_mode, *file.new_mode);
  }
  if (file.old_mode) return fmt::format("old mode {:o}", *file.old_mode);
  if (file.new_mode) return fmt::format("new mode {:o}", *file.new_mode);
  return {};
}

/// The hits of `markers`, each line once (a line holding several markers), sorted by path, then
/// line.
std::vector<const SearchHit*> distinct_lines(const std::vector<MarkerHits>& markers) {
  std::vector<const SearchHit*> all;
  for (const MarkerHits& m : markers)
    for (const SearchHit& h : m.hits) all.push_back(&h);
  std::sort(all.begin(), all.end(), [](const SearchHit* a, const SearchHit* b) {
    return a->path != b->path ? a->path < b->path : a->line < b->line;
  });
  all.erase(std::unique(all.begin(), all.end(),
                        [](const SearchHit* a, const SearchHit* b) {
                          return a->path == b->path && a->line == b->line;
                        }),
            all.end());
  return all;
}

/// "path:line: text", escaped.
std::string hit_line(const SearchHit& h) {
  return fmt::format("{}:{}: {}", escape_for_terminal(h.path), h.line, escape_for_terminal(h.text));
}

/// Lines of evidence shown per patch; the rest are counted ("... N more hits").
constexpr std::size_t kMaxEvidenceLines = 10;
/// Markers named on the "not in" line; the rest are counted.
constexpr std::size_t kMaxMissingNamed = 5;
/// Files named on the "not in" line; more are counted ("the 4 verified files").
constexpr std::size_t kMaxFilesNamed = 3;

/// `"text"`, or `regex "text"`, escaped.
std::string marker_name(const Marker& m) {
  return fmt::format("{}\"{}\"", m.regex ? "regex " : "", escape_for_terminal(m.text));
}

/// The "evidence:" block of a patch: the lines of the verified files holding its markers
/// (kMaxEvidenceLines at most), then one line naming the markers found in none of them.
void render_evidence(std::ostream& out, const PatchReport& p) {
  out << "  evidence:\n";
  std::vector<const SearchHit*> lines = distinct_lines(p.evidence);
  std::size_t shown = std::min(lines.size(), kMaxEvidenceLines);
  for (std::size_t i = 0; i < shown; ++i) out << "    " << hit_line(*lines[i]) << "\n";
  std::size_t more = lines.size() - shown;
  for (const MarkerHits& m : p.evidence) more += m.total - std::min(m.total, m.hits.size());
  if (more != 0) out << fmt::format("    ... {} more hit{}\n", more, more == 1 ? "" : "s");

  std::vector<const Marker*> missing;
  for (const MarkerHits& m : p.evidence) {
    if (m.error_lines > 0)  // PCRE2 gave up on some line: not known absent
      out << fmt::format("    not evaluated on {} line{}: {} ({})\n", m.error_lines,
                         m.error_lines == 1 ? "" : "s", marker_name(m.marker),
                         escape_for_terminal(m.errors.empty() ? "" : m.errors.front()));
    else if (m.total == 0)
      missing.push_back(&m.marker);
  }
  if (missing.empty()) return;
  std::vector<std::string> files;
  for (const FileReport& f : p.files)
    if (f.target_path && std::find(files.begin(), files.end(), *f.target_path) == files.end())
      files.push_back(*f.target_path);
  std::string where;
  if (files.empty() || files.size() > kMaxFilesNamed) {
    where =
        files.empty() ? "the verified files" : fmt::format("the {} verified files", files.size());
  } else {
    for (const std::string& f : files)
      where += (where.empty() ? "" : ", ") + escape_for_terminal(f);
  }
  std::string names;
  for (std::size_t i = 0; i < missing.size() && i < kMaxMissingNamed; ++i)
    names += (i == 0 ? "" : ", ") + marker_name(*missing[i]);
  if (missing.size() > kMaxMissingNamed)
    names += fmt::format(" and {} more", missing.size() - kMaxMissingNamed);
  out << "    not in " << where << ": " << names << "\n";
}

/// Writes patch `i` of `report`: its title with the status at `column`, then its strip level,
/// presence, series, arch, file, hunk, evidence and marker lines.
void render_patch_block(std::ostream& out, const VerifyReport& report, std::size_t i,
                        std::size_t column, bool color) {
  const PatchReport& p = report.patches[i];
  const std::string title =
      patch_title(i + 1, report.patches.size(), p.source, p.patch_line, p.subject);
  out << paint(title, kBold, color) << padding(display_width(title), column) << "["
      << paint(to_string(p.status), status_color(p.status), color) << "]\n";
  if (!p.error.empty()) {
    out << "  " << paint("error", kRed, color) << ": " << escape_for_terminal(p.error) << "\n";
  } else {
    out << "  strip level: " << p.strip << (p.strip_detected ? " (detected)" : " (given)")
        << "\n";
    out << "  fix: " << paint(to_string(p.presence), presence_color(p.presence), color)
        << presence_detail(p) << "\n";
    if (!p.depends_on.empty()) {
      std::string needs;
      for (std::size_t d : p.depends_on)
        needs += fmt::format("{}{}", needs.empty() ? "" : ", ", d + 1);
      out << "  series: applicable once patch" << (p.depends_on.size() == 1 ? " " : "es ")
          << needs << (p.depends_on.size() == 1 ? " is" : " are") << " applied\n";
    }
  }
  if (!p.arch.empty()) {
    std::string targets;
    for (const std::string& name : p.arch.names())
      targets += (targets.empty() ? "" : ", ") + name;
    const bool gpu_known = report.gpu && !report.gpu->devices.empty();
    const char* relevant = p.relevant  ? (*p.relevant ? "yes" : "no")
                           : gpu_known ? "unknown (unsure evidence)"
                                       : "unknown (no GPU known)";
    const bool all_excluded = !p.excluded.empty() && p.files.empty();
    out << "  arch: " << targets << "  relevant to this GPU: " << relevant
        << (p.status == Status::kSkipped && !all_excluded ? " (skipped: --only-relevant)" : "")
        << "\n"
        << "    from " << escape_for_terminal(p.arch.evidence) << "\n";
    if (p.arch.confidence == ArchConfidence::kUnsure)
      out << "    unsure: " << escape_for_terminal(p.arch.doubt) << "\n";
  }
  for (const FileReport& f : p.files) {
    const std::string label =
        fmt::format("  {} {}", change_letter(f.change), file_label(f, p.strip));
    out << pad_to(label, column) << paint(to_string(f.status), status_color(f.status), color);
    if (!f.reason.empty()) out << " (" << escape_for_terminal(f.reason) << ")";
    out << "\n";
    if (!f.relocation.empty() && f.status != Status::kUnknown)
      out << (f.relocated ? "      relocated: " : "      not relocated: ")
          << escape_for_terminal(f.relocation) << "\n";
    if (f.relocated || f.status == Status::kUnknown)
      for (const std::string& c : f.candidates)
        out << "      candidate: " << escape_for_terminal(c) << "\n";

    std::size_t hunk_column = 0;
    for (const HunkReport& h : f.hunks)
      hunk_column = std::max(
          hunk_column, fmt::format("      hunk {} ", h.index).size() +
                           hunk_range(h.old_start, h.old_lines, h.new_start, h.new_lines).size());
    for (const HunkReport& h : f.hunks) {
      const std::string left =
          fmt::format("      hunk {} {}", h.index,
                      hunk_range(h.old_start, h.old_lines, h.new_start, h.new_lines));
      out << pad_to(left, hunk_column + 2) << hunk_verdict(h.match, color) << "\n";
    }
  }
  for (const std::string& path : p.excluded)
    out << "  - " << escape_for_terminal(path) << "  left out (--include/--exclude)\n";
  if (!p.excluded.empty() && p.files.empty())
    out << "  unknown: --include/--exclude left out every file it changes; nothing of it was "
           "checked\n";
  if (!p.evidence.empty()) render_evidence(out, p);
  if (p.search) {
    out << "  markers:\n";
    for (const MarkerHits& m : p.search->markers) {
      out << fmt::format("    {}\"{}\" ({}): {} hit{}\n", m.marker.regex ? "regex " : "",
                         escape_for_terminal(m.marker.text), to_string(m.marker.origin), m.total,
                         m.total == 1 ? "" : "s");
      render_hits_text(out, {m}, "      ");
      if (m.total > m.hits.size()) out << "      ... " << m.total - m.hits.size() << " more\n";
    }
    std::string skipped = search_skipped_text(*p.search);
    if (!skipped.empty()) out << "    " << skipped << "\n";
  }
}

/// The status column of patches [first, last): after the widest patch title or file label.
std::size_t status_column(const VerifyReport& report, std::size_t first, std::size_t last) {
  std::size_t column = 0;
  for (std::size_t i = first; i < last; ++i) {
    const PatchReport& p = report.patches[i];
    column = std::max(column, display_width(patch_title(i + 1, report.patches.size(), p.source,
                                                        p.patch_line, p.subject)));
    for (const FileReport& f : p.files)
      column = std::max(column, 4 + display_width(file_label(f, p.strip)));
  }
  return std::min(column + 2, kMaxStatusColumn);
}

}  // namespace

std::string_view format_name(OutputFormat format) {
  switch (format) {
    case OutputFormat::kText: return "text";
    case OutputFormat::kJson: return "json";
    case OutputFormat::kJunit: return "junit";
    case OutputFormat::kGithub: return "github";
    case OutputFormat::kSarif: return "sarif";
  }
  return "?";
}

std::string verify_summary_line(const VerifyReport& report) {
  return summary_line(report, false);
}

std::string report_words::patch_block(const VerifyReport& report, std::size_t i) {
  std::ostringstream out;
  render_patch_block(out, report, i, status_column(report, i, i + 1), false);
  return out.str();
}

std::string sanitize_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size()) {
    const Decoded d = decode_at(text, pos);
    if (d.ok)
      out.append(text.substr(pos, d.length));
    else
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
    pos += d.length;
  }
  return out;
}

std::string escape_for_terminal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size()) {
    const Decoded d = decode_at(text, pos);
    if (!d.ok) {
      for (std::size_t k = 0; k < d.length; ++k)
        out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[pos + k]));
    } else if (d.code_point < 0x20 || d.code_point == 0x7F) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(d.code_point));
    } else if ((d.code_point >= 0x80 && d.code_point < 0xA0) || is_bidi_control(d.code_point)) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(d.code_point));
    } else {
      out.append(text.substr(pos, d.length));
    }
    pos += d.length;
  }
  return out;
}

void render_verify_text(std::ostream& out, const VerifyReport& report, bool color) {
  // One status column for the whole report.
  const std::size_t column = status_column(report, 0, report.patches.size());
  out << "target: " << escape_for_terminal(report.target) << "\n";
  if (report.gpu)
    for (const std::string& line : gpu_summary_lines(*report.gpu)) out << line << "\n";
  for (std::size_t i = 0; i < report.patches.size(); ++i) {
    out << "\n";
    render_patch_block(out, report, i, column, color);
  }
  out << "\n" << summary_line(report, color) << "\n";
}

void render_hits_text(std::ostream& out, const std::vector<MarkerHits>& markers,
                      std::string_view indent) {
  for (const SearchHit* h : distinct_lines(markers)) out << indent << hit_line(*h) << "\n";
}

std::string search_skipped_text(const SearchResult& r) {
  std::string text;
  auto add = [&](std::string part) { text += (text.empty() ? "skipped: " : ", ") + part; };
  if (!r.skipped_large.empty()) {
    std::string names;
    for (std::size_t i = 0; i < r.skipped_large.size() && i < 3; ++i)
      names += (i == 0 ? "" : ", ") + escape_for_terminal(r.skipped_large[i]);
    if (r.skipped_large.size() > 3) names += ", ...";
    add(fmt::format("{} over the size limit ({})", r.skipped_large.size(), names));
  }
  if (r.skipped_binary != 0) add(fmt::format("{} binary", r.skipped_binary));
  if (r.skipped_symlinks != 0) add(fmt::format("{} symlinks (not followed)", r.skipped_symlinks));
  if (r.skipped_ignored != 0) add(fmt::format("{} ignored by .gitignore", r.skipped_ignored));
  if (!r.skipped_unreadable.empty())
    add(fmt::format("{} unreadable ({})", r.skipped_unreadable.size(),
                    escape_for_terminal(r.skipped_unreadable.front())));
  return text;
}

void render_show_text(std::ostream& out, const std::vector<Patch>& patches, bool color) {
  const std::size_t count = patches.size();
  for (std::size_t i = 0; i < count; ++i) {
    const Patch& p = patches[i];
    if (i > 0) out << "\n";
    out << paint(patch_title(i + 1, count, p.source, p.patch_line, p.subject), kBold, color)
        << "\n";
    if (p.files.empty()) out << "  (no files)\n";
    for (const FilePatch& f : p.files) {
      out << fmt::format("  {:<7}{} -> {}\n", to_string(f.change), escape_for_terminal(f.old_path),
                         escape_for_terminal(f.new_path));
      std::string details = mode_text(f);
      const auto add = [&](const std::string& part) {
        if (part.empty()) return;
        if (!details.empty()) details += ", ";
        details += part;
      };
      if (f.similarity) add(fmt::format("similarity {}%", *f.similarity));
      if (f.binary) add(f.binary_data ? "binary (with data)" : "binary");
      if (!f.old_blob.empty() || !f.new_blob.empty())
        add(fmt::format("index {}..{}", escape_for_terminal(f.old_blob),
                        escape_for_terminal(f.new_blob)));
      if (!details.empty()) out << "         " << details << "\n";
      for (std::size_t k = 0; k < f.hunks.size(); ++k) {
        const Hunk& h = f.hunks[k];
        out << fmt::format("    hunk {} ", k + 1)
            << paint(hunk_range(h.old_start, h.old_lines, h.new_start, h.new_lines), kCyan, color);
        if (!h.section.empty()) out << " " << escape_for_terminal(h.section);
        out << "  " << paint(fmt::format("+{}", h.added()), kGreen, color) << " "
            << paint(fmt::format("-{}", h.removed()), kRed, color) << "\n";
      }
    }
  }
}

}  // namespace sm120check
