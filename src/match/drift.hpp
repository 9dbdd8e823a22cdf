// Internal to src/match: presence under drift, for a hunk whose pre-image and post-image both
// fail to match (see match_hunks(), "Drift"). The matcher calls find_drift() once per such
// hunk, after every hunk of the file has had its exact (and fuzz) search.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "line_index.hpp"

namespace sm120check::detail {

/// What the drift search is asked about one hunk.
struct DriftQuery {
  /// 0-based file line where the hunk's changed block (its post-image without the edge context)
  /// is expected: the header's line shifted by the offset of the nearest matched hunk.
  std::int64_t expected = 0;
  /// Lines between the neighbouring hunks' matches, [order_lo, order_hi): a placement there
  /// keeps the hunks in order, which decides between placements that fit equally well.
  std::size_t order_lo = 0;
  std::size_t order_hi = 0;
  /// Spans [begin, end) of file lines other hunks of the file matched (sorted, disjoint): a
  /// block found inside one belongs to that hunk.
  const std::vector<std::pair<std::size_t, std::size_t>>* claimed = nullptr;
  /// This hunk's own span among `claimed`, when it has one: not held against it.
  std::optional<std::pair<std::size_t, std::size_t>> own;
  /// When set, only the placement of the changed block starting at this 0-based line is
  /// considered (the matcher's choice among ambiguous places by hunk order).
  std::optional<std::size_t> only_at;
};

/// The drift search's answer.
struct DriftResult {
  Presence presence = Presence::kUnknown;
  /// Stable code saying why (HunkMatch::diagnostic): "" for kPresent, else e.g. "not-found",
  /// "removed-lines-present", "ambiguous", "trivial-lines", "found-elsewhere",
  /// "other-section", "section-ambiguous", "changed-lines-differ", "whitespace-differs",
  /// "context-differs".
  std::string why;
  /// kPresent: 0-based first line of the changed block; for a pure deletion, the line where the
  /// removed lines were (the first trailing context line).
  std::size_t pos = 0;
  std::size_t count = 0;          ///< kPresent: lines of the block (0 for a pure deletion).
  std::size_t context_agree = 0;  ///< kPresent: the hunk's context lines found around it.
  std::size_t context_lines = 0;  ///< the hunk's edge context lines in all.
  /// 0-based lines where the change's lines (or, with why "removed-lines-present", the lines it
  /// removes) were found, nearest `expected` first, at most kMaxPlaces.
  std::vector<std::size_t> places;
};

/// Looks for the change of the hunk `images` (built for it) in `file`, comparing lines in
/// `mode`. Cost: one look-up in the file's (value, line) index per image line, then O(1) per
/// candidate placement (window hashes) plus O(context x (context + kDriftSlack)) to count the
/// context around each of at most kMaxDriftCandidates candidates.
DriftResult find_drift(const FileText& file, MatchCache& cache, TextMode mode,
                       const HunkImages& images, const DriftQuery& query);

/// Presence of a hunk whose changed lines are all blank or trivial (an `#endif` replacing a
/// comment: find_drift() says "trivial-lines"; blank lines alone never), placed by a found
/// neighbouring hunk:
/// `query.expected` must come from that hunk's offset. Present only when all of these hold:
/// the hunk removes an informative line (one it does not add back) and none of them stands
/// anywhere in `file`, white space folded (the old code is gone); the changed block stands at
/// exactly one placement within the hunk's length of `query.expected`, inside
/// [order_lo, order_hi) and outside the spans other hunks hold; the leading or the trailing
/// context, with a non-blank line, stands in full right next to that placement; and, where the
/// hunk's section is a definition the file has, the placement is under it. Otherwise the
/// answer is find_drift()'s ("trivial-lines", unknown): a trivial line is evidence only where
/// the hunk's place is known and the code it replaces is gone. Cost: O(file lines) for the
/// removed lines' look-up, O(hunk lines^2) for the placements.
DriftResult find_trivial(const FileText& file, MatchCache& cache, TextMode mode,
                         const HunkImages& images, const DriftQuery& query);

/// Where the other side of an image match stands: for a hunk whose post-image matched
/// (applied), the old code (its removed block, or where a pure addition's context meets); for
/// one whose pre-image matched (applicable), its changed block. `own` is the 0-based line of the
/// match's own changed (applied) or removed (applicable) block: only placements with at least
/// half as much of the hunk's context around them as the match has count, the one nearest
/// `query.expected`. std::nullopt when there is none.
std::optional<std::size_t> find_other_side(const FileText& file, MatchCache& cache, TextMode mode,
                                           const HunkImages& images, const DriftQuery& query,
                                           bool applied, std::size_t own);

/// For a hunk whose image matched at file lines [begin, end) away from where it belongs: the
/// 0-based line of a strong run of its removed lines (consecutive '-' lines, two informative
/// ones or 24 letters and digits, not also in its post-image) standing exactly within the
/// hunk's length of where `query.expected` (the changed block's line) puts it, outside
/// [begin, end) and the spans `query.claimed` holds: the old code where the hunk belongs,
/// whatever its context. std::nullopt when there is none. O(hunk lines^2).
std::optional<std::size_t> find_removed_in_place(const FileText& file, MatchCache& cache,
                                                 TextMode mode, const HunkImages& images,
                                                 const DriftQuery& query, std::size_t begin,
                                                 std::size_t end);

/// How much of a hunk's new code stands, edited, in a stretch of the file (find_copy()).
struct CopyEvidence {
  std::size_t first = 0;     ///< 0-based file line of the first of the hunk's new lines found
  std::size_t agree = 0;     ///< new lines found there, in the hunk's order
  std::size_t lines = 0;     ///< the hunk's new lines in all
  /// The first of the new lines that defines a name (definition_name(): the function or class
  /// the hunk adds) is among those found.
  bool definition = false;
  /// That first defining new line, trimmed ("" when none); a view into the hunk.
  std::string_view defined;
};

/// The hunk's new lines (its informative added lines that its pre-image does not also hold,
/// white space at both ends ignored) against file lines [from, to): the longest run of them
/// standing there in the hunk's order, gaps allowed. std::nullopt when the hunk has no new
/// line, none stands there, or it has over 4000 (not looked at). O(new lines x (to - from)).
std::optional<CopyEvidence> find_copy(const FileText& file, const HunkImages& images,
                                      std::size_t from, std::size_t to);

/// True when the nearest header line above `pos` (0-based) starts with `section` (a hunk
/// header's text after "@@": the function or class line git found above the hunk). Header
/// lines as git's default rule has them (starting with a letter, "_" or "$"), and for a Python
/// def or class section also every def and class line. False without a section.
bool nearest_header_is(const FileText& file, std::string_view section, std::size_t pos);

/// Whether a hunk placed at `pos` (its first line, 0-based) is under its section: the nearest
/// header above its first line (where git looks), or above the end of its `leading` context
/// (for a section line that is the hunk's own first context line).
bool under_section(const FileText& file, std::string_view section, std::size_t pos,
                   std::size_t leading);

/// The hunk's own definition line: the index in `images.post` (within its leading context) of
/// the last line there that defines a name (definition_name()) and is indented less than the
/// hunk's first non-blank changed line: the function the change is in, as the hunk itself shows
/// it (its section, the line git found above the hunk's first line, is then the definition
/// before it). std::nullopt when the leading context holds none.
std::optional<std::size_t> own_definition(const HunkImages& images);

/// True when the hunk's own lines show that its change is not inside the function its section
/// names: a line of its leading context, or its first changed line, starts at column 0 (a
/// decorator, a statement or definition at module level, a C `}` closing a function) and is
/// not the section's line itself, a comment or a preprocessor line. Git's section is the last
/// header above the hunk's first line, so for such a hunk it names the definition before the
/// change, and where that definition now stands says nothing of where the change belongs.
bool leaves_section(const HunkImages& images);

/// True when two or more definitions of `file` (outside strings) are the line `section`
/// (trimmed) names: overloads of one name, or a section git cut at 80 bytes that begins several
/// signatures.
bool section_ambiguous(const FileText& file, std::string_view section);

/// True when some line of `file` starts with `section` (trimmed); false without a section.
bool section_in_file(const FileText& file, std::string_view section);

/// The bodies of the definitions `section` (trimmed) names in `file`: per section line that is a
/// header line outside strings (see section_in_file()), the 0-based lines [begin, end) from it
/// to the next header line (either rule) indented no deeper, or to the end of the file: a
/// Python def up to the next def, class or module-level statement beside or above it, a C
/// function up to the next line at column 0 that starts a definition or statement. Ascending;
/// empty without a section or when none stands.
std::vector<std::pair<std::size_t, std::size_t>> section_bodies(const FileText& file,
                                                                std::string_view section);

/// True when the code of the definition `section` names now lives in a definition enclosing
/// 0-based line `pos` (a function the named one hands its work to: `def f(): return
/// _f_impl(...)` after an extract-function refactor). All of: `section` names one definition
/// of `file` (section_bodies()); a definition enclosing `pos` (each header line above it
/// indented less than the first non-blank line from `pos` on, up to column 0) has a name of
/// three or more characters other than the section's own; and the section's body calls that
/// name (the name, not part of a longer identifier, then "("). O(body lines + enclosing
/// headers).
bool section_delegates_to(const FileText& file, std::string_view section, std::size_t pos);

/// True when `line` is a header line by git's default function-name rule (it starts with a
/// letter, "_" or "$") or the Python diff driver's (a def, async def or class line).
bool header_line(std::string_view line);

/// True when a section text names a definition: a Python def, async def or class line, or a
/// C-like signature (a "(" with no "=" before it, not ending in ";", not a statement such as
/// `if (`, `return f(`, nor an import). Module-level statements, which git's default rule
/// also takes for sections, are not definitions.
bool definition_line(std::string_view text);

/// The name a definition line defines, for telling whether two lines define the same thing:
/// for a Python def or class line its keyword and name ("def decode", "class Attention"), for
/// a C-like signature (definition_line()) the identifier before its parameters after a type
/// ("launch_decode_kernel", "Runner::run"); "" for any other line (a call at column 0 such as
/// `setup(` names nothing).
std::string_view definition_name(std::string_view line);

/// Most placements of one block the drift search examines; a block found more often is
/// ambiguous.
inline constexpr std::size_t kMaxDriftCandidates = 64;

/// True when `line` tells something on its own: at least three letters or digits, and not a
/// bare keyword (`return`, `else:`, `pass`, `}`, `#endif`, ...). Blank and trivial lines never
/// prove a change present.
bool informative_line(std::string_view line);

/// Whether the hunk changes nothing but the final newline: its images hold the same lines, and
/// one has a line marked "\ No newline at end of file" where the other has none.
bool newline_only_change(const HunkImages& images);

/// statement_head() without white space and with single quotes as double ones, so that
/// `config['BLOCK_M']` and `config[ "BLOCK_M" ]` are one statement.
std::string statement_key(std::string_view line);

/// Whether a statement head (statement_head()) leaves the block: return, raise, break,
/// continue, throw, goto, co_return.
bool is_leaving_statement(std::string_view head);

/// Which statement `line` is, for telling an edited copy of a line from another statement: the
/// name it starts with (identifier characters and dots: `num_stages`, `self.limit`, with a
/// subscript right after it: `config["BLOCK_M"]`, `attention_kernel[grid]`) when an
/// assignment, call or subscript follows it; a leaving keyword
/// itself (`return`, `raise`, `break`, `continue`, `throw`, `goto`, `co_return`). Empty for a
/// line that starts with another keyword or a type name, a comparison, or no name of two
/// characters or more. A view into `line`.
std::string_view statement_head(std::string_view line);

}  // namespace sm120check::detail
