// Inference of a patch's target architectures: the "Arch:" trailer and the rules over added
// lines (see arch.hpp). A small hand-written scanner (no std::regex): sm_XY tokens, comparisons
// of capability expressions against literals, vLLM-style capability calls, and arch lists.
//
// Every comparison is solved by evaluating it for each sm number 0..kSmUnbounded-1, which keeps
// ranges, chained comparisons and != exact without case analysis.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <string>

#include "sm120check/arch.hpp"
#include "sm120check/error.hpp"

namespace sm120check {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_alnum(char c) { return is_digit(c) || is_alpha(c); }
bool is_ident(char c) { return is_alnum(c) || c == '_'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

std::string to_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = lower(c);
  return out;
}

bool starts_with_nocase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (lower(text[i]) != lower(prefix[i])) return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

/// Parses a run of 1..3 digits at the start of `s`; std::nullopt when none or too many.
std::optional<int> small_int(std::string_view s) {
  if (s.empty() || s.size() > 3 || !std::all_of(s.begin(), s.end(), is_digit)) return std::nullopt;
  int value = 0;
  for (char c : s) value = value * 10 + (c - '0');
  return value;
}

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

ArchTargets intersect(const ArchTargets& a, const ArchTargets& b) {
  return solve([&](int sm) {
    ComputeCapability cc = ComputeCapability::from_sm(sm);
    return covers(a, cc) && covers(b, cc);
  });
}

ArchTargets complement(const ArchTargets& a) {
  return solve([&](int sm) { return !covers(a, ComputeCapability::from_sm(sm)); });
}

// ---------------------------------------------------------------------------------------------
// sm_XY / compute_XY tokens

/// sm_120, sm120, SM120, Sm120, sm_120a, sm_100f, sm_12x, compute_120: at a left boundary (not
/// after a letter or digit; "_" is fine: is_sm120_supported) and a right boundary (not before a
/// letter or digit after the optional suffix).
void scan_sm_tokens(std::string_view line, ArchTargets& out) {
  const std::size_t n = line.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && is_alnum(line[i - 1])) continue;
    std::size_t j = 0;
    if (starts_with_nocase(line.substr(i), "compute_")) {
      j = i + 8;
    } else if (i + 1 < n && lower(line[i]) == 's' && lower(line[i + 1]) == 'm') {
      j = i + 2;
      if (j < n && line[j] == '_') ++j;
    } else {
      continue;
    }
    std::size_t d = j;
    while (d < n && is_digit(line[d])) ++d;
    const std::optional<int> value = small_int(line.substr(j, d - j));
    if (!value) continue;
    std::size_t e = d;
    if (e < n && lower(line[e]) == 'x' && d - j <= 2) {  // sm_12x: every 12.y
      if (e + 1 < n && is_alnum(line[e + 1])) continue;
      if (*value >= 2 && *value <= 19) out.add(ArchRange{*value * 10, *value * 10 + 10});
      continue;
    }
    if (d - j < 2) continue;
    if (e < n && (lower(line[e]) == 'a' || lower(line[e]) == 'f')) ++e;
    if (e < n && is_alnum(line[e])) continue;
    if (*value >= 20 && *value < kSmUnbounded) out.add(ArchRange{*value, *value + 1});
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
  kSm,          ///< getSMVersion(), sm: 120 for 12.0
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

/// The last identifier of `expr` (before any trailing call or index groups), lower-cased with
/// underscores removed: "torch.cuda.get_device_capability()[0]" -> "getdevicecapability".
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
  std::string id;
  for (char c : expr.substr(start, end - start))
    if (c != '_') id += lower(c);
  return id;
}

/// The scale of a capability expression, or std::nullopt for anything else.
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
  if (low.back() == ']') return std::nullopt;  // [1] or another index: not a capability
  if (id.size() >= 5 && id.compare(id.size() - 5, 5, "major") == 0 &&
      low.find("version") == std::string::npos)
    return Scale::kMajor;
  if (id == "getsmversion" || id == "smversion" || id == "sm" || id == "smarch" || id == "getsm" ||
      id == "getsmarch")
    return Scale::kSm;
  if (low.find("capab") != std::string::npos || id == "cc" || id == "cap")
    return Scale::kCapability;
  return std::nullopt;
}

/// A literal: an integer, or a tuple "(a, b)" read as the sm number a * 10 + b.
struct Literal {
  int value = 0;
  bool tuple = false;
};

std::optional<Literal> parse_literal(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  if (text.front() == '(' || text.front() == '[') {
    const char close = text.front() == '(' ? ')' : ']';
    if (text.back() != close) return std::nullopt;
    std::string_view inner = text.substr(1, text.size() - 2);
    const std::size_t comma = inner.find(',');
    if (comma == std::string_view::npos) return std::nullopt;
    const std::optional<int> a = small_int(trim(inner.substr(0, comma)));
    const std::optional<int> b = small_int(trim(inner.substr(comma + 1)));
    if (!a || !b || *b > 9 || *a > 19) return std::nullopt;
    return Literal{*a * 10 + *b, true};
  }
  const std::optional<int> v = text.size() <= 4 && std::all_of(text.begin(), text.end(), is_digit)
                                   ? std::optional<int>(std::stoi(std::string(text)))
                                   : std::nullopt;
  if (!v) return std::nullopt;
  return Literal{*v, false};
}

/// Targets where `expr_scale` `op` `lit` holds; empty when the literal does not fit the scale.
ArchTargets solve_comparison(Scale scale, Op op, Literal lit) {
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
  return std::string_view::npos;
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
      if (open == std::string_view::npos) break;
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
  return std::string_view::npos;
}

/// The operand starting at `begin` (white space skipped). Returns [start, end).
std::pair<std::size_t, std::size_t> operand_after(std::string_view s, std::size_t begin) {
  std::size_t k = begin;
  while (k < s.size() && is_space(s[k])) ++k;
  const std::size_t start = k;
  if (k < s.size() && (s[k] == '(' || s[k] == '[' || s[k] == '{')) {
    const std::size_t end = group_end(s, k);
    return {start, end == std::string_view::npos ? start : end};
  }
  while (k < s.size()) {
    const char c = s[k];
    if (is_ident(c) || c == '.') {
      ++k;
    } else if (c == ':' && k + 1 < s.size() && s[k + 1] == ':') {
      k += 2;
    } else if ((c == '(' || c == '[') && k > start) {
      const std::size_t end = group_end(s, k);
      if (end == std::string_view::npos) break;
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

/// Comparisons (==, !=, <, <=, >, >=) and Python membership (in, not in) in `line`.
std::vector<Found> scan_comparisons(std::string_view line) {
  std::vector<Found> found;
  const std::size_t n = line.size();
  for (std::size_t i = 0; i < n; ++i) {
    const char c = line[i];
    const char next = i + 1 < n ? line[i + 1] : '\0';
    const char prev = i > 0 ? line[i - 1] : '\0';
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
               is_space(line[i + 2])) {
      op = Op::kEq;
      membership = true;
    }
    if (!op) continue;
    std::size_t left_end = i;
    if (membership) {
      std::size_t k = i;
      while (k > 0 && is_space(line[k - 1])) --k;
      negated = k >= 3 && line.substr(k - 3, 3) == "not" && (k == 3 || !is_ident(line[k - 4]));
      if (negated) left_end = k - 3;
    }
    const std::size_t left_start = operand_before(line, left_end);
    const std::string_view left = trim(line.substr(left_start, left_end - left_start));
    const auto [right_start, right_end] = operand_after(line, i + len);
    const std::string_view right = line.substr(right_start, right_end - right_start);
    i += len - 1;

    ArchTargets targets;
    if (membership) {
      const std::optional<Scale> scale = classify(left);
      if (!scale || right.empty() || (right.front() != '(' && right.front() != '[')) continue;
      for (std::string_view item : list_items(right))
        if (std::optional<Literal> lit = parse_literal(item))
          targets.add(solve_comparison(*scale, Op::kEq, *lit));
      if (negated && !targets.empty()) targets = complement(targets);
    } else if (std::optional<Scale> scale = classify(left)) {
      if (std::optional<Literal> lit = parse_literal(right))
        targets = solve_comparison(*scale, *op, *lit);
    } else if (std::optional<Scale> rscale = classify(right)) {
      if (std::optional<Literal> lit = parse_literal(left))
        targets = solve_comparison(*rscale, flip(*op), *lit);
    }
    if (targets.empty()) continue;
    found.push_back(Found{left_start, right_end, std::move(targets)});
  }
  return found;
}

/// True when `text` (between two comparisons) joins them with a logical and.
bool joined_by_and(std::string_view text) {
  if (text.find("&&") != std::string_view::npos) return true;
  for (std::size_t k = text.find("and"); k != std::string_view::npos; k = text.find("and", k + 1)) {
    const bool left = k == 0 || !is_ident(text[k - 1]);
    const bool right = k + 3 >= text.size() || !is_ident(text[k + 3]);
    if (left && right) return true;
  }
  return false;
}

/// Unions groups of comparisons; comparisons joined by and (or chained) intersect.
void add_comparisons(std::string_view line, ArchTargets& out) {
  const std::vector<Found> found = scan_comparisons(line);
  std::optional<ArchTargets> group;
  std::size_t prev_end = 0;
  for (const Found& f : found) {
    const bool chained = group && f.start < prev_end;
    const bool anded = group && !chained && f.start >= prev_end &&
                       joined_by_and(line.substr(prev_end, f.start - prev_end));
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
/// (vLLM's platform API), with an int (sm number, or a major below 20) or a tuple.
void scan_capability_calls(std::string_view line, ArchTargets& out) {
  const std::string low = to_lower(line);
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
      const std::size_t end = group_end(line, open);
      if (end == std::string_view::npos) continue;
      std::string_view arg = trim(line.substr(open + 1, end - open - 2));
      const std::size_t comma = arg.find(',');
      // A second argument that is not part of a tuple (device id) is ignored.
      if (!arg.empty() && arg.front() != '(' && comma != std::string_view::npos)
        arg = trim(arg.substr(0, comma));
      std::optional<Literal> lit = parse_literal(arg);
      if (!lit) continue;
      int sm = lit->tuple ? lit->value : (lit->value < 20 ? lit->value * 10 : lit->value);
      if (call.family)
        out.add(ArchRange{sm / 10 * 10, sm / 10 * 10 + 10});
      else
        out.add(solve([&](int s) { return compare(s, call.op, sm); }));
    }
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

/// `text` trimmed and cut at 120 bytes (at a UTF-8 character boundary).
std::string evidence_text(std::string_view text) {
  text = trim(text);
  constexpr std::size_t kMax = 120;
  if (text.size() <= kMax) return std::string(text);
  std::size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0u) == 0x80u) --cut;
  return std::string(text.substr(0, cut)) + "...";
}

/// One trailer item, or empty targets when it does not parse.
ArchTargets trailer_item(std::string_view item) {
  ArchTargets t;
  std::string low = to_lower(item);
  if (low == "any" || low == "all") {
    t.add(ArchRange{0, kSmUnbounded});
    return t;
  }
  if (low.size() > 1 && low.back() == 'x') {  // sm_12x, 12.x, 12x
    std::string_view major = low;
    major.remove_suffix(1);
    if (!major.empty() && major.back() == '.') major.remove_suffix(1);
    if (major.substr(0, 2) == "sm") major.remove_prefix(2);
    if (!major.empty() && major.front() == '_') major.remove_prefix(1);
    std::optional<int> m = small_int(major);
    if (m && *m >= 1 && *m <= 19) t.add(ArchRange{*m * 10, *m * 10 + 10});
    return t;
  }
  const bool and_later = low.back() == '+';
  if (and_later) low.pop_back();
  try {
    const ComputeCapability cc = parse_compute_capability(low);
    t.add(ArchRange{cc.sm(), and_later ? kSmUnbounded : cc.sm() + 1});
  } catch (const Error&) {
    // an unknown item is ignored (documented)
  }
  return t;
}

}  // namespace

ArchTargets targets_in_line(std::string_view line) {
  ArchTargets out;
  scan_sm_tokens(line, out);
  add_comparisons(line, out);
  scan_capability_calls(line, out);
  scan_arch_lists(line, out);
  if (!out.empty()) out.source = ArchSource::kInferred;
  return out;
}

ArchTargets parse_arch_trailer(std::string_view message) {
  std::size_t pos = 0;
  while (pos < message.size()) {
    std::size_t eol = message.find('\n', pos);
    if (eol == std::string_view::npos) eol = message.size();
    const std::string_view line = trim(message.substr(pos, eol - pos));
    pos = eol + 1;
    if (!starts_with_nocase(line, "arch:")) continue;
    ArchTargets t;
    std::string_view rest = line.substr(5);
    std::size_t k = 0;
    while (k < rest.size()) {
      while (k < rest.size() && (is_space(rest[k]) || rest[k] == ',' || rest[k] == ';')) ++k;
      std::size_t e = k;
      while (e < rest.size() && !is_space(rest[e]) && rest[e] != ',' && rest[e] != ';') ++e;
      if (e > k) t.add(trailer_item(rest.substr(k, e - k)));
      k = e;
    }
    if (t.empty()) continue;
    t.source = ArchSource::kTrailer;
    t.evidence = "trailer: " + evidence_text(line);
    return t;
  }
  return {};
}

ArchTargets infer_arch_targets(const Patch& patch, unsigned strip) {
  ArchTargets trailer = parse_arch_trailer(patch.message);
  if (!trailer.empty()) return trailer;
  ArchTargets all;
  for (const FilePatch& file : patch.files) {
    const std::string& raw = file.new_path == "/dev/null" ? file.old_path : file.new_path;
    const std::string path = strip_path(raw, strip).value_or(raw);
    for (const Hunk& hunk : file.hunks) {
      std::vector<std::vector<ArchRange>> removed;
      for (const HunkLine& l : hunk.lines)
        if (l.kind == LineKind::kRemoved) {
          ArchTargets t = targets_in_line(l.text);
          if (!t.empty()) removed.push_back(std::move(t.ranges));
        }
      std::size_t new_line = hunk.new_start;
      for (const HunkLine& l : hunk.lines) {
        if (l.kind == LineKind::kRemoved) continue;
        if (l.kind == LineKind::kAdded) {
          ArchTargets t = targets_in_line(l.text);
          if (!t.empty()) {
            auto same = std::find(removed.begin(), removed.end(), t.ranges);
            if (same != removed.end()) {
              removed.erase(same);  // a rewritten condition, not a new target
            } else {
              if (all.empty())
                all.evidence = fmt::format("{}:{}: {}", path, new_line, evidence_text(l.text));
              all.add(t);
            }
          }
        }
        ++new_line;
      }
    }
  }
  if (!all.empty()) all.source = ArchSource::kInferred;
  return all;
}

}  // namespace sm120check
