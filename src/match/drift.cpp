// Presence under drift (see drift.hpp and match_hunks(), "Drift").
//
// A later tree often holds a fix while the code around it has moved on: the hunk's context no
// longer matches, so neither image does. The change itself is then looked for: the hunk's
// changed block (its post-image without the edge context: the added lines, with any context
// between them) as one block, and around each place it stands, how many of the hunk's context
// lines still stand nearby (a longest common subsequence over a window a few lines wider than
// the context). The same is done for the block the hunk removes (or, for a pure addition, the
// place where its leading and trailing context meet): a place that holds the old code at least
// as convincingly means the fix is not there. Nothing is guessed: equal placements are
// ambiguous, and blocks without an informative line prove nothing.
#include "drift.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <iterator>
#include <optional>
#include <string_view>
#include <unordered_set>

namespace sm120check::detail {
namespace {

/// Largest pre-image (lines) whose every placement overlapping a found block is tried by
/// Drift::context_shadow() (a bound on its cost: placements x lines).
constexpr std::size_t kShadowScan = 64;
/// Context lines compared on each side of a placement, nearest first.
constexpr std::size_t kMaxContextConsidered = 32;
/// Letters and digits in its informative lines that make a block strong enough to stand alone
/// (found once in the file, with no context around it).
constexpr std::size_t kStrongAlnum = 24;
/// Occurrences of a block's rarest line tried one by one; beyond, a window index is used.
constexpr std::size_t kScanLimit = 256;
/// Informative lines that make a block found once outweigh where its context meets.
constexpr std::size_t kVeryStrongLines = 3;

/// ASCII letters and digits in `s` (std::isalnum in the "C" locale, which the program keeps,
/// without its call per byte).
std::size_t alnum_count(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u >= '0' && u <= '9') || ((u | 0x20) >= 'a' && (u | 0x20) <= 'z');
  }));
}

/// How well a placement's surroundings agree with the hunk's context: context lines found,
/// informative ones first.
struct Score {
  std::size_t info = 0;
  bool section = false;  ///< the nearest header line above is the hunk's section
  std::size_t total = 0;
  /// Under the hunk's section first (the function the hunk names is where it belongs), then
  /// informative context lines, then all context lines.
  friend bool operator<(const Score& a, const Score& b) {
    if (a.section != b.section) return b.section;
    if (a.info != b.info) return a.info < b.info;
    return a.total < b.total;
  }
};

/// Lines scanned upwards from a placement for its section's header line.
constexpr std::size_t kSectionScan = std::size_t{1} << 20;

/// `s` without leading and trailing white space.
std::string_view trim_space(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

bool under_section(const FileText& file, std::string_view section_text, std::size_t pos,
                   std::size_t leading) {
  return nearest_header_is(file, section_text, pos) ||
         (leading > 0 && nearest_header_is(file, section_text, pos + leading));
}

namespace {

/// Bytes of a trimmed line that key SectionIndex::by_key.
constexpr std::size_t kSectionKey = 16;
/// Section texts whose line lists a SectionIndex keeps.
constexpr std::size_t kMaxSections = 256;

bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool def_line(std::string_view trimmed) {
  return starts(trimmed, "def ") || starts(trimmed, "class ") || starts(trimmed, "async def ");
}
bool default_header(std::string_view line) {
  return !line.empty() &&
         (std::isalpha(static_cast<unsigned char>(line.front())) != 0 || line.front() == '_' ||
          line.front() == '$');
}

/// Columns of `line`'s leading white space (a tab to the next multiple of 8).
std::size_t indentation(std::string_view line) {
  std::size_t col = 0;
  for (const char c : line) {
    if (c == ' ') {
      ++col;
    } else if (c == '\t') {
      col = (col / 8 + 1) * 8;
    } else {
      break;
    }
  }
  return col;
}

bool name_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) != 0 || c == '_' || c == ':' || c == '~';
}

/// Updates `open` (the quote character of the triple-quoted string `line` starts in, 0 when
/// none) across `line`: the state the next line starts in.
void track_triple_quotes(std::string_view line, char& open) {
  for (std::size_t k = line.find_first_of("\"'#"); k != std::string_view::npos;
       k = line.find_first_of("\"'#", k)) {
    const char q = line[k];
    if (q == '#') {  // a comment, outside a string, ends the line's code
      if (open == 0) return;
      ++k;
    } else if (k + 2 < line.size() && line[k + 1] == q && line[k + 2] == q) {
      if (open == 0) {
        open = q;
      } else if (open == q) {
        open = 0;
      }
      k += 3;
    } else {
      ++k;
    }
  }
}

}  // namespace

std::string_view definition_name(std::string_view text) {
  const std::string_view t = trim_space(text);
  if (def_line(t)) {
    // "def decode(self):" -> "def decode": the keyword tells a function from a class.
    std::size_t k = t.find(' ');
    if (starts(t, "async ")) k = t.find(' ', k + 1);
    while (k < t.size() && (t[k] == ' ' || t[k] == '\t')) ++k;
    std::size_t e = k;
    while (e < t.size() && (std::isalnum(static_cast<unsigned char>(t[e])) != 0 || t[e] == '_'))
      ++e;
    return e == k ? std::string_view() : t.substr(0, e);
  }
  if (!definition_line(t)) return {};
  // C-like: the identifier before the first "(" that is no attribute (`__launch_bounds__(256)`),
  // after a return type or qualifier (or a qualified name: `Runner::Runner(`); a bare call at
  // column 0 (`setup(`, `torch.ops.load(`) names nothing.
  std::size_t paren = t.find('(');
  for (int attributes = 0; paren != std::string_view::npos && attributes < 4; ++attributes) {
    std::size_t e = paren;
    while (e > 0 && t[e - 1] == ' ') --e;
    std::size_t b = e;
    while (b > 0 && name_char(t[b - 1])) --b;
    const std::string_view name = t.substr(b, e - b);
    if (name == "__launch_bounds__" || name == "__attribute__" || name == "__declspec" ||
        name == "alignas") {
      const std::size_t close = t.find(')', paren);
      paren = close == std::string_view::npos ? close : t.find('(', close);
      continue;
    }
    if (name.empty()) return {};
    const std::string_view before = trim_space(t.substr(0, b));
    const bool typed = !before.empty() && (before.back() == '*' || before.back() == '&' ||
                                           before.back() == '>' || b > before.size());
    if (!typed && name.find("::") == std::string_view::npos) return {};
    return name;
  }
  return {};
}

namespace {

/// `file`'s section index, built on first use: one pass over its lines.
const SectionIndex& section_index(const FileText& file) {
  SectionIndex& index = match_cache(file).sections;
  if (index.built) return index;
  index.in_string.reserve(file.size());
  char open = 0;
  for (std::size_t i = 0; i < file.size(); ++i) {
    const std::string_view line = file.line(i);
    const std::string_view trimmed = trim_space(line);
    const auto at = static_cast<std::uint32_t>(i);
    const bool text = open != 0;  // inside a triple-quoted string: no header of ours
    index.in_string.push_back(text);
    track_triple_quotes(line, open);
    const bool by_default = default_header(line), by_python = !text && def_line(trimmed);
    if (by_default) index.headers[0].push_back(at);
    if (by_python) index.headers[1].push_back(at);
    if (!text && (by_default || by_python)) {
      index.headers[2].push_back(at);
      const std::string_view name = definition_name(trimmed);
      if (!name.empty()) index.by_name[name].push_back(at);
    }
    if (!trimmed.empty()) index.by_key[trimmed.substr(0, kSectionKey)].push_back(at);
  }
  index.built = true;
  return index;
}

/// The lines of `file` whose trimmed text starts with `section` (trimmed, not empty),
/// ascending. A section of kSectionKey bytes or more is found through its key; a shorter one
/// through every key it begins (each list ascending, merged).
std::vector<std::uint32_t> lines_starting(const FileText& file, std::string_view section) {
  SectionIndex& index = match_cache(file).sections;
  section_index(file);
  if (auto it = index.by_section.find(std::string(section)); it != index.by_section.end())
    return it->second;
  std::vector<std::uint32_t> out;
  if (section.size() >= kSectionKey) {
    if (auto it = index.by_key.find(section.substr(0, kSectionKey)); it != index.by_key.end())
      for (const std::uint32_t i : it->second)
        if (starts(trim_space(file.line(i)), section)) out.push_back(i);
  } else {
    if (index.sorted_keys.empty() && !index.by_key.empty()) {
      index.sorted_keys.reserve(index.by_key.size());
      for (const auto& entry : index.by_key) index.sorted_keys.push_back(entry.first);
      std::sort(index.sorted_keys.begin(), index.sorted_keys.end());
    }
    for (auto k = std::lower_bound(index.sorted_keys.begin(), index.sorted_keys.end(), section);
         k != index.sorted_keys.end() && starts(*k, section); ++k) {
      const std::vector<std::uint32_t>& list = index.by_key.at(*k);
      out.insert(out.end(), list.begin(), list.end());
    }
    std::sort(out.begin(), out.end());
  }
  if (index.by_section.size() < kMaxSections) index.by_section.emplace(section, out);
  return out;
}

}  // namespace

bool header_line(std::string_view line) {
  return default_header(line) || def_line(trim_space(line));
}

bool definition_line(std::string_view text) {
  const std::string_view t = trim_space(text);
  if (def_line(t)) return true;
  // C, C++, CUDA: a signature (a parenthesis, no assignment before it, not a declaration
  // ending in ";"), not a statement or an import.
  const std::size_t paren = t.find('(');
  if (paren == std::string_view::npos || t.back() == ';') return false;
  if (t.substr(0, paren).find('=') != std::string_view::npos) return false;
  for (const std::string_view word : {"if", "for", "while", "switch", "return", "else", "from",
                                      "import", "assert", "print", "with", "elif", "do"}) {
    if (starts(t, word) && (t.size() == word.size() || !std::isalnum(static_cast<unsigned char>(
                                                            t[word.size()]))) &&
        (t.size() == word.size() || t[word.size()] != '_'))
      return false;
  }
  return true;
}

namespace {

/// The lines of `file` that may be the section's line: those starting with `section`
/// (trimmed, not empty) and the definitions of the name it defines (a def whose parameters
/// changed since is still the function the hunk names), outside triple-quoted strings,
/// ascending.
std::vector<std::uint32_t> section_lines(const FileText& file, std::string_view section) {
  std::vector<std::uint32_t> out = lines_starting(file, section);
  const SectionIndex& index = section_index(file);
  if (const std::string_view name = definition_name(section); !name.empty()) {
    if (auto it = index.by_name.find(name); it != index.by_name.end()) {
      const std::size_t mid = out.size();
      out.insert(out.end(), it->second.begin(), it->second.end());
      std::inplace_merge(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(mid), out.end());
      out.erase(std::unique(out.begin(), out.end()), out.end());
    }
  }
  std::erase_if(out, [&](std::uint32_t i) { return index.in_string[i]; });
  return out;
}

}  // namespace

bool nearest_header_is(const FileText& file, std::string_view section_text, std::size_t pos) {
  const std::string_view section = trim_space(section_text);
  if (section.empty()) return false;
  // The header git would have found above `pos`: with its default function-name rule, the
  // nearest line starting with a letter, "_" or "$"; with the Python diff driver (a
  // `*.py diff=python` attribute), the nearest def or class line at any indentation. Which
  // rule made the patch is not known: the section is this one's if either rule finds it.
  // The scans are bounded by kSectionScan lines.
  const std::size_t end = std::min(pos, file.size());  // lines [.., end) are above pos
  if (end == 0) return false;
  const std::size_t stop = end > kSectionScan ? end - kSectionScan : 0;
  const SectionIndex& index = section_index(file);
  const std::vector<std::uint32_t> found = section_lines(file, section);
  // The last header of each rule below `end`, if within the scan.
  auto last_header = [&](bool python) -> std::optional<std::size_t> {
    const std::vector<std::uint32_t>& headers = index.headers[python ? 1 : 0];
    auto h = std::lower_bound(headers.begin(), headers.end(), end);
    if (h == headers.begin() || *std::prev(h) < stop) return std::nullopt;
    return *std::prev(h);
  };
  auto is_section = [&](std::optional<std::size_t> line) {
    return line && std::binary_search(found.begin(), found.end(), *line);
  };
  const std::optional<std::size_t> by_default = last_header(false), by_python = last_header(true);
  // Either rule's nearest header is the section line (the Python rule for a def or class
  // section only); or (a diff driver of another language, whose headers may be indented) a
  // line starting with the section with no header of either rule after it: an indented
  // `def decode` above a nearer `def decode_v2` is not the section of what lies under
  // decode_v2.
  if (is_section(by_default) || (def_line(section) && is_section(by_python))) return true;
  const std::size_t lo = std::max(by_default.value_or(stop), by_python.value_or(stop));
  auto l = std::lower_bound(found.begin(), found.end(), lo);
  return l != found.end() && *l < end;
}

std::optional<std::size_t> own_definition(const HunkImages& images) {
  const HunkLine* changed = images.begin;
  while (changed != images.end &&
         (changed->kind == LineKind::kContext || trim_space(changed->text).empty()))
    ++changed;
  if (changed == images.end) return std::nullopt;
  // A preprocessor line (or a Python comment) stands at column 0 wherever it is: the first
  // line from there that is neither tells how deep the change is (ninja 4b07ca35 adds
  // `#ifndef _WIN64` inside `int GetProcessorCount() {`).
  const HunkLine* depth = changed;
  while (depth != images.end && (trim_space(depth->text).empty() || starts(depth->text, "#")))
    ++depth;
  if (depth == images.end) return std::nullopt;
  const std::size_t indent = indentation(depth->text);
  std::optional<std::size_t> own;
  for (std::size_t j = 0; j < images.leading && j < images.post.size(); ++j) {
    const std::string_view text = images.post[j]->text;
    if (indentation(text) < indent && !definition_name(text).empty()) own = j;
  }
  return own;
}

bool section_in_file(const FileText& file, std::string_view section_text) {
  const std::string_view section = trim_space(section_text);
  if (section.empty()) return false;
  return !section_lines(file, section).empty();
}

std::vector<std::pair<std::size_t, std::size_t>> section_bodies(const FileText& file,
                                                                std::string_view section_text) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  const std::string_view section = trim_space(section_text);
  if (section.empty()) return out;
  const std::vector<std::uint32_t>& headers = section_index(file).headers[2];
  for (const std::uint32_t s : section_lines(file, section)) {
    if (!std::binary_search(headers.begin(), headers.end(), s)) continue;
    const std::size_t indent = indentation(file.line(s));
    std::size_t end = file.size();
    for (auto h = std::upper_bound(headers.begin(), headers.end(), s); h != headers.end(); ++h)
      if (indentation(file.line(*h)) <= indent) {
        end = *h;
        break;
      }
    out.emplace_back(s, end);
  }
  return out;
}

namespace {

/// Header lines (SectionIndex::headers[2]) looked at per walk up from a line at most.
constexpr std::size_t kMaxEnclosingWalk = 4096;

/// The header lines enclosing 0-based line `at`, indented `indent` columns (> 0), innermost
/// first: each the nearest header line above the one before it (any rule, outside strings)
/// with less indentation, up to column 0. Empty when the walk passes kMaxEnclosingWalk
/// headers (then nothing is said).
std::vector<std::uint32_t> enclosing_definitions(const FileText& file, std::size_t at,
                                                 std::size_t indent) {
  const std::vector<std::uint32_t>& headers = section_index(file).headers[2];
  std::vector<std::uint32_t> chain;
  auto h = std::lower_bound(headers.begin(), headers.end(), at);
  for (std::size_t steps = 0; h != headers.begin() && indent > 0; ++steps) {
    if (steps == kMaxEnclosingWalk) return {};
    --h;
    const std::size_t ind = indentation(file.line(*h));
    if (ind < indent) {
      chain.push_back(*h);
      indent = ind;
    }
  }
  return chain;
}

/// True when `line` is the line `section` (trimmed) names: it starts with it, or defines the
/// same name.
bool names_section(std::string_view line, std::string_view section) {
  const std::string_view t = trim_space(line);
  if (starts(t, section)) return true;
  const std::string_view name = definition_name(section);
  return !name.empty() && definition_name(t) == name;
}

bool class_line(std::string_view line) { return starts(trim_space(line), "class "); }

}  // namespace

bool leaves_section(const HunkImages& images) {
  const std::string_view section = trim_space(images.section);
  for (const HunkLine* l = images.begin; l != images.end; ++l) {
    const std::string_view t = l->text;
    if (!t.empty() && t.front() != ' ' && t.front() != '\t' && t.front() != '\r' &&
        t.front() != '\f' && !starts(t, "#") && !starts(t, "//") && !starts(t, "/*") &&
        !starts(t, "*") && (section.empty() || !names_section(t, section)))
      return true;
    if (l->kind != LineKind::kContext) break;  // up to the first changed line
  }
  return false;
}

namespace {

/// The bare identifier a definition line defines: definition_name() without a Python
/// keyword ("def decode" -> "decode") or a C++ qualifier ("Runner::run" -> "run").
std::string_view bare_name(std::string_view line) {
  std::string_view name = definition_name(line);
  if (const std::size_t space = name.rfind(' '); space != std::string_view::npos)
    name.remove_prefix(space + 1);
  if (const std::size_t colon = name.rfind(':'); colon != std::string_view::npos)
    name.remove_prefix(colon + 1);
  return name;
}

/// True when `line` calls `name`: the name, not inside a longer identifier, followed by
/// optional blanks and "(".
bool calls(std::string_view line, std::string_view name) {
  const auto ident = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  for (std::size_t k = line.find(name); k != std::string_view::npos; k = line.find(name, k + 1)) {
    if (k > 0 && ident(line[k - 1])) continue;
    std::size_t e = k + name.size();
    while (e < line.size() && (line[e] == ' ' || line[e] == '\t')) ++e;
    if (e < line.size() && line[e] == '(') return true;
  }
  return false;
}

}  // namespace

bool section_delegates_to(const FileText& file, std::string_view section_text, std::size_t pos) {
  const std::string_view section = trim_space(section_text);
  const std::vector<std::pair<std::size_t, std::size_t>> bodies = section_bodies(file, section);
  if (bodies.size() != 1 || pos >= file.size()) return false;
  const auto [begin, end] = bodies.front();
  if (begin <= pos && pos < end) return false;  // under the section itself: nothing to ask
  const std::string_view own = bare_name(file.line(begin));
  std::size_t first = pos;
  while (first < file.size() && trim_space(file.line(first)).empty()) ++first;
  if (first == file.size()) return false;
  const std::size_t indent = indentation(file.line(first));
  // The enclosing definitions: the header line nearest above at column 0 (git's default rule
  // finds only those) and, for indented code, each less indented header line above.
  std::vector<std::uint32_t> chain;
  const std::vector<std::uint32_t>& headers = section_index(file).headers[2];
  if (indent > 0) chain = enclosing_definitions(file, first, indent);
  if (indent == 0 || chain.empty()) {
    auto h = std::lower_bound(headers.begin(), headers.end(), first);
    if (h != headers.begin()) chain.push_back(*std::prev(h));
  }
  for (const std::uint32_t h : chain) {
    const std::string_view name = bare_name(file.line(h));
    if (name.size() < 3 || name == own) continue;
    for (std::size_t i = begin + 1; i < end; ++i)
      if (calls(file.line(i), name)) return true;
  }
  return false;
}

bool section_ambiguous(const FileText& file, std::string_view section) {
  const std::vector<std::uint32_t>& headers = section_index(file).headers[2];
  std::size_t definitions = 0;
  for (const std::uint32_t i : section_lines(file, trim_space(section)))
    if (std::binary_search(headers.begin(), headers.end(), i) && definition_line(file.line(i)) &&
        ++definitions == 2)
      return true;
  return false;
}

namespace {

struct Candidate {
  std::size_t pos = 0;
  std::size_t end = 0;  ///< one past the placement's last line (== pos for a join)
  Score score;
  bool in_order = false;
  /// A slot (Drift::slots()): the hunk's context around lines that are neither its removed
  /// nor its added lines.
  bool slot = false;
};

class Drift {
 public:
  Drift(const FileText& file, MatchCache& cache, TextMode mode, const HunkImages& images,
        const DriftQuery& query)
      : file_(file),
        cache_(cache),
        mode_(mode),
        images_(images),
        query_(query),
        n_(file.size()),
        lead_(images.leading),
        trail_(images.trailing) {
    // A change is present whatever newline ends the file: in a file that ends with one, the
    // patch's "\ No newline at end of file" lines are looked for as ordinary lines (hostile
    // review hr30: the fixed last line, byte for byte, with the newline an editor adds, read
    // absent); unless the newline is the whole change (a hunk that only adds or drops it read
    // present wherever its lines stand, hr32).
    const bool final_newline =
        (file.size() == 0 || file.final_newline()) && !newline_only_change(images);
    post_.build(images.post, mode, final_newline);
    pre_.build(images.pre, mode, final_newline);
    a_count_ = post_.size() - lead_ - trail_;
    r_count_ = pre_.size() - lead_ - trail_;
    for (const HunkLine* l = images.begin; l != images.end; ++l) {
      added_ += l->kind == LineKind::kAdded ? 1u : 0u;
      removed_ += l->kind == LineKind::kRemoved ? 1u : 0u;
    }
    for (std::size_t j = 0; j < lead_; ++j)
      context_informative_ = context_informative_ || informative_line(images.post[j]->text);
    for (std::size_t j = post_.size() - trail_; j < post_.size(); ++j)
      context_informative_ = context_informative_ || informative_line(images.post[j]->text);
    // Informative context lines sides() compares, for a placement that has them all.
    for (std::size_t j = lead_ - std::min(lead_, kMaxContextConsidered); j < lead_; ++j)
      context_info_ += informative_line(images.post[j]->text) ? 1u : 0u;
    for (std::size_t j = post_.size() - trail_;
         j < post_.size() - trail_ + std::min(trail_, kMaxContextConsidered); ++j)
      context_info_ += informative_line(images.post[j]->text) ? 1u : 0u;
    if (const std::optional<std::size_t> own = own_definition(images))
      own_definition_ = images.post[*own]->text;
    {
      const std::size_t l = std::min(lead_, kMaxContextConsidered);
      const std::size_t t = std::min(trail_, kMaxContextConsidered);
      auto on = [&](std::size_t from, std::size_t count, std::string_view text) {
        for (std::size_t j = from; j < from + count; ++j)
          if (post_.text(j) == text) return true;
        return false;
      };
      for (std::size_t j = lead_ - l; j < lead_; ++j)
        if (informative_line(images.post[j]->text) && !on(post_.size() - trail_, t, post_.text(j)))
          leading_only_.push_back(post_.text(j));
      for (std::size_t j = post_.size() - trail_; j < post_.size() - trail_ + t; ++j)
        if (informative_line(images.post[j]->text) && !on(lead_ - l, l, post_.text(j)))
          trailing_only_.push_back(post_.text(j));
    }
    // The first definition line of the trailing context: the definition the change stands
    // before.
    for (std::size_t j = post_.size() - trail_; j < post_.size() && next_definition_.empty(); ++j)
      if (definition_line(trim_space(images.post[j]->text)))
        next_definition_ = images.post[j]->text;
    leaves_section_ = leaves_section(images);
  }

  /// See find_other_side().
  std::optional<std::size_t> other_side(bool applied, std::size_t own) {
    if (!images_.changes || n_ == 0) return std::nullopt;
    const Score floor = scored(own, own + (applied ? a_count_ : r_count_)).score;
    bool more = false;
    std::vector<Candidate> cands;
    if (!applied) {
      if (a_count_ == 0 || !informative_block(images_.post, lead_, a_count_)) return std::nullopt;
      cands = candidates(post_, lead_, a_count_, more);
    } else if (r_count_ > 0) {
      if (!informative_block(images_.pre, lead_, r_count_)) return std::nullopt;
      cands = candidates(pre_, lead_, r_count_, more);
    } else {
      cands = joins(more);
    }
    std::optional<std::size_t> best;
    std::int64_t best_distance = 0;
    for (const Candidate& c : cands) {
      // At least half of what the match holds (a neighbour sharing a line or two of context is
      // no rival: files are full of places where "}" meets a blank line), and under the hunk's
      // section when the match is.
      if (c.score.info == 0 || 2 * c.score.info < floor.info || 2 * c.score.total < floor.total)
        continue;
      if (floor.section && !c.score.section) continue;
      const std::int64_t d = std::abs(static_cast<std::int64_t>(c.pos) - query_.expected);
      if (!best || d < best_distance) {
        best = c.pos;
        best_distance = d;
      }
    }
    return best;
  }

  /// See find_removed_in_place().
  std::optional<std::size_t> removed_in_place(std::size_t begin, std::size_t end) const {
    if (!images_.changes || n_ == 0 || r_count_ == 0) return std::nullopt;
    Candidate c;
    c.pos = begin;
    c.end = end;
    const std::optional<Candidate> o = removed_run_in_place(c);
    if (!o) return std::nullopt;
    return o->pos;
  }

  /// See find_trivial().
  DriftResult trivial() {
    DriftResult r;
    r.context_lines = lead_ + trail_;
    r.why = "trivial-lines";
    if (!images_.changes || n_ == 0 || added_ == 0 || a_count_ == 0 || a_count_ > n_ ||
        informative_block(images_.post, lead_, a_count_))
      return r;
    // Blank lines added are layout, which later reformatting merges and splits (fla a9dac8b17b
    // replaced a comment by a blank line and added another; a lint commit dropped one of the
    // two blanks, and a block of blank lines still stands there): they place nothing.
    bool code = false;
    for (const HunkLine* l = images_.begin; l != images_.end && !code; ++l)
      code = l->kind == LineKind::kAdded && !trim_space(l->text).empty();
    if (!code) return r;
    // The old code must be gone: every informative line the hunk removes and does not add
    // back, white space folded (a re-indented old line is still the old code).
    std::unordered_set<std::string_view> kept;
    for (std::size_t j = 0; j < post_.size(); ++j) kept.insert(post_.text(j));
    FileSide folded(file_, cache_, TextMode::kFoldWs);
    ImageText pre_folded;
    pre_folded.build(images_.pre, TextMode::kFoldWs,
                     (file_.size() == 0 || file_.final_newline()) && !newline_only_change(images_));
    std::size_t old_lines = 0;
    for (std::size_t j = lead_; j < lead_ + r_count_; ++j) {
      if (images_.pre[j]->kind != LineKind::kRemoved || !informative_line(images_.pre[j]->text) ||
          kept.count(pre_.text(j)) != 0)
        continue;
      ++old_lines;
      const Range at = folded.occurrences(pre_folded.window(j, 1, true, cache_.pow));
      if (at.first != at.second) return r;
    }
    if (old_lines == 0) return r;  // a trivial line replaced by another: nothing tells
    // One placement of the changed block near where the neighbour puts it, in hunk order.
    const auto reach = static_cast<std::int64_t>(images_.end - images_.begin);
    std::optional<std::size_t> at;
    for (std::int64_t p = query_.expected - reach; p <= query_.expected + reach; ++p) {
      if (p < 0 || static_cast<std::size_t>(p) + a_count_ > n_) continue;
      const auto pos = static_cast<std::size_t>(p);
      if (pos < query_.order_lo || pos + a_count_ > query_.order_hi) continue;
      if (!image_at(file_, mode_, post_, lead_, a_count_, pos, true)) continue;
      if (claimed(pos, pos + a_count_)) continue;
      if (at) return r;  // two placements: the neighbour's offset does not tell them apart
      at = pos;
    }
    if (!at) return r;
    // A side of the context in full, right next to it (a `}` run before an `#endif`).
    auto non_blank = [&](std::size_t from, std::size_t to) {
      for (std::size_t j = from; j < to; ++j)
        if (!trim_space(images_.post[j]->text).empty()) return true;
      return false;
    };
    const std::size_t end = *at + a_count_;
    const bool leading = lead_ > 0 && *at >= lead_ && non_blank(0, lead_) &&
                         image_at(file_, mode_, post_, 0, lead_, *at - lead_, true);
    const bool trailing = trail_ > 0 && end + trail_ <= n_ &&
                          non_blank(lead_ + a_count_, post_.size()) &&
                          image_at(file_, mode_, post_, lead_ + a_count_, trail_, end, true);
    if (!leading && !trailing) return r;
    const Candidate c = scored(*at, end);
    if (!c.score.section && definition_line(images_.section) &&
        section_in_file(file_, images_.section))
      return r;
    r.presence = Presence::kPresent;
    r.why.clear();
    r.pos = *at;
    r.count = a_count_;
    r.context_agree = c.score.total;
    return r;
  }

  DriftResult run() {
    DriftResult r;
    r.context_lines = lead_ + trail_;
    if (!images_.changes || n_ == 0) {
      r.why = "not-found";
      r.presence = images_.changes ? Presence::kAbsent : Presence::kUnknown;
      return r;
    }
    return added_ == 0 ? deletion(r) : addition(r);
  }

 private:
  /// A hunk that adds lines: look for its changed block.
  /// Whether the added block found at `c` (post-image lines [block, block + size)) may be a
  /// copy of the hunk's own context instead: the block's lines are also a run of its context,
  /// and the pre-image, placed so that this run stands at `c`, has at least as many lines
  /// where the file has them (and some beyond the run) as the post-image placed around the
  /// block at `c`. A fix adding `torch.cuda.synchronize()` after `out = fn(x)`, two lines
  /// below the same call in its leading context, was "found" in an old tree whose
  /// `out = fn(x)` had been edited since: the context's own call read as the fix (hostile
  /// review hr28: a false `applied`, exit 0, and `apply` refused to add it; likewise a CUDA
  /// `__syncthreads();`, and two-line blocks repeating the context's first lines).
  bool context_shadow(const Candidate& c, std::size_t block, std::size_t size) const {
    if (size == 0 || c.end - c.pos != size) return false;
    const std::size_t post_n = post_.size(), pre_n = pre_.size();
    // Lines of `img` that stand where `img`, its line `at` placed at file line `pos`, has them.
    const auto agree = [&](const ImageText& img, std::size_t at, std::size_t pos) {
      std::size_t n = 0;
      for (std::size_t k = 0; k < img.size(); ++k) {
        if (pos + k < at) continue;  // before the file's start
        const std::size_t line = pos + k - at;
        if (line < n_ && image_at(file_, mode_, img, k, 1, line, false)) ++n;
      }
      return n;
    };
    const auto same_lines = [&](std::size_t run) {
      for (std::size_t k = 0; k < size; ++k)
        if (post_.text(run + k) != post_.text(block + k)) return false;
      return true;
    };
    std::size_t as_context = 0;  // the pre-image's best placement with a run at `c`
    for (std::size_t run = 0; run + size <= post_n; ++run) {
      if (run + size > block && run < block + size) continue;  // the block itself
      if (!same_lines(run)) continue;
      // The run's line in the pre-image: the leading context is the same in both images; a
      // trailing line is as far from the pre-image's end as from the post-image's.
      if (run >= block + size && post_n - run > pre_n) continue;
      const std::size_t pre_line = run < block ? run : pre_n - (post_n - run);
      as_context = std::max(as_context, agree(pre_, pre_line, c.pos));
    }
    const std::size_t as_fix = agree(post_, block, c.pos);
    if (as_context > size && as_context > as_fix) return true;
    // The block's lines partly the context's: every placement of the pre-image overlapping the
    // block, when the pre-image is small enough to try them all (kShadowScan lines); it must
    // fit where the file has more of its lines than it shares with the block (a two-line
    // block whose second line is the context's first, the other the line above it).
    if (pre_n == 0 || pre_n > kShadowScan) return false;
    for (std::size_t q = c.pos + 1 > pre_n ? c.pos + 1 - pre_n : 0; q < c.end; ++q) {
      const std::size_t from = std::max(q, c.pos), to = std::min(q + pre_n, c.end);
      // The block's lines over the pre-image are its lines there: the block is that context.
      bool same = true;
      for (std::size_t line = from; line < to && same; ++line)
        same = image_at(file_, mode_, pre_, line - q, 1, line, false);
      if (!same) continue;
      const std::size_t fits = agree(pre_, 0, q);
      if (fits > to - from && fits >= 2 && fits > as_fix) return true;
    }
    return false;
  }

  DriftResult addition(DriftResult& r) {
    const std::vector<const HunkLine*>& post = images_.post;
    if (!informative_block(post, lead_, a_count_)) {
      r.why = "trivial-lines";
      return r;
    }
    bool more = false;
    std::vector<Candidate> found = candidates(post_, lead_, a_count_, more);
    std::size_t block = lead_, block_size = a_count_;  // the post-image lines looked for
    if (found.empty() && !more) {
      // Blank lines at the block's edges are layout, which later lines often split from it
      // (Liger 64f5e1d3 adds an import and a blank line; a later commit put another import
      // between them): look for the block without them.
      std::size_t top = 0, bottom = 0;
      while (top < a_count_ && trim_space(post[lead_ + top]->text).empty()) ++top;
      while (bottom + top < a_count_ &&
             trim_space(post[lead_ + a_count_ - 1 - bottom]->text).empty())
        ++bottom;
      if ((top > 0 || bottom > 0) && top + bottom < a_count_ &&
          informative_block(post, lead_ + top, a_count_ - top - bottom)) {
        block = lead_ + top;
        block_size = a_count_ - top - bottom;
        found = candidates(post_, block, block_size, more);
      }
    }
    if (!more)
      found.erase(std::remove_if(found.begin(), found.end(),
                                 [&](const Candidate& c) {
                                   return context_shadow(c, block, block_size);
                                 }),
                  found.end());
    if (more) return ambiguous(r, found, "ambiguous");
    // The old code: the removed block, or for a pure addition the place where the context meets.
    bool pre_more = false;
    std::vector<Candidate> old_code;
    if (r_count_ > 0) {
      if (informative_block(images_.pre, lead_, r_count_))
        old_code = candidates(pre_, lead_, r_count_, pre_more);
      // Where the hunk's context stands around something else (the removed lines changed
      // since): the place the change belongs, without it.
      for (const Candidate& s : slots(pre_more)) old_code.push_back(s);
    } else {
      old_code = joins(pre_more);
    }
    // Where a pure addition belongs when its context drifted at the join itself: weak, so it
    // only weighs against a block found elsewhere (never makes the change absent).
    std::vector<Candidate> half;
    if (r_count_ == 0 && old_code.empty()) half = half_joins(pre_more);
    const std::optional<Candidate> old_best = best_old(old_code, images_.pre, lead_, r_count_);

    std::vector<Candidate> eligible;
    // A block with none of its context around it counts only when it is large (three
    // informative lines or more) and found once.
    const bool strong = very_strong_block(post, lead_, a_count_);
    for (const Candidate& c : found)
      if (c.score.info > 0 || !context_informative_ || (found.size() == 1 && strong))
        eligible.push_back(c);
    // Where the hunks around it were found, a placement between them (with some of the
    // hunk's context) is the hunk's before any out of order, whatever their context: the
    // branch of a function a fix went to, not the branch before it that had the same lines.
    if (query_.order_lo > 0 || query_.order_hi < n_) {
      std::vector<Candidate> ordered;
      for (const Candidate& c : eligible)
        if (c.in_order && c.score.info > 0) ordered.push_back(c);
      if (!ordered.empty()) eligible = std::move(ordered);
    }
    // A block inside the definition the hunk's trailing context begins is not where the hunk
    // puts its change (see section_veto()): not a candidate, so that a copy where the change
    // belongs wins over a sibling's.
    if (!next_definition_.empty()) {
      std::vector<Candidate> kept;
      for (const Candidate& c : eligible)
        if (!inside_next_definition(c)) kept.push_back(c);
      if (kept.empty() && !eligible.empty()) return ambiguous(r, eligible, "other-section");
      eligible = std::move(kept);
    }
    std::vector<Candidate> best = best_of(eligible);
    if (best.size() > 1) return ambiguous(r, best, "ambiguous");
    if (best.size() == 1) {
      const Candidate& c = best.front();
      // Old code right at the block's edges is the block's own shadow (a block that starts or
      // ends with the line its context ends or starts with), not old code.
      // Nor is a place that holds the block itself (another copy of the fix).
      // A removed block reaching farther past a found block than the hunk's context does is
      // no shadow: the old code stands there in full (lmdeploy 967df47f57 removes 533 lines and
      // adds back their first 4; with one context line drifted, those 4 were found as the
      // change while all 533 stood).
      // A shadow's lines are the block's own: each is in the block or is the post-image's
      // line at its place around it. Old code standing in a gap between the block and its
      // context (the lines the fix removes, left in above or below the lines it adds) is old
      // code: both read applied (hostile review hr30: `if major >= 10: raise ...` kept right
      // above the `if major == 12:` branch that replaced it, 59% of such trees read present).
      const auto own_line = [&](std::size_t i, const Candidate& f) {
        if (i >= f.pos && i < f.end) return true;
        if (i < f.pos) return f.pos - i <= block && line_equals(file_.line(i), post_.text(block - (f.pos - i)), mode_);
        const std::size_t k = block + block_size + (i - f.end);
        return k < post_.size() && line_equals(file_.line(i), post_.text(k), mode_);
      };
      std::vector<Candidate> elsewhere;
      for (const Candidate& o : old_code) {
        const bool shadow = std::any_of(found.begin(), found.end(), [&](const Candidate& f) {
          if ((o.end < f.pos || f.end < o.pos) || (o.pos + lead_ < f.pos || o.end > f.end + trail_))
            return false;
          for (std::size_t i = o.pos; i < o.end; ++i)
            if (!own_line(i, f)) return false;
          return true;
        });
        if (!shadow) elsewhere.push_back(o);
      }
      // For a pure addition the context meets within kDriftSlack lines after a found block
      // when lines were inserted after it (Liger 64f5e1d3: an import added after the fix's):
      // that join is the block's own place too, unless the lines between hold the hunk's
      // leading context again (a join of its own: the block copied from the try branch, the
      // except branch without it).
      if (r_count_ == 0) {
        auto own_join = [&](const Candidate& j) {
          for (const Candidate& f : found) {
            if (j.pos <= f.end || j.pos > f.end + kDriftSlack) continue;
            bool context_between = false;
            for (std::size_t i = f.end; i < j.pos && !context_between; ++i) {
              if (trim_space(file_.line(i)).empty()) continue;
              for (std::size_t k = 0; k < lead_ && !context_between; ++k)
                context_between = line_equals(file_.line(i), post_.text(k), mode_);
            }
            if (!context_between) return true;
          }
          return false;
        };
        elsewhere.erase(std::remove_if(elsewhere.begin(), elsewhere.end(), own_join),
                        elsewhere.end());
      }
      // A half join at a found block's own edge (its context lines with up to kDriftSlack
      // lines inserted between) is that block's place, not old code; unless a line only the
      // other side's context has stands between them (the block is then past its own context:
      // bitsandbytes b72b766ee3a3, see sides()).
      auto between = [&](std::size_t from, std::size_t to,
                         const std::vector<std::string_view>& lines) {
        for (std::size_t i = from; i < to && i < n_; ++i)
          if (only_on_side(i, lines)) return true;
        return false;
      };
      for (const Candidate& h : half) {
        const bool own_edge = std::any_of(found.begin(), found.end(), [&](const Candidate& f) {
          return (h.pos + kDriftSlack >= f.pos && h.pos <= f.pos &&
                  !between(h.pos, f.pos, trailing_only_)) ||
                 (h.pos >= f.end && h.pos <= f.end + kDriftSlack &&
                  !between(f.end, h.pos, leading_only_));
        });
        if (!own_edge) elsewhere.push_back(h);
      }
      const std::optional<Candidate> old_here =
          best_old(elsewhere, images_.pre, lead_, r_count_);
      // The old code stands somewhere at least as convincingly (trivial context lines, a
      // `}` or a `return false;`, do not tell the two apart): both are there.
      if (old_here && (old_here->score.section != c.score.section
                           ? old_here->score.section
                           : old_here->score.info >= c.score.info)) {
        std::vector<Candidate> both{c, *old_here};
        return ambiguous(r, both, "removed-lines-present");
      }
      // Farther from where the hunk belongs than the hunk is long, the block is only as good as
      // the old code standing nearer with some of the hunk's context around it (as for an
      // image matched far away, recheck_far_matches()): a sibling's better context does not
      // outweigh the old code standing where the header's line puts the hunk (lightllm
      // 72c5fa8ba8: the new call stands in _token_decode_attention_flashdecoding, 90 lines up,
      // with 5 of 6 context lines; the old call where the fix belongs, with 4).
      if (const std::optional<Candidate> nearer = old_nearer(elsewhere, c)) {
        std::vector<Candidate> both{c, *nearer};
        return ambiguous(r, both, "removed-lines-present");
      }
      if (const char* why = section_veto(c)) {
        std::vector<Candidate> here{c};
        return ambiguous(r, here, why);
      }
      // Out of hunk order: the hunks around this one were found, and the block stands before
      // the one the patch puts before it (or after the one after it). Copies of a call in the
      // branches of one function are common, and the copy the fix adds to one branch may
      // already stand in another (FlashInfer f4043ef18c hunk 7: the two keyword arguments it
      // adds to the w4a16 branch's call stand in the nvfp4 branch's call above, all six
      // context lines around them, while the hunks before and after it matched at offset 0).
      if (!c.in_order && (query_.order_lo > 0 || query_.order_hi < n_)) {
        std::vector<Candidate> here{c};
        return ambiguous(r, here, "out-of-hunk-order");
      }
      // Far from where the hunks around it put it, under another definition than that place,
      // with less than half of the hunk's context around it: a like call in a sibling method,
      // not the fix (lmdeploy 70bf1f47c2 hunk 1: the two cleanup lines it adds to
      // async_stream_infer's cancel branch stand in async_end's `finally:` 19 lines up, one of
      // six context lines near them, while the hunk after it matched at offset 0). Unknown.
      if (weak_and_elsewhere(c)) {
        std::vector<Candidate> here{c};
        return ambiguous(r, here, "found-elsewhere");
      }
      // The hunk's context fits better elsewhere: the place the change belongs, edited since
      // (its changed line and some context), while `c` is a copy of the added lines in a
      // sibling definition (hostile review hr27: four false `applied`, C++ methods and Python
      // methods). Both stand as far as the file tells: unknown.
      if (const std::optional<Candidate> place = better_context_place(c, found)) {
        std::vector<Candidate> both{c, *place};
        return ambiguous(r, both, "removed-lines-present");
      }
      // The context line next to the block, edited since, stands on the block's other side:
      // the block is past the statement it follows (an override assigned before the value it
      // overrides, code after a `return`, a synchronize before the launch). Unknown.
      if (crosses_edited_context(c)) {
        std::vector<Candidate> here{c};
        return ambiguous(r, here, "context-crossed");
      }
      r.presence = Presence::kPresent;
      r.pos = c.pos;
      r.count = c.end - c.pos;
      r.context_agree = c.score.total;
      return r;
    }
    if (found.empty() && groups() > 1) {
      // Lines were inserted between the change groups of the hunk: look for each on its own.
      DriftResult by_group = per_group(r);
      if (by_group.presence == Presence::kPresent || !old_best) return by_group;
    }
    if (old_best) {
      // Most of the hunk's new lines stand by the old code, edited or in part (a later commit
      // took part of the change back: FlashInfer 17770f5c7's utils.py hunk, whose new
      // function stands with two lines changed since, while the line it replaces was put
      // back): not absent, unknown.
      const std::size_t reach = post_.size() + kDriftSlack;
      const std::size_t from = old_best->pos > reach ? old_best->pos - reach : 0;
      if (const std::optional<CopyEvidence> part =
              find_copy(file_, images_, from, old_best->end + reach);
          part && part->agree >= 2 && 2 * part->agree >= part->lines) {
        r.why = "partly-present";
        r.places = {part->first, old_best->pos};
        if (r.places[1] < r.places[0]) std::swap(r.places[0], r.places[1]);
        return r;
      }
      if (old_best->slot && slot_reads_as_new_code(*old_best)) {
        r.why = "edited-since";
        r.places = places_of({*old_best});
        return r;
      }
      r.presence = Presence::kAbsent;
      r.why = "removed-lines-present";
      r.places = places_of({*old_best});
      return r;
    }
    if (!found.empty()) return ambiguous(r, found, "found-elsewhere");
    if (any_line_found(post, lead_, a_count_, mode_)) {
      r.why = "changed-lines-differ";
      return r;
    }
    if (mode_ != TextMode::kFoldWs && any_line_found(post, lead_, a_count_, TextMode::kFoldWs)) {
      // The lines stand with other white space (a reformatting): not absent, unknown.
      r.why = "whitespace-differs";
      return r;
    }
    r.presence = Presence::kAbsent;
    r.why = "not-found";
    return r;
  }

  /// A hunk that only removes lines: the removed block must be gone and the context around it
  /// must meet.
  DriftResult deletion(DriftResult& r) {
    if (!informative_block(images_.pre, lead_, r_count_)) {
      r.why = "trivial-lines";
      return r;
    }
    bool more = false;
    std::vector<Candidate> removed = candidates(pre_, lead_, r_count_, more);
    const std::optional<Candidate> old_best =
        more ? std::nullopt : best_old(removed, images_.pre, lead_, r_count_);
    bool joins_more = false;
    std::vector<Candidate> met = joins(joins_more);
    std::vector<Candidate> eligible;
    for (const Candidate& c : met)
      if (c.score.info > 0) eligible.push_back(c);
    const std::vector<Candidate> best = joins_more ? eligible : best_of(eligible);
    if (old_best) {
      if (best.size() == 1 && old_best->score < best.front().score) {
        std::vector<Candidate> both{best.front(), *old_best};
        return ambiguous(r, both, "removed-lines-present");
      }
      r.presence = Presence::kAbsent;
      r.why = "removed-lines-present";
      r.places = places_of({*old_best});
      return r;
    }
    // Over kMaxDriftCandidates places where the context meets: the ones not looked at could
    // hold it as well.
    if (joins_more && !best.empty()) return ambiguous(r, best, "ambiguous");
    if (best.size() > 1) return ambiguous(r, best, "ambiguous");
    if (best.size() == 1 && removed.empty() && removed_line_near(best.front().pos)) {
      // The block is gone as a block, but its lines stand by the place: changed, not deleted.
      std::vector<Candidate> here{best.front()};
      return ambiguous(r, here, "removed-lines-present");
    }
    if (best.size() == 1 && removed.empty())
      if (const char* why = section_veto(best.front())) return ambiguous(r, best, why);
    if (best.size() == 1 && removed.empty()) {
      r.presence = Presence::kPresent;
      r.pos = best.front().pos;
      r.count = 0;
      r.context_agree = best.front().score.total;
      return r;
    }
    if (removed.empty() && best.empty() && groups() > 1) return per_group(r);
    if (!removed.empty()) return ambiguous(r, removed, "found-elsewhere");
    r.why = "context-differs";
    return r;
  }

  /// Why placement `c` cannot be taken for the change of the function the hunk's section
  /// names (nullptr when it can): "other-section" when it lies under another function while
  /// the file has the named one (copies of one block in sibling functions are common: a
  /// decode and an extend config); "section-ambiguous" when the section does not tell which
  /// function is the hunk's (several definitions are its line, overloads or a signature git
  /// cut at 80 bytes; or it names a class while the placement is in one of its methods, which
  /// the hunk's context does not name) and the hunk's context does not stand around `c` in
  /// full. A section the file no longer has (the function renamed) proves nothing either way.
  /// Only a section that names a definition counts (git's default rule also takes any line at
  /// column 0: an import, an assignment, a line of a docstring, which prove nothing of where a
  /// change belongs).
  ///
  /// The functions `c` is in are its enclosing definitions (by indentation, from the block's
  /// first line): the section must name one of them (by its text, or by the name it defines:
  /// a def whose parameters changed since is still the function). A block at column 0 (a
  /// function the hunk adds) or under a line that defines nothing keeps the nearest-header
  /// rule (Score::section), and a block holding a header line then is exempt (a hunk that
  /// adds a function is under whatever function precedes it, which later changes may insert).
  /// A place away from every found block (`found`, `c` among them; more than kDriftSlack
  /// lines) where the hunk's context fits with more informative lines than around `c` (or
  /// under the hunk's section where `c` is not; never where only `c` is), for a `c` with at
  /// most half of the context's informative lines, scored
  /// as sides() scores a block of the pre-image's changed size there; std::nullopt when there
  /// is none. A place by another copy
  /// of the block is that copy's, not old code. Places come from the occurrences of each
  /// informative context line (kScanLimit at most each), shifted to where the change would
  /// start.
  std::optional<Candidate> better_context_place(const Candidate& c,
                                                const std::vector<Candidate>& found) {
    // Only for a block with at most half of the context's informative lines around it: one
    // with more is where the change belongs, lines inserted around it since (FlashInfer
    // 94810993a7 at a later head: its 15 added lines with most of their context, and a place
    // 7 lines up fitting the context a little better).
    if (context_info_ == 0 || 2 * c.score.info > context_info_) return std::nullopt;
    FileSide fs(file_, cache_, mode_);
    const std::size_t post_n = post_.size();
    const std::size_t g = r_count_;
    std::optional<Candidate> best;
    auto consider = [&](std::int64_t p) {
      if (p < 0 || static_cast<std::size_t>(p) + g > n_) return;
      const auto pos = static_cast<std::size_t>(p);
      const auto near = [&](const Candidate& f) {
        return pos + g + kDriftSlack >= f.pos && pos <= f.end + kDriftSlack;
      };
      if (near(c) || std::any_of(found.begin(), found.end(), near)) return;  // a block's own place
      const Candidate k = scored(pos, pos + g);
      // Under the hunk's section where `c` is not, it wins; where only `c` is, it loses.
      if (k.score.section != c.score.section ? !k.score.section : k.score.info <= c.score.info)
        return;
      if (!best || best->score < k.score) best = k;
    };
    auto from_line = [&](std::size_t j, std::int64_t shift) {
      if (!informative_line(images_.post[j]->text)) return;
      const Range r = fs.occurrences(post_.window(j, 1, true, cache_.pow));
      if (static_cast<std::size_t>(r.second - r.first) > kScanLimit) return;
      for (const std::size_t* e = r.first; e != r.second; ++e)
        consider(static_cast<std::int64_t>(*e) + shift);
    };
    const std::size_t l = std::min(lead_, kMaxContextConsidered);
    for (std::size_t j = lead_ - l; j < lead_; ++j)
      from_line(j, static_cast<std::int64_t>(lead_ - j));
    const std::size_t t = std::min(trail_, kMaxContextConsidered);
    for (std::size_t j = post_n - trail_; j < post_n - trail_ + t; ++j)
      from_line(j, -static_cast<std::int64_t>(j - (post_n - trail_)) - static_cast<std::int64_t>(g));
    return best;
  }

  /// Whether `c` stands inside the definition the hunk's trailing context begins
  /// (next_definition_): one of the definitions enclosing its block names it.
  bool inside_next_definition(const Candidate& c) const {
    const std::string_view next = trim_space(next_definition_);
    if (next.empty()) return false;
    const std::optional<std::size_t> at = block_line(c);
    const std::size_t indent = at ? indentation(file_.line(*at)) : 0;
    if (indent == 0) return false;
    const std::vector<std::uint32_t> chain = enclosing_definitions(file_, *at, indent);
    return std::any_of(chain.begin(), chain.end(),
                       [&](std::uint32_t h) { return names_section(file_.line(h), next); });
  }

  const char* section_veto(const Candidate& c) const {
    const std::optional<std::size_t> at = block_line(c);
    const std::size_t indent = at ? indentation(file_.line(*at)) : 0;
    const std::vector<std::uint32_t> chain =
        indent == 0 ? std::vector<std::uint32_t>{} : enclosing_definitions(file_, *at, indent);
    // The hunk's trailing context begins a definition after its change: the change stands
    // before that definition, never inside it (hostile review hr26: a guard the fix adds at
    // the end of extend_config(), before `def prefill_config(dim):`, stood only inside
    // prefill_config() with extend_config() edited since, and read applied).
    if (inside_next_definition(c)) return "other-section";
    // Several definitions of the one `c` is in: which is the hunk's only its context tells.
    const bool full_context = context_info_ > 0 && c.score.info >= context_info_;
    auto unless_ambiguous = [&](std::string_view definition) -> const char* {
      return !full_context && section_ambiguous(file_, definition) ? "section-ambiguous"
                                                                   : nullptr;
    };
    // The hunk's leading context shows the function it is in (for a Python function the
    // section is then the definition before it, at column 0): `c` must be in that function
    // when the file has it (Liger 2fcfe7e416: mixtral's signature changed, the same added
    // lines standing in mistral's, the section's), and is not in the section's function when
    // that is another one (f8f1055abd on a tree without falcon_h1: the lines in internvl).
    const std::string_view own = trim_space(own_definition_);
    const std::string_view section = trim_space(images_.section);
    const bool in_own = !own.empty() && std::any_of(chain.begin(), chain.end(), [&](std::uint32_t h) {
                          return names_section(file_.line(h), own);
                        });
    if (!own.empty() && !in_own && !chain.empty()) {
      if (section_in_file(file_, own)) return "other-section";
      if (definition_line(section) && !class_line(section) &&
          definition_name(section) != definition_name(own) &&
          std::any_of(chain.begin(), chain.end(),
                      [&](std::uint32_t h) { return names_section(file_.line(h), section); }))
        return "other-section";
    }
    if (!definition_line(section) || !section_in_file(file_, section)) return nullptr;
    // The hunk's own lines leave the section at column 0 before its change (decorators of the
    // next test function, a call statement after the one the section is): the change is not
    // in the section's function, and where that stands now says nothing (as the exact
    // matches have it). Real cases: Liger 116e4d7238 (decorators under a `class` section, a
    // test function inserted between since) and ninja 3253f66fd1 (configure.py, section
    // `parser.add_option('--host',`, the change under `parser.add_option('--debug',`).
    if (leaves_section(images_)) return nullptr;
    if (chain.empty() || !definition_line(file_.line(chain.front())))
      return nearest_header_rule(c) ? "other-section" : nullptr;
    // `c` is in the hunk's own function (the section is then only the line above the hunk's
    // first).
    if (in_own) return unless_ambiguous(own);
    const auto named = std::find_if(chain.begin(), chain.end(), [&](std::uint32_t h) {
      return names_section(file_.line(h), section);
    });
    if (named == chain.end()) {
      // Directly in a class body under a def section: a method (or attribute) added after the
      // function the section names.
      if (class_line(file_.line(chain.front())) && !class_line(section))
        return nearest_header_rule(c) ? "other-section" : nullptr;
      return "other-section";
    }
    return unless_ambiguous(section);
  }

  /// True when `c` lies farther from the expected line than the hunk is long, that line placed
  /// by a found neighbouring hunk (the order window is not the whole file), with fewer than
  /// half of the hunk's context lines around it, and the nearest header line above it (either
  /// rule, outside strings) is not the one above the expected line: another definition.
  bool weak_and_elsewhere(const Candidate& c) const {
    if (query_.order_lo == 0 && query_.order_hi >= n_) return false;
    const auto hunk_lines = static_cast<std::int64_t>(images_.end - images_.begin);
    if (distance(c) <= hunk_lines || 2 * c.score.total >= lead_ + trail_) return false;
    if (query_.expected < 0 || static_cast<std::size_t>(query_.expected) >= n_) return false;
    const std::vector<std::uint32_t>& headers = section_index(file_).headers[2];
    auto header_above = [&](std::size_t line) -> std::optional<std::uint32_t> {
      const auto it = std::upper_bound(headers.begin(), headers.end(), line);
      if (it == headers.begin()) return std::nullopt;
      return *std::prev(it);
    };
    // Above the block's first line (a block that adds a definition is in the one before).
    const auto expected = static_cast<std::size_t>(query_.expected);
    const std::optional<std::uint32_t> here = header_above(c.pos > 0 ? c.pos - 1 : 0);
    const std::optional<std::uint32_t> there = header_above(expected > 0 ? expected - 1 : 0);
    return here && there && *here != *there;
  }

  /// The nearest-header rule: `c` is not under the section's line, and its block holds no
  /// header line.
  bool nearest_header_rule(const Candidate& c) const {
    if (c.score.section) return false;
    for (std::size_t j = lead_; j < post_.size() - trail_; ++j)
      if (header_line(images_.post[j]->text)) return false;
    return true;
  }

  /// The line whose indentation places `c`: its block's first line with text (not a
  /// preprocessor line at column 0); for a join, the first such line of the trailing context
  /// there, else the last of the leading context.
  std::optional<std::size_t> block_line(const Candidate& c) const {
    auto code = [&](std::size_t i) {
      const std::string_view line = file_.line(i);
      const std::string_view t = trim_space(line);
      return !t.empty() && !(line.front() == '#');
    };
    const std::size_t end = c.end > c.pos ? c.end : std::min(n_, c.pos + trail_);
    for (std::size_t i = c.pos; i < end; ++i)
      if (code(i)) return i;
    if (c.end > c.pos) {
      // A block of preprocessor lines only (`#ifndef _WIN64` added at column 0 inside a C
      // function, ninja 4b07ca35): the code after it, within the hunk's context, is as deep.
      for (std::size_t i = end; i < std::min(n_, end + trail_); ++i)
        if (code(i)) return i;
      return std::nullopt;
    }
    for (std::size_t i = c.pos; i > 0 && i + lead_ >= c.pos; --i)
      if (code(i - 1)) return i - 1;
    return std::nullopt;
  }

  /// `cands` without those touching [begin, end] (a join at either edge included).
  static std::vector<Candidate> apart_from(const std::vector<Candidate>& cands, std::size_t begin,
                                           std::size_t end) {
    std::vector<Candidate> out;
    for (const Candidate& c : cands)
      if (c.end < begin || end < c.pos) out.push_back(c);
    return out;
  }

  /// Change groups of the hunk: runs of added and removed lines between context lines.
  std::size_t groups() const {
    std::size_t count = 0;
    bool in_change = false;
    for (const HunkLine* l = images_.begin; l != images_.end; ++l) {
      const bool change = l->kind != LineKind::kContext;
      if (change && !in_change) ++count;
      in_change = change;
    }
    return count;
  }

  /// Each change group looked for on its own, with the context runs around it as its context:
  /// present when every group that has an informative line is present, in hunk order.
  DriftResult per_group(DriftResult& r) {
    const HunkLine* const first = images_.begin;
    const HunkLine* const last = images_.end;
    std::vector<DriftResult> parts;
    /// A change group: its lines, and its part (index in `parts`) when it has an informative
    /// line.
    struct Group {
      const HunkLine* begin;
      const HunkLine* end;
      std::optional<std::size_t> part;
    };
    std::vector<Group> all;
    const HunkLine* group = first;
    while (group != last) {
      while (group != last && group->kind == LineKind::kContext) ++group;
      if (group == last) break;
      const HunkLine* group_end = group;
      while (group_end != last && group_end->kind != LineKind::kContext) ++group_end;
      // The context runs before and after the group, up to the neighbouring groups.
      const HunkLine* from = group;
      while (from != first && (from - 1)->kind == LineKind::kContext) --from;
      const HunkLine* to = group_end;
      while (to != last && to->kind == LineKind::kContext) ++to;
      HunkImages sub;
      sub.build(from, to);
      sub.section = images_.section;
      bool informative = false;
      for (const HunkLine* l = group; l != group_end; ++l)
        informative = informative || informative_line(l->text);
      if (informative) {
        DriftQuery q = query_;
        q.only_at.reset();
        Drift one(file_, cache_, mode_, sub, q);
        DriftResult part = one.run();
        // The matcher's choice among the places of the one group that fits several (see
        // below): that group is taken at that place only.
        if (query_.only_at && part.presence == Presence::kUnknown && part.why == "ambiguous" &&
            std::find(part.places.begin(), part.places.end(), *query_.only_at) !=
                part.places.end()) {
          q.only_at = query_.only_at;
          Drift at(file_, cache_, mode_, sub, q);
          part = at.run();
        }
        parts.push_back(std::move(part));
      }
      all.push_back(Group{group, group_end,
                          informative ? std::optional<std::size_t>(parts.size() - 1)
                                      : std::nullopt});
      group = group_end;
    }
    if (parts.empty()) {
      r.why = "trivial-lines";
      return r;
    }
    // All present, in order, and each near the one before (no farther than the hunk's lines
    // between them, plus slack): groups found in different functions are not this hunk.
    bool all_present = true;
    std::size_t at = 0;
    const std::size_t reach =
        static_cast<std::size_t>(images_.end - images_.begin) + 10 * kDriftSlack;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const DriftResult& p = parts[i];
      all_present = all_present && p.presence == Presence::kPresent && p.pos >= at &&
                    (i == 0 || p.pos - at <= reach);
      at = p.pos + p.count;
    }
    if (!all_present) {
      // One group fits several places equally and every other group is present: the hunk is
      // ambiguous among that group's places, and the matcher may tell them apart by hunk
      // order (two copies of a call, each changed by its own hunk; Liger-Kernel 116e4d7238,
      // where a later line split each hunk's groups), passing one back as `only_at`.
      const DriftResult* open = nullptr;
      bool others_present = true;
      for (const DriftResult& p : parts) {
        // (Places cut at kMaxPlaces are not all of them.)
        if (p.presence == Presence::kUnknown && p.why == "ambiguous" && !p.places.empty() &&
            p.places.size() < kMaxPlaces && open == nullptr) {
          open = &p;
        } else {
          others_present = others_present && p.presence == Presence::kPresent;
        }
      }
      if (open != nullptr && others_present) {
        r.why = "ambiguous";
        r.places = open->places;
        return r;
      }
      const bool any_present = std::any_of(parts.begin(), parts.end(), [](const DriftResult& p) {
        return p.presence == Presence::kPresent;
      });
      const bool all_absent = std::all_of(parts.begin(), parts.end(), [](const DriftResult& p) {
        return p.presence == Presence::kAbsent;
      });
      if (all_absent) {
        r.presence = Presence::kAbsent;
        r.why = "not-found";
      } else if (any_present) {
        r.why = "changed-lines-differ";
      } else {
        // Unknown because of a group that is not absent: its reason, not an absent group's
        // ("not-found" read unknown for bitsandbytes' 2030 hunk 3, whose added block is
        // absent and whose removed comment lines cannot tell).
        const auto open_part = std::find_if(parts.begin(), parts.end(), [](const DriftResult& p) {
          return p.presence != Presence::kAbsent;
        });
        r.why = open_part->why;  // (without its places: the group's, see presence_words())
      }
      return r;
    }
    // A group of trivial lines only (`True,` -> `False,` beside a found `"bnpo",`) was not
    // looked for: its added lines must stand where the nearest present group puts them (the
    // hunk's lines between them, kDriftSlack lines either way), or the change is not all there.
    for (std::size_t g = 0; g < all.size(); ++g) {
      if (all[g].part) continue;
      std::vector<const HunkLine*> added;
      for (const HunkLine* l = all[g].begin; l != all[g].end; ++l)
        if (l->kind == LineKind::kAdded) added.push_back(l);
      if (added.empty()) continue;  // trivial lines removed: nothing to look for
      auto post_lines = [](const HunkLine* from, const HunkLine* to) {
        std::int64_t count = 0;
        for (const HunkLine* l = from; l != to; ++l) count += l->kind != LineKind::kRemoved ? 1 : 0;
        return count;
      };
      std::optional<std::int64_t> expected;
      for (std::size_t b = g; b-- > 0 && !expected;)
        if (all[b].part) {
          const DriftResult& p = parts[*all[b].part];
          expected = static_cast<std::int64_t>(p.pos + p.count) +
                     post_lines(all[b].end, all[g].begin);
        }
      for (std::size_t b = g + 1; b < all.size() && !expected; ++b)
        if (all[b].part)
          expected = static_cast<std::int64_t>(parts[*all[b].part].pos) -
                     post_lines(all[g].end, all[b].begin) -
                     static_cast<std::int64_t>(added.size());
      ImageText img;
      img.build(added, mode_);
      bool found = false;
      for (std::int64_t p = *expected - static_cast<std::int64_t>(kDriftSlack);
           p <= *expected + static_cast<std::int64_t>(kDriftSlack) && !found; ++p)
        found = p >= 0 && static_cast<std::size_t>(p) + added.size() <= n_ &&
                image_at(file_, mode_, img, 0, added.size(), static_cast<std::size_t>(p), false);
      if (!found) {
        r.why = "changed-lines-differ";
        return r;
      }
    }
    r.presence = Presence::kPresent;
    r.pos = parts.front().pos;
    r.count = at - r.pos;
    r.context_agree = scored(r.pos, at).score.total;
    return r;
  }

  /// Distance in lines of `c`'s placement from where the query expects the changed block.
  std::int64_t distance(const Candidate& c) const {
    return std::abs(static_cast<std::int64_t>(c.pos) - query_.expected);
  }

  /// For a block `c` found farther from the expected line than the hunk is long: the old code
  /// among `old_code` standing nearer that line with at least half of `c`'s context around it
  /// (informative lines and all lines; under the hunk's section when `c` is), the nearest one;
  /// or, whatever its context, the hunk's whole removed block, when that is strong
  /// (strong_block()) and stands within the hunk's length of the expected line (the old code
  /// where the hunk belongs, its surroundings rewritten). std::nullopt when there is none.
  std::optional<Candidate> old_nearer(const std::vector<Candidate>& old_code,
                                      const Candidate& c) const {
    const auto hunk_lines = static_cast<std::int64_t>(images_.end - images_.begin);
    const std::int64_t far = distance(c);
    if (far <= hunk_lines) return std::nullopt;
    const bool strong_removed = r_count_ > 0 && strong_block(images_.pre, lead_, r_count_);
    std::optional<Candidate> best;
    for (const Candidate& o : old_code) {
      const bool in_place = strong_removed && distance(o) <= hunk_lines && o.pos + r_count_ <= n_ &&
                            image_at(file_, mode_, pre_, lead_, r_count_, o.pos, false);
      if (!in_place && (o.score.info == 0 || 2 * o.score.info < c.score.info ||
                        2 * o.score.total < c.score.total || (c.score.section && !o.score.section)))
        continue;
      if (distance(o) < far && (!best || distance(o) < distance(*best))) best = o;
    }
    if (!best) best = removed_run_in_place(c);
    return best;
  }

  /// A run of the hunk's removed lines (consecutive '-' lines) that is strong (strong_block())
  /// and stands, exactly, within the hunk's length of where the query expects it, outside `c`
  /// and the spans other hunks hold: the old code where the hunk belongs, its context (inside
  /// the hunk too) rewritten. A run the post-image also holds is no evidence. The first such
  /// placement, as a candidate, or std::nullopt. O(hunk lines^2).
  std::optional<Candidate> removed_run_in_place(const Candidate& c) const {
    const auto hunk_lines = static_cast<std::int64_t>(images_.end - images_.begin);
    const std::vector<const HunkLine*>& pre = images_.pre;
    const std::vector<const HunkLine*>& post = images_.post;
    for (std::size_t first = lead_; first < lead_ + r_count_;) {
      if (pre[first]->kind != LineKind::kRemoved) {
        ++first;
        continue;
      }
      std::size_t count = 0;
      while (first + count < lead_ + r_count_ && pre[first + count]->kind == LineKind::kRemoved)
        ++count;
      const std::size_t run = first;
      first += count;
      if (!strong_block(pre, run, count)) continue;
      bool kept = false;  // the post-image holds the run too
      for (std::size_t j = 0; j + count <= post.size() && !kept; ++j) {
        std::size_t k = 0;
        while (k < count && post[j + k]->text == pre[run + k]->text) ++k;
        kept = k == count;
      }
      if (kept) continue;
      const std::int64_t at = query_.expected + static_cast<std::int64_t>(run - lead_);
      for (std::int64_t p = std::max<std::int64_t>(0, at - hunk_lines); p <= at + hunk_lines; ++p) {
        const auto pos = static_cast<std::size_t>(p);
        if (pos + count > n_) break;
        if ((pos < c.end && c.pos < pos + count) || claimed(pos, pos + count)) continue;
        if (!image_at(file_, mode_, pre_, run, count, pos, false)) continue;
        Candidate o;
        o.pos = pos;
        o.end = pos + count;
        return o;
      }
    }
    return std::nullopt;
  }

  /// The best placement of the old code that counts as evidence: some informative context
  /// around it, or a strong removed block found once.
  std::optional<Candidate> best_old(const std::vector<Candidate>& old_code,
                                    const std::vector<const HunkLine*>& pre, std::size_t first,
                                    std::size_t count) const {
    std::optional<Candidate> best;
    const bool strong = count > 0 && strong_block(pre, first, count);
    for (const Candidate& c : old_code) {
      if (c.score.info == 0 && !(old_code.size() == 1 && strong) && context_informative_) continue;
      if (count == 0 && c.score.info == 0) continue;  // a bare join proves nothing
      if (!best || best->score < c.score) best = c;
    }
    return best;
  }

  /// The candidates with the highest score; among several, those in hunk order if that leaves
  /// fewer.
  std::vector<Candidate> best_of(const std::vector<Candidate>& cands) const {
    std::vector<Candidate> best;
    for (const Candidate& c : cands) {
      if (!best.empty() && c.score < best.front().score) continue;
      if (!best.empty() && best.front().score < c.score) best.clear();
      best.push_back(c);
    }
    if (best.size() > 1) {
      std::vector<Candidate> ordered;
      for (const Candidate& c : best)
        if (c.in_order) ordered.push_back(c);
      if (!ordered.empty() && ordered.size() < best.size()) return ordered;
    }
    return best;
  }

  DriftResult ambiguous(DriftResult& r, const std::vector<Candidate>& cands, const char* why) {
    r.presence = Presence::kUnknown;
    r.why = why;
    r.places = places_of(cands);
    return r;
  }

  std::vector<std::size_t> places_of(const std::vector<Candidate>& cands) const {
    std::vector<std::size_t> lines;
    for (const Candidate& c : cands) lines.push_back(c.pos);
    const std::int64_t e = query_.expected;
    std::sort(lines.begin(), lines.end(), [e](std::size_t a, std::size_t b) {
      const std::int64_t da = std::abs(static_cast<std::int64_t>(a) - e);
      const std::int64_t db = std::abs(static_cast<std::int64_t>(b) - e);
      return da != db ? da < db : a < b;
    });
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    if (lines.size() > kMaxPlaces) lines.resize(kMaxPlaces);
    return lines;
  }

  /// True when a changed line (added or removed, not context between them) of the block is
  /// informative.
  bool informative_block(const std::vector<const HunkLine*>& lines, std::size_t first,
                         std::size_t count) const {
    for (std::size_t j = first; j < first + count; ++j)
      if (lines[j]->kind != LineKind::kContext && informative_line(lines[j]->text)) return true;
    return false;
  }

  bool strong_block(const std::vector<const HunkLine*>& lines, std::size_t first,
                    std::size_t count) const {
    std::size_t informative = 0, chars = 0;
    for (std::size_t j = first; j < first + count; ++j) {
      if (lines[j]->kind == LineKind::kContext || !informative_line(lines[j]->text)) continue;
      ++informative;
      chars += alnum_count(lines[j]->text);
    }
    return informative >= 2 || chars >= kStrongAlnum;
  }

  /// Three informative lines or more: a block that does not stand anywhere by chance.
  bool very_strong_block(const std::vector<const HunkLine*>& lines, std::size_t first,
                         std::size_t count) const {
    std::size_t informative = 0;
    for (std::size_t j = first; j < first + count; ++j)
      if (lines[j]->kind != LineKind::kContext && informative_line(lines[j]->text)) ++informative;
    return informative >= kVeryStrongLines;
  }

  /// True when some informative line of the block stands anywhere in the file, compared in
  /// `mode`.
  bool any_line_found(const std::vector<const HunkLine*>& lines, std::size_t first,
                      std::size_t count, TextMode mode) {
    FileSide fs(file_, cache_, mode);
    ImageText img;
    img.build(lines, mode);
    for (std::size_t j = first; j < first + count; ++j) {
      if (!informative_line(lines[j]->text)) continue;
      const Range r = fs.occurrences(img.window(j, 1, true, cache_.pow));
      if (r.first != r.second) return true;
    }
    return false;
  }

  /// True when [begin, end) overlaps a span another hunk holds. The spans are sorted and
  /// disjoint: the ones starting before `end` are looked at from the last, while they end
  /// after `begin` (O(log hunks)).
  bool claimed(std::size_t begin, std::size_t end) const {
    if (query_.claimed == nullptr) return false;
    const auto& spans = *query_.claimed;
    auto it = std::lower_bound(
        spans.begin(), spans.end(), end,
        [](const std::pair<std::size_t, std::size_t>& s, std::size_t e) { return s.first < e; });
    while (it != spans.begin()) {
      --it;
      if (it->second <= begin) break;
      if (query_.own && *it == *query_.own) continue;
      return true;
    }
    return false;
  }

  /// Placements of image lines [first, first + count) of `img` (count >= 1) outside claimed
  /// spans, scored. `more` is set when there are over kMaxDriftCandidates of them.
  std::vector<Candidate> candidates(ImageText& img, std::size_t first, std::size_t count,
                                    bool& more) {
    std::vector<Candidate> out;
    if (count > n_) return out;
    FileSide fs(file_, cache_, mode_);
    Range rarest{nullptr, nullptr};
    std::size_t anchor = 0;
    for (std::size_t k = 0; k < count; ++k) {
      const Range r = fs.occurrences(img.window(first + k, 1, true, cache_.pow));
      if (r.first == r.second) return out;
      if (rarest.first == nullptr || r.second - r.first < rarest.second - rarest.first) {
        rarest = r;
        anchor = k;
      }
    }
    const u64 target = img.window(first, count, true, cache_.pow);
    // Few occurrences of the rarest line: try each. Many (a block of common lines): the index
    // of the file's windows of this length gives the positions whose hash is the block's, so
    // the cost stays O(log n) per hunk plus the places found.
    Range starts = rarest;
    std::size_t shift = anchor;
    if (static_cast<std::size_t>(rarest.second - rarest.first) > kScanLimit &&
        (fs.window_index(count).built || fs.may_build_index())) {
      WindowIndex& wi = fs.window_index(count);
      if (!wi.built) fs.build_window_index(wi, count);
      starts = fs.windows_with(wi, count, target);
      shift = 0;
    }
    for (const std::size_t* e = starts.first; e != starts.second; ++e) {
      if (*e < shift) continue;
      const std::size_t pos = *e - shift;
      if (pos + count > n_ || fs.window(pos, count) != target) continue;
      if (!image_at(file_, mode_, img, first, count, pos, true)) continue;
      if (claimed(pos, pos + count)) continue;
      if (query_.only_at && pos != *query_.only_at && &img == &post_) continue;
      if (out.size() == kMaxDriftCandidates) {
        more = true;
        break;
      }
      out.push_back(scored(pos, pos + count));
    }
    return out;
  }

  /// True when an informative removed line stands within the removed block's length (plus
  /// kDriftSlack each side) of `pos`.
  bool removed_line_near(std::size_t pos) {
    FileSide fs(file_, cache_, mode_);
    const std::size_t reach = r_count_ + 2 * kDriftSlack;
    const std::size_t from = pos > reach ? pos - reach : 0;
    const std::size_t to = pos + reach;
    for (std::size_t j = lead_; j < lead_ + r_count_; ++j) {
      if (images_.pre[j]->kind != LineKind::kRemoved || !informative_line(images_.pre[j]->text))
        continue;
      const Range r = fs.occurrences(pre_.window(j, 1, true, cache_.pow));
      const std::size_t* at = std::lower_bound(r.first, r.second, from);
      if (at != r.second && *at <= to) return true;
    }
    return false;
  }

  /// Places where the leading context's last line is followed, within the removed block's
  /// length plus 2 x kDriftSlack lines, by the trailing context's first line: where a
  /// replacement belongs when what stands there is neither its old nor its new code, edited
  /// since (a gap holding one of the hunk's informative added lines and none of its removed
  /// ones holds its new code, one with blank or trivial lines only holds no code: neither is
  /// a slot), with the hunk's
  /// context standing on both sides (an informative line of each side that has one). Scored
  /// by the context around the gap.
  std::vector<Candidate> slots(bool& more) {
    std::vector<Candidate> out;
    if (lead_ == 0 || trail_ == 0 || n_ < 2) return out;
    const std::size_t post_n = post_.size();
    const std::size_t gap = r_count_ + 2 * kDriftSlack;
    FileSide fs(file_, cache_, mode_);
    const Range r = fs.occurrences(post_.window(lead_ - 1, 1, true, cache_.pow));
    if (static_cast<std::size_t>(r.second - r.first) > kScanLimit) return out;  // too common
    // The hunk's informative added lines that it does not also remove, and its removed lines
    // that it does not also add: a slot holding one of the added lines and none of the
    // removed ones holds (some of) the new code, edited since, not the old code.
    std::unordered_set<std::string_view> added, removed;
    for (std::size_t j = lead_; j < post_n - trail_; ++j)
      if (images_.post[j]->kind == LineKind::kAdded && informative_line(images_.post[j]->text))
        added.insert(post_.text(j));
    for (std::size_t j = lead_; j < pre_.size() - trail_; ++j)
      if (images_.pre[j]->kind == LineKind::kRemoved && informative_line(images_.pre[j]->text))
        removed.insert(pre_.text(j));
    for (std::size_t j = lead_; j < pre_.size() - trail_; ++j) added.erase(pre_.text(j));
    for (std::size_t j = lead_; j < post_n - trail_; ++j) removed.erase(post_.text(j));
    const bool lead_informative = side_informative(true);
    const bool trail_informative = side_informative(false);
    std::string buf;
    // Old code edited since holds an informative line; not the new code: one of the removed
    // lines, or none of the added ones.
    auto not_old_code = [&](std::size_t begin, std::size_t end) {
      bool informative = false, has_added = false;
      for (std::size_t i = begin; i < end; ++i) {
        buf.clear();
        buf.reserve(file_.line(i).size());  // normalise() must never reallocate its storage
        const std::string_view line = normalise(file_.line(i), mode_, buf);
        if (removed.count(line) != 0) return false;
        has_added = has_added || added.count(line) != 0;
        informative = informative || informative_line(file_.line(i));
      }
      return has_added || !informative;
    };
    for (const std::size_t* e = r.first; e != r.second; ++e) {
      const std::size_t s = *e + 1;
      for (std::size_t g = 1; g <= gap && s + g < n_; ++g) {
        if (!image_at(file_, mode_, post_, post_n - trail_, 1, s + g, true)) continue;
        if (claimed(s, s + g) || not_old_code(s, s + g)) break;
        // The context must stand on both sides (each informative side by an informative line):
        // blank lines meeting one side's context are anywhere.
        const auto [lead, trail] = sides(s, s + g);
        if ((lead_informative && lead.info == 0) || (trail_informative && trail.info == 0)) break;
        if (out.size() == kMaxDriftCandidates) {
          more = true;
          return out;
        }
        out.push_back(scored(s, s + g));
        out.back().slot = true;
        break;
      }
    }
    return out;
  }

  /// Whether slot `c` (slots()) may be the new code edited since rather than the old: it
  /// holds some word only the hunk's added lines have, or (they have none while the removed
  /// lines have some: the change took words out) none of the words only its removed lines
  /// have. A line that grew from the old one, `x = 2 if hip else 3` ->
  /// `x = 1 if CC[0] == 12 else (2 if hip else 3)`, has no word of its own left behind: the
  /// added words decide (hostile review hr26). Words are runs of letters,
  /// digits and '_'; a word of one side counts when the other side has none of it. Lines that
  /// hold the words of neither side were changed some other way: the fix is not there.
  /// (FlashInfer 74e99e8bb7 turns `supported_major_versions=[10, 11, 12]` into `[10, 11]`;
  /// 0.6.17 reads `supported_major_versions=[10, 11], map_sm107_to_100f=True` there: no `12`,
  /// and nothing only the old line has, so the change is not absent.)
  bool slot_reads_as_new_code(const Candidate& c) const {
    auto words = [](std::string_view text, std::unordered_set<std::string_view>& out) {
      auto word_char = [&](std::size_t k) {
        const unsigned char ch = static_cast<unsigned char>(text[k]);
        return std::isalnum(ch) != 0 || ch == '_';
      };
      std::size_t i = 0;
      while (i < text.size()) {
        if (!word_char(i)) {
          ++i;
          continue;
        }
        std::size_t j = i;
        while (j < text.size() && word_char(j)) ++j;
        out.insert(text.substr(i, j - i));
        i = j;
      }
    };
    std::unordered_set<std::string_view> removed, added, there;
    for (const HunkLine* l = images_.begin; l != images_.end; ++l) {
      if (l->kind == LineKind::kRemoved) words(l->text, removed);
      if (l->kind == LineKind::kAdded) words(l->text, added);
    }
    for (std::size_t i = c.pos; i < c.end && i < n_; ++i) words(file_.line(i), there);
    bool old_only = false, old_there = false;
    for (const std::string_view w : removed) {
      if (added.count(w) != 0) continue;
      old_only = true;
      old_there = old_there || there.count(w) != 0;
    }
    bool new_only = false, new_there = false;
    for (const std::string_view w : added) {
      if (removed.count(w) != 0) continue;
      new_only = true;
      new_there = new_there || there.count(w) != 0;
    }
    // Words of the new side there: the new code edited (with words of the old side too, the
    // file cannot tell: `num_stages = 2` -> `1`, later `1 if is_sm120() else 2`; or a comment
    // naming the old call beside the fixed line, hostile review hr27).
    if (new_there) return true;
    return !old_there && old_only && !new_only;
  }

  /// Places where the leading context's last line is directly followed by the trailing
  /// context's first line (or the file's edge, for a hunk anchored there): where a pure
  /// addition's block would go, or where a pure deletion's removed block was.
  std::vector<Candidate> joins(bool& more) {
    std::vector<Candidate> out;
    const std::size_t post_n = post_.size();
    if (lead_ == 0 && trail_ == 0) return out;
    auto take = [&](std::size_t i) {
      if (claimed(i == 0 ? 0 : i - 1, std::min(n_, i + 1))) return true;
      if (out.size() == kMaxDriftCandidates) {
        more = true;
        return false;
      }
      out.push_back(scored(i, i));
      return true;
    };
    if (lead_ == 0) {  // the file's start meets the trailing context
      if (image_at(file_, mode_, post_, post_n - trail_, 1, 0, true)) take(0);
      return out;
    }
    if (trail_ == 0) {  // the leading context meets the file's end
      if (image_at(file_, mode_, post_, lead_ - 1, 1, n_ - 1, true)) take(n_);
      return out;
    }
    FileSide fs(file_, cache_, mode_);
    const u64 last_leading = post_.window(lead_ - 1, 1, true, cache_.pow);
    const Range r = fs.occurrences(last_leading);
    if (static_cast<std::size_t>(r.second - r.first) <= kScanLimit || n_ < 2 ||
        (!fs.window_index(2).built && !fs.may_build_index())) {
      for (const std::size_t* e = r.first; e != r.second; ++e) {
        const std::size_t i = *e + 1;
        if (i >= n_ || !image_at(file_, mode_, post_, post_n - trail_, 1, i, true)) continue;
        if (!take(i)) break;
      }
      return out;
    }
    // A common line (blank, "}"): the two-line windows with both lines' hash.
    const u64 pair = mod_add(mod_mul(last_leading, keys().base),
                             post_.window(post_n - trail_, 1, true, cache_.pow));
    WindowIndex& wi = fs.window_index(2);
    if (!wi.built) fs.build_window_index(wi, 2);
    const Range pairs = fs.windows_with(wi, 2, pair);
    for (const std::size_t* e = pairs.first; e != pairs.second; ++e) {
      const std::size_t i = *e + 1;
      if (!image_at(file_, mode_, post_, lead_ - 1, 1, *e, true) ||
          !image_at(file_, mode_, post_, post_n - trail_, 1, i, true))
        continue;
      if (!take(i)) break;
    }
    return out;
  }

  /// Where a pure addition's block would go when its context has drifted at the join itself:
  /// before each line that is the trailing context's first, and after each that is the leading
  /// context's last (each line at most kScanLimit times in the file), scored by the context
  /// around. The fix's lines found elsewhere (another function holding the same two lines) are
  /// then weighed against the place the change belongs, whose signature line moved on.
  std::vector<Candidate> half_joins(bool& more) {
    std::vector<Candidate> out;
    if (lead_ == 0 || trail_ == 0 || n_ < 2) return out;
    const std::size_t post_n = post_.size();
    FileSide fs(file_, cache_, mode_);
    auto take_all = [&](std::size_t image_line, std::size_t shift) {
      // Only an informative line anchors (a blank line or a `}` stands everywhere).
      if (!informative_line(images_.post[image_line]->text)) return true;
      const Range r = fs.occurrences(post_.window(image_line, 1, true, cache_.pow));
      if (static_cast<std::size_t>(r.second - r.first) > kScanLimit) return true;  // too common
      for (const std::size_t* e = r.first; e != r.second; ++e) {
        const std::size_t i = *e + shift;
        if (i > n_ || claimed(i == 0 ? 0 : i - 1, std::min(n_, i + 1))) continue;
        // The edge of a copy of the block (its last line just before, its first just after):
        // the block's own shadow, not the old code.
        if ((i > 0 && image_at(file_, mode_, post_, post_n - trail_ - 1, 1, i - 1, true)) ||
            (i < n_ && image_at(file_, mode_, post_, lead_, 1, i, true)))
          continue;
        if (out.size() == kMaxDriftCandidates) {
          more = true;
          return false;
        }
        out.push_back(scored(i, i));
      }
      return true;
    };
    if (take_all(post_n - trail_, 0)) take_all(lead_ - 1, 1);
    return out;
  }

  /// The placement of a block at file lines [begin, end), scored by the context around it.
  Candidate scored(std::size_t begin, std::size_t end) const {
    Candidate c;
    c.pos = begin;
    c.end = end;
    c.in_order = begin >= query_.order_lo && end <= query_.order_hi;
    const auto [lead, trail] = sides(begin, end);
    add(c.score, lead);
    add(c.score, trail);
    // Under the function the change is in: git's section is the header above the hunk's first
    // line. A hunk whose leading context shows its own definition line is in that function
    // (the header above its changed block), and under the section only where the hunk does
    // not leave it: a Python function's section is then the definition before it (Liger
    // 2fcfe7e416 changes mixtral's signature under the section `def
    // apply_liger_kernel_to_mistral(`, whose body holds the same added lines), a C++ method's
    // the class it is in (flashinfer 94810993a7: three classes' `run(` get one guard each).
    const std::size_t top = begin >= lead_ ? begin - lead_ : 0;
    c.score.section = own_definition_.empty()
                          ? under_section(file_, images_.section, top, lead_)
                          : nearest_header_is(file_, own_definition_, begin) &&
                                (leaves_section_ || images_.section.empty() ||
                                 under_section(file_, images_.section, top, lead_));
    return c;
  }

  /// The hunk's leading and trailing context found around a placement [begin, end): each
  /// side's image lines against the file lines next to it, within kDriftSlack lines.
  std::pair<Score, Score> sides(std::size_t begin, std::size_t end) const {
    const std::size_t post_n = post_.size();
    // Leading context, nearest lines first: image lines [lead_ - l, lead_) against the file
    // lines just before `begin`.
    const std::size_t l = std::min(lead_, kMaxContextConsidered);
    const std::size_t l_from = begin >= l + kDriftSlack ? begin - l - kDriftSlack : 0;
    const std::size_t t = std::min(trail_, kMaxContextConsidered);
    std::size_t t_to = std::min(n_, end + t + kDriftSlack);
    // A side's window stops at a line only the other side's context has (informative): context
    // found past it belongs to another place. (bitsandbytes b72b766ee3a3 adds `set(BUILD_HIP
    // OFF)` before `set(BUILD_XPU ON)` / `else()`; with it taken out again, the else branch's
    // own `set(BUILD_HIP OFF)` read applied, its leading context matched above those lines.)
    std::size_t from = l_from;
    for (std::size_t i = begin; i-- > l_from;)
      if (only_on_side(i, trailing_only_)) {
        from = i + 1;
        break;
      }
    for (std::size_t i = end; i < t_to; ++i)
      if (only_on_side(i, leading_only_)) {
        t_to = i;
        break;
      }
    return {lcs(lead_ - l, l, from, begin), lcs(post_n - trail_, t, end, t_to)};
  }

  /// Whether the block found at `c` may not do what the fix does: the statement the hunk puts
  /// next to it (the leading context's last line, or the trailing context's first;
  /// statement_head()) stands again on the block's other side, within kDriftSlack lines and
  /// before that side's own context resumes: assigned again after the block (an override, or
  /// a clamp: which one, the file cannot tell), or the block moved across it, edited or not.
  /// A leaving statement (`return`, `raise`, ...) counts only at the block's indentation or
  /// less (an early `return` inside an `if` leaves the block reachable). Hostile reviews hr30
  /// (an override above the value it overrides, code after a `return`, a synchronize before
  /// the launch) and hr33 (the statement edited above the block and assigned again below it).
  /// O(kDriftSlack x context).
  bool crosses_edited_context(const Candidate& c) const {
    const std::size_t a_first = lead_, a_end = post_.size() - trail_;  // the block's image lines
    if (a_end <= a_first || c.pos >= n_) return false;
    const auto equals_any = [&](std::size_t i, std::size_t from, std::size_t to) {
      for (std::size_t j = from; j < to; ++j)
        if (line_equals(file_.line(i), post_.text(j), mode_)) return true;
      return false;
    };
    const auto indent = [](std::string_view line) {
      std::size_t k = 0;
      while (k < line.size() && (line[k] == ' ' || line[k] == '\t')) ++k;
      return k;
    };
    const std::size_t block_indent = indent(file_.line(c.pos));
    // `j`: the context line next to the block; `up`: it belongs above the block.
    const auto crossed = [&](std::size_t j, bool up) {
      const std::string head = statement_key(images_.post[j]->text);
      if (head.empty()) return false;
      const bool leaves = is_leaving_statement(head);
      // A leaving statement nested deeper than the block (`if y is None: return x` above it)
      // says nothing of where the block stands.
      if (leaves && indent(images_.post[j]->text) > indent(images_.post[a_first]->text))
        return false;
      // The other side, until that side's own context resumes.
      std::size_t steps = 0;
      for (std::size_t i = up ? c.end : c.pos; steps < kDriftSlack; ++steps) {
        if (up ? i >= n_ : i == 0) break;
        const std::size_t at = up ? i++ : --i;
        if (up ? equals_any(at, a_end, post_.size()) : equals_any(at, 0, a_first)) break;
        const std::string_view line = file_.line(at);
        if (statement_key(line) != head) continue;
        if (leaves && indent(line) > block_indent) continue;
        return true;
      }
      return false;
    };
    return (lead_ > 0 && crossed(lead_ - 1, true)) || (trail_ > 0 && crossed(a_end, false));
  }

  /// Whether file line `i` equals one of `lines` (leading_only_ or trailing_only_).
  bool only_on_side(std::size_t i, const std::vector<std::string_view>& lines) const {
    for (const std::string_view text : lines)
      if (line_equals(file_.line(i), text, mode_)) return true;
    return false;
  }

  /// True when the hunk's context on `side` (leading or trailing) has an informative line.
  bool side_informative(bool leading) const {
    const std::size_t from = leading ? 0 : post_.size() - trail_;
    const std::size_t to = leading ? lead_ : post_.size();
    for (std::size_t j = from; j < to; ++j)
      if (informative_line(images_.post[j]->text)) return true;
    return false;
  }

  static void add(Score& into, const Score& s) {
    into.info += s.info;
    into.total += s.total;
  }

  /// Longest common subsequence of post-image lines [first, first + count) and file lines
  /// [from, to), informative matches first.
  Score lcs(std::size_t first, std::size_t count, std::size_t from, std::size_t to) const {
    if (count == 0 || from >= to) return {};
    const std::size_t w = to - from;
    std::vector<Score> prev(w + 1), cur(w + 1);
    for (std::size_t j = 0; j < count; ++j) {
      const bool info = informative_line(images_.post[first + j]->text);
      cur[0] = Score{};
      for (std::size_t i = 0; i < w; ++i) {
        Score best = std::max(prev[i + 1], cur[i]);
        if (line_equals(file_.line(from + i), post_.text(first + j), mode_)) {
          Score diag = prev[i];
          diag.total += 1;
          diag.info += info ? 1 : 0;
          best = std::max(best, diag);
        }
        cur[i + 1] = best;
      }
      std::swap(prev, cur);
    }
    return prev[w];
  }

  const FileText& file_;
  MatchCache& cache_;
  const TextMode mode_;
  const HunkImages& images_;
  const DriftQuery& query_;
  const std::size_t n_;
  const std::size_t lead_, trail_;
  ImageText post_, pre_;
  std::size_t a_count_ = 0, r_count_ = 0;
  std::size_t added_ = 0, removed_ = 0;  ///< '+' and '-' lines of the hunk
  bool context_informative_ = false;
  std::size_t context_info_ = 0;     ///< informative context lines that sides() compares
  std::string_view own_definition_;  ///< the definition line of the leading context, if any
  std::string_view next_definition_;  ///< the first definition line of the trailing context
  /// The informative context lines (as compared, post_.text()) of one side that the other
  /// side's context does not have, the nearest kMaxContextConsidered of each side.
  std::vector<std::string_view> leading_only_, trailing_only_;
  bool leaves_section_ = false;  ///< leaves_section() of the hunk
};

/// `s` without white space and the punctuation around keywords.
std::string_view bare(std::string_view s) {
  auto edge = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '{' || c == '}' ||
           c == '(' || c == ')' || c == '[' || c == ']' || c == ';' || c == ':' || c == ',';
  };
  while (!s.empty() && edge(s.front())) s.remove_prefix(1);
  while (!s.empty() && edge(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

bool newline_only_change(const HunkImages& images) {
  const auto marked = [](const std::vector<const HunkLine*>& lines) {
    return std::any_of(lines.begin(), lines.end(),
                       [](const HunkLine* l) { return l->no_newline_at_eof; });
  };
  if (marked(images.pre) == marked(images.post) || images.pre.size() != images.post.size())
    return false;
  for (std::size_t j = 0; j < images.pre.size(); ++j)
    if (images.pre[j]->text != images.post[j]->text) return false;
  return true;
}

bool is_leaving_statement(std::string_view head) {
  static constexpr std::array<std::string_view, 7> kExits = {
      "return", "raise", "break", "continue", "throw", "goto", "co_return"};
  return std::find(kExits.begin(), kExits.end(), head) != kExits.end();
}

std::string statement_key(std::string_view line) {
  std::string key;
  for (const char ch : statement_head(line)) {
    if (ch == ' ' || ch == '\t') continue;
    key += ch == '\'' ? '"' : ch;
  }
  return key;
}

std::string_view statement_head(std::string_view line) {
  line = trim_space(line);
  std::size_t e = 0;
  while (e < line.size() && (std::isalnum(static_cast<unsigned char>(line[e])) != 0 ||
                             line[e] == '_' || line[e] == '.'))
    ++e;
  std::string_view head = line.substr(0, e);
  if (head.size() < 2 || std::isdigit(static_cast<unsigned char>(head[0])) != 0) return {};
  // Statements that leave the block: one another's edits whatever follows the keyword.
  static constexpr std::array<std::string_view, 7> kExits = {
      "return", "raise", "break", "continue", "throw", "goto", "co_return"};
  if (std::find(kExits.begin(), kExits.end(), head) != kExits.end()) return head;
  // Other keywords and type names say nothing of which statement a line is.
  static constexpr std::array<std::string_view, 40> kWords = {
      "if",       "elif",   "else",     "for",     "while",    "do",       "switch", "case",
      "def",      "class",  "struct",   "import",  "from",     "with",     "try",    "except",
      "finally",  "assert", "del",      "pass",    "yield",    "await",    "async",  "lambda",
      "not",      "and",    "or",       "static",  "const",    "constexpr", "auto",  "int",
      "unsigned", "void",   "template", "typename", "namespace", "using",   "bool",   "float"};
  if (std::find(kWords.begin(), kWords.end(), head) != kWords.end()) return {};
  // A statement: an assignment, a call or a subscript follows the name.
  const std::string_view rest = trim_space(line.substr(e));
  if (rest.empty() || (rest[0] != '=' && rest[0] != '(' && rest[0] != '[' && rest[0] != '+' &&
                       rest[0] != '-' && rest[0] != '*' && rest[0] != '/' && rest[0] != '|' &&
                       rest[0] != '&' && rest[0] != ':'))
    return {};
  if (rest[0] == '=' && rest.size() > 1 && rest[1] == '=') return {};  // a comparison
  // A subscript is part of the name: config["BLOCK_M"] and config["BLOCK_N"] are two.
  if (line.size() > e && line[e] == '[') {
    int depth = 0;
    std::size_t k = e;
    for (; k < line.size(); ++k) {
      if (line[k] == '[') ++depth;
      if (line[k] == ']' && --depth == 0) break;
    }
    if (k < line.size()) head = line.substr(0, k + 1);
  }
  return head;
}

bool informative_line(std::string_view line) {
  const std::string_view s = bare(line);
  if (alnum_count(s) < 3) return false;
  static constexpr std::array<std::string_view, 30> kTrivial = {
      "return",  "else",  "pass",     "break",   "continue", "try",   "finally", "end",
      "fi",      "done",  "then",     "do",      "default",  "None",  "True",    "False",
      "except",  "raise", "else if",  "#endif",  "#else",    "endif", "begin",   "return None",
      "nullptr", "NULL",  "return 0", "return;", "private",  "public"};
  if (std::find(kTrivial.begin(), kTrivial.end(), s) != kTrivial.end()) return false;
  // `return false;`, `return None`, `return -1;`: a return of a bare constant says no more
  // than `return`.
  if (s.substr(0, 7) == "return ") {
    static constexpr std::array<std::string_view, 16> kConstants = {
        "true", "false", "True", "False", "None",  "nullptr", "NULL", "null",
        "nil",  "0",     "1",    "-1",    "self",  "this",    "{}",   "undefined"};
    const std::string_view value = bare(s.substr(7));
    if (std::find(kConstants.begin(), kConstants.end(), value) != kConstants.end()) return false;
  }
  return true;
}

DriftResult find_drift(const FileText& file, MatchCache& cache, TextMode mode,
                       const HunkImages& images, const DriftQuery& query) {
  Drift drift(file, cache, mode, images, query);
  return drift.run();
}

DriftResult find_trivial(const FileText& file, MatchCache& cache, TextMode mode,
                         const HunkImages& images, const DriftQuery& query) {
  Drift drift(file, cache, mode, images, query);
  return drift.trivial();
}

std::optional<std::size_t> find_other_side(const FileText& file, MatchCache& cache, TextMode mode,
                                           const HunkImages& images, const DriftQuery& query,
                                           bool applied, std::size_t own) {
  Drift drift(file, cache, mode, images, query);
  return drift.other_side(applied, own);
}

std::optional<std::size_t> find_removed_in_place(const FileText& file, MatchCache& cache,
                                                 TextMode mode, const HunkImages& images,
                                                 const DriftQuery& query, std::size_t begin,
                                                 std::size_t end) {
  Drift drift(file, cache, mode, images, query);
  return drift.removed_in_place(begin, end);
}

std::optional<CopyEvidence> find_copy(const FileText& file, const HunkImages& images,
                                      std::size_t from, std::size_t to) {
  constexpr std::size_t kMaxCopyLines = 4000;
  to = std::min(to, file.size());
  if (from >= to) return std::nullopt;
  std::unordered_set<std::string_view> old_lines;
  for (const HunkLine* l : images.pre) old_lines.insert(trim_space(l->text));
  std::vector<std::string_view> fresh;
  for (const HunkLine* l = images.begin; l != images.end; ++l) {
    if (l->kind != LineKind::kAdded || !informative_line(l->text)) continue;
    const std::string_view t = trim_space(l->text);
    if (old_lines.count(t) == 0) fresh.push_back(t);
  }
  if (fresh.empty() || fresh.size() > kMaxCopyLines) return std::nullopt;
  // Longest common subsequence, keeping per cell the first file line of the run it counts.
  const std::size_t w = to - from;
  struct Cell {
    std::size_t count = 0;
    std::size_t first = 0;
    bool definition = false;
  };
  std::optional<std::size_t> first_definition;
  for (std::size_t j = 0; j < fresh.size() && !first_definition; ++j)
    if (!definition_name(fresh[j]).empty()) first_definition = j;
  std::vector<Cell> prev(w + 1), cur(w + 1);
  for (std::size_t j = 0; j < fresh.size(); ++j) {
    const std::string_view line = fresh[j];
    const bool defines = first_definition && *first_definition == j;
    cur[0] = Cell{};
    for (std::size_t i = 0; i < w; ++i) {
      Cell best = prev[i + 1].count >= cur[i].count ? prev[i + 1] : cur[i];
      if (trim_space(file.line(from + i)) == line && prev[i].count + 1 > best.count) {
        best = prev[i];
        if (best.count == 0) best.first = from + i;
        best.count += 1;
        best.definition = best.definition || defines;
      }
      cur[i + 1] = best;
    }
    std::swap(prev, cur);
  }
  const Cell& all = prev[w];
  if (all.count == 0) return std::nullopt;
  CopyEvidence e;
  e.first = all.first;
  e.agree = all.count;
  e.lines = fresh.size();
  e.definition = all.definition;
  if (first_definition) e.defined = fresh[*first_definition];
  return e;
}

}  // namespace sm120check::detail
