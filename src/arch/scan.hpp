// Rules over one line (see arch.hpp): the lexer that tells code from comments and strings, the
// scanners for sm tokens and lists, family names, comparisons, capability calls and lists, and
// the set operations over sm numbers. Internal to src/arch: infer.cpp applies them to hunks.
#pragma once

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sm120check/arch.hpp"

namespace sm120check::arch_scan {

inline constexpr std::size_t npos = std::string_view::npos;

// ASCII character classes and string helpers.
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
inline bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
inline bool is_alpha(char c) { return is_lower(c) || is_upper(c); }
inline bool is_alnum(char c) { return is_digit(c) || is_alpha(c); }
inline bool is_ident(char c) { return is_alnum(c) || c == '_'; }
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
/// ASCII lower case; other bytes (UTF-8 included) unchanged. Not std::tolower: a locale call
/// per byte was a fifth of the time of a large patch's arch inference.
inline char lower(char c) { return is_upper(c) ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string to_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = lower(c);
  return out;
}

inline bool starts_with_nocase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (lower(text[i]) != lower(prefix[i])) return false;
  return true;
}

inline bool starts_with(std::string_view text, std::string_view prefix) {
  // The first byte first: most lines start with none of the words looked for, and a memcmp
  // call per word and line was a tenth of a large hunk's time.
  return text.size() >= prefix.size() && (prefix.empty() || text[0] == prefix[0]) &&
         text.compare(0, prefix.size(), prefix) == 0;
}

inline bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

/// Lower-cased, underscores removed: "Supported_Major_Versions" -> "supportedmajorversions".
inline std::string squashed(std::string_view id) {
  std::string out;
  for (char c : id)
    if (c != '_') out += lower(c);
  return out;
}

/// Parses a run of 1..3 digits at the start of `s`; std::nullopt when none or too many.
inline std::optional<int> small_int(std::string_view s) {
  if (s.empty() || s.size() > 3 || !std::all_of(s.begin(), s.end(), is_digit)) return std::nullopt;
  int value = 0;
  for (char c : s) value = value * 10 + (c - '0');
  return value;
}

/// Sm numbers not in `a`; in `a` and `b`; in exactly one of them (where a rewritten condition
/// changes its value). Each is evaluated for every sm number 0..kSmUnbounded-1.
ArchTargets complement(const ArchTargets& a);
ArchTargets intersect(const ArchTargets& a, const ArchTargets& b);
ArchTargets symmetric_difference(const ArchTargets& a, const ArchTargets& b);

/// `text` trimmed and cut at 120 bytes (at a UTF-8 character boundary), "..." appended if cut.
std::string evidence_text(std::string_view text);

/// Where a line leaves the lexer: inside a block comment or a triple-quoted string.
struct LexState {
  bool block_comment = false;
  char triple = 0;  ///< '"' or '\'' inside a triple-quoted string, else 0
};

/// What one line of a hunk says, and what the block rules need to know of it.
struct LineScan {
  LineArch arch;
  bool has_code = false;     ///< an identifier or number outside comments and strings
  bool import = false;       ///< import, from ... import, #include
  bool opens_scope = false;  ///< a condition head: ends with ":" or "{", #if, "if (...)" alone
  bool closes = false;       ///< "}", #endif, #else, else, elif, except: ends or turns a scope
  bool guard = false;        ///< starts with if, elif or else if
  bool exits = false;        ///< return, raise, continue, break, throw, goto, pytest.skip, exit,
                             ///< or a one-line guard ending in one ("if (sm != 120) return;")
  /// Words of the code and strings outside what the rules solved: a rewritten line whose
  /// residue is unchanged changed only its architecture conditions. Filled only for lines with
  /// code targets (arch.code), the only ones whose residues are compared.
  std::vector<std::string> residue;
  std::string code;  ///< the line without its comments, trailing white space removed
};

/// Scans one line of a file of `syntax`; `state` carries block comments and triple-quoted
/// strings from line to line (start with a default LexState outside both).
/// `keep_code`: fill LineScan::code for every line; false fills it only for a line with code
/// targets (the caller compares no other line's code: a hunk that only adds, say).
LineScan scan_line(std::string_view line, LineSyntax syntax, LexState& state,
                   bool keep_code = true);
/// The same into `out`, whose buffers (code, residue) are reused: no allocation per line for a
/// caller that scans many.
void scan_line(std::string_view line, LineSyntax syntax, LexState& state, bool keep_code,
               LineScan& out);

/// False when no rule of scan_line() can find a target in `line`: none of the words every
/// rule needs is in it (lower-cased with underscores removed), or each one is in an identifier
/// no rule takes ("smem", "access", "capacity", "search"). Most lines of a large patch.
bool may_name_arch(std::string_view line);

/// arch_in_line() with every rule run, whatever may_name_arch() says of `line`: what the tests
/// compare arch_in_line() with, so that the filter can be shown to hide no target.
LineArch arch_in_line_all_rules(std::string_view line, LineSyntax syntax);

/// What scan_line() gives of a line that names no architecture (see scan_plain_line()).
struct PlainLine {
  bool has_code = false;
  bool import = false;
};

/// For a line in which no rule can find a target: `state` moved past it, has_code and import
/// as scan_line() gives them, and, when `code` is given, LineScan::code into it (its buffer
/// reused), without the rest of scan_line()'s work. std::nullopt, `state` untouched, for a line
/// that may name one (scan_line() then).
std::optional<PlainLine> scan_plain_line(std::string_view line, LineSyntax syntax,
                                         LexState& state, std::string* code);

/// Moves `state` past `line` exactly as scan_line() does, and computes nothing else: for lines
/// whose scan is not needed (the context lines of a hunk that names no architecture). A line
/// that starts outside comments and strings and holds no "/*" (C family) or quote (hash
/// syntax) costs one search.
void lex_line(std::string_view line, LineSyntax syntax, LexState& state);

/// Targets named by a path (csrc/gemm_sm120.cu, attention/hopper/...): sm tokens and family
/// names.
ArchTargets targets_in_path(std::string_view path);

}  // namespace sm120check::arch_scan
