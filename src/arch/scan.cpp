// Rules over one line (see scan.hpp and arch.hpp): a small hand-written scanner (no
// std::regex). A lexer splits a line into code, comments and strings; sm_XY tokens and "/" lists
// of them, family names, comparisons of capability expressions against literals, vLLM-style
// capability calls, and capability and arch lists are read from the parts where they count.
//
// Every comparison is solved by evaluating it for each sm number 0..kSmUnbounded-1, which keeps
// ranges, chained comparisons, != and symmetric differences exact without case analysis.
#include "scan.hpp"

#include <array>
#include <functional>

namespace sm120check::arch_scan {
namespace {

/// A half-open byte span of a line.
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
};

/// Every sm number for which `pred` holds, as ranges.
ArchTargets solve(const std::function<bool(int)>& pred) {
  ArchTargets out;
  int start = -1;
  for (int sm = 0; sm <= kSmUnbounded; ++sm) {
    const bool ok = sm < kSmUnbounded && pred(sm);
    if (ok && start < 0) start = sm;
    if (!ok && start >= 0) {
      out.add(ArchRange{start, sm});
      start = -1;
    }
  }
  return out;
}

bool has(const ArchTargets& t, int sm) { return covers(t, ComputeCapability::from_sm(sm)); }

// ---------------------------------------------------------------------------------------------
// Lexer: code, comments and strings

/// A line as three views of its length: code (comments and string contents blanked, quotes
/// kept), string contents, and comment text; whatever a view does not hold is a space.
struct Parts {
  std::string code;
  std::string strings;
  std::string comments;
  /// Where `strings` and `comments` hold the line's bytes (kept in line order): the rest of
  /// them is spaces.
  std::vector<Span> string_spans, comment_spans;
};

/// The first byte at or after `i` that may start a comment or a string in `syntax` (kHash or
/// kCFamily): '#', '/', a quote. `n` when none.
std::size_t next_special(std::string_view line, std::size_t i, LineSyntax syntax) {
  const char comment = syntax == LineSyntax::kHash ? '#' : '/';
  const std::size_t n = line.size();
  while (i < n && line[i] != comment && line[i] != '"' && line[i] != '\'') ++i;
  return i;
}

/// Splits `line` into `p` (its strings reused: no allocation once they are long enough).
void split_line(std::string_view line, LineSyntax syntax, LexState& state, Parts& p) {
  const std::size_t n = line.size();
  p.string_spans.clear();
  p.comment_spans.clear();
  p.strings.assign(n, ' ');
  p.comments.assign(n, ' ');
  if (syntax == LineSyntax::kPlain) {
    p.code.assign(line);
    return;
  }
  p.code.assign(n, ' ');
  if (syntax == LineSyntax::kProse) {
    p.comments.assign(line);
    if (n > 0) p.comment_spans.push_back({0, n});
    return;
  }
  auto put = [&](std::string& view, std::size_t from, std::size_t to) {
    to = std::min(to, n);
    if (from >= to) return;
    std::copy(line.begin() + static_cast<std::ptrdiff_t>(from),
              line.begin() + static_cast<std::ptrdiff_t>(to),
              view.begin() + static_cast<std::ptrdiff_t>(from));
    if (&view == &p.strings) p.string_spans.push_back({from, to});
    if (&view == &p.comments) p.comment_spans.push_back({from, to});
  };
  std::size_t i = 0;
  if (syntax == LineSyntax::kCFamily && !state.block_comment) {
    // A hunk may start inside a block comment: " * text" and " */" lines are comment.
    std::size_t k = 0;
    while (k < n && is_space(line[k])) ++k;
    const std::string_view rest = line.substr(k);
    if (rest == "*" || starts_with(rest, "* ") || starts_with(rest, "*/")) {
      const std::size_t close = line.find("*/");
      i = close == npos ? n : close + 2;
      put(p.comments, 0, i);
    }
  }
  while (i < n) {
    if (state.block_comment) {
      const std::size_t close = line.find("*/", i);
      const std::size_t end = close == npos ? n : close + 2;
      put(p.comments, i, end);
      if (close != npos) state.block_comment = false;
      i = end;
      continue;
    }
    if (state.triple != 0) {
      const char quotes[3] = {state.triple, state.triple, state.triple};
      const std::size_t close = line.find(std::string_view(quotes, 3), i);
      if (close == npos) {
        put(p.strings, i, n);
        return;
      }
      put(p.strings, i, close);
      put(p.code, close, close + 3);
      state.triple = 0;
      i = close + 3;
      continue;
    }
    // Plain code up to the next byte that may open a comment or a string.
    const std::size_t special = next_special(line, i, syntax);
    put(p.code, i, special);
    i = special;
    if (i >= n) break;
    const char c = line[i];
    const char next = i + 1 < n ? line[i + 1] : '\0';
    if ((syntax == LineSyntax::kHash && c == '#') ||
        (syntax == LineSyntax::kCFamily && c == '/' && next == '/')) {
      put(p.comments, i, n);
      return;
    }
    if (syntax == LineSyntax::kCFamily && c == '/' && next == '*') {
      state.block_comment = true;
      put(p.comments, i, i + 2);
      i += 2;
      continue;
    }
    if (c == '"' || c == '\'') {
      if (syntax == LineSyntax::kHash && i + 2 < n && line[i + 1] == c && line[i + 2] == c) {
        put(p.code, i, i + 3);
        state.triple = c;
        i += 3;
        continue;
      }
      if (c == '\'' && syntax == LineSyntax::kCFamily && i > 0 && is_alnum(line[i - 1])) {
        p.code[i] = c;  // a digit separator: 1'000
        ++i;
        continue;
      }
      std::size_t k = i + 1;
      while (k < n && line[k] != c) k += line[k] == '\\' ? 2u : 1u;
      p.code[i] = c;
      put(p.strings, i + 1, std::min(k, n));
      if (k < n) p.code[k] = c;
      i = k < n ? k + 1 : n;
      continue;
    }
    p.code[i] = c;  // a '/' that opens no comment
    ++i;
  }
}

// ---------------------------------------------------------------------------------------------
// sm_XY / compute_XY tokens, "/" lists, family names

/// One sm token (with any "/" list after it) found in a line.
struct SmToken {
  Span span;
  ArchTargets targets;
  bool flag = false;  ///< compute_XY, or sm_XY after "arch=" / "code=": a compile flag
};

/// One item at `j`: "120", "120a", "100f" (the 10.x family from 10.0), "12x", with `dotted`
/// also "8.6" / "12.0" (X.Y). Sets `range`; returns the end, or npos when there is none.
std::size_t parse_sm_item(std::string_view s, std::size_t j, bool dotted, ArchRange& range) {
  const std::size_t n = s.size();
  std::size_t d = j;
  while (d < n && is_digit(s[d])) ++d;
  const std::optional<int> value = small_int(s.substr(j, d - j));
  if (!value) return npos;
  std::size_t e = d;
  if (dotted && d - j <= 2 && d + 1 < n && s[d] == '.' && is_digit(s[d + 1]) &&
      (d + 2 >= n || !is_digit(s[d + 2]))) {
    if (*value < 1 || *value > 19) return npos;
    const int sm = *value * 10 + (s[d + 1] - '0');
    range = ArchRange{sm, sm + 1};
    e = d + 2;
  } else if (d - j <= 2 && d < n && lower(s[d]) == 'x') {
    if (*value < 2 || *value > 19) return npos;
    range = ArchRange{*value * 10, *value * 10 + 10};
    ++e;
    if (e < n && is_alnum(s[e])) return npos;
    return e;
  } else {
    if (d - j < 2 || *value < 20 || *value >= kSmUnbounded) return npos;
    range = ArchRange{*value, *value + 1};
  }
  if (e < n && lower(s[e]) == 'a') {
    ++e;
  } else if (e < n && lower(s[e]) == 'f') {  // family-specific: every later minor of the major
    range.hi = range.lo / 10 * 10 + 10;
    ++e;
  }
  if (e < n && is_alnum(s[e])) return npos;
  return e;
}

/// "+", "_or_later", " or newer", "_family", ... after an item: widens `range`; returns the end.
std::size_t apply_suffix(std::string_view s, std::size_t e, ArchRange& range) {
  const std::size_t n = s.size();
  if (e < n && s[e] == '+' && (e + 1 >= n || s[e + 1] != '+')) {
    range.hi = kSmUnbounded;
    return e + 1;
  }
  static constexpr std::string_view kLater[] = {
      "_or_later",  "_or_newer",  "_or_above",  "_or_higher", "_and_later", "_and_newer",
      "_and_above", "_plus",      " or later",  " or newer",  " or above",  " or higher",
      " and later", " and newer", " and above", " and up"};
  for (std::string_view w : kLater) {
    if (starts_with_nocase(s.substr(e), w) && (e + w.size() >= n || !is_alnum(s[e + w.size()]))) {
      range.hi = kSmUnbounded;
      return e + w.size();
    }
  }
  if (starts_with_nocase(s.substr(e), "_family")) {
    range = ArchRange{range.lo / 10 * 10, range.lo / 10 * 10 + 10};
    return e + 7;
  }
  return e;
}

/// sm_120, sm120, SM120, Sm120, "SM 120", "SM 12.0", sm_120a, sm_100f, sm_12x, compute_120, each
/// at a left boundary (not after a letter or digit; "_" is fine: is_sm120_supported) and a right
/// boundary (not before a letter or digit after the optional suffix); "/" lists after them
/// (SM86/89/120/121, sm_86/sm_89, SM 8.6/8.9/12.0); "pre-SM100" is below 10.0.
void scan_sm_tokens(std::string_view s, std::vector<SmToken>& out) {
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n; ++i) {
    const char first = lower(s[i]);  // "compute_" or "sm": most positions start neither
    if (first != 'c' && first != 's') continue;
    if (i > 0 && is_alnum(s[i - 1])) continue;
    std::size_t j = 0;
    bool compute = false;
    if (starts_with_nocase(s.substr(i), "compute_")) {
      j = i + 8;
      compute = true;
    } else if (i + 1 < n && lower(s[i]) == 's' && lower(s[i + 1]) == 'm') {
      j = i + 2;
      if (j < n && s[j] == '_')
        ++j;
      else if (j + 1 < n && s[j] == ' ' && is_digit(s[j + 1]))
        ++j;
    } else {
      continue;
    }
    ArchRange range;
    std::size_t e = parse_sm_item(s, j, !compute, range);
    if (e == npos) continue;
    e = apply_suffix(s, e, range);
    if (i >= 4 &&
        (starts_with_nocase(s.substr(i - 4), "pre-") ||
         starts_with_nocase(s.substr(i - 4), "pre_")) &&
        (i == 4 || !is_alnum(s[i - 5])))
      range = ArchRange{0, range.lo};
    SmToken token;
    token.targets.add(range);
    const std::string before = to_lower(s.substr(i >= 5 ? i - 5 : 0, i >= 5 ? 5 : i));
    token.flag = compute || ends_with(before, "arch=") || ends_with(before, "code=") ||
                 ends_with(before, "arch ");
    while (e < n && s[e] == '/') {
      std::size_t k = e + 1;
      if (k + 1 < n && lower(s[k]) == 's' && lower(s[k + 1]) == 'm') {
        k += 2;
        if (k < n && (s[k] == '_' || s[k] == ' ')) ++k;
      }
      ArchRange item;
      std::size_t end = parse_sm_item(s, k, true, item);
      if (end == npos) break;
      e = apply_suffix(s, end, item);
      token.targets.add(item);
    }
    token.span = Span{i, e};
    out.push_back(std::move(token));
    i = e - 1;
  }
}

/// Family and product names: Blackwell (10.x to 12.x), Hopper (9.x), RTX 50x0 and RTX PRO 6000
/// (12.0), GB10 and DGX Spark (12.1). Case-insensitive, at word boundaries ("_" and a change to
/// upper case count: is_blackwell, fmha::Hopper, KernelHopper).
void scan_family_names(std::string_view s, ArchTargets& out) {
  struct Family {
    std::string_view name;
    ArchRange range;
  };
  static constexpr Family kFamilies[] = {{"blackwell", {100, 130}},    {"hopper", {90, 100}},
                                         {"rtx pro 6000", {120, 121}}, {"rtx 50", {120, 121}},
                                         {"rtx50", {120, 121}},        {"gb10", {121, 122}},
                                         {"dgx spark", {121, 122}}};
  static constexpr std::array<bool, 256> kFirstLetter = [] {
    std::array<bool, 256> t{};
    for (const Family& f : kFamilies) t[static_cast<unsigned char>(f.name[0])] = true;
    return t;
  }();
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n; ++i) {
    // Only the names' first letters can start one: most positions are passed by one look-up.
    if (!kFirstLetter[static_cast<unsigned char>(lower(s[i]))]) continue;
    const bool left = i == 0 || !is_alnum(s[i - 1]) || (is_upper(s[i]) && is_lower(s[i - 1]));
    if (!left) continue;
    for (const Family& f : kFamilies) {
      if (!starts_with_nocase(s.substr(i), f.name)) continue;
      std::size_t e = i + f.name.size();
      if (starts_with(f.name, "rtx 50") || starts_with(f.name, "rtx50")) {
        if (e + 1 >= n || !is_digit(s[e]) || !is_digit(s[e + 1])) continue;  // RTX 5090
        e += 2;
      }
      if (e < n && (is_lower(s[e]) || (f.name == "gb10" && is_alnum(s[e])))) continue;
      out.add(f.range);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Comparisons

enum class Op { kEq, kNe, kLt, kLe, kGt, kGe };

bool compare(int a, Op op, int b) {
  switch (op) {
    case Op::kEq:
      return a == b;
    case Op::kNe:
      return a != b;
    case Op::kLt:
      return a < b;
    case Op::kLe:
      return a <= b;
    case Op::kGt:
      return a > b;
    case Op::kGe:
      return a >= b;
  }
  return false;
}

/// The operator seen from the other side: 9 <= x is x >= 9.
Op flip(Op op) {
  switch (op) {
    case Op::kLt:
      return Op::kGt;
    case Op::kLe:
      return Op::kGe;
    case Op::kGt:
      return Op::kLt;
    case Op::kGe:
      return Op::kLe;
    default:
      return op;
  }
}

/// How an expression relates to the sm number of the GPU it runs on.
enum class Scale {
  kArch100,     ///< __CUDA_ARCH__: 1200 for 12.0
  kSm,          ///< getSMVersion(), sm, arch: 120 for 12.0
  kMajor,       ///< CUDA_CAPABILITY[0], props.major: 12 for 12.0
  kCapability,  ///< get_device_capability(): compared with tuples (12, 0) or ints as sm (120)
};

int scaled(int sm, Scale scale) {
  switch (scale) {
    case Scale::kArch100:
      return sm * 10;
    case Scale::kMajor:
      return sm / 10;
    default:
      return sm;
  }
}

/// The last identifier of `expr` (before any trailing call or index groups), squashed:
/// "torch.cuda.get_device_capability()[0]" -> "getdevicecapability".
std::string last_identifier(std::string_view expr) {
  std::size_t end = expr.size();
  while (end > 0 && (expr[end - 1] == ')' || expr[end - 1] == ']')) {
    const char close = expr[end - 1];
    const char open = close == ')' ? '(' : '[';
    int depth = 0;
    std::size_t k = end;
    while (k > 0) {
      --k;
      if (expr[k] == close) ++depth;
      if (expr[k] == open && --depth == 0) break;
    }
    end = k;
  }
  std::size_t start = end;
  while (start > 0 && is_ident(expr[start - 1])) --start;
  return squashed(expr.substr(start, end - start));
}

/// The scale of a capability expression, or std::nullopt for anything else. A "major" that
/// belongs to a version (torch.version, __CUDACC_VER_MAJOR__, cuda_major) is no capability.
std::optional<Scale> classify(std::string_view expr) {
  const std::string low = to_lower(expr);
  if (low.empty() || is_digit(low[0])) return std::nullopt;
  if (low.find("__cuda_arch") != std::string::npos) return Scale::kArch100;
  const std::string id = last_identifier(expr);
  const bool index0 = low.size() >= 3 && low.compare(low.size() - 3, 3, "[0]") == 0;
  if (index0) {
    if (low.find("capab") != std::string::npos || id == "cc") return Scale::kMajor;
    return std::nullopt;
  }
  if (low.back() == ']') return std::nullopt;     // [1] or another index: not a capability
  if (low.front() == '(' && low.back() == ')') {  // (major, minor) < (8, 9)
    const std::size_t comma = low.find(',');
    if (comma != std::string::npos &&
        ends_with(trim(std::string_view(low).substr(1, comma - 1)), "major"))
      return Scale::kCapability;
    return std::nullopt;
  }
  if (id.size() >= 5 && id.compare(id.size() - 5, 5, "major") == 0 &&
      low.find("version") == std::string::npos) {
    const std::string owner = id.substr(0, id.size() - 5);
    for (std::string_view word : {"ver", "cuda", "torch", "python", "driver", "runtime", "cudnn",
                                  "nccl", "cublas", "triton", "nvcc", "gcc", "clang", "lib"})
      if (owner.find(word) != std::string::npos) return std::nullopt;
    return Scale::kMajor;
  }
  if (id == "getsmversion" || id == "smversion" || id == "sm" || id == "smarch" || id == "getsm" ||
      id == "getsmarch" || id == "arch" || id == "archnumber" || id == "gpuarch" ||
      id == "devicearch" || id == "getdevicearch" || id == "targetarch")
    return Scale::kSm;
  if (low.find("capab") != std::string::npos || id == "cc" || id == "cap")
    return Scale::kCapability;
  return std::nullopt;
}

/// A literal: an integer, a tuple "(a, b)" or a decimal "a.b" read as the sm number a * 10 + b,
/// or an sm name (Arch.sm_100, SM120, "sm_90a", "100a") read as its sm number.
struct Literal {
  int value = 0;
  bool tuple = false;
  bool sm_name = false;
};

/// "sm_100", "SM120", "sm90a", "100a", "compute_90" (the whole of `text`) as an sm number.
std::optional<int> sm_name_value(std::string_view text) {
  std::string low = to_lower(text);
  std::string_view v = low;
  if (starts_with(v, "compute_")) {
    v.remove_prefix(8);
  } else if (starts_with(v, "sm")) {
    v.remove_prefix(2);
    if (starts_with(v, "_")) v.remove_prefix(1);
  }
  if (!v.empty() && (v.back() == 'a' || v.back() == 'f')) v.remove_suffix(1);
  const std::optional<int> value = small_int(v);
  if (!value || v.size() < 2 || *value < 20 || *value >= kSmUnbounded) return std::nullopt;
  return value;
}

std::optional<Literal> parse_literal(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  if (text.front() == '(' || text.front() == '[') {
    const char close = text.front() == '(' ? ')' : ']';
    if (text.back() != close) return std::nullopt;
    std::string_view inner = text.substr(1, text.size() - 2);
    const std::size_t comma = inner.find(',');
    if (comma == npos) return std::nullopt;
    const std::optional<int> a = small_int(trim(inner.substr(0, comma)));
    const std::optional<int> b = small_int(trim(inner.substr(comma + 1)));
    if (!a || !b || *b > 9 || *a > 19) return std::nullopt;
    return Literal{*a * 10 + *b, true, false};
  }
  if (text.front() == '"' || text.front() == '\'') {
    if (text.size() < 2 || text.back() != text.front()) return std::nullopt;
    if (std::optional<int> sm = sm_name_value(text.substr(1, text.size() - 2)))
      return Literal{*sm, false, true};
    return std::nullopt;
  }
  const std::size_t dot = text.find('.');
  if (dot != npos && dot > 0 && dot + 2 == text.size() && is_digit(text.back())) {
    if (std::optional<int> a = small_int(text.substr(0, dot)); a && *a >= 1 && *a <= 19)
      return Literal{*a * 10 + (text.back() - '0'), true, false};  // 8.9, 12.0
  }
  if (text.size() <= 4 && std::all_of(text.begin(), text.end(), is_digit))
    return Literal{std::stoi(std::string(text)), false, false};
  // Arch.sm_100, cutlass::arch::Sm90, SM120: the last component of a qualified name.
  std::size_t start = text.size();
  while (start > 0 && is_ident(text[start - 1])) --start;
  if (std::optional<int> sm = sm_name_value(text.substr(start))) return Literal{*sm, false, true};
  return std::nullopt;
}

/// Targets where `expr_scale` `op` `lit` holds; empty when the literal does not fit the scale.
ArchTargets solve_comparison(Scale scale, Op op, Literal lit) {
  if (lit.sm_name && scale != Scale::kSm && scale != Scale::kCapability) return {};
  if (lit.tuple && scale != Scale::kCapability) return {};
  if (scale == Scale::kCapability && !lit.tuple && lit.value < 20) return {};
  return solve([&](int sm) { return compare(scaled(sm, scale), op, lit.value); });
}

/// Skips a balanced group backwards from `k` (one past its closing bracket); returns the index
/// of its opening bracket, or npos when unbalanced.
std::size_t group_start(std::string_view s, std::size_t k) {
  const char close = s[k - 1];
  const char open = close == ')' ? '(' : '[';
  int depth = 0;
  while (k > 0) {
    --k;
    if (s[k] == close) ++depth;
    if (s[k] == open && --depth == 0) return k;
  }
  return npos;
}

/// The operand ending just before `end` (white space skipped): identifiers, '.', "::", and
/// balanced call/index groups. Returns its start.
std::size_t operand_before(std::string_view s, std::size_t end) {
  std::size_t k = end;
  while (k > 0 && is_space(s[k - 1])) --k;
  const std::size_t stop = k;
  while (k > 0) {
    const char c = s[k - 1];
    if (c == ')' || c == ']') {
      const std::size_t open = group_start(s, k);
      if (open == npos) break;
      k = open;
    } else if (is_ident(c) || c == '.') {
      --k;
    } else if (c == ':' && k >= 2 && s[k - 2] == ':') {
      k -= 2;
    } else {
      break;
    }
  }
  return k < stop ? k : stop;
}

/// Skips a balanced group forwards from `k` (at its opening bracket); returns one past its
/// closing bracket, or npos when unbalanced.
std::size_t group_end(std::string_view s, std::size_t k) {
  const char open = s[k];
  const char close = open == '(' ? ')' : open == '[' ? ']' : '}';
  int depth = 0;
  for (; k < s.size(); ++k) {
    if (s[k] == open) ++depth;
    if (s[k] == close && --depth == 0) return k + 1;
  }
  return npos;
}

/// The operand starting at `begin` (white space skipped): a bracketed group, a quoted string
/// (in the code view its contents are blank), or identifiers, '.', "::" and call/index groups.
/// Returns [start, end).
std::pair<std::size_t, std::size_t> operand_after(std::string_view s, std::size_t begin) {
  std::size_t k = begin;
  while (k < s.size() && is_space(s[k])) ++k;
  const std::size_t start = k;
  if (k < s.size() && (s[k] == '(' || s[k] == '[' || s[k] == '{')) {
    const std::size_t end = group_end(s, k);
    return {start, end == npos ? start : end};
  }
  if (k < s.size() && (s[k] == '"' || s[k] == '\'')) {
    const std::size_t close = s.find(s[k], k + 1);
    return {start, close == npos ? start : close + 1};
  }
  while (k < s.size()) {
    const char c = s[k];
    if (is_ident(c) || c == '.') {
      ++k;
    } else if (c == ':' && k + 1 < s.size() && s[k + 1] == ':') {
      k += 2;
    } else if ((c == '(' || c == '[') && k > start) {
      const std::size_t end = group_end(s, k);
      if (end == npos) break;
      k = end;
    } else {
      break;
    }
  }
  return {start, k};
}

/// One solved comparison and where its operands lie in the line.
struct Found {
  std::size_t start = 0;  ///< start of the left operand
  std::size_t end = 0;    ///< end of the right operand
  ArchTargets targets;
};

/// Items of a bracketed list "(10, 12)", "[(12, 0), (12, 1)]" split at top-level commas.
std::vector<std::string_view> list_items(std::string_view list) {
  std::vector<std::string_view> items;
  if (list.size() < 2) return items;
  std::string_view inner = list.substr(1, list.size() - 2);
  int depth = 0;
  std::size_t from = 0;
  for (std::size_t k = 0; k <= inner.size(); ++k) {
    if (k == inner.size() || (inner[k] == ',' && depth == 0)) {
      std::string_view item = trim(inner.substr(from, k - from));
      if (!item.empty()) items.push_back(item);
      from = k + 1;
    } else if (inner[k] == '(' || inner[k] == '[') {
      ++depth;
    } else if (inner[k] == ')' || inner[k] == ']') {
      --depth;
    }
  }
  return items;
}

/// True when the other operand of a capability comparison is a value the rules cannot know
/// (a variable or constant), not a string, None or a count of SMs, tiles or threads.
bool unknown_value(std::string_view operand) {
  operand = trim(operand);
  if (operand.empty() || operand.front() == '"' || operand.front() == '\'') return false;
  if (!is_ident(operand.front()) && operand.front() != '(' && operand.front() != '[') return false;
  const std::string id = squashed(operand);
  for (std::string_view word : {"none", "nullptr", "null", "true", "false"})
    if (id == word) return false;
  for (std::string_view word : {"count", "num", "size", "len", "idx", "index", "tile", "block",
                                "grid", "warp", "thread", "iter", "step", "offset", "sms"})
    if (id.find(word) != std::string::npos) return false;
  return true;
}

/// True when `code` before `at` is a for statement's head ("for sm in ...", "for (int sm = 0;").
bool in_for_head(std::string_view code, std::size_t at) {
  const std::string_view head = trim(code.substr(0, at));
  if (starts_with(head, "for ") || starts_with(head, "for(")) return true;
  std::size_t k = head.size();
  while (k > 0 && is_ident(head[k - 1])) --k;
  // ... for sm in sms (a comprehension): "for" right before the loop variable
  std::string_view before = trim(head.substr(0, k));
  return ends_with(before, " for") || before == "for";
}

/// Comparisons (==, !=, <, <=, >, >=) and Python membership (in, not in) in `code` (the code view
/// of `line`); string operands are read from `line`. A capability compared with a value the
/// rules cannot know sets `unsolved` (the first one).
std::vector<Found> scan_comparisons(std::string_view line, std::string_view code,
                                    std::string& unsolved) {
  std::vector<Found> found;
  const std::size_t n = code.size();
  for (std::size_t i = 0; i < n; ++i) {
    const char c = code[i];
    if (c != '=' && c != '!' && c != '<' && c != '>' && c != 'i') continue;  // no operator here
    const char next = i + 1 < n ? code[i + 1] : '\0';
    const char prev = i > 0 ? code[i - 1] : '\0';
    std::optional<Op> op;
    std::size_t len = 2;
    bool membership = false;
    bool negated = false;
    if (c == '=' && next == '=' && prev != '=' && prev != '!' && prev != '<' && prev != '>') {
      op = Op::kEq;
    } else if (c == '!' && next == '=') {
      op = Op::kNe;
    } else if (c == '>' && next == '=' && prev != '>') {
      op = Op::kGe;
    } else if (c == '<' && next == '=' && prev != '<') {
      op = Op::kLe;
    } else if (c == '<' && next != '<' && next != '=' && prev != '<') {
      op = Op::kLt;
      len = 1;
    } else if (c == '>' && next != '>' && next != '=' && prev != '>' && prev != '-' &&
               prev != '=') {
      op = Op::kGt;
      len = 1;
    } else if (c == 'i' && next == 'n' && i > 0 && is_space(prev) && i + 2 < n &&
               is_space(code[i + 2])) {
      op = Op::kEq;
      membership = true;
    }
    if (!op) continue;
    std::size_t left_end = i;
    if (membership) {
      std::size_t k = i;
      while (k > 0 && is_space(code[k - 1])) --k;
      negated = k >= 3 && code.substr(k - 3, 3) == "not" && (k == 3 || !is_ident(code[k - 4]));
      if (negated) left_end = k - 3;
    }
    const std::size_t left_start = operand_before(code, left_end);
    const std::string_view left = trim(line.substr(left_start, left_end - left_start));
    const auto [right_start, right_end] = operand_after(code, i + len);
    const std::string_view right = line.substr(right_start, right_end - right_start);
    i += len - 1;
    const std::string_view whole = line.substr(left_start, right_end - left_start);

    ArchTargets targets;
    bool unknown = false;
    if (membership) {
      const std::optional<Scale> scale = classify(left);
      if (!scale) continue;
      if (!right.empty() && (right.front() == '(' || right.front() == '[')) {
        for (std::string_view item : list_items(right))
          if (std::optional<Literal> lit = parse_literal(item))
            targets.add(solve_comparison(*scale, Op::kEq, *lit));
        if (negated && !targets.empty()) targets = complement(targets);
      } else {
        unknown = unknown_value(right) && !in_for_head(code, left_start);
      }
    } else if (std::optional<Scale> scale = classify(left)) {
      if (std::optional<Literal> lit = parse_literal(right))
        targets = solve_comparison(*scale, *op, *lit);
      else
        unknown = unknown_value(right) && !in_for_head(code, left_start);
    } else if (std::optional<Scale> rscale = classify(right)) {
      if (std::optional<Literal> lit = parse_literal(left))
        targets = solve_comparison(*rscale, flip(*op), *lit);
      else
        unknown = unknown_value(left) && !in_for_head(code, left_start);
    }
    if (unknown && unsolved.empty()) unsolved = std::string(trim(whole));
    if (targets.empty()) continue;
    found.push_back(Found{left_start, right_end, std::move(targets)});
  }
  return found;
}

/// True when `text` (between two comparisons) joins them with a logical and.
bool joined_by_and(std::string_view text) {
  if (text.find("&&") != npos) return true;
  for (std::size_t k = text.find("and"); k != npos; k = text.find("and", k + 1)) {
    const bool left = k == 0 || !is_ident(text[k - 1]);
    const bool right = k + 3 >= text.size() || !is_ident(text[k + 3]);
    if (left && right) return true;
  }
  return false;
}

/// Unions groups of comparisons; comparisons joined by and (or chained) intersect.
void add_comparisons(std::string_view line, std::string_view code, ArchTargets& out,
                     std::vector<Span>& solved, std::string& unsolved) {
  const std::vector<Found> found = scan_comparisons(line, code, unsolved);
  std::optional<ArchTargets> group;
  std::size_t prev_end = 0;
  for (const Found& f : found) {
    solved.push_back(Span{f.start, f.end});
    const bool chained = group && f.start < prev_end;
    const bool anded = group && !chained && f.start >= prev_end &&
                       joined_by_and(code.substr(prev_end, f.start - prev_end));
    if (group && (chained || anded)) {
      group = intersect(*group, f.targets);
    } else {
      if (group) out.add(*group);
      group = f.targets;
    }
    prev_end = f.end;
  }
  if (group) out.add(*group);
}

// ---------------------------------------------------------------------------------------------
// Calls and lists

/// has_device_capability(90), is_device_capability(120), is_device_capability_family(120)
/// (vLLM's platform API), with an int (sm number, or a major below 20) or a tuple; an argument
/// that is none of these (a variable) sets `unsolved`.
void scan_capability_calls(std::string_view line, std::string_view code, ArchTargets& out,
                           std::vector<Span>& solved, std::string& unsolved) {
  const std::string low = to_lower(code);
  struct Call {
    std::string_view name;
    Op op;
    bool family;
  };
  static constexpr Call kCalls[] = {{"is_device_capability_family(", Op::kEq, true},
                                    {"is_device_capability(", Op::kEq, false},
                                    {"has_device_capability(", Op::kGe, false}};
  std::vector<bool> taken(low.size(), false);
  for (const Call& call : kCalls) {
    for (std::size_t k = low.find(call.name); k != std::string::npos;
         k = low.find(call.name, k + 1)) {
      if (taken[k]) continue;
      for (std::size_t t = k; t < k + call.name.size(); ++t) taken[t] = true;
      const std::size_t open = k + call.name.size() - 1;
      const std::size_t end = group_end(code, open);
      if (end == npos) continue;
      std::string_view arg = trim(line.substr(open + 1, end - open - 2));
      const std::size_t comma = arg.find(',');
      // A second argument that is not part of a tuple (device id) is ignored.
      if (!arg.empty() && arg.front() != '(' && comma != npos) arg = trim(arg.substr(0, comma));
      std::optional<Literal> lit = parse_literal(arg);
      if (!lit || lit->sm_name) {
        if (unsolved.empty() && unknown_value(arg))
          unsolved = std::string(trim(line.substr(k, end - k)));
        continue;
      }
      solved.push_back(Span{k, end});
      int sm = lit->tuple ? lit->value : (lit->value < 20 ? lit->value * 10 : lit->value);
      if (call.family)
        out.add(ArchRange{sm / 10 * 10, sm / 10 * 10 + 10});
      else
        out.add(solve([&](int s) { return compare(s, call.op, sm); }));
    }
  }
}

/// Capability lists: an identifier naming capabilities or majors, then "=", ":" or "(", then a
/// bracketed list of ints or tuples: supported_compute_capability([90, 120]),
/// SUPPORTED_SM = (90, 100), supported_major_versions=[10, 12]. Ints below 20 are majors.
void scan_capability_lists(std::string_view line, std::string_view code, ArchTargets& out,
                           std::vector<Span>& solved) {
  const std::size_t n = code.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (!is_ident(code[i]) || (i > 0 && is_ident(code[i - 1]))) continue;
    const std::size_t id_start = i;
    std::size_t e = i;
    while (e < n && is_ident(code[e])) ++e;
    const std::string id = squashed(code.substr(i, e - i));
    const bool majors = id.find("majorversion") != npos || ends_with(id, "majors");
    const bool caps = id.find("computecapabilit") != npos || id.find("supportedsm") != npos ||
                      id.find("smversions") != npos || id.find("supportedarch") != npos ||
                      id.find("supportedcc") != npos;
    const std::size_t after = e;
    i = e - 1;
    if (!majors && !caps) continue;
    std::size_t k = after;
    while (k < n && is_space(code[k])) ++k;
    if (k >= n || (code[k] != '=' && code[k] != ':' && code[k] != '(')) continue;
    if (code[k] == '=' && k + 1 < n && code[k + 1] == '=') continue;
    ++k;
    while (k < n && is_space(code[k])) ++k;
    if (k >= n || (code[k] != '[' && code[k] != '(' && code[k] != '{')) continue;
    const std::size_t end = group_end(code, k);
    if (end == npos) continue;
    ArchTargets t;
    for (std::string_view item : list_items(line.substr(k, end - k))) {
      std::optional<Literal> lit = parse_literal(item);
      if (!lit) continue;
      if (lit->tuple || lit->sm_name || lit->value >= 20) {
        if (lit->value < kSmUnbounded) t.add(ArchRange{lit->value, lit->value + 1});
      } else {
        t.add(ArchRange{lit->value * 10, lit->value * 10 + 10});
      }
    }
    if (t.empty()) continue;
    out.add(t);
    solved.push_back(Span{id_start, end});
    i = end - 1;
  }
}

/// CMake and PyTorch architecture lists: after CUDA_ARCHITECTURES, CUDA_ARCHS, *ARCH_LIST
/// (any case), every number "120", "120a", "90-real", "12.0", "9.0a", "12.0+PTX".
void scan_arch_lists(std::string_view line, ArchTargets& out) {
  const std::string low = to_lower(line);
  std::size_t at = std::string::npos;
  for (std::string_view key : {"cuda_architectures", "cuda_archs", "arch_list"})
    at = std::min(at, low.find(key));
  if (at == std::string::npos) return;
  const std::size_t n = line.size();
  for (std::size_t i = at; i < n; ++i) {
    if (!is_digit(line[i]) || (i > 0 && (is_ident(line[i - 1]) || line[i - 1] == '.'))) continue;
    std::size_t j = i;
    while (j < n && is_digit(line[j])) ++j;
    std::optional<int> first = small_int(line.substr(i, j - i));
    int sm = -1;
    if (j + 1 < n && line[j] == '.' && is_digit(line[j + 1])) {
      if (first && *first >= 1 && *first <= 19 && (j + 2 >= n || !is_digit(line[j + 2])))
        sm = *first * 10 + (line[j + 1] - '0');
      j += 2;
      while (j < n && is_digit(line[j])) ++j;
    } else if (first && j - i >= 2 && *first >= 20 && *first < kSmUnbounded) {
      sm = *first;
    }
    if (j < n && (lower(line[j]) == 'a' || lower(line[j]) == 'f')) ++j;
    const bool bounded = j >= n || !is_alnum(line[j]);
    if (sm >= 0 && bounded) out.add(ArchRange{sm, sm + 1});
    i = j;
  }
}

// ---------------------------------------------------------------------------------------------
// One line

bool overlaps(const Span& a, const std::vector<Span>& spans) {
  return std::any_of(spans.begin(), spans.end(),
                     [&](const Span& s) { return a.begin < s.end && s.begin < a.end; });
}

/// The rules over one line (scan_line()'s targets): comparisons, capability calls and lists in
/// the code, sm tokens in code and text, architecture lists, prose comparisons, family names.
/// Adds what they find to out.arch and the spans they solved to `solved`.
void scan_targets(std::string_view line, LineSyntax syntax, const Parts& parts,
                  const std::string& code_strings, const std::string& text, LineScan& out,
                  std::vector<Span>& solved) {
  const std::string& code = parts.code;
  ArchTargets& code_targets = out.import ? out.arch.text : out.arch.code;
  if (syntax != LineSyntax::kProse && !out.import) {
    add_comparisons(line, code, code_targets, solved, out.arch.unsolved);
    scan_capability_calls(line, code, code_targets, solved, out.arch.unsolved);
    scan_capability_lists(line, code, code_targets, solved);
  }
  std::vector<SmToken> tokens;
  scan_sm_tokens(code, tokens);
  for (const SmToken& t : tokens) {
    if (overlaps(t.span, solved)) continue;  // an operand of a solved comparison
    // Code names an architecture in identifiers (is_sm120_supported, Sm100_Config, arch::Sm90,
    // utils.sm100.f) or flags; a bare word ("kernel for SM100.") is prose, as in a docstring
    // whose opening quotes lie before the hunk.
    const char before = t.span.begin > 0 ? code[t.span.begin - 1] : ' ';
    const char after = t.span.end < code.size() ? code[t.span.end] : ' ';
    const bool attached = before == '_' || before == '.' || before == ':' || before == '@' ||
                          after == '_' || after == '.' || after == ':' || after == '(' ||
                          after == '<' || after == '[';
    (attached || t.flag ? code_targets : out.arch.text).add(t.targets);
    solved.push_back(t.span);
  }
  tokens.clear();
  scan_sm_tokens(text, tokens);
  for (const SmToken& t : tokens) {
    const bool in_string = parts.strings[t.span.begin] != ' ';
    (t.flag && in_string ? code_targets : out.arch.text).add(t.targets);
  }
  scan_arch_lists(code_strings, code_targets);
  scan_arch_lists(parts.comments, out.arch.text);
  if (text.find_first_not_of(' ') != npos) {  // "requires CUDA_CAPABILITY[0] >= 9" in prose
    std::vector<Span> ignored;
    std::string unknown;
    add_comparisons(line, text, out.arch.text, ignored, unknown);
  }
  scan_family_names(line, out.arch.text);
}

}  // namespace

ArchTargets intersect(const ArchTargets& a, const ArchTargets& b) {
  return solve([&](int sm) { return has(a, sm) && has(b, sm); });
}

ArchTargets complement(const ArchTargets& a) {
  return solve([&](int sm) { return !has(a, sm); });
}

ArchTargets symmetric_difference(const ArchTargets& a, const ArchTargets& b) {
  return solve([&](int sm) { return has(a, sm) != has(b, sm); });
}

std::string evidence_text(std::string_view text) {
  text = trim(text);
  constexpr std::size_t kMax = 120;
  if (text.size() <= kMax) return std::string(text);
  std::size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0u) == 0x80u) --cut;
  return std::string(text.substr(0, cut)) + "...";
}

namespace {

/// Whether the identifier `id` (a maximal run of letters, digits and underscores of a line)
/// can be where a rule of scan_targets() finds something, from its squashed form (lower case,
/// no underscores) and its own bytes:
/// - classify()'s capability expressions end in an identifier equal to one of kExact, or hold
///   "capab", "__cuda_arch" (squashed "cudaarch") or an identifier ending in "major";
/// - capability calls (is_device_capability...) hold "capab"; capability lists' names hold
///   "major", "capab", "supportedsm", "smversions", "supportedarch" or "supportedcc";
///   architecture lists' keys "cuda_architectures", "cuda_archs", "arch_list";
/// - family names are or hold "hopper", "blackwell", "rtx", "gb10", "dgx" (at word edges);
/// - an sm token starts with "sm" (any case, bytes together) then '_' or nothing then a digit,
///   or "sm" ends the identifier and a space and a digit follow ("SM 120"): `next` is the
///   byte after the identifier and `after` the one after that ('\0' past the line's end).
/// True also for identifiers that turn out to name nothing: this only tells the many that
/// cannot ("smem", "access", "capacity", "search") from the rest.
bool identifier_may_name_arch(std::string_view id, char next, char after) {
  for (std::size_t i = 0; i + 1 < id.size(); ++i) {
    if (lower(id[i]) != 's' || lower(id[i + 1]) != 'm') continue;
    const std::size_t d = i + 2 < id.size() && id[i + 2] == '_' ? i + 3 : i + 2;
    if (d < id.size() ? is_digit(id[d]) : (d == i + 2 && next == ' ' && is_digit(after)))
      return true;
  }
  char buffer[64];
  std::size_t n = 0;
  for (char c : id) {
    if (c == '_') continue;
    if (n == sizeof buffer) return true;  // longer than any name of the rules: let them look
    buffer[n++] = lower(c);
  }
  const std::string_view squashed(buffer, n);
  static constexpr std::string_view kExact[] = {
      "sm",         "getsm",   "smversion",  "getsmversion",  "smarch",     "getsmarch", "arch",
      "archnumber", "gpuarch", "devicearch", "getdevicearch", "targetarch", "cc",        "cap"};
  for (std::string_view w : kExact)
    if (squashed == w) return true;
  static constexpr std::string_view kWithin[] = {
      "major",         "capab",    "supportedsm", "smversions", "supportedcc",
      "supportedarch", "cudaarch", "archlist",    "hopper",     "blackwell",
      "rtx",           "gb10",     "dgx"};
  for (std::string_view w : kWithin)
    if (squashed.find(w) != npos) return true;
  return false;
}

}  // namespace

// Every rule needs one of these words in the line lower-cased with underscores removed (sm
// tokens "sm", or "compute_" with its underscore, family names, comparisons and calls and lists
// through classify()'s and the list rules' identifiers "cc", "cap", "arch", "major", "sm"; arch
// lists "arch"). Blanking comments or strings never makes a word, so a line without any of
// them has no targets. Most lines of a large patch have none: this keeps the rules' cost to
// the few that do. A word is always inside one identifier (all its bytes are letters or
// digits, underscores skipped; "dgx spark" aside), and the identifier is then checked for what
// the rules need of it (identifier_may_name_arch()): in CUDA and Triton code most words are
// parts of "smem", "access", "capacity", "search", which name nothing.
bool may_name_arch(std::string_view line) {
  // One pass over the line lower-cased with underscores skipped (bytes past ASCII as 0: no word
  // has them): each pair of adjacent bytes is looked up in a table of the words' first two (no
  // two words share them), and the word compared in full only there.
  static constexpr std::string_view kWords[] = {"sm",     "cc",  "cap",  "arch",      "major",
                                                "hopper", "rtx", "gb10", "blackwell", "dgx spark"};
  static const std::array<unsigned char, 128 * 128> kWordAt = [] {  // 1 + index; 0: none
    std::array<unsigned char, 128 * 128> t{};
    for (std::size_t w = 0; w < std::size(kWords); ++w)
      t[static_cast<std::size_t>(kWords[w][0]) * 128 + static_cast<std::size_t>(kWords[w][1])] =
          static_cast<unsigned char>(w + 1);
    return t;
  }();
  static const std::array<unsigned char, 256> kLower = [] {
    std::array<unsigned char, 256> t{};
    for (int c = 0; c < 128; ++c)
      t[static_cast<std::size_t>(c)] = static_cast<unsigned char>(lower(static_cast<char>(c)));
    return t;
  }();
  // Whether `word` starts at line[at], lower-cased, underscores skipped.
  const auto word_at = [&](std::size_t at, std::string_view word) {
    std::size_t k = 0;
    for (std::size_t i = at; i < line.size() && k < word.size(); ++i) {
      if (line[i] == '_') continue;
      if (lower(line[i]) != word[k]) return false;
      ++k;
    }
    return k == word.size();
  };
  const std::size_t n = line.size();
  bool underscore = false;
  unsigned previous = 0;  // the last byte that is no underscore, lower-cased
  std::size_t previous_at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c == '_') {
      underscore = true;
      continue;
    }
    const unsigned l = kLower[c];
    const unsigned w = kWordAt[previous * 128u + l];
    if (w != 0 && word_at(previous_at, kWords[w - 1])) {
      if (kWords[w - 1] == "dgx spark") return true;
      // The identifier holding the word: told once for all the words in it.
      std::size_t begin = previous_at, end = previous_at;
      while (begin > 0 && is_ident(line[begin - 1])) --begin;
      while (end < n && is_ident(line[end])) ++end;
      if (identifier_may_name_arch(line.substr(begin, end - begin), end < n ? line[end] : '\0',
                                   end + 1 < n ? line[end + 1] : '\0'))
        return true;
      if (line.substr(begin, end - begin).find('_') != npos) underscore = true;
      i = end;  // past the identifier: no word starts in it or spans its end
      previous = end < n ? kLower[static_cast<unsigned char>(line[end])] : 0;
      previous_at = end;
      continue;
    }
    previous = l;
    previous_at = i;
  }
  // "compute_120": the sm-token rule needs the underscore.
  if (!underscore) return false;
  for (std::size_t at = line.find('_'); at != npos; at = line.find('_', at + 1))
    if (at >= 7 && starts_with_nocase(line.substr(at - 7), "compute_")) return true;
  return false;
}

namespace {

/// Whether `head` (a line's code, trimmed) imports: import, from ... import, #include, #import.
bool is_import(std::string_view head) {
  return starts_with(head, "import ") ||
         (starts_with(head, "from ") && head.find(" import ") != npos) ||
         starts_with(head, "#include") || starts_with(head, "#import");
}

/// `text` without its trailing white space, into `out`.
void assign_trimmed(std::string& out, std::string_view text) {
  std::size_t end = text.size();
  while (end > 0 && is_space(text[end - 1])) --end;
  out.assign(text.substr(0, end));
}

/// For a line that starts outside comments and strings and holds no string and no block
/// comment: where its code ends (a comment, or nothing, follows), which split_line() would find
/// leaving `state` as it is. std::nullopt for any other line.
std::optional<std::size_t> simple_code_end(std::string_view line, LineSyntax syntax,
                                           const LexState& state) {
  if (state.block_comment || state.triple != 0) return std::nullopt;
  if (syntax == LineSyntax::kPlain) return line.size();
  if (syntax == LineSyntax::kProse) return 0;
  if (std::any_of(line.begin(), line.end(), [](char c) { return c == '"' || c == '\''; }))
    return std::nullopt;
  if (syntax == LineSyntax::kHash) return std::min(line.find('#'), line.size());
  // C family: no block comment, and not a " * " line (a hunk may start inside one).
  const std::size_t first = line.find_first_not_of(" \t\r\n");
  if (line.find("/*") != npos || (first != npos && line[first] == '*')) return std::nullopt;
  return std::min(line.find("//"), line.size());
}

}  // namespace

std::optional<PlainLine> scan_plain_line(std::string_view line, LineSyntax syntax, LexState& state,
                                         std::string* code) {
  if (may_name_arch(line)) return std::nullopt;
  if (const std::optional<std::size_t> end = simple_code_end(line, syntax, state)) {
    // The code is the line up to `end`, then a comment: no views to build.
    const std::string_view part = line.substr(0, *end);
    PlainLine out;
    out.import = is_import(trim(part));
    out.has_code = std::any_of(part.begin(), part.end(), is_alnum);
    if (code != nullptr) assign_trimmed(*code, part);
    return out;
  }
  thread_local Parts parts;
  split_line(line, syntax, state, parts);
  PlainLine out;
  out.import = is_import(trim(parts.code));
  out.has_code = std::any_of(parts.code.begin(), parts.code.end(), is_alnum);
  if (code != nullptr) {
    thread_local std::string code_strings;  // the code with the strings' contents
    code_strings = parts.code;
    for (const Span& sp : parts.string_spans)
      line.substr(sp.begin, sp.end - sp.begin)
          .copy(code_strings.data() + sp.begin, sp.end - sp.begin);
    assign_trimmed(*code, code_strings);
  }
  return out;
}

void lex_line(std::string_view line, LineSyntax syntax, LexState& state) {
  if (syntax == LineSyntax::kPlain || syntax == LineSyntax::kProse) return;  // no state
  if (!state.block_comment && state.triple == 0) {
    // From outside comments and strings only a "/*" (C family) or a quote (hash syntax: a
    // triple-quoted string) can leave the line inside one.
    const bool may_open =
        syntax == LineSyntax::kHash
            ? std::any_of(line.begin(), line.end(), [](char c) { return c == '"' || c == '\''; })
            : line.find("/*") != npos;
    if (!may_open) return;
  }
  thread_local Parts scratch;
  split_line(line, syntax, state, scratch);
}

LineScan scan_line(std::string_view line, LineSyntax syntax, LexState& state, bool keep_code) {
  LineScan out;
  scan_line(line, syntax, state, keep_code, out);
  return out;
}

namespace {

/// scan_line(); `all_rules`: every rule runs, even on a line may_name_arch() passes over (for
/// arch_in_line_all_rules()).
void scan_line(std::string_view line, LineSyntax syntax, LexState& state, bool keep_code,
               LineScan& out, bool all_rules) {
  {  // everything reset, the buffers kept
    std::string code = std::move(out.code);
    std::vector<std::string> residue = std::move(out.residue);
    out = LineScan{};
    code.clear();
    residue.clear();
    out.code = std::move(code);
    out.residue = std::move(residue);
  }
  // Scratch reused from line to line: a large patch scans millions of lines.
  thread_local Parts parts;
  thread_local std::string code_strings, text;
  split_line(line, syntax, state, parts);
  const std::string& code = parts.code;
  // The line with comments blanked (code_strings) and its comments and strings (text): built
  // only for the rules, the kept code and the residue, which most lines need none of.
  bool merged = false;
  const auto merge = [&] {
    if (merged) return;
    merged = true;
    code_strings = code;
    text.assign(line.size(), ' ');
    // Strings and comments are blank in the code: their spans are copied whole.
    for (const Span& sp : parts.string_spans) {
      line.substr(sp.begin, sp.end - sp.begin)
          .copy(code_strings.data() + sp.begin, sp.end - sp.begin);
      line.substr(sp.begin, sp.end - sp.begin).copy(text.data() + sp.begin, sp.end - sp.begin);
    }
    for (const Span& sp : parts.comment_spans)
      line.substr(sp.begin, sp.end - sp.begin).copy(text.data() + sp.begin, sp.end - sp.begin);
  };
  const std::string_view head = trim(code);
  out.import = is_import(head);
  out.has_code = std::any_of(code.begin(), code.end(), is_alnum);

  std::vector<Span> solved;
  if (all_rules || may_name_arch(line)) {
    merge();
    scan_targets(line, syntax, parts, code_strings, text, out, solved);
  }
  if (!out.arch.code.empty()) out.arch.code.source = ArchSource::kInferred;
  if (!out.arch.text.empty()) out.arch.text.source = ArchSource::kInferred;

  const bool hash = syntax == LineSyntax::kHash || syntax == LineSyntax::kPlain;
  const bool cfam = syntax == LineSyntax::kCFamily || syntax == LineSyntax::kPlain;
  const bool c_if = starts_with(head, "if") || head.find("else if") != npos;
  out.opens_scope =
      (hash && ends_with(head, ":")) ||
      (cfam && (ends_with(head, "{") || starts_with(head, "#if") || starts_with(head, "#elif") ||
                (c_if && !ends_with(head, ";") && !ends_with(head, "}"))));
  static constexpr std::string_view kCloses[] = {"}",    ")",    "#endif", "#else",  "#elif",
                                                 "else", "elif", "except", "finally"};
  for (std::string_view w : kCloses)
    if (starts_with(head, w)) out.closes = true;

  std::string_view stmt = head;
  while (!stmt.empty() && (stmt.front() == '}' || is_space(stmt.front()))) stmt.remove_prefix(1);
  const auto word_at = [](std::string_view s, std::string_view word) {
    return starts_with(s, word) && (s.size() == word.size() || !is_ident(s[word.size()]));
  };
  out.guard = word_at(stmt, "if") || word_at(stmt, "elif") || starts_with(stmt, "else if");
  static constexpr std::string_view kExits[] = {"return", "raise", "continue", "break",
                                                "throw",  "goto",  "co_return"};
  for (std::string_view w : kExits)
    if (word_at(stmt, w)) out.exits = true;
  static constexpr std::string_view kExitCalls[] = {"pytest.skip", "sys.exit", "exit(", "abort(",
                                                    "std::abort("};
  for (std::string_view w : kExitCalls)
    if (starts_with(stmt, w)) out.exits = true;

  if (keep_code || !out.arch.code.empty()) {
    merge();
    assign_trimmed(out.code, code_strings);
  }
  // The residue is compared only between lines with code targets, and the words only tell a
  // guard's exit otherwise: most lines need neither.
  const bool want_residue = !out.arch.code.empty();
  if (!want_residue && !out.guard) return;
  merge();
  std::string rest = code_strings;
  for (const Span& s : solved)
    for (std::size_t k = s.begin; k < s.end && k < rest.size(); ++k) rest[k] = ' ';
  // Words and operators; "if"/"elif"/"else" (a rewritten "if" -> "elif") and the and/or that
  // joined solved comparisons are left out, "not" and "!" are kept.
  static constexpr std::string_view kDropped[] = {"if", "elif",    "else",  "and",   "or",     "&&",
                                                  "||", "defined", "endif", "ifdef", "ifndef", "#"};
  static constexpr std::string_view kOperators = "!<>=+-*/%&|^~?#";
  for (std::size_t k = 0; k < rest.size();) {
    std::size_t e = k;
    if (is_ident(rest[k])) {
      while (e < rest.size() && is_ident(rest[e])) ++e;
    } else if (kOperators.find(rest[k]) != npos) {
      while (e < rest.size() && kOperators.find(rest[e]) != npos) ++e;
    } else {
      ++k;
      continue;
    }
    const std::string_view word = std::string_view(rest).substr(k, e - k);
    if (want_residue &&
        std::find(std::begin(kDropped), std::end(kDropped), word) == std::end(kDropped))
      out.residue.emplace_back(word);
    if (out.guard && std::find(std::begin(kExits), std::end(kExits), word) != std::end(kExits))
      out.exits = true;  // if (sm != 120) return; / if cc[0] != 12: return config
    k = e;
  }
}

}  // namespace

void scan_line(std::string_view line, LineSyntax syntax, LexState& state, bool keep_code,
               LineScan& out) {
  scan_line(line, syntax, state, keep_code, out, false);
}

LineArch arch_in_line_all_rules(std::string_view line, LineSyntax syntax) {
  LexState state;
  LineScan out;
  scan_line(line, syntax, state, true, out, true);
  return out.arch;
}

/// Path tokens and family names (csrc/gemm_sm120.cu, attention/hopper/...).
ArchTargets targets_in_path(std::string_view path) {
  ArchTargets t;
  std::vector<SmToken> tokens;
  scan_sm_tokens(path, tokens);
  for (const SmToken& token : tokens) t.add(token.targets);
  scan_family_names(path, t);
  return t;
}

}  // namespace sm120check::arch_scan

namespace sm120check {

using namespace arch_scan;

LineSyntax syntax_for_path(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string name = to_lower(slash == npos ? path : path.substr(slash + 1));
  for (std::string_view hash_name : {"cmakelists.txt", "makefile", "dockerfile", "build",
                                     "build.bazel", "workspace", ".gitignore"})
    if (name == hash_name) return LineSyntax::kHash;
  if (starts_with(name, "dockerfile")) return LineSyntax::kHash;
  const std::size_t dot = name.rfind('.');
  if (dot == npos) return LineSyntax::kProse;
  const std::string_view ext = std::string_view(name).substr(dot + 1);
  for (std::string_view e : {"py", "pyi", "pyx", "pxd", "cmake", "sh", "bash", "zsh", "yaml", "yml",
                             "toml", "cfg", "mk", "bzl", "bazel"})
    if (ext == e) return LineSyntax::kHash;
  for (std::string_view e :
       {"c",   "cc",  "cpp", "cxx",   "h",     "hh",    "hpp", "hxx", "cu",   "cuh", "inl",
        "inc", "ipp", "tpp", "cuinl", "jinja", "proto", "go",  "rs",  "java", "js",  "ts"})
    if (ext == e) return LineSyntax::kCFamily;
  return LineSyntax::kProse;
}

LineArch arch_in_line(std::string_view line, LineSyntax syntax) {
  LexState state;
  return scan_line(line, syntax, state).arch;
}

ArchTargets targets_in_line(std::string_view line) {
  LineArch arch = arch_in_line(line, LineSyntax::kPlain);
  arch.code.add(arch.text);
  arch.code.source = arch.code.empty() ? ArchSource::kNone : ArchSource::kInferred;
  return arch.code;
}

}  // namespace sm120check
