// The unified-diff parser (see patch.hpp for what it accepts and rejects).
//
// The text is split on "\n" only. Body lines keep a trailing "\r" (CRLF files are compared
// byte-exactly); header lines (diff --git, ---, +++, @@, index, mail headers, ...) are compared
// with one trailing "\r" removed, so a patch saved with CRLF line ends still parses.
//
// The parser is a single forward scan over the lines. At the top level each line is either
//   - a patch boundary (mbox "From " line, "commit <hex>" of git log, "# HG changeset patch"),
//   - the start of a file patch ("diff --git" with an extended header line after it; a
//     "---"/"+++"/"@@" triple, optionally after a "diff ..." or "Index:"+"====" line),
//   - something that is rejected (context diff, combined diff, a hunk with no file header),
//   - or text: the message of the next patch, or junk after a file patch.
// A mail whose message ends with git format-patch's bare "---" separator is looked ahead once:
// its lines before the separator are text whatever they look like (see mail_text_end()).
// Hunk bodies are read by their header counts only, so body lines that look like headers
// ("--- a/x" removed, "+++ b" added) are never taken for headers.
//
// Input is hostile: every index is checked against the line count, numbers are parsed with
// overflow checks, and nothing but sm120check::Error is thrown for bad input.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sm120check/error.hpp"
#include "sm120check/patch.hpp"

namespace sm120check {
namespace {

using std::string_view;

constexpr std::size_t kNpos = string_view::npos;
/// A "diff --git" line longer than this is not taken as a header (bounds the name search).
constexpr std::size_t kMaxGitHeaderLine = 8192;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
char to_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

string_view strip_cr(string_view s) {
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

string_view trim(string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool is_blank(string_view s) { return trim(s).empty(); }

bool starts_with_ci(string_view s, string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t k = 0; k < prefix.size(); ++k) {
    if (to_lower(s[k]) != to_lower(prefix[k])) return false;
  }
  return true;
}

/// Whole-string decimal number no larger than `max`; nullopt if empty, not digits, or too large.
std::optional<std::uint64_t> parse_decimal(string_view s, std::uint64_t max) {
  if (s.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : s) {
    if (!is_digit(c)) return std::nullopt;
    auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (max - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

/// A short printable rendering of a patch line for error messages (never multi-line).
std::string excerpt(string_view s) {
  constexpr std::size_t kMax = 80;
  std::string out;
  for (std::size_t k = 0; k < s.size() && k < kMax; ++k) {
    char c = s[k];
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  if (s.size() > kMax) out += "...";
  return out;
}

/// Decodes a C-quoted name ("a/f\303\251\tx") starting at s[0] == '"'. Returns the decoded name
/// and the number of bytes consumed (through the closing quote); nullopt if malformed (bad
/// escape, octal value over 255, no closing quote) or if it decodes to a NUL byte.
std::optional<std::pair<std::string, std::size_t>> unquote_c(string_view s) {
  if (s.empty() || s[0] != '"') return std::nullopt;
  std::string out;
  std::size_t k = 1;
  while (k < s.size()) {
    char c = s[k];
    if (c == '"') return std::make_pair(std::move(out), k + 1);
    if (c != '\\') {
      if (c == '\0') return std::nullopt;
      out += c;
      ++k;
      continue;
    }
    if (++k >= s.size()) return std::nullopt;
    char e = s[k];
    static constexpr string_view kEscapes = "abfnrtv\\\"";
    static constexpr string_view kDecoded = "\a\b\f\n\r\t\v\\\"";
    if (std::size_t at = kEscapes.find(e); at != kNpos) {
      out += kDecoded[at];
      ++k;
      continue;
    }
    if (e < '0' || e > '7') return std::nullopt;
    unsigned value = 0;
    std::size_t digits = 0;
    while (digits < 3 && k < s.size() && s[k] >= '0' && s[k] <= '7') {
      value = value * 8 + static_cast<unsigned>(s[k] - '0');
      ++k;
      ++digits;
    }
    if (value > 255 || value == 0) return std::nullopt;
    out += static_cast<char>(static_cast<unsigned char>(value));
  }
  return std::nullopt;
}

/// Splits the part of a "diff --git" line after "diff --git " into its two names, as git does:
/// quoted names are decoded; two unquoted names containing spaces are split where both halves
/// are equal after removing their first path component ("a/run tool.sh b/run tool.sh").
/// nullopt when the split is ambiguous (a rename whose names contain spaces) or malformed.
std::optional<std::pair<std::string, std::string>> split_git_names(string_view rest) {
  if (rest.empty()) return std::nullopt;
  if (rest[0] == '"') {
    auto first = unquote_c(rest);
    if (!first) return std::nullopt;
    string_view tail = rest.substr(first->second);
    if (tail.size() < 2 || tail[0] != ' ') return std::nullopt;
    tail.remove_prefix(1);
    if (tail[0] == '"') {
      auto second = unquote_c(tail);
      if (!second || second->second != tail.size()) return std::nullopt;
      return std::make_pair(std::move(first->first), std::move(second->first));
    }
    return std::make_pair(std::move(first->first), std::string(tail));
  }
  // Unquoted first name, quoted second name.
  if (rest.back() == '"') {
    for (std::size_t p = rest.find(" \""); p != kNpos; p = rest.find(" \"", p + 1)) {
      auto second = unquote_c(rest.substr(p + 1));
      if (second && second->second == rest.size() - p - 1 && p > 0) {
        return std::make_pair(std::string(rest.substr(0, p)), std::move(second->first));
      }
    }
  }
  // Both unquoted: the split where the names agree after their first component.
  std::size_t spaces = 0;
  std::size_t only_space = kNpos;
  for (std::size_t p = 0; p < rest.size(); ++p) {
    if (rest[p] != ' ') continue;
    ++spaces;
    only_space = p;
    string_view left = rest.substr(0, p);
    string_view right = rest.substr(p + 1);
    std::size_t sl = left.find('/');
    std::size_t sr = right.find('/');
    if (sl != kNpos && sr != kNpos) {
      string_view l = left.substr(sl + 1);
      string_view r = right.substr(sr + 1);
      if (!l.empty() && l == r) return std::make_pair(std::string(left), std::string(right));
    }
    if (!left.empty() && left == right) {  // --no-prefix: "diff --git x y" with x == y
      return std::make_pair(std::string(left), std::string(right));
    }
  }
  if (spaces == 1 && only_space > 0 && only_space + 1 < rest.size()) {
    return std::make_pair(std::string(rest.substr(0, only_space)),
                          std::string(rest.substr(only_space + 1)));
  }
  return std::nullopt;
}

/// For an ambiguous "diff --git" line of a rename/copy: the split whose halves end with the
/// "rename from"/"rename to" names (which carry no prefix). Keeps the line's own prefixes.
std::optional<std::pair<std::string, std::string>> split_by_suffix(string_view rest,
                                                                   string_view from,
                                                                   string_view to) {
  if (from.empty() || to.empty() || rest.size() < to.size() ||
      rest.substr(rest.size() - to.size()) != to) {
    return std::nullopt;
  }
  std::string needle = std::string(from) + " ";
  for (std::size_t p = rest.find(needle); p != kNpos; p = rest.find(needle, p + 1)) {
    std::size_t space = p + from.size();
    if (space + 1 + to.size() > rest.size()) break;
    return std::make_pair(std::string(rest.substr(0, space)), std::string(rest.substr(space + 1)));
  }
  return std::nullopt;
}

/// True for a timestamp meaning "file does not exist" (the epoch, as GNU diff -N writes it):
/// "1970-01-01 00:00:00[.000] [+0000]" (any zone that makes it the epoch, e.g.
/// "1969-12-31 19:00:00 -0500") or ctime style "Thu Jan  1 00:00:00 1970 [+0000]".
bool is_epoch_timestamp(string_view ts) {
  ts = trim(ts);
  auto num = [](string_view s) -> long {
    auto v = parse_decimal(s, 1000000);
    return v ? static_cast<long>(*v) : -1;
  };
  // ISO style: YYYY-MM-DD HH:MM:SS[.frac][ (+|-)HHMM]
  if (ts.size() >= 19 && ts[4] == '-' && ts[7] == '-' && ts[10] == ' ' && ts[13] == ':' &&
      ts[16] == ':') {
    long year = num(ts.substr(0, 4));
    long month = num(ts.substr(5, 2));
    long day = num(ts.substr(8, 2));
    long hour = num(ts.substr(11, 2));
    long minute = num(ts.substr(14, 2));
    long second = num(ts.substr(17, 2));
    if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return false;
    string_view rest = ts.substr(19);
    if (!rest.empty() && rest[0] == '.') {
      std::size_t k = 1;
      while (k < rest.size() && is_digit(rest[k])) {
        if (rest[k] != '0') return false;
        ++k;
      }
      rest = rest.substr(k);
    }
    rest = trim(rest);
    long zone = 0;
    if (!rest.empty()) {
      if (rest.size() != 5 || (rest[0] != '+' && rest[0] != '-')) return false;
      long hh = num(rest.substr(1, 2));
      long mm = num(rest.substr(3, 2));
      if (hh < 0 || mm < 0) return false;
      zone = (hh * 3600 + mm * 60) * (rest[0] == '-' ? -1 : 1);
    }
    long days;
    if (year == 1970 && month == 1 && day == 1) {
      days = 0;
    } else if (year == 1969 && month == 12 && day == 31) {
      days = -1;
    } else {
      return false;
    }
    long local = days * 86400 + hour * 3600 + minute * 60 + second;
    return local - zone == 0;
  }
  // ctime style: "Thu Jan  1 00:00:00 1970" optionally followed by a zone.
  std::vector<string_view> words;
  std::size_t k = 0;
  while (k < ts.size() && words.size() < 7) {
    while (k < ts.size() && is_space(ts[k])) ++k;
    std::size_t b = k;
    while (k < ts.size() && !is_space(ts[k])) ++k;
    if (k > b) words.push_back(ts.substr(b, k - b));
  }
  if (words.size() < 5 || words.size() > 6) return false;
  if (words[1] != "Jan" || num(words[2]) != 1 || words[3] != "00:00:00" || words[4] != "1970") {
    return false;
  }
  return words.size() == 5 || words[5] == "+0000" || words[5] == "-0000" || words[5] == "UTC" ||
         words[5] == "GMT";
}

/// Lines that diff tools print between file patches (diff -r, svn, CVS): not message text, so
/// they never start a new patch.
bool is_noise_line(string_view h) {
  static constexpr string_view kPrefixes[] = {"Only in ",   "Common subdirectories: ", "Index: ",
                                              "RCS file: ", "retrieving revision ",    "===="};
  for (string_view p : kPrefixes) {
    if (h.starts_with(p)) return true;
  }
  return (h.starts_with("Files ") && h.ends_with(" differ")) ||
         (h.starts_with("File ") && h.find(" while file ") != kNpos);
}

/// "---" or "+++" file name line: the marker followed by the end, a space or a tab.
bool is_name_line(string_view h, string_view marker) {
  if (!h.starts_with(marker)) return false;
  return h.size() == marker.size() || h[marker.size()] == ' ' || h[marker.size()] == '\t';
}

/// Git extended header line prefixes (after "diff --git").
bool is_git_extended_header(string_view h) {
  static constexpr string_view kPrefixes[] = {
      "old mode ",    "new mode ",     "deleted file mode ", "new file mode ",
      "rename from ", "rename to ",    "rename old ",        "rename new ",
      "copy from ",   "copy to ",      "similarity index ",  "dissimilarity index ",
      "index ",       "Binary files ", "GIT binary patch"};
  for (string_view p : kPrefixes) {
    if (h.starts_with(p)) return true;
  }
  return false;
}

std::string decode_base64(string_view s) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : s) {
    int v = value(c);
    if (v < 0) continue;  // '=' padding and anything else
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>(static_cast<unsigned char>((buffer >> bits) & 0xffu));
    }
  }
  return out;
}

/// Longest encoded word decode_rfc2047() accepts, in bytes from "=?" through "?=". RFC 2047
/// caps encoded words at 75 characters; lax encoders write longer ones, so some slack is allowed.
/// The bound keeps decoding linear in the subject length: the end of a word is only searched
/// for within this window.
constexpr std::size_t kMaxEncodedWord = 256;

/// Decodes RFC 2047 encoded words ("=?UTF-8?q?caf=C3=A9?=", "=?utf-8?b?...?=") as git
/// format-patch writes them in Subject lines; the charset is not converted. A word longer than
/// kMaxEncodedWord is left as it is.
std::string decode_rfc2047(string_view s) {
  std::string out;
  std::size_t pos = 0;
  bool last_encoded = false;
  while (pos < s.size()) {
    std::size_t start = s.find("=?", pos);
    if (start == kNpos) {
      out += s.substr(pos);
      break;
    }
    // Every search below stays inside the window of one encoded word starting at `start`.
    const string_view word = s.substr(start, kMaxEncodedWord);
    std::size_t q1 = word.find('?', 2);
    bool ok = q1 != kNpos && q1 + 2 < word.size() && word[q1 + 2] == '?';
    std::size_t end = ok ? word.find("?=", q1 + 3) : kNpos;
    if (ok) q1 += start;
    if (end != kNpos) end += start;
    char enc = ok ? to_lower(s[q1 + 1]) : '\0';
    if (!ok || end == kNpos || (enc != 'q' && enc != 'b')) {
      out += s.substr(pos, start + 2 - pos);
      pos = start + 2;
      last_encoded = false;
      continue;
    }
    string_view between = s.substr(pos, start - pos);
    if (!(last_encoded && is_blank(between))) out += between;
    string_view payload = s.substr(q1 + 3, end - q1 - 3);
    if (enc == 'b') {
      out += decode_base64(payload);
    } else {
      for (std::size_t k = 0; k < payload.size(); ++k) {
        char c = payload[k];
        if (c == '_') {
          out += ' ';
        } else if (c == '=' && k + 2 < payload.size() && is_hex(payload[k + 1]) &&
                   is_hex(payload[k + 2])) {
          auto hex = [](char h) {
            return static_cast<unsigned>(is_digit(h) ? h - '0' : to_lower(h) - 'a' + 10);
          };
          out += static_cast<char>(
              static_cast<unsigned char>(hex(payload[k + 1]) * 16 + hex(payload[k + 2])));
          k += 2;
        } else {
          out += c;
        }
      }
    }
    pos = end + 2;
    last_encoded = true;
  }
  return out;
}

/// Removes leading "Re:" and "[...]" groups ("[PATCH v2 3/7]", "[RFC PATCH]") like git mailinfo.
std::string clean_subject(string_view s) {
  for (;;) {
    s = trim(s);
    if (starts_with_ci(s, "re:")) {
      s.remove_prefix(3);
    } else if (!s.empty() && s[0] == '[') {
      std::size_t close = s.find(']');
      if (close == kNpos) break;
      s.remove_prefix(close + 1);
    } else {
      break;
    }
  }
  return std::string(s);
}

/// Reads the counts of a hunk header "@@ -a[,b] +c[,d] @@..." (an omitted count means 1);
/// false if `h` is not one. Used for look-ahead only; parse_hunk() reads headers strictly.
bool hunk_counts(string_view h, std::uint64_t& old_n, std::uint64_t& new_n) {
  if (!h.starts_with("@@ -")) return false;
  std::size_t pos = 4;
  auto range = [&](std::uint64_t& count) {
    std::size_t b = pos;
    while (pos < h.size() && is_digit(h[pos])) ++pos;
    if (pos == b || pos - b > 10) return false;
    count = 1;
    if (pos < h.size() && h[pos] == ',') {
      b = ++pos;
      while (pos < h.size() && is_digit(h[pos])) ++pos;
      auto v = parse_decimal(h.substr(b, pos - b), UINT32_MAX);
      if (!v) return false;
      count = *v;
    }
    return true;
  };
  if (!range(old_n) || !h.substr(pos).starts_with(" +")) return false;
  pos += 2;
  return range(new_n) && h.substr(pos).starts_with(" @@");
}

/// A line that is "---" alone (trailing white space allowed): the separator git format-patch
/// writes between the commit message and the diffstat.
bool is_message_separator(string_view h) { return h.starts_with("---") && is_blank(h.substr(3)); }

/// How a patch was introduced; decides where its subject comes from.
enum class PatchKind { kPlain, kMail, kGitLog, kHg };

class Parser {
 public:
  Parser(std::shared_ptr<const std::string> text, string_view source)
      : owner_(std::move(text)), text_(*owner_), source_(source) {
    // Line starts are kept as 32-bit offsets (4 bytes a line: a text of 64 MiB of empty lines
    // costs 256 MiB here); the lines themselves are views computed on demand.
    if (text_.size() >= UINT32_MAX) {
      throw Error(std::string(source_), 0, "patch text of 4 GiB or more; refused");
    }
    std::uint32_t begin = 0;
    // A UTF-8 byte order mark at the very start is skipped; it is still line 1.
    if (text_.starts_with("\xEF\xBB\xBF")) begin = 3;
    const auto size = static_cast<std::uint32_t>(text_.size());
    // One pass (memchr from line to line); the reservation guesses 32 bytes a line (counting
    // the newlines first was a tenth of the parse of a 42 MB patch).
    starts_.reserve(text_.size() / 32 + 2);
    while (begin < size) {
      starts_.push_back(begin);
      std::size_t nl = text_.find('\n', begin);
      begin = nl == kNpos ? size : static_cast<std::uint32_t>(nl + 1);
    }
    starts_.push_back(size);
    n_ = starts_.size() - 1;
  }

  /// Parses the text. With `keep_going`, a patch that cannot be parsed is kept with its error
  /// (fail_patch()) and parsing resumes at the next patch boundary.
  std::vector<Patch> run(bool keep_going = false);

 private:
  [[noreturn]] void fail(std::size_t index, const std::string& message) const {
    throw Error(std::string(source_), index + 1, message);
  }
  /// Header form of line `i`: one trailing "\r" removed; "" past the end.
  string_view hdr(std::size_t i) const { return i < n_ ? strip_cr(line_at(i)) : string_view{}; }
  /// Line `i` (i < n_) without its "\n".
  string_view line_at(std::size_t i) const {
    std::size_t end = starts_[i + 1];
    if (end > starts_[i] && text_[end - 1] == '\n') --end;
    return text_.substr(starts_[i], end - starts_[i]);
  }

  std::optional<PatchKind> boundary_at(std::size_t i) const;
  bool git_header_at(std::size_t i) const;
  std::size_t plain_header_at(std::size_t i, bool& binary) const;
  bool context_diff_at(std::size_t i) const;
  void check_unsupported(std::size_t i) const;

  FilePatch parse_git(std::size_t& i);
  std::optional<FilePatch> parse_plain(std::size_t& i, bool binary);
  void parse_hunks(std::size_t& i, FilePatch& fp);
  Hunk parse_hunk(std::size_t& i);
  std::size_t body_lines(std::size_t i, std::uint64_t old_lines, std::uint64_t new_lines) const;
  void parse_binary(std::size_t& i);
  struct Name {
    std::string path;
    std::string timestamp;
  };
  Name parse_name_line(std::size_t i, std::size_t marker_len) const;
  std::string parse_header_name(std::size_t i, string_view value) const;
  std::string parse_move_name(std::size_t i, string_view value) const;
  /// Lines (0-based, kNpos: absent) of a git file patch's "new file mode", "deleted file
  /// mode", "rename ..." and "copy ..." headers.
  struct ChangeHeaders {
    std::size_t added, deleted, rename, copy;
  };
  void check_git_headers(std::size_t start, const ChangeHeaders& at) const;
  void check_images(const FilePatch& fp) const;
  std::uint32_t parse_mode(std::size_t i, string_view value) const;

  std::size_t skip_hunk(std::size_t i) const;
  bool is_mail_start(std::size_t i) const;
  std::size_t mail_text_end(std::size_t begin);

  void start_patch(std::size_t i, PatchKind kind);
  void finish_patch();
  void fail_patch(const Error& e);
  /// Whether the mail whose headers start at line `begin` has a Subject tag numbering it in a
  /// series from 1 ("[PATCH 2/3]", "[PATCH v2 01/12]"; not "[PATCH 0/3]", a cover letter).
  bool numbered_in_series(std::size_t begin) const;
  std::optional<std::string> subject_of(std::size_t begin, std::size_t end) const;

  std::shared_ptr<const std::string> owner_;  ///< the text, which every hunk keeps
  string_view text_;
  string_view source_;
  /// Byte offset of each line's start; one extra for the end of the text.
  std::vector<std::uint32_t> starts_;
  std::size_t n_ = 0;

  std::vector<Patch> out_;
  bool keep_going_ = false;  ///< run()'s: an error is kept in out_ (fail_patch()), not thrown
  Patch cur_;
  PatchKind cur_kind_ = PatchKind::kPlain;
  std::size_t cur_start_ = 0;        ///< line index where the current patch starts
  std::size_t cur_message_end_ = 0;  ///< line index of its first file patch
  std::size_t hunk_lines_ = 0;       ///< hunk body lines read so far (limit kMaxHunkLines)
  /// Lines before this index are message text of a mail (see mail_text_end()).
  std::size_t text_until_ = 0;
  /// mail_text_end() found no separator rule for any start before this index (memo that keeps
  /// the look-ahead linear over the whole text).
  std::size_t no_rule_until_ = 0;
};

std::optional<PatchKind> Parser::boundary_at(std::size_t i) const {
  string_view h = hdr(i);
  if (h == "# HG changeset patch") return PatchKind::kHg;
  if (h.starts_with("From ")) {
    string_view rest = h.substr(5);
    string_view token = rest.substr(0, rest.find(' '));
    if (token.size() == 40 && std::all_of(token.begin(), token.end(), is_hex)) {
      return PatchKind::kMail;
    }
    // Any other mbox "From " line must be followed by a typical first mail header.
    if (i + 1 < n_) {
      string_view next = hdr(i + 1);
      for (string_view field : {"From:", "Subject:", "Date:", "Return-Path:", "Received:",
                                "Message-ID:", "To:", "Delivered-To:"}) {
        if (starts_with_ci(next, field)) return PatchKind::kMail;
      }
    }
    return std::nullopt;
  }
  if (h.starts_with("commit ")) {
    string_view rest = h.substr(7);
    string_view token = rest.substr(0, rest.find(' '));
    // git log: "Author:" (or "Merge:" for merges) follows; --pretty=raw has "tree <hex>".
    string_view next = hdr(i + 1);
    if (token.size() >= 7 && token.size() <= 64 &&
        std::all_of(token.begin(), token.end(), is_hex) && i + 1 < n_ &&
        (next.starts_with("Author:") || next.starts_with("Merge:") || next.starts_with("tree "))) {
      return PatchKind::kGitLog;
    }
  }
  return std::nullopt;
}

/// A well-formed "diff --git" line: not too long, and followed by a git extended header line or
/// a "---"/"+++" pair (a bare "diff --git a/x b/x" in prose is text).
bool Parser::git_header_at(std::size_t i) const {
  string_view h = hdr(i);
  if (!h.starts_with("diff --git ") || h.size() > kMaxGitHeaderLine || h.size() <= 11) {
    return false;
  }
  if (i + 1 >= n_) return false;
  string_view next = hdr(i + 1);
  if (is_git_extended_header(next)) return true;
  return is_name_line(next, "---") && i + 2 < n_ && is_name_line(hdr(i + 2), "+++");
}

/// If a plain file patch starts at `i`, returns the index of its "---" line (or of its
/// "Binary files A and B differ" line, with `binary` set); kNpos otherwise. Accepted openings: a
/// "---"/"+++"/"@@ -" triple, optionally after one "diff ..." line or an "Index:" + "====" pair
/// (after which the header is complete without the "@@": parse_plain() then reports the missing
/// hunk, or skips an svn property-only change).
std::size_t Parser::plain_header_at(std::size_t i, bool& binary) const {
  binary = false;
  std::size_t j = i;
  bool prefixed = false;
  string_view h = hdr(i);
  if (h.starts_with("Binary files ") && h.ends_with(" differ") && h.size() > 20) {  // diff -r
    binary = true;
    return i;
  }
  if (h.starts_with("Index: ") && i + 1 < n_ && hdr(i + 1).starts_with("====")) {
    j = i + 2;
    prefixed = true;
  } else if (h.starts_with("diff ") && !h.starts_with("diff --cc ") &&
             !h.starts_with("diff --combined ")) {
    j = i + 1;
    prefixed = true;
    string_view b = hdr(j);
    if (j < n_ && b.starts_with("Binary files ") && b.ends_with(" differ") && b.size() > 20) {
      binary = true;
      return j;
    }
  }
  if (j + 1 >= n_ || !is_name_line(hdr(j), "---") || !is_name_line(hdr(j + 1), "+++")) {
    return kNpos;
  }
  if (j + 2 < n_ && hdr(j + 2).starts_with("@@ -")) return j;
  if (j + 2 < n_ && hdr(j + 2).starts_with("@@@ ")) return j;  // rejected as combined later
  if (prefixed) return j;
  return kNpos;
}

bool Parser::context_diff_at(std::size_t i) const {
  string_view h = hdr(i);
  if (h.starts_with("*** ") && i + 2 < n_ && hdr(i + 1).starts_with("--- ") &&
      hdr(i + 2).starts_with("***************")) {
    return true;
  }
  if (h.starts_with("***************") && trim(h).find_first_not_of('*') == kNpos && i + 1 < n_) {
    string_view next = hdr(i + 1);
    return next.starts_with("*** ") && next.ends_with(" ****");
  }
  return false;
}

/// Top-level lines that are diffs this tool does not read: fail loudly rather than skip them.
void Parser::check_unsupported(std::size_t i) const {
  string_view h = hdr(i);
  if (h.starts_with("diff --cc ") || h.starts_with("diff --combined ") || h.starts_with("@@@ -")) {
    fail(i, "combined diff (merge) is not supported; diff the merge against one parent instead");
  }
  if (context_diff_at(i)) {
    fail(i, "context diff format is not supported; regenerate with `diff -u` or `git diff`");
  }
  if (h.starts_with("@@ -")) {
    fail(i, "hunk header '" + excerpt(h) +
                "' without a file header ('diff --git' or '---'/'+++' lines) before it");
  }
}

std::uint32_t Parser::parse_mode(std::size_t i, string_view value) const {
  value = trim(value);
  std::uint32_t mode = 0;
  bool ok = !value.empty() && value.size() <= 7;
  for (char c : value) {
    if (c < '0' || c > '7') {
      ok = false;
      break;
    }
    mode = mode * 8 + static_cast<std::uint32_t>(c - '0');
  }
  if (!ok) fail(i, "invalid file mode '" + excerpt(value) + "'");
  return mode;
}

/// Name on a "rename from", "copy to", ... line: C-quoted or the rest of the line.
std::string Parser::parse_header_name(std::size_t i, string_view value) const {
  if (!value.empty() && value[0] == '"') {
    auto q = unquote_c(value);
    if (!q || !is_blank(value.substr(q->second))) fail(i, "malformed quoted file name");
    if (q->first.empty()) fail(i, "missing file name");
    return std::move(q->first);
  }
  if (value.empty()) fail(i, "missing file name");
  if (value.find('\0') != kNpos) fail(i, "file name contains a NUL byte");
  return std::string(value);
}

/// Name on a "rename from/to", "copy from/to" line: parse_header_name(), refused when absolute
/// or holding a ".." component (git writes these names relative to the top of the tree and
/// git apply refuses such a path; a strip level never applies to them).
std::string Parser::parse_move_name(std::size_t i, string_view value) const {
  std::string name = parse_header_name(i, value);
  if (name.front() == '/') fail(i, "file name '" + excerpt(name) + "' is absolute; refused");
  for (std::size_t at = 0; at <= name.size();) {
    std::size_t slash = name.find('/', at);
    if (slash == kNpos) slash = name.size();
    if (string_view(name).substr(at, slash - at) == "..")
      fail(i, "file name '" + excerpt(name) + "' climbs out of the tree ('..'); refused");
    at = slash + 1;
  }
  return name;
}

/// Refuses the header combinations git apply refuses ("inconsistent header lines"): a file both
/// new and deleted, and a new or deleted file that is also renamed or copied, or a rename that
/// is also a copy. Fails at the later of the two lines.
void Parser::check_git_headers(std::size_t start, const ChangeHeaders& at) const {
  const std::pair<std::size_t, const char*> kinds[] = {{at.added, "new file mode"},
                                                       {at.deleted, "deleted file mode"},
                                                       {at.rename, "rename"},
                                                       {at.copy, "copy"}};
  for (std::size_t a = 0; a < 4; ++a)
    for (std::size_t b = a + 1; b < 4; ++b) {
      if (kinds[a].first == kNpos || kinds[b].first == kNpos) continue;
      const auto [first, second] = std::minmax(kinds[a], kinds[b]);
      fail(second.first, "inconsistent headers of the file patch at line " +
                             std::to_string(start + 1) + ": '" + first.second + "' (line " +
                             std::to_string(first.first + 1) + ") and '" + second.second +
                             "' contradict each other");
    }
}

/// As git apply: an added file's hunks hold no pre-image lines ("new file depends on old
/// contents") and a deleted file's no post-image lines ("deleted file still has contents").
void Parser::check_images(const FilePatch& fp) const {
  for (const Hunk& h : fp.hunks) {
    if (fp.old_path == "/dev/null" && h.old_lines > 0)
      fail(h.patch_line - 1, "new file '" + excerpt(fp.new_path) +
                                 "' has a hunk with pre-image lines (it depends on old "
                                 "contents)");
    if (fp.new_path == "/dev/null" && h.new_lines > 0)
      fail(h.patch_line - 1, "deleted file '" + excerpt(fp.old_path) +
                                 "' has a hunk with post-image lines (it still has contents)");
  }
}

/// Name on a "--- " / "+++ " line: C-quoted, or up to a TAB (a timestamp or "(revision N)"
/// follows), or to the end of the line with trailing whitespace trimmed.
Parser::Name Parser::parse_name_line(std::size_t i, std::size_t marker_len) const {
  string_view rest = hdr(i).substr(marker_len);
  // Spaces separate the marker from the name; a TAB right after it means an empty name.
  while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
  Name name;
  if (!rest.empty() && rest[0] == '"') {
    auto q = unquote_c(rest);
    if (!q) fail(i, "malformed quoted file name");
    name.path = std::move(q->first);
    name.timestamp = std::string(trim(rest.substr(q->second)));
  } else {
    std::size_t tab = rest.find('\t');
    if (tab != kNpos) {
      name.timestamp = std::string(trim(rest.substr(tab + 1)));
      rest = rest.substr(0, tab);
    }
    name.path = std::string(trim(rest));
  }
  if (name.path.empty()) {
    fail(i, "missing file name after '" + std::string(hdr(i).substr(0, marker_len)) +
                "': cannot determine which file to patch");
  }
  if (name.path.find('\0') != string_view::npos) fail(i, "file name contains a NUL byte");
  return name;
}

/// Reads a "GIT binary patch" payload starting at its header line `i`; leaves `i` after it.
/// Structure: a forward block and an optional reverse block, each "literal N" or "delta N"
/// followed by base85 lines (a length character 'A'-'Z' = 1..26, 'a'-'z' = 27..52 bytes, then
/// 5 characters per 4 bytes) and a blank line (or the end of the text).
void Parser::parse_binary(std::size_t& i) {
  const std::size_t header = i;
  ++i;
  for (int block = 0; block < 2; ++block) {
    string_view h = hdr(i);
    string_view count;
    if (i < n_ && h.starts_with("literal ")) {
      count = h.substr(8);
    } else if (i < n_ && h.starts_with("delta ")) {
      count = h.substr(6);
    } else {
      if (block == 0) {
        fail(i < n_ ? i : header,
             "'GIT binary patch' without a 'literal N' or 'delta N' block after it");
      }
      return;
    }
    if (!parse_decimal(count, UINT64_MAX / 2)) {
      fail(i, "malformed binary patch block header '" + excerpt(h) + "'");
    }
    const std::size_t block_line = i;
    ++i;
    std::size_t data_lines = 0;
    while (i < n_ && !hdr(i).empty()) {
      string_view d = hdr(i);
      char c = d[0];
      std::size_t bytes = 0;
      if (c >= 'A' && c <= 'Z') {
        bytes = static_cast<std::size_t>(c - 'A' + 1);
      } else if (c >= 'a' && c <= 'z') {
        bytes = static_cast<std::size_t>(c - 'a' + 27);
      } else {
        fail(i, "malformed binary patch data line (bad length character)");
      }
      static constexpr string_view kBase85 =
          "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
      string_view enc = d.substr(1);
      if (enc.size() != (bytes + 3) / 4 * 5 || enc.find_first_not_of(kBase85) != kNpos) {
        fail(i, "malformed binary patch data line (bad base85 data)");
      }
      ++data_lines;
      ++i;
    }
    if (data_lines == 0) fail(block_line, "binary patch block without data lines");
    if (i < n_) ++i;  // the blank line ending the block
  }
}

Hunk Parser::parse_hunk(std::size_t& i) {
  const std::size_t header_index = i;
  string_view h = hdr(i);
  Hunk hunk;
  hunk.patch_line = i + 1;
  // "@@ -a[,b] +c[,d] @@[ section]", read strictly from the left.
  std::size_t pos = 4;  // after "@@ -"
  auto number = [&](std::uint32_t& out) {
    std::size_t b = pos;
    while (pos < h.size() && is_digit(h[pos])) ++pos;
    if (pos == b) fail(header_index, "malformed hunk header '" + excerpt(h) + "'");
    auto v = parse_decimal(h.substr(b, pos - b), UINT32_MAX);
    if (!v) {
      fail(header_index, "number too large in hunk header '" + excerpt(h) + "'");
    }
    out = static_cast<std::uint32_t>(*v);
  };
  auto range = [&](std::uint32_t& start, std::uint32_t& count) {
    number(start);
    count = 1;  // an omitted count means 1
    if (pos < h.size() && h[pos] == ',') {
      ++pos;
      number(count);
    }
  };
  range(hunk.old_start, hunk.old_lines);
  if (!h.substr(pos).starts_with(" +")) {
    fail(header_index, "malformed hunk header '" + excerpt(h) + "'");
  }
  pos += 2;
  range(hunk.new_start, hunk.new_lines);
  if (!h.substr(pos).starts_with(" @@")) {
    fail(header_index, "malformed hunk header '" + excerpt(h) + "'");
  }
  pos += 3;  // whatever follows the closing "@@" is section text (git reads it the same way)
  const std::string shown(h.substr(0, pos));
  hunk.section = std::string(trim(h.substr(pos)));
  if (hunk.old_lines == 0 && hunk.new_lines == 0) {
    fail(header_index,
         "hunk has no lines: '" + shown + "' counts no pre-image and no post-image line");
  }
  ++i;
  hunk.patch_text = owner_;
  hunk.lines.reserve(body_lines(i, hunk.old_lines, hunk.new_lines));

  std::uint64_t old_found = 0;
  std::uint64_t new_found = 0;
  bool old_closed = false;  // a "\ No newline" marker ended the pre-image
  bool new_closed = false;
  // The error for the sides selected by `report_old` / `report_new` with the counts found so
  // far (each caller fail()s with it: fail() is [[noreturn]] where a lambda cannot be).
  auto mismatch = [&](bool report_old, bool report_new, std::uint64_t old_n, std::uint64_t new_n,
                      const std::string& tail) {
    std::string msg = "hunk body does not match header " + shown + " (header at line " +
                      std::to_string(header_index + 1) + "): ";
    auto side = [](std::uint64_t expected, std::string_view what, std::uint64_t found) {
      return "expected " + std::to_string(expected) + " " + std::string(what) +
             (expected == 1 ? " line" : " lines") + ", found " + std::to_string(found);
    };
    if (report_old) msg += side(hunk.old_lines, "pre-image", old_n);
    if (report_old && report_new) msg += "; ";
    if (report_new) msg += side(hunk.new_lines, "post-image", new_n);
    return msg + tail;
  };
  auto mark_no_newline = [&](std::size_t at) {
    if (hunk.lines.empty()) {
      fail(at, "'\\ No newline at end of file' marker without a hunk line before it");
    }
    HunkLine& last = hunk.lines.back();
    last.no_newline_at_eof = true;
    if (last.kind != LineKind::kAdded) old_closed = true;
    if (last.kind != LineKind::kRemoved) new_closed = true;
  };

  while (old_found < hunk.old_lines || new_found < hunk.new_lines) {
    if (i >= n_) {
      fail(header_index, mismatch(old_found < hunk.old_lines, new_found < hunk.new_lines,
                                  old_found, new_found, " before the end of the patch"));
    }
    string_view line = line_at(i);
    char c = line.empty() ? '\n' : line[0];
    LineKind kind;
    string_view body;
    if (c == ' ' || line.empty() || line == "\r") {
      // An empty line stands for an empty context line whose space was stripped.
      kind = LineKind::kContext;
      body = c == ' ' ? line.substr(1) : line;
    } else if (c == '-') {
      kind = LineKind::kRemoved;
      body = line.substr(1);
    } else if (c == '+') {
      kind = LineKind::kAdded;
      body = line.substr(1);
    } else if (c == '\\') {
      mark_no_newline(i);
      ++i;
      continue;
    } else {
      fail(i, mismatch(old_found < hunk.old_lines, new_found < hunk.new_lines, old_found,
                       new_found,
                       " before '" + excerpt(strip_cr(line)) + "', which is not a hunk line"));
    }
    bool uses_old = kind != LineKind::kAdded;
    bool uses_new = kind != LineKind::kRemoved;
    std::uint64_t old_next = old_found + (uses_old ? 1 : 0);
    std::uint64_t new_next = new_found + (uses_new ? 1 : 0);
    if (old_next > hunk.old_lines || new_next > hunk.new_lines) {
      fail(i, mismatch(old_next > hunk.old_lines, new_next > hunk.new_lines, old_next, new_next,
                       ""));
    }
    if ((uses_old && old_closed) || (uses_new && new_closed)) {
      fail(i, "hunk line after '\\ No newline at end of file' on the same side of hunk " + shown);
    }
    old_found = old_next;
    new_found = new_next;
    if (hunk_lines_ == kMaxHunkLines) {
      fail(i, "more than " + std::to_string(kMaxHunkLines) + " hunk lines; refused");
    }
    ++hunk_lines_;
    hunk.lines.push_back(HunkLine{kind, false, body});
    ++i;
  }
  if (i < n_ && line_at(i).starts_with('\\')) {
    mark_no_newline(i);
    ++i;
  }
  return hunk;
}

/// The number of body lines of a hunk whose body starts at line `i` and counts `old_lines` and
/// `new_lines`, as parse_hunk() reads them (its exact reservation: a large patch's model is
/// mostly these lines); fewer for a body that parse_hunk() refuses.
std::size_t Parser::body_lines(std::size_t i, std::uint64_t old_lines,
                               std::uint64_t new_lines) const {
  std::uint64_t old_found = 0;
  std::uint64_t new_found = 0;
  std::size_t count = 0;
  for (; i < n_ && (old_found < old_lines || new_found < new_lines); ++i) {
    const string_view line = line_at(i);
    const char c = line.empty() || line == "\r" ? ' ' : line[0];
    if (c == '\\') continue;
    if (c == ' ' || c == '-') ++old_found;
    if (c == ' ' || c == '+') ++new_found;
    if (c != ' ' && c != '-' && c != '+') break;
    ++count;
  }
  return count;
}

void Parser::parse_hunks(std::size_t& i, FilePatch& fp) {
  while (i < n_) {
    string_view h = hdr(i);
    if (h.starts_with("@@@ ")) check_unsupported(i);
    if (!h.starts_with("@@ -")) break;
    fp.hunks.push_back(parse_hunk(i));
    // A body line right after the counted lines means the header undercounts: reading on would
    // silently drop a change. ("-- " is the signature line of `git format-patch`.)
    if (i < n_) {
      string_view next = line_at(i);
      bool body_like = !next.empty() && (next[0] == ' ' || next[0] == '+' || next[0] == '-');
      bool dummy = false;
      if (body_like && strip_cr(next) != "-- " && !git_header_at(i) &&
          plain_header_at(i, dummy) == kNpos) {
        string_view header = hdr(fp.hunks.back().patch_line - 1);
        std::size_t close = header.find("@@", 2);
        fail(i, "hunk body does not match header " + excerpt(header.substr(0, close + 2)) +
                    " (header at line " + std::to_string(fp.hunks.back().patch_line) +
                    "): more hunk lines than the header counts");
      }
    }
  }
}

FilePatch Parser::parse_git(std::size_t& i) {
  FilePatch fp;
  fp.git = true;
  fp.patch_line = i + 1;
  const std::size_t start = i;
  const string_view names = hdr(i).substr(11);
  bool added = false;
  bool deleted = false;
  bool mode_lines = false;
  std::optional<std::string> rename_from, rename_to, copy_from, copy_to;
  std::optional<Name> minus, plus;
  // Lines (0-based) of the headers that say what happens to the file, for the contradictions
  // git apply refuses too (kNpos: absent).
  std::size_t added_at = kNpos, deleted_at = kNpos, rename_at = kNpos, copy_at = kNpos;
  std::size_t minus_at = kNpos;
  ++i;
  while (i < n_) {
    string_view h = hdr(i);
    if (h.starts_with("old mode ")) {
      fp.old_mode = parse_mode(i, h.substr(9));
      mode_lines = true;
    } else if (h.starts_with("new mode ")) {
      fp.new_mode = parse_mode(i, h.substr(9));
      mode_lines = true;
    } else if (h.starts_with("deleted file mode ")) {
      fp.old_mode = parse_mode(i, h.substr(18));
      deleted = true;
      deleted_at = i;
    } else if (h.starts_with("new file mode ")) {
      fp.new_mode = parse_mode(i, h.substr(14));
      added = true;
      added_at = i;
    } else if (h.starts_with("rename from ") || h.starts_with("rename old ")) {
      rename_from = parse_move_name(i, h.substr(h[7] == 'f' ? 12 : 11));
      rename_at = i;
    } else if (h.starts_with("rename to ") || h.starts_with("rename new ")) {
      rename_to = parse_move_name(i, h.substr(h[7] == 't' ? 10 : 11));
      rename_at = i;
    } else if (h.starts_with("copy from ")) {
      copy_from = parse_move_name(i, h.substr(10));
      copy_at = i;
    } else if (h.starts_with("copy to ")) {
      copy_to = parse_move_name(i, h.substr(8));
      copy_at = i;
    } else if (h.starts_with("similarity index ")) {
      string_view v = trim(h.substr(17));
      if (v.ends_with('%')) v.remove_suffix(1);
      if (auto pct = parse_decimal(v, 100)) fp.similarity = static_cast<int>(*pct);
    } else if (h.starts_with("dissimilarity index ")) {
      // informational only
    } else if (h.starts_with("index ")) {
      // "index OLD..NEW[ MODE]"; ids that are not hex are ignored.
      string_view v = trim(h.substr(6));
      std::size_t sp = v.find(' ');
      string_view ids = v.substr(0, sp);
      std::size_t dots = ids.find("..");
      if (dots != kNpos) {
        string_view o = ids.substr(0, dots);
        string_view nw = ids.substr(dots + 2);
        auto hex_id = [](string_view id) {
          return !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), is_hex);
        };
        if (hex_id(o) && hex_id(nw)) {
          fp.old_blob.clear();
          fp.new_blob.clear();
          for (char c : o) fp.old_blob += to_lower(c);
          for (char c : nw) fp.new_blob += to_lower(c);
        }
      }
      if (sp != kNpos) {
        std::uint32_t mode = parse_mode(i, v.substr(sp + 1));
        if (!fp.old_mode) fp.old_mode = mode;
        if (!fp.new_mode) fp.new_mode = mode;
      }
    } else if (h.starts_with("Binary files ") && h.ends_with(" differ")) {
      fp.binary = true;
    } else if (h == "GIT binary patch") {
      fp.binary = true;
      fp.binary_data = true;
      parse_binary(i);
      break;
    } else if (is_name_line(h, "---")) {
      if (!(i + 1 < n_ && is_name_line(hdr(i + 1), "+++"))) {
        fail(i + 1 < n_ ? i + 1 : i, "'---' line not followed by a '+++' line");
      }
      minus = parse_name_line(i, 3);
      plus = parse_name_line(i + 1, 3);
      minus_at = i;
      i += 2;
      if (!(i < n_ && hdr(i).starts_with("@@"))) {
        fail(i < n_ ? i : i - 1, "no hunk after the '---'/'+++' lines");
      }
      parse_hunks(i, fp);
      if (fp.hunks.empty()) fail(i, "malformed hunk header '" + excerpt(hdr(i)) + "'");
      break;
    } else if (h.starts_with("@@ -")) {
      fail(i, "hunk without '---'/'+++' lines after 'diff --git' (line " +
                  std::to_string(start + 1) + ")");
    } else {
      break;
    }
    ++i;
  }

  // Paths keep their "a/"/"b/" prefixes so that strip levels apply uniformly: they come from the
  // "---"/"+++" lines when present, else from the "diff --git" line. When that line cannot be
  // split (a rename whose names contain spaces), the split is the one whose halves end with the
  // "rename/copy from/to" names; failing that, those names (which git writes without prefix)
  // get "a/" / "b/" prepended, so that strip level 1 still yields the real path.
  check_git_headers(start, {added_at, deleted_at, rename_at, copy_at});
  if (rename_from.has_value() != rename_to.has_value())
    fail(rename_at,
         rename_from ? "'rename from' without 'rename to'" : "'rename to' without 'rename from'");
  if (copy_from.has_value() != copy_to.has_value())
    fail(copy_at, copy_from ? "'copy from' without 'copy to'" : "'copy to' without 'copy from'");
  // As git apply: a new file's "---" and a deleted file's "+++" name /dev/null.
  if (added && minus && minus->path != "/dev/null")
    fail(minus_at, "'new file mode' (line " + std::to_string(added_at + 1) + ") but '--- " +
                       excerpt(minus->path) + "': expected '--- /dev/null'");
  if (deleted && plus && plus->path != "/dev/null")
    fail(minus_at + 1, "'deleted file mode' (line " + std::to_string(deleted_at + 1) +
                           ") but '+++ " + excerpt(plus->path) + "': expected '+++ /dev/null'");
  bool rename = rename_from || rename_to;
  bool copy = !rename && (copy_from || copy_to);
  const std::optional<std::string>& from = rename ? rename_from : copy_from;
  const std::optional<std::string>& to = rename ? rename_to : copy_to;
  auto split = split_git_names(names);
  if (!split && from && to) split = split_by_suffix(names, *from, *to);
  std::optional<std::string> old_path, new_path;
  if (minus) {
    old_path = minus->path;
  } else if (split) {
    old_path = split->first;
  } else if (from) {
    old_path = "a/" + *from;
  }
  if (plus) {
    new_path = plus->path;
  } else if (split) {
    new_path = split->second;
  } else if (to) {
    new_path = "b/" + *to;
  }
  if (added) old_path = "/dev/null";
  if (deleted) new_path = "/dev/null";
  if (!old_path || !new_path) {
    fail(start, "cannot determine the file names from the 'diff --git' line");
  }
  if (*old_path == "/dev/null" && *new_path == "/dev/null") {
    fail(start, "file patch with '/dev/null' on both sides");
  }
  // git apply takes a rename's or copy's names from its "rename/copy from/to" lines: a patch
  // whose other names say something else would be written elsewhere than git writes it.
  auto names_agree = [](const std::string& path, const std::optional<std::string>& name) {
    if (!name || path == "/dev/null" || path == *name) return true;
    const std::size_t slash = path.find('/');
    return slash != std::string::npos && path.compare(slash + 1, std::string::npos, *name) == 0;
  };
  if (!names_agree(*old_path, from) || !names_agree(*new_path, to)) {
    fail(start, "inconsistent file names: '" + *old_path + "' -> '" + *new_path +
                    "' on the diff lines, but " + (rename ? "rename" : "copy") + " '" +
                    from.value_or("") + "' -> '" + to.value_or("") + "'");
  }
  fp.old_path = std::move(*old_path);
  fp.new_path = std::move(*new_path);
  if (fp.old_path == "/dev/null") {
    fp.change = ChangeKind::kAdd;
  } else if (fp.new_path == "/dev/null") {
    fp.change = ChangeKind::kDelete;
  } else if (rename) {
    fp.change = ChangeKind::kRename;
  } else if (copy) {
    fp.change = ChangeKind::kCopy;
  } else if (fp.binary) {
    fp.change = ChangeKind::kBinary;
  } else if (fp.hunks.empty() && mode_lines && fp.old_mode != fp.new_mode) {
    fp.change = ChangeKind::kMode;
  } else {
    fp.change = ChangeKind::kModify;
  }
  check_images(fp);
  return fp;
}

/// Reads a plain file patch starting at `i`; nullopt for an svn property-only change.
std::optional<FilePatch> Parser::parse_plain(std::size_t& i, bool binary) {
  FilePatch fp;
  fp.patch_line = i + 1;
  bool dummy = false;
  std::size_t j = plain_header_at(i, dummy);
  if (binary) {
    // "Binary files A and B differ", alone or after a "diff ..." line (diff -r / diff -ruN).
    string_view h = hdr(j);
    string_view pair = h.substr(13, h.size() - 13 - 7);
    std::size_t best = kNpos;
    for (std::size_t p = pair.find(" and "); p != kNpos; p = pair.find(" and ", p + 1)) {
      if (best == kNpos) best = p;
      string_view l = pair.substr(0, p);
      string_view r = pair.substr(p + 5);
      std::size_t sl = l.find('/');
      std::size_t sr = r.find('/');
      if (sl != kNpos && sr != kNpos && l.substr(sl) == r.substr(sr)) {
        best = p;
        break;
      }
    }
    if (best == kNpos || best == 0 || best + 5 >= pair.size()) {
      fail(j, "cannot determine the file names from '" + excerpt(h) + "'");
    }
    fp.old_path = std::string(pair.substr(0, best));
    fp.new_path = std::string(pair.substr(best + 5));
    if (fp.old_path.find('\0') != kNpos || fp.new_path.find('\0') != kNpos) {
      fail(j, "file name contains a NUL byte");
    }
    fp.binary = true;
    fp.change = fp.old_path == "/dev/null"   ? ChangeKind::kAdd
                : fp.new_path == "/dev/null" ? ChangeKind::kDelete
                                             : ChangeKind::kBinary;
    i = j + 1;
    return fp;
  }
  Name minus = parse_name_line(j, 3);
  Name plus = parse_name_line(j + 1, 3);
  fp.old_path = std::move(minus.path);
  fp.new_path = std::move(plus.path);
  // GNU diff -N writes the epoch as the time of a file that does not exist on that side.
  // svn writes "(nonexistent)" (1.7+) or "(revision 0)" (older) for that side instead.
  auto absent = [](const std::string& ts) {
    return is_epoch_timestamp(ts) || ts == "(nonexistent)" || ts == "(revision 0)";
  };
  bool old_absent = absent(minus.timestamp);
  bool new_absent = absent(plus.timestamp);
  if (old_absent && !new_absent) fp.old_path = "/dev/null";
  if (new_absent && !old_absent) fp.new_path = "/dev/null";
  if (fp.old_path == "/dev/null" && fp.new_path == "/dev/null") {
    fail(j, "file patch with '/dev/null' on both sides");
  }
  i = j + 2;
  parse_hunks(i, fp);
  if (fp.hunks.empty()) {
    // svn (1.7+) writes a complete header before the "Property changes on:" block of a file
    // whose properties alone changed: no content change to verify, so no file patch.
    std::size_t k = i;
    while (k < n_ && is_blank(hdr(k))) ++k;
    if (hdr(k).starts_with("Property changes on: ")) return std::nullopt;
    fail(j,
         "file patch has no hunks: the '---'/'+++' lines must be followed by a '@@' hunk "
         "header");
  }
  fp.change = fp.old_path == "/dev/null"   ? ChangeKind::kAdd
              : fp.new_path == "/dev/null" ? ChangeKind::kDelete
                                           : ChangeKind::kModify;
  check_images(fp);
  return fp;
}

/// Index just past the body of the hunk whose header is line `i`, read by its counts as
/// parse_hunk() would but without failing (look-ahead only); i + 1 if `i` is no hunk header.
std::size_t Parser::skip_hunk(std::size_t i) const {
  std::uint64_t old_left = 0;
  std::uint64_t new_left = 0;
  if (!hunk_counts(hdr(i), old_left, new_left)) return i + 1;
  std::size_t j = i + 1;
  for (; j < n_ && (old_left > 0 || new_left > 0); ++j) {
    string_view l = line_at(j);
    char c = l.empty() || l == "\r" ? ' ' : l[0];
    if (c == ' ' && old_left > 0 && new_left > 0) {
      --old_left;
      --new_left;
    } else if (c == '-' && old_left > 0) {
      --old_left;
    } else if (c == '+' && new_left > 0) {
      --new_left;
    } else if (c != '\\') {
      break;
    }
  }
  if (j < n_ && line_at(j).starts_with('\\')) ++j;
  return j;
}

/// A mail saved without its mbox "From " line: it starts with its headers.
bool Parser::is_mail_start(std::size_t i) const {
  string_view h = hdr(i);
  return h.starts_with("From: ") || starts_with_ci(h, "Subject:");
}

/// For a mail-form patch starting at line `begin`: git format-patch ends the commit message with
/// a bare "---" line (the diffstat and the diff follow). When the first such separator (outside
/// any hunk body) is followed by a file patch before the next patch boundary, everything before
/// it is message text, even lines that look like a diff (a commit message quoting `diff -u`
/// output): returns the index after the separator. Otherwise returns `begin` (no rule).
std::size_t Parser::mail_text_end(std::size_t begin) {
  if (begin < no_rule_until_) return begin;
  std::size_t sep = kNpos;
  std::size_t j = begin + 1;
  while (j < n_ && !boundary_at(j)) {
    string_view h = hdr(j);
    if (sep == kNpos) {
      if (is_message_separator(h)) {
        sep = j;
      } else if (h.starts_with("@@ -")) {
        j = skip_hunk(j);  // a removed "--" line reads "---": not a separator
        continue;
      }
    } else {
      bool binary = false;
      if (git_header_at(j) || plain_header_at(j, binary) != kNpos) return sep + 1;
    }
    ++j;
  }
  no_rule_until_ = j;
  return begin;
}

void Parser::start_patch(std::size_t i, PatchKind kind) {
  cur_ = Patch{};
  cur_.source = std::string(source_);
  cur_.patch_line = i + 1;
  cur_kind_ = kind;
  cur_start_ = i;
  cur_message_end_ = i;
}

/// Keeps the current patch if it has file patches (a cover letter or a merge commit without a
/// diff has none and is dropped).
/// Keeps the current patch as one that could not be parsed: no file patches, Patch::error set
/// to `e`'s message, Patch::patch_line to its line; its subject when its headers were read.
bool Parser::numbered_in_series(std::size_t begin) const {
  for (std::size_t i = begin; i < n_ && i < begin + 64; ++i) {
    const string_view h = hdr(i);
    if (i > begin && h.empty()) break;  // the end of the headers
    if (!starts_with_ci(h, "Subject:")) continue;
    const std::size_t open = h.find('['), close = h.find(']', open);
    if (open == string_view::npos || close == string_view::npos) return false;
    const string_view tag = h.substr(open + 1, close - open - 1);
    const std::size_t of = tag.rfind('/');
    if (of == string_view::npos || of + 1 >= tag.size()) return false;
    std::size_t first = of;
    while (first > 0 && tag[first - 1] >= '0' && tag[first - 1] <= '9') --first;
    if (first == of) return false;
    return tag.substr(first, of - first).find_first_not_of('0') != string_view::npos;
  }
  return false;
}

void Parser::fail_patch(const Error& e) {
  cur_.files.clear();
  cur_.error = e.message();
  cur_.message = std::string(
      text_.substr(starts_[cur_start_], starts_[cur_message_end_] - starts_[cur_start_]));
  cur_.subject = subject_of(cur_start_, cur_message_end_);
  cur_.patch_line = e.line();
  out_.push_back(std::move(cur_));
  cur_ = Patch{};
  cur_kind_ = PatchKind::kPlain;  // reported: finish_patch() has nothing more to say of it
}

void Parser::finish_patch() {
  if (cur_.files.empty()) {
    // A mail numbered as a patch of a series ("[PATCH 2/2]") without a diff lost it (a mail
    // client, a cut download): an error, not dropped as a cover letter ("[PATCH 0/2]") or a
    // merge commit is, or a series would read applied without it (hostile review hr25).
    if (cur_kind_ == PatchKind::kMail && numbered_in_series(cur_start_)) {
      const Error e(std::string(source_), cur_start_ + 1,
                    "a mail numbered as a patch of a series holds no diff (lost in transit?)");
      if (!keep_going_) throw e;
      fail_patch(e);
    }
    return;
  }
  cur_.message = std::string(
      text_.substr(starts_[cur_start_], starts_[cur_message_end_] - starts_[cur_start_]));
  cur_.subject = subject_of(cur_start_, cur_message_end_);
  out_.push_back(std::move(cur_));
  cur_ = Patch{};
}

std::optional<std::string> Parser::subject_of(std::size_t begin, std::size_t end) const {
  PatchKind kind = cur_kind_;
  std::size_t j = begin;
  if (kind == PatchKind::kPlain) {
    // A mail saved without its mbox "From " line still starts with its headers.
    string_view h = hdr(begin);
    if (begin < end && (h.starts_with("From: ") || starts_with_ci(h, "Subject:"))) {
      kind = PatchKind::kMail;
      j = begin;
    } else {
      return std::nullopt;
    }
  } else {
    j = begin + 1;
  }
  switch (kind) {
    case PatchKind::kMail:
      for (; j < end && !is_blank(hdr(j)); ++j) {
        string_view h = hdr(j);
        if (!starts_with_ci(h, "Subject:")) continue;
        std::string value(trim(h.substr(8)));
        for (++j; j < end; ++j) {
          string_view more = hdr(j);
          if (is_blank(more) || !(more.starts_with(' ') || more.starts_with('\t'))) break;
          if (!value.empty()) value += ' ';
          value += trim(more);
        }
        return clean_subject(decode_rfc2047(value));
      }
      return std::nullopt;
    case PatchKind::kGitLog:
      while (j < end && !is_blank(hdr(j))) ++j;  // Author:, Date:, Merge:
      for (; j < end; ++j) {
        if (!is_blank(hdr(j))) return std::string(trim(hdr(j)));
      }
      return std::nullopt;
    case PatchKind::kHg:
      while (j < end && hdr(j).starts_with("#")) ++j;
      for (; j < end; ++j) {
        if (!is_blank(hdr(j))) return std::string(trim(hdr(j)));
      }
      return std::nullopt;
    case PatchKind::kPlain:
      break;
  }
  return std::nullopt;
}

std::vector<Patch> Parser::run(bool keep_going) {
  keep_going_ = keep_going;
  start_patch(0, PatchKind::kPlain);
  if (is_mail_start(0)) text_until_ = mail_text_end(0);
  std::size_t i = 0;
  std::size_t junk = kNpos;  // first text line after the current patch's last file patch
  bool noise = false;        // inside an svn "Property changes on:" block
  while (i < n_) {
    if (auto kind = boundary_at(i)) {
      finish_patch();
      start_patch(i, *kind);
      if (*kind == PatchKind::kMail) text_until_ = mail_text_end(i);
      junk = kNpos;
      noise = false;
      ++i;
      continue;
    }
    if (i < text_until_) {  // message text of a mail, up to its "---" separator
      ++i;
      continue;
    }
    bool binary = false;
    bool git = git_header_at(i);
    bool plain = !git && plain_header_at(i, binary) != kNpos;
    try {
      if (git || plain) {
        if (!cur_.files.empty() && junk != kNpos) {
          // Message text after a complete file patch introduces the next patch.
          finish_patch();
          start_patch(junk, PatchKind::kPlain);
        }
        if (cur_.files.empty()) cur_message_end_ = i;
        if (git) {
          cur_.files.push_back(parse_git(i));
        } else if (auto fp = parse_plain(i, binary)) {
          cur_.files.push_back(std::move(*fp));
        }
        junk = kNpos;
        noise = false;
        continue;
      }
      check_unsupported(i);
    } catch (const Error& e) {
      if (!keep_going || e.line() == 0) throw;
      // This patch is kept with its error; the next one starts at the next boundary.
      fail_patch(e);
      for (i = std::max(i, e.line() - 1); i < n_ && !boundary_at(i);) ++i;
      junk = kNpos;
      noise = false;
      continue;
    }
    if (!cur_.files.empty() && junk == kNpos && !noise) {
      string_view h = hdr(i);
      if (h.starts_with("Property changes on: ")) {
        noise = true;
      } else if (!is_blank(h) && !is_noise_line(h)) {
        junk = i;
        if (is_mail_start(i)) text_until_ = mail_text_end(i);
      }
    }
    ++i;
  }
  finish_patch();
  if (out_.empty()) {
    // Named from its first line, as other parse errors name theirs; an empty input has none.
    throw Error(std::string(source_), n_ > 0 ? 1 : 0,
                std::string(kNoPatchFound) +
                    " (no 'diff --git' header and no '---'/'+++'/'@@' file patch" +
                    (n_ == 0   ? std::string()
                     : n_ == 1 ? std::string(" in its one line")
                               : " in lines 1-" + std::to_string(n_)) +
                    ")");
  }
  return std::move(out_);
}

}  // namespace

std::vector<Patch> parse_patches(std::shared_ptr<const std::string> text, std::string_view source) {
  return Parser(std::move(text), source).run();
}

std::vector<Patch> parse_patches_keeping_errors(std::shared_ptr<const std::string> text,
                                                std::string_view source) {
  return Parser(std::move(text), source).run(true);
}

std::vector<Patch> parse_patches(std::string_view text, std::string_view source) {
  return parse_patches(std::make_shared<const std::string>(text), source);
}

}  // namespace sm120check
