// Marker extraction: the distinctive strings of a patch's added lines and explicit trailers.
#include "sm120check/markers.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace sm120check {
namespace {

constexpr std::size_t kMinSignificant = 6;  // non-blank characters a marker needs
constexpr std::size_t kMinAlnum = 3;        // letters and digits a marker needs
constexpr std::size_t kMaxMarkerBytes = 120;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

/// Lines that are code with no information of their own once trailing ":;{}" are gone.
bool is_bare_keyword(std::string_view s) {
  while (!s.empty() && (s.back() == ':' || s.back() == ';' || s.back() == '{' || s.back() == '}' ||
                        is_space(s.back())))
    s.remove_suffix(1);
  static constexpr std::array<std::string_view, 22> kWords = {
      "",      "return",  "else",   "pass",   "break",       "continue", "try",  "finally",
      "end",   "fi",      "done",   "then",   "do",          "default",  "None", "True",
      "False", "else if", "} else", "except", "return None", "raise"};
  return std::find(kWords.begin(), kWords.end(), s) != kWords.end();
}

bool is_import(std::string_view s) {
  return starts_with(s, "import ") || (starts_with(s, "from ") && s.find(" import ") != s.npos) ||
         starts_with(s, "#include") || starts_with(s, "using ") || starts_with(s, "#import") ||
         starts_with(s, "require ") || starts_with(s, "extern crate ") || starts_with(s, "use ");
}

/// Cuts `s` to at most kMaxMarkerBytes bytes without splitting a UTF-8 sequence.
std::string cut(std::string_view s) {
  if (s.size() <= kMaxMarkerBytes) return std::string(s);
  std::size_t n = kMaxMarkerBytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(trim(s.substr(0, n)));
}

bool significant(std::string_view s) {
  std::size_t visible = 0, alnum = 0;
  for (char c : s) {
    if (!is_space(c)) ++visible;
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) ++alnum;
  }
  return visible >= kMinSignificant && alnum >= kMinAlnum;
}

/// Position of a trailing comment ("  # ...", " // ...") in a code line, or npos.
std::size_t trailing_comment(std::string_view s) {
  for (std::string_view mark : {std::string_view(" # "), std::string_view(" // ")}) {
    std::size_t at = s.find(mark);
    if (at != s.npos) return at + 1;
  }
  return s.npos;
}

/// How much a marker tells: long identifiers, numbers and comparisons are rare in other code.
int score(std::string_view marker) {
  int longest = 0, run = 0, bonus = 0;
  for (char c : marker) {
    run = is_word(c) ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  if (std::any_of(marker.begin(), marker.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
    bonus += 4;
  for (std::string_view op : {"==", "!=", ">=", "<="})
    if (marker.find(op) != marker.npos) bonus += 8;
  return std::min(longest, 20) + bonus +
         static_cast<int>(std::min<std::size_t>(marker.size(), 60) / 10);
}

/// Up to kMaxMarkersPerHunk markers of `lines` (those of `kinds`), most distinctive first, none
/// occurring in `pre_image` (when given) and none already in `out`.
void pick(const std::vector<HunkLine>& lines, bool added, const std::vector<std::string>* pre_image,
          Marker::Origin origin, const std::string& file, std::vector<Marker>& out) {
  std::vector<std::pair<int, std::string>> found;
  for (const HunkLine& l : lines) {
    bool wanted = added ? l.kind == LineKind::kAdded : l.kind != LineKind::kAdded;
    if (!wanted) continue;
    std::string m = marker_of_line(l.text);
    if (m.empty()) continue;
    if (pre_image != nullptr &&
        std::any_of(pre_image->begin(), pre_image->end(),
                    [&](const std::string& p) { return p.find(m) != std::string::npos; }))
      continue;
    auto same = [&](const auto& e) { return e.second == m; };
    if (std::any_of(found.begin(), found.end(), same)) continue;
    found.emplace_back(score(m), std::move(m));
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::size_t taken = 0;
  for (auto& [s, text] : found) {
    if (taken == kMaxMarkersPerHunk) break;
    bool dup = std::any_of(out.begin(), out.end(),
                           [&](const Marker& m) { return !m.regex && m.text == text; });
    if (dup) continue;
    out.push_back({std::move(text), false, origin, file});
    ++taken;
  }
}

std::string file_of(const FilePatch& fp, unsigned strip) {
  const std::string& p = fp.new_path == "/dev/null" ? fp.old_path : fp.new_path;
  return strip_path(p, strip).value_or(p);
}

/// Case-insensitive "Key:" at the start of `line`; returns the trimmed value or nullopt.
std::optional<std::string_view> trailer_value(std::string_view line, std::string_view key) {
  if (line.size() < key.size()) return std::nullopt;
  for (std::size_t i = 0; i < key.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[i])) !=
        std::tolower(static_cast<unsigned char>(key[i])))
      return std::nullopt;
  return trim(line.substr(key.size()));
}

}  // namespace

std::string_view to_string(Marker::Origin origin) {
  switch (origin) {
    case Marker::Origin::kHunk:
      return "hunk";
    case Marker::Origin::kTrailer:
      return "trailer";
    case Marker::Origin::kOption:
      return "option";
    case Marker::Origin::kContext:
      return "context";
  }
  return "option";
}

std::string marker_of_line(std::string_view line) {
  std::string_view s = trim(line);
  if (s.empty() || is_import(s) || is_bare_keyword(s)) return {};
  bool preprocessor = starts_with(s, "#define") || starts_with(s, "#if") ||
                      starts_with(s, "#elif") || starts_with(s, "#pragma");
  if (!preprocessor && (s.front() == '#' || starts_with(s, "//") || starts_with(s, "/*") ||
                        starts_with(s, "* ") || starts_with(s, "--"))) {
    while (!s.empty() && (s.front() == '#' || s.front() == '/' || s.front() == '*' ||
                          s.front() == '-' || is_space(s.front())))
      s.remove_prefix(1);
    while (!s.empty() && (s.back() == '/' || s.back() == '*' || is_space(s.back())))
      s.remove_suffix(1);
  } else if (std::size_t c = trailing_comment(s); c != s.npos && !preprocessor) {
    std::string_view comment = trim(s.substr(c + (s[c] == '#' ? 1 : 2)));
    if (significant(comment)) s = comment;
  } else {
    for (std::string_view kw : {"if ", "elif ", "while ", "} else if ", "else if "}) {
      if (!starts_with(s, kw)) continue;
      s = trim(s.substr(kw.size()));
      while (!s.empty() && (s.back() == ':' || s.back() == '{' || is_space(s.back())))
        s.remove_suffix(1);
      if (s.size() >= 2 && s.front() == '(' && s.back() == ')') s = trim(s.substr(1, s.size() - 2));
      break;
    }
  }
  if (!significant(s)) return {};
  return cut(s);
}

std::vector<Marker> extract_markers(const Patch& patch, unsigned strip) {
  std::vector<Marker> out;
  std::string_view msg = patch.message;
  while (!msg.empty()) {
    std::size_t nl = msg.find('\n');
    std::string_view line = trim(msg.substr(0, nl));
    msg.remove_prefix(nl == msg.npos ? msg.size() : nl + 1);
    if (auto v = trailer_value(line, kMarkerRegexTrailer); v && !v->empty())
      out.push_back({std::string(*v), true, Marker::Origin::kTrailer, {}});
    else if (auto f = trailer_value(line, kMarkerTrailer); f && !f->empty())
      out.push_back({std::string(*f), false, Marker::Origin::kTrailer, {}});
  }
  for (const FilePatch& fp : patch.files) {
    std::vector<std::string> pre;
    for (const Hunk& h : fp.hunks)
      for (const HunkLine& l : h.lines)
        if (l.kind != LineKind::kAdded) pre.push_back(l.text);
    std::string file = file_of(fp, strip);
    for (const Hunk& h : fp.hunks) pick(h.lines, true, &pre, Marker::Origin::kHunk, file, out);
  }
  return out;
}

std::vector<Marker> context_markers(const FilePatch& file) {
  std::vector<Marker> out;
  std::string name = file_of(file, 0);
  for (const Hunk& h : file.hunks)
    pick(h.lines, false, nullptr, Marker::Origin::kContext, name, out);
  return out;
}

}  // namespace sm120check
