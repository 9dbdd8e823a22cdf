// Inference of a patch's target architectures (see arch.hpp): the "Arch:" trailer, else what
// the changes concern, from the line rules of scan.hpp applied per hunk and per change block
// (a run of changed lines), the paths and the message, and what makes that unsure.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include "scan.hpp"
#include "sm120check/arch.hpp"
#include "sm120check/error.hpp"
#include "sm120check/parallel.hpp"

namespace sm120check {
namespace {

using namespace arch_scan;

// ---------------------------------------------------------------------------------------------
// Trailer

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

// ---------------------------------------------------------------------------------------------
// Whole patches

/// False for files that do not run in a deployment: tests, benchmarks, docs, examples, CI
/// settings, documentation (.md, .rst, .txt, README, LICENSE); their untargeted changes cast no
/// doubt. Files of unknown kind (JSON configs, submodule pointers) count as runtime.
bool is_runtime_path(std::string_view path) {
  const std::string low = to_lower(path);
  std::size_t from = 0;
  for (std::size_t slash = low.find('/'); slash != npos; slash = low.find('/', from)) {
    const std::string_view dir = std::string_view(low).substr(from, slash - from);
    for (std::string_view name :
         {"test", "tests", "testing", "unittest", "unittests", "benchmark", "benchmarks", "bench",
          "doc", "docs", "example", "examples", ".github", "ci"})
      if (dir == name) return false;
    from = slash + 1;
  }
  const std::string_view file = std::string_view(low).substr(from);
  if (starts_with(file, "test_") || file.find("_test.") != npos || file == "conftest.py")
    return false;
  for (std::string_view doc : {".md", ".rst", ".txt", ".adoc", ".html"})
    if (ends_with(file, doc) && file != "cmakelists.txt") return false;
  for (std::string_view doc : {"license", "readme", "changelog", "authors", "notice"})
    if (starts_with(file, doc)) return false;
  return true;  // code, and files of unknown kind: data, configs, submodule pointers
}

/// The doubt about a runtime hunk whose changed code names no architecture (nor does its path).
constexpr std::string_view kUntargetedCode =
    "code changed with no architecture named in its hunk or path";

/// One line of a hunk with its scan.
struct ScannedLine {
  LineKind kind = LineKind::kContext;
  std::string_view text;
  std::uint32_t number = 0;  ///< post-image line (context, added) or pre-image line (removed)
  LineScan scan;
  bool cancelled = false;   ///< a rewritten line with unchanged targets and residue
  bool reindented = false;  ///< a changed line whose code the hunk's other side has, indented
                            ///< otherwise (moved into or out of a scope)
  bool code_targets() const { return !cancelled && !scan.arch.code.empty(); }
  bool untargeted_code() const {
    return !cancelled && scan.has_code && !scan.import && scan.arch.code.empty();
  }
};

/// Collects what a patch's changes concern: code targets, text targets and doubts, each with
/// the first evidence.
class Concern {
 public:
  explicit Concern(std::string path) : path_(std::move(path)) {}
  void set_path(std::string path) { path_ = std::move(path); }

  std::string where(const ScannedLine& l) const {
    return fmt::format("{}:{}{}", path_, l.number,
                       l.kind == LineKind::kRemoved ? " (removed)" : "");
  }
  std::string cite(const ScannedLine& l) const { return where(l) + ": " + evidence_text(l.text); }
  void code(const ArchTargets& t, const ScannedLine& l) {
    if (t.empty()) return;
    if (code_.empty()) code_evidence_ = cite(l);
    code_.add(t);
  }
  void text(const ArchTargets& t, std::string evidence, std::string& slot) {
    if (t.empty()) return;
    if (slot.empty()) slot = std::move(evidence);
    text_.add(t);
  }
  void doubt(const ScannedLine& l, std::string_view reason) {
    if (doubt_.empty()) doubt_ = fmt::format("{}: {}: {}", where(l), reason, evidence_text(l.text));
  }
  void doubt(std::string reason) {
    if (doubt_.empty()) doubt_ = std::move(reason);
  }
  /// Whether a doubt is recorded (the first one is kept).
  bool has_doubt() const { return !doubt_.empty(); }
  /// Whether a code line named targets (a doubt is reported only then: see result()).
  bool has_code_targets() const { return !code_.empty(); }

  std::string line_text_evidence;  ///< first comment/string/import line with a target
  std::string path_evidence;       ///< first path with a target
  std::string message_evidence;    ///< first message line with a target

  ArchTargets result() const {
    ArchTargets out = code_;
    out.add(text_);
    if (out.empty()) return {};
    out.source = ArchSource::kInferred;
    if (!code_.empty()) {
      out.evidence = code_evidence_;
    } else {
      out.evidence = !line_text_evidence.empty() ? line_text_evidence
                     : !path_evidence.empty()    ? path_evidence
                                                 : message_evidence;
    }
    if (code_.empty()) {
      out.confidence = ArchConfidence::kUnsure;
      out.doubt =
          "no code line names an architecture: targets only from comments, strings, "
          "names, paths or the message";
    } else if (!doubt_.empty()) {
      out.confidence = ArchConfidence::kUnsure;
      out.doubt = doubt_;
    }
    return out;
  }

 private:
  std::string path_;
  ArchTargets code_;
  ArchTargets text_;
  std::string code_evidence_;
  std::string doubt_;
};

/// Whether the first line after `i` in one image (lines of kind `skip` are the other image's),
/// past blank and comment lines, is unchanged code that a condition at `i` would enclose.
bool unchanged_code_follows(const std::vector<ScannedLine>& lines, std::size_t i, LineKind skip) {
  for (std::size_t k = i + 1; k < lines.size(); ++k) {
    const ScannedLine& l = lines[k];
    if (l.kind == skip) continue;
    if (l.kind != LineKind::kContext) return false;
    if (l.scan.closes) return false;
    if (l.scan.has_code) return true;
  }
  return false;
}

/// True when `code` negates something: a "not" word, or a "!" that is not "!=".
bool negated(std::string_view code) {
  for (std::size_t i = 0; i < code.size(); ++i) {
    if (code[i] == '!' && (i + 1 >= code.size() || code[i + 1] != '=')) return true;
    if (code.compare(i, 3, "not") == 0 &&
        (i == 0 ||
         !(std::isalnum(static_cast<unsigned char>(code[i - 1])) != 0 || code[i - 1] == '_')) &&
        (i + 3 >= code.size() ||
         !(std::isalnum(static_cast<unsigned char>(code[i + 3])) != 0 || code[i + 3] == '_')))
      return true;
  }
  return false;
}

/// Sets ScannedLine::reindented: per side, the changed lines' code (trimmed) and the
/// indentation it was first seen with, then each changed line looked up on the other side.
void mark_reindented(std::vector<ScannedLine>& lines) {
  struct Seen {
    std::string_view indent;
    bool several = false;  ///< seen with more than one indentation
  };
  // A line moved in or out of a scope needs both sides: a hunk that only adds (a new file) or
  // only removes has none, and indexing its lines would cost a hash map of the whole hunk.
  const auto has = [&](LineKind kind) {
    return std::any_of(lines.begin(), lines.end(), [&](const ScannedLine& l) {
      return l.kind == kind && l.scan.has_code;
    });
  };
  if (!has(LineKind::kAdded) || !has(LineKind::kRemoved)) return;
  std::array<std::unordered_map<std::string_view, Seen>, 2> sides;  // removed, added
  auto indent_of = [](std::string_view text) {
    return text.substr(0, std::min(text.find_first_not_of(" \t"), text.size()));
  };
  for (const ScannedLine& l : lines) {
    if (l.kind == LineKind::kContext || !l.scan.has_code) continue;
    auto& side = sides[l.kind == LineKind::kAdded ? 1 : 0];
    const auto [it, fresh] = side.try_emplace(trim(l.text), Seen{indent_of(l.text), false});
    if (!fresh && it->second.indent != indent_of(l.text)) it->second.several = true;
  }
  for (ScannedLine& l : lines) {
    if (l.kind == LineKind::kContext || !l.scan.has_code) continue;
    const auto& other = sides[l.kind == LineKind::kAdded ? 0 : 1];
    const auto it = other.find(trim(l.text));
    l.reindented =
        it != other.end() && (it->second.several || it->second.indent != indent_of(l.text));
  }
}

/// An early-exit guard at `k` ("if cc[0] != 12: return", or a guard head whose next line on
/// its side exits) followed, later in the block on its side and before another exit, by new
/// code: that code runs where the guard's condition does not hold, so the block also concerns
/// the complement. A chain "if cc == A: return a; if cc == B: return b; raise" adds nothing.
bool guard_before_new_code(const std::vector<ScannedLine>& lines, std::size_t k, std::size_t end) {
  const ScannedLine& g = lines[k];
  if (!g.scan.guard) return false;
  std::size_t exit = npos;
  if (g.scan.exits) {
    exit = k;
  } else {
    for (std::size_t i = k + 1; i < end; ++i) {
      if (lines[i].kind != g.kind) continue;
      if (lines[i].scan.exits) exit = i;
      if (lines[i].scan.has_code) break;
    }
  }
  if (exit == npos) return false;
  for (std::size_t i = exit + 1; i < end; ++i) {
    const ScannedLine& l = lines[i];
    if (l.kind != g.kind) continue;
    if (l.scan.exits) return false;  // a chain of exits ending in an error path: no new code
    if (l.untargeted_code() && !l.scan.closes) return true;
  }
  return false;
}

/// One change block [begin, end) of a hunk: what its condition lines concern, and doubts.
void assess_block(const std::vector<ScannedLine>& lines, std::size_t begin, std::size_t end,
                  bool runtime, Concern& concern) {
  // Moved into or out of a scope: its other half may lie in another block of the hunk
  // (ScannedLine::reindented, found once per hunk).
  std::vector<std::size_t> removed;
  std::vector<std::size_t> added;
  const ScannedLine* untargeted_removed = nullptr;
  const ScannedLine* untargeted_added = nullptr;
  bool moved = false;
  for (std::size_t k = begin; k < end; ++k) {
    const ScannedLine& l = lines[k];
    const bool is_removed = l.kind == LineKind::kRemoved;
    if (l.code_targets() && !l.scan.import) (is_removed ? removed : added).push_back(k);
    if (l.untargeted_code()) {
      const ScannedLine*& first = is_removed ? untargeted_removed : untargeted_added;
      if (!first) first = &l;
    }
    if (l.reindented) moved = true;
  }
  const auto united = [&](const std::vector<std::size_t>& a, const std::vector<std::size_t>& b) {
    ArchTargets u;
    for (std::size_t k : a) u.add(lines[k].scan.arch.code);
    for (std::size_t k : b) u.add(lines[k].scan.arch.code);
    return u;
  };
  // Runtime files only: in a test the guard is a skip, and the new test code after it fixes
  // nothing on the architectures it runs on.
  for (const std::vector<std::size_t>* side : {&removed, &added})
    for (std::size_t k : *side)
      if (runtime && guard_before_new_code(lines, k, end))
        concern.code(complement(lines[k].scan.arch.code), lines[k]);
  if (!removed.empty() && !added.empty()) {
    // A rewritten condition. With nothing else changed and one-to-one lines, each pair concerns
    // where its value changes; if the body changed too, everything either side names.
    if (untargeted_removed || untargeted_added || removed.size() != added.size()) {
      concern.code(united(removed, added), lines[added.front()]);
      return;
    }
    for (std::size_t k = 0; k < removed.size(); ++k) {
      const ScannedLine& r = lines[removed[k]];
      const ScannedLine& a = lines[added[k]];
      concern.code(r.scan.residue == a.scan.residue
                       ? symmetric_difference(r.scan.arch.code, a.scan.arch.code)
                       : united({removed[k]}, {added[k]}),
                   a);
    }
    return;
  }
  if (!added.empty()) {
    // A new condition: what it names, unless it may enclose code that was there before.
    concern.code(united(added, {}), lines[added.front()]);
    if (moved) concern.doubt(lines[added.front()], "condition added around re-indented code");
    if (untargeted_removed)
      concern.doubt(*untargeted_removed, "code removed beside an added condition");
    for (std::size_t k : added)
      if (lines[k].scan.opens_scope && unchanged_code_follows(lines, k, LineKind::kRemoved))
        concern.doubt(lines[k], "condition added around unchanged code");
  } else if (!removed.empty()) {
    // A deleted condition: what it named, unless its code stays for everyone.
    concern.code(united(removed, {}), lines[removed.front()]);
    if (moved) concern.doubt(lines[removed.front()], "condition removed around re-indented code");
    if (untargeted_added) concern.doubt(*untargeted_added, "code added beside a removed condition");
    for (std::size_t k : removed)
      if (lines[k].scan.opens_scope && unchanged_code_follows(lines, k, LineKind::kAdded))
        concern.doubt(lines[k], "condition removed around unchanged code");
  }
}

/// True for a line that reads as a Python statement rather than prose.
bool python_statement(std::string_view line) {
  const std::string_view t = trim(line);
  if (t.empty()) return false;
  if (t.front() == '@' || t.find(" = ") != npos) return true;
  std::size_t e = 0;
  while (e < t.size() && is_ident(t[e])) ++e;
  const std::string_view word = t.substr(0, e);
  for (std::string_view k : {"def",   "class",  "return", "if",     "elif",  "else",   "for",
                             "while", "with",   "try",    "except", "raise", "import", "from",
                             "pass",  "assert", "yield",  "async",  "await", "del",    "global"})
    if (word == k) return true;
  return e > 0 && e < t.size() && (t[e] == '(' || t[e] == '.' || t[e] == '[');
}

/// The quote character when a Python hunk seems to start inside a triple-quoted string (a
/// docstring opened above the hunk), else 0. Read from the first line holding triple quotes:
/// prose before them ("kernel for SM100.\"\"\"") closes a string; so do bare quotes followed by
/// a statement (def, return, x = ...).
char docstring_at_start(const Hunk& hunk) {
  for (std::size_t i = 0; i < hunk.lines.size(); ++i) {
    const std::string_view line = hunk.lines[i].text;
    const std::size_t q = std::min(line.find(R"(""")"), line.find("'''"));
    if (q == npos) continue;
    const char quote = line[q];
    const std::string_view before = trim(line.substr(0, q));
    const std::string_view after = trim(line.substr(q + 3));
    if (!before.empty()) {
      static constexpr std::string_view kOpeners[] = {"=", "(", ",",  "[",  "return", "r",  "f",
                                                      "b", "u", "rb", "br", "fr",     "rf", ":"};
      for (std::string_view o : kOpeners)
        if (ends_with(before, o)) return 0;
      return quote;
    }
    if (!after.empty()) return 0;  // """Summary line: an opening
    for (std::size_t k = i + 1; k < hunk.lines.size(); ++k) {
      if (trim(hunk.lines[k].text).empty()) continue;
      return python_statement(hunk.lines[k].text) ? quote : 0;
    }
    return 0;
  }
  return 0;
}

/// The lines of `hunk` scanned (ScannedLine), each image's lexer starting at `start`. A changed
/// line's code is kept only when the hunk has both sides (it is compared with the other side's).
std::vector<ScannedLine> scan_hunk(const Hunk& hunk, LineSyntax syntax, LexState start) {
  std::vector<ScannedLine> lines;
  lines.reserve(hunk.lines.size());
  LexState old_state = start;
  LexState new_state = start;
  std::uint32_t old_line = hunk.old_start;
  std::uint32_t new_line = hunk.new_start;
  const auto has_kind = [&](LineKind kind) {
    return std::any_of(hunk.lines.begin(), hunk.lines.end(),
                       [&](const HunkLine& l) { return l.kind == kind; });
  };
  const bool both_sides = has_kind(LineKind::kAdded) && has_kind(LineKind::kRemoved);
  for (const HunkLine& l : hunk.lines) {
    ScannedLine s;
    s.kind = l.kind;
    s.text = l.text;
    const bool keep_code = both_sides && l.kind != LineKind::kContext;
    if (l.kind == LineKind::kRemoved) {
      s.scan = scan_line(l.text, syntax, old_state, keep_code);
      s.number = old_line++;
    } else {
      s.scan = scan_line(l.text, syntax, new_state, keep_code);
      s.number = new_line++;
      if (l.kind == LineKind::kContext) {
        lex_line(l.text, syntax, old_state);  // the old side's lexer state only
        ++old_line;
      }
    }
    lines.push_back(std::move(s));
  }
  return lines;
}

/// What a hunk none of whose changed lines has code targets or an unsolved capability test
/// adds to a Concern (the blocks' rules need code targets): its changed lines with text
/// targets, and the first changed line of content that is no rewrite (for the doubt about
/// untargeted code).
struct PlainHunk {
  std::vector<ScannedLine> text_named;
  std::optional<ScannedLine> first_code;  ///< set only when asked for
};

/// PlainHunk of `hunk` (scanned as scan_hunk() scans it, each image's lexer starting at
/// `start`), with PlainHunk::first_code when `want_first_code`; std::nullopt for a hunk with
/// code targets or an unsolved test (stopping at its first such line). Context lines are only
/// lexed and no changed line is kept beyond what is asked: most hunks of a large patch name no
/// architecture, and this is all they cost. Rewrites are paired as assess_hunk() pairs them
/// (a removed and an added line with the same code; without code targets, nothing else).
std::optional<PlainHunk> plain_hunk(const Hunk& hunk, LineSyntax syntax, LexState start,
                                    bool want_first_code) {
  PlainHunk out;
  const auto has_kind = [&](LineKind kind) {
    return std::any_of(hunk.lines.begin(), hunk.lines.end(),
                       [&](const HunkLine& l) { return l.kind == kind; });
  };
  // Only a hunk with both sides pairs lines (scan_hunk() keeps the code of no other).
  const bool pair = want_first_code && has_kind(LineKind::kAdded) && has_kind(LineKind::kRemoved);
  struct Changed {
    std::size_t line = 0;  ///< index into hunk.lines
    std::uint32_t number = 0;
    bool content = false;  ///< a candidate for first_code
    bool has_code = false;
    std::size_t code = 0, code_size = 0;  ///< its code in `codes`, when paired
    std::size_t hash = 0;                 ///< of its code
  };
  std::vector<Changed> changed;
  std::string codes;  // the changed lines' code, one after the other
  LexState old_state = start;
  LexState new_state = start;
  std::uint32_t old_line = hunk.old_start;
  std::uint32_t new_line = hunk.new_start;
  LineScan scan;     // reused: its buffers are allocated once
  std::string code;  // the code of the line scanned last, when paired
  for (std::size_t i = 0; i < hunk.lines.size(); ++i) {
    const HunkLine& l = hunk.lines[i];
    if (l.kind == LineKind::kContext) {
      const bool same = old_state.block_comment == new_state.block_comment &&
                        old_state.triple == new_state.triple;
      lex_line(l.text, syntax, new_state);
      if (same)
        old_state = new_state;
      else
        lex_line(l.text, syntax, old_state);
      ++old_line;
      ++new_line;
      continue;
    }
    const bool removed = l.kind == LineKind::kRemoved;
    LexState& state = removed ? old_state : new_state;
    const std::uint32_t number = removed ? old_line++ : new_line++;
    // Past the first line of content of a hunk that pairs nothing, a line that can name no
    // architecture tells nothing: only lexed (the new file of 40k lines).
    if (!pair && (!want_first_code || out.first_code) && !may_name_arch(l.text)) {
      lex_line(l.text, syntax, state);
      continue;
    }
    // Most lines can name no architecture: only lexed, their code kept when paired.
    std::optional<PlainLine> plain = scan_plain_line(l.text, syntax, state, pair ? &code : nullptr);
    const bool scanned = !plain;
    if (scanned) {
      scan_line(l.text, syntax, state, pair, scan);
      if (!scan.arch.code.empty() || !scan.arch.unsolved.empty()) return std::nullopt;
      plain = PlainLine{scan.has_code, scan.import};
      code = scan.code;
    }
    const bool content =
        (syntax == LineSyntax::kProse ? !trim(l.text).empty() : plain->has_code) && !plain->import;
    if (want_first_code && !pair) {
      // Nothing pairs: the first line of content is the one.
      if (content && !out.first_code) {
        ScannedLine s;
        s.kind = l.kind;
        s.text = l.text;
        s.number = number;
        out.first_code = std::move(s);
      }
    } else if (want_first_code) {
      Changed c;
      c.line = i;
      c.number = number;
      c.has_code = plain->has_code;
      c.content = content;
      c.code = codes.size();
      c.code_size = code.size();
      c.hash = std::hash<std::string_view>{}(code);
      codes += code;
      changed.push_back(c);
    }
    if (!scanned || scan.arch.text.empty()) continue;
    ScannedLine s;
    s.kind = l.kind;
    s.text = l.text;
    s.number = number;
    s.scan = scan;
    out.text_named.push_back(std::move(s));
  }
  if (!want_first_code || !pair) return out;
  const auto code_of = [&](const Changed& c) {
    return std::string_view(codes).substr(c.code, c.code_size);
  };
  // Pairing: each added line of code, in order, takes the first removed line with the same
  // code not taken yet. Removed lines sorted by (hash, code, position): a run of equal codes
  // is taken from its front.
  std::vector<bool> cancelled(changed.size(), false);
  // Strictly before: by hash, then by code (equal hashes only).
  const auto before = [&](const Changed& a, const Changed& b) {
    return a.hash != b.hash ? a.hash < b.hash : code_of(a) < code_of(b);
  };
  std::vector<std::size_t> removed;  // indices into `changed`
  for (std::size_t k = 0; k < changed.size(); ++k)
    if (hunk.lines[changed[k].line].kind == LineKind::kRemoved) removed.push_back(k);
  std::stable_sort(removed.begin(), removed.end(),
                   [&](std::size_t a, std::size_t b) { return before(changed[a], changed[b]); });
  std::vector<std::size_t> taken(removed.size(), 0);  // per run start: how many are taken
  for (std::size_t k = 0; k < changed.size(); ++k) {
    const Changed& a = changed[k];
    if (hunk.lines[a.line].kind != LineKind::kAdded || !a.has_code) continue;
    const auto run = std::lower_bound(
        removed.begin(), removed.end(), k,
        [&](std::size_t r, std::size_t added) { return before(changed[r], changed[added]); });
    if (run == removed.end() || code_of(changed[*run]) != code_of(a)) continue;
    const auto first = static_cast<std::size_t>(run - removed.begin());
    const std::size_t next = first + taken[first];
    if (next >= removed.size() || code_of(changed[removed[next]]) != code_of(a)) continue;
    ++taken[first];
    cancelled[removed[next]] = cancelled[k] = true;
  }
  for (std::size_t k = 0; k < changed.size(); ++k) {
    if (!changed[k].content || cancelled[k]) continue;
    const HunkLine& l = hunk.lines[changed[k].line];
    ScannedLine s;
    s.kind = l.kind;
    s.text = l.text;
    s.number = changed[k].number;
    out.first_code = std::move(s);
    break;
  }
  return out;
}

/// What the scanned lines of one hunk concern (see assess_file()).
void assess_hunk(std::vector<ScannedLine>& lines, LineSyntax syntax, bool runtime,
                 bool path_targets, Concern& concern) {
  // A removed and an added line with the same code (a comment changed) change no code; a
  // rewritten line with the same targets and the same residue ("if" -> "elif") is no change
  // of what it concerns. Removed lines are indexed by code, so this is linear in the hunk.
  std::unordered_map<std::string_view, std::vector<std::size_t>> removed_by_code;
  std::vector<std::size_t> removed_targeted;
  for (std::size_t k = lines.size(); k-- > 0;) {  // reversed: pop_back() gives the first
    if (lines[k].kind != LineKind::kRemoved) continue;
    removed_by_code[lines[k].scan.code].push_back(k);
  }
  for (ScannedLine& a : lines) {
    if (a.kind != LineKind::kAdded || !a.scan.has_code) continue;
    auto it = removed_by_code.find(a.scan.code);
    if (it == removed_by_code.end() || it->second.empty()) continue;
    lines[it->second.back()].cancelled = a.cancelled = true;
    it->second.pop_back();
  }
  for (std::size_t k = 0; k < lines.size(); ++k)
    if (lines[k].kind == LineKind::kRemoved && !lines[k].cancelled && !lines[k].scan.import &&
        !lines[k].scan.arch.code.empty())
      removed_targeted.push_back(k);
  for (ScannedLine& a : lines) {
    if (a.cancelled) continue;
    if (a.kind != LineKind::kAdded || a.scan.arch.code.empty() || a.scan.import) continue;
    for (const std::size_t k : removed_targeted) {
      ScannedLine& r = lines[k];
      if (r.cancelled || r.scan.arch.code.ranges != a.scan.arch.code.ranges ||
          r.scan.residue != a.scan.residue)
        continue;
      r.cancelled = a.cancelled = true;
      break;
    }
  }
  mark_reindented(lines);
  bool hunk_targets = false;
  const ScannedLine* first_code = nullptr;
  for (const ScannedLine& l : lines) {
    if (l.kind == LineKind::kContext) continue;
    const LineArch& arch = l.scan.arch;
    if (!arch.code.empty() || !arch.text.empty()) hunk_targets = true;
    if (!arch.text.empty()) concern.text(arch.text, concern.cite(l), concern.line_text_evidence);
    if (!l.cancelled && !arch.unsolved.empty())
      concern.doubt(fmt::format("{}: capability test not solved: {}", concern.where(l),
                                evidence_text(arch.unsolved)));
    // "if not is_sm100_family():" runs where its target is not: the code concerns the
    // complement, which the line rules do not compute for every form. Doubt, never a skip.
    if (!l.cancelled && !arch.code.empty() && negated(l.scan.code))
      concern.doubt(l, "negated architecture test");
    // In a file of unknown kind (prose syntax) every non-blank line is content.
    const bool content = syntax == LineSyntax::kProse ? !trim(l.text).empty() : l.scan.has_code;
    if (!first_code && content && !l.scan.import && !l.cancelled) first_code = &l;
  }
  if (runtime && !hunk_targets && !path_targets && first_code)
    concern.doubt(*first_code, kUntargetedCode);
  for (std::size_t i = 0; i < lines.size();) {
    if (lines[i].kind == LineKind::kContext) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < lines.size() && lines[j].kind != LineKind::kContext) ++j;
    assess_block(lines, i, j, runtime, concern);
    i = j;
  }
}

/// Hunks that may hold the patch's first doubt about untargeted code (runtime file, no
/// architecture in the hunk or the path, no doubt recorded before them), kept in order and
/// looked at only when the doubt can count: before a hunk with code targets records doubts of
/// its own, and at the end when the patch has code targets (without them the doubt is never
/// reported). A large patch that names no architecture then never pairs its rewritten lines.
class UntargetedHunks {
 public:
  void add(const Hunk& hunk, const std::string& path, LineSyntax syntax, LexState start) {
    pending_.push_back({&hunk, path, syntax, start});
  }

  /// Records the first of their doubts, as reading them in order would have; clears the list.
  void resolve(Concern& concern, const std::string& current_path) {
    for (const Pending& p : pending_) {
      if (concern.has_doubt()) break;
      const std::optional<PlainHunk> plain = plain_hunk(*p.hunk, p.syntax, p.start, true);
      if (!plain || !plain->first_code) continue;  // (plain: it was read as one)
      concern.set_path(p.path);
      concern.doubt(*plain->first_code, kUntargetedCode);
    }
    concern.set_path(current_path);
    pending_.clear();
  }

 private:
  struct Pending {
    const Hunk* hunk;
    std::string path;
    LineSyntax syntax;
    LexState start;
  };
  std::vector<Pending> pending_;
};

void assess_file(const FilePatch& file, unsigned strip, Concern& concern,
                 UntargetedHunks& untargeted) {
  const std::string& raw = file.new_path == "/dev/null" ? file.old_path : file.new_path;
  const std::string path = strip_path(raw, strip).value_or(raw);
  concern.set_path(path);
  const LineSyntax syntax = syntax_for_path(path);
  const bool runtime = is_runtime_path(path);
  const ArchTargets path_targets = targets_in_path(path);
  concern.text(path_targets, path + " (path)", concern.path_evidence);

  for (const Hunk& hunk : file.hunks) {
    LexState start;
    if (syntax == LineSyntax::kHash) start.triple = docstring_at_start(hunk);
    // The doubt about untargeted code is open while none is recorded: such a hunk is kept
    // for later (UntargetedHunks).
    const bool doubt_open = runtime && path_targets.empty() && !concern.has_doubt();
    if (std::optional<PlainHunk> plain = plain_hunk(hunk, syntax, start, false)) {
      for (const ScannedLine& l : plain->text_named)
        concern.text(l.scan.arch.text, concern.cite(l), concern.line_text_evidence);
      if (doubt_open && plain->text_named.empty()) untargeted.add(hunk, path, syntax, start);
      continue;
    }
    untargeted.resolve(concern, path);  // their doubts come before this hunk's
    std::vector<ScannedLine> lines = scan_hunk(hunk, syntax, start);
    assess_hunk(lines, syntax, runtime, !path_targets.empty(), concern);
  }
}

/// The message's subject and body (header fields other than Subject, and the diffstat after
/// "---", left out) as text evidence.
void assess_message(std::string_view message, Concern& concern) {
  bool header = true;
  std::size_t pos = 0;
  while (pos < message.size()) {
    std::size_t eol = message.find('\n', pos);
    if (eol == npos) eol = message.size();
    const std::string_view line = message.substr(pos, eol - pos);
    pos = eol + 1;
    const std::string_view t = trim(line);
    if (t == "---") break;
    if (t.empty()) {
      header = false;
      continue;
    }
    if (header) {
      std::size_t k = 0;
      while (k < line.size() && (is_alnum(line[k]) || line[k] == '-')) ++k;
      const bool field = k > 0 && k < line.size() && line[k] == ':';
      if (starts_with(line, "From ") || starts_with(line, "commit ") ||
          (field && !starts_with_nocase(line, "subject:")))
        continue;
    }
    LexState state;
    const LineScan scan = scan_line(line, LineSyntax::kProse, state);
    concern.text(scan.arch.text, "message: " + evidence_text(line), concern.message_evidence);
  }
}

}  // namespace

ArchTargets parse_arch_trailer(std::string_view message) {
  std::size_t pos = 0;
  while (pos < message.size()) {
    std::size_t eol = message.find('\n', pos);
    if (eol == npos) eol = message.size();
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
  Concern concern("");
  UntargetedHunks untargeted;
  for (const FilePatch& file : patch.files) assess_file(file, strip, concern, untargeted);
  if (concern.has_code_targets()) untargeted.resolve(concern, "");
  assess_message(patch.message, concern);
  return concern.result();
}

std::vector<ArchTargets> infer_arch_targets(const std::vector<Patch>& patches,
                                            const std::vector<unsigned>& strips,
                                            unsigned threads) {
  std::vector<ArchTargets> out(patches.size());
  for_each_shared(patches.size(), threads, [&](std::size_t, std::size_t i) {
    out[i] = infer_arch_targets(patches[i], strips.at(i));
  });
  return out;
}

}  // namespace sm120check
