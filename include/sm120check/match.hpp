// The hunk matcher: where, if anywhere, a hunk's pre-image or post-image sits in a file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sm120check/patch.hpp"

namespace sm120check {

/// Which side of a hunk: the pre-image (context + removed lines) or the post-image (context +
/// added lines).
enum class Image { kPre, kPost };

class FileText;

namespace detail {
/// The matcher's per-file precomputation (line hashes, prefix hashes, indexes); see match.cpp.
struct MatchCache;
/// `file`'s cache, created empty on first use.
MatchCache& match_cache(const FileText& file);
}  // namespace detail

/// A file's content split into lines at "\n". Lines keep a trailing "\r" (CRLF files compare
/// byte-exactly). Holds its own copy of the content.
///
/// match_hunks() keeps what it computes about the file (per-line hashes per comparison mode,
/// prefix hashes, indexes) in the FileText, built lazily and reused by later match_hunks()
/// calls on the same object. So a FileText is not thread-safe: do not call match_hunks() on the
/// same FileText from two threads at once. Moving keeps the cache.
class FileText {
 public:
  explicit FileText(std::string content);
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;
  FileText(FileText&&) noexcept;
  FileText& operator=(FileText&&) noexcept;
  ~FileText();

  /// Number of lines; a last line without "\n" counts; "" has 0 lines.
  std::size_t size() const noexcept { return size_; }
  /// Line `i` (0-based, < size()) without its "\n".
  std::string_view line(std::size_t i) const noexcept {
    return {content_.data() + starts_[i], starts_[i + 1] - starts_[i] - 1};
  }
  /// False when the content is non-empty and does not end with "\n".
  bool final_newline() const noexcept { return final_newline_; }
  const std::string& content() const noexcept { return content_; }

 private:
  std::string content_;
  /// Where each line starts in content_, then where a line after the last would (past a
  /// final "\n", or past one the last line lacks): size() + 1 offsets. 4 bytes a line where views took 16 (a 3,188-line
  /// file: 13 KB of fresh pages, not 51 KB). Content of 4 GiB or more is refused.
  std::vector<std::uint32_t> starts_;
  std::size_t size_ = 0;
  bool final_newline_ = true;
  mutable std::unique_ptr<detail::MatchCache> cache_;
  friend detail::MatchCache& detail::match_cache(const FileText& file);
};

/// How far from its expected line a conflicting hunk's near miss is looked for (HunkMatch's
/// closest_* fields), in lines each way.
inline constexpr std::size_t kClosestWindow = 200;

/// Matching options (GNU patch's --fuzz and --ignore-whitespace, and presence under drift).
struct MatchOptions {
  /// Most context lines that may be dropped at each edge of a hunk (never added/removed lines).
  unsigned fuzz = 0;
  /// Compare lines with every run of white space (space, tab, CR, VT, FF) folded to one space
  /// and white space at the end of a line ignored (so CR/LF differences vanish too). The final
  /// newline rule (see match_hunks()) stays strict.
  bool ignore_whitespace = false;
  /// When neither image of a hunk matches, look for the change itself (see match_hunks(),
  /// "Drift"): a hunk found that way is applied with kind kDrifted. False (`--strict`) keeps
  /// the exact-image semantics of `git apply` and GNU patch.
  bool drift = true;
  /// When both (non-empty) images of a hunk match, take this one, whatever the tie rule would
  /// say (see match_hunks()): the index line's blob id has told which image the whole file is.
  /// std::nullopt: the tie rule decides.
  std::optional<Image> prefer;
  /// Explain a hunk neither of whose images matches (HunkMatch::diagnostic and closest_*).
  /// False leaves those empty and changes nothing else: for files whose hunks are only
  /// counted, such as relocation's candidates (saves up to six more searches per hunk).
  bool explain = true;
};

/// Per-hunk verdict.
enum class HunkStatus {
  kApplied,     ///< the post-image (or, drifted, the change itself) is in the file
  kApplicable,  ///< the pre-image is in the file and the post-image is not
  kConflict,    ///< neither image is in the file
  /// The file cannot decide: the change is in several places equally well, or a hunk without
  /// context is not at its expected line but its lines are elsewhere (see `places`).
  kUnknown,
};

/// "applied", "applicable", "conflict", "unknown".
std::string_view to_string(HunkStatus status);

/// How a hunk that is applied or applicable was found.
enum class MatchKind {
  kNone,     ///< not found (conflict or unknown)
  kExact,    ///< an image matched with all its context
  kFuzz,     ///< an image matched with `fuzz` edge context lines dropped
  kDrifted,  ///< applied: the change found as one block where its context no longer matches
};

/// "none", "exact", "fuzz", "drifted".
std::string_view to_string(MatchKind kind);

/// Whether a change is in the file: the question `verify` is run for.
enum class Presence {
  kPresent,  ///< applied (exact, fuzz or drifted)
  kAbsent,   ///< applicable, or the change is not there (its lines are nowhere, or the lines it
             ///< removes stand where it belongs)
  kUnknown,  ///< cannot tell: ambiguous, trivial lines only, or only part of the change found
  kPartial,  ///< files and patches only: some parts present, the others absent
};

/// "present", "absent", "unknown", "partial".
std::string_view to_string(Presence presence);

/// Most places listed in HunkMatch::places.
inline constexpr std::size_t kMaxPlaces = 8;

/// Lines a drifted hunk's context may stand away from the changed block, each side, and still
/// count as agreeing (HunkMatch::context_agree).
inline constexpr std::size_t kDriftSlack = 3;

/// Where and how one hunk matched.
struct HunkMatch {
  HunkStatus status = HunkStatus::kConflict;
  /// 1-based file line where the matched hunk starts, as GNU patch reports it: the first
  /// compared line minus the context lines fuzz dropped at the top (clamped to 1); for an empty
  /// image, the line before which it sits (size() + 1 at end of file). 0 for a conflict.
  std::size_t line = 0;
  /// `line` minus the line the header names for that image: new_start (applied) or old_start
  /// (applicable); for an empty image, start + 1 (the line "@@ -5,0" inserts before is 6). So 0
  /// means "where the header says", also with fuzz. 0 for a conflict.
  std::int64_t offset = 0;
  /// Context lines dropped at each edge to get the match (0 = exact).
  unsigned fuzz = 0;
  MatchKind kind = MatchKind::kNone;
  Presence presence = Presence::kUnknown;
  /// kDrifted: the hunk's context lines found around the block (in order, each side within
  /// kDriftSlack lines of where it belongs), and the hunk's context lines in all.
  std::size_t context_agree = 0;
  std::size_t context_lines = 0;
  /// Why `presence` is what it is when the images alone do not say (a stable code, "" for an
  /// exact or fuzz match): "drifted" (present), "not-found" (the change's lines are nowhere in
  /// the file), "removed-lines-present" (the lines the hunk removes, or its context meeting
  /// without the added block, stand where it belongs: absent; or both old and new code are
  /// there: unknown), "ambiguous" (the change fits several places equally well),
  /// "found-elsewhere" (the change's lines stand only where none of its context does),
  /// "other-section" (the change stands only under another function than the one the hunk's
  /// section names, which the file has: unknown, never present), "section-ambiguous" (several
  /// definitions are the section's line, overloads or a cut signature, and the hunk's context
  /// does not stand around the change in full: unknown),
  /// "changed-lines-differ" (some of the added lines are there, not as the hunk's block),
  /// "partly-present" (half or more of its new lines stand beside the old code where it
  /// belongs; or, for a hunk whose pre-image matched, the function it adds stands edited
  /// beside the match, so applying would define it twice: status kUnknown), "out-of-hunk-order"
  /// (the change stands only before a found hunk the patch puts before it, or after one after
  /// it), "context-crossed" (the statement next to the change in the hunk stands again on the
  /// change's other side: unknown), "final-newline-differs" (the post-image ends the file but
  /// for the final newline the file lacks: unknown),
  /// "whitespace-differs" (its added lines stand only with other white space),
  /// "context-differs" (a deletion whose surroundings no longer meet), "trivial-lines" (blank
  /// or trivial lines only: they prove nothing), "zero-context-elsewhere" / "zero-context-gone"
  /// (a hunk without context not at its expected line), "strict" (--strict: no drift search).
  std::string presence_reason;
  /// Where the change (or the old code) was found when that did not decide it: 1-based lines,
  /// nearest the expected line first, at most kMaxPlaces. For "ambiguous",
  /// "found-elsewhere", "out-of-hunk-order" and "other-section", the places of the added block;
  /// for "partly-present", those of the new lines and of the old code (or the match); for "removed-lines-present", those of
  /// the old code (and, when both stand, the new block first).
  std::vector<std::size_t> places;
  /// Both images (neither of them empty) matched at the deciding fuzz level; the tie rule chose
  /// `status` (see match_hunks()).
  bool both_images = false;
  /// The hunk removes no line (a pure insertion: its pre-image is its context alone), so that
  /// presence_words() says what "removed-lines-present" found: the context meeting without the
  /// added lines, not code the change replaces. Set by match_hunks().
  bool inserts_only = false;
  /// For a conflict, the first relaxation under which either image would match (same fuzz
  /// levels, same search range), as a stable code: "line-ending-mismatch" (matches when "\r" at
  /// line ends is ignored), "whitespace-only-mismatch" (matches with white space folded as by
  /// ignore_whitespace), "final-newline-mismatch" (matches when the no_newline_at_eof marks are
  /// ignored), "out-of-order" (matches exactly, but before the end of the previous hunk's
  /// match: the file has the hunks in another order; or a pure insertion without context whose
  /// header places it there, or a hunk fuzz leaves without context whose header places it over
  /// the previous hunk: the patch has them in another order), or "" when none explains it
  /// alone. The first two are not tried when ignore_whitespace is set. Always "" for a match.
  std::string diagnostic;
  /// For a conflict with no diagnostic: the near miss, i.e. the image and the placement within
  /// kClosestWindow lines of the expected line where most image lines equal the file's (ties:
  /// nearer the expected line, pre-image first). closest_line is 1-based, 0 when no placement
  /// agrees on at least half of the image's lines (then the other closest_* fields are 0 too).
  Image closest_image = Image::kPre;
  std::size_t closest_line = 0;
  std::size_t closest_agree = 0;       ///< image lines equal to the file's there
  std::size_t closest_lines = 0;       ///< lines in that image
  std::size_t closest_differs_at = 0;  ///< 1-based file line of the first difference there
  /// For an exact or fuzz match (kApplied or kApplicable): the file lines the matched image's
  /// compared lines occupy, 0-based and half-open [image_begin, image_end) (empty for an empty
  /// image: the line it is inserted before), and the edge context lines fuzz dropped from the
  /// top and bottom of that image. The apply engine (apply_hunks()) writes there. All 0 for
  /// other matches (drifted, conflict, unknown).
  std::size_t image_begin = 0;
  std::size_t image_end = 0;
  std::uint32_t dropped_top = 0;
  std::uint32_t dropped_bottom = 0;
};

/// Words for why a hunk's change is absent or unknown (HunkMatch::presence_reason, with its
/// places), e.g. "the code it replaces stands where it belongs (line 18)", or for a pure
/// insertion (HunkMatch::inserts_only) "its context stands where it belongs without its added
/// lines (line 18)"; "" for a code
/// without words (an exact or fuzz match, "drifted", "strict").
std::string presence_words(const HunkMatch& m);

/// Matches the hunks of one file patch, in order, against `file`.
///
/// Search. Hunk k is expected at the line its header names (old_start for the pre-image,
/// new_start for the post-image; for an empty image, the line after it: "@@ -5,0" inserts
/// before line 6) shifted by the offset of the last matched hunk (0 before any). That offset
/// counts in the header lines of the image it matched, and the lines between two hunks are the
/// same in either state of each: after an applied hunk both images of the next are expected at
/// its new_start shifted, after an applicable one at its old_start shifted. Each image is
/// searched outward from its expected line (expected, +1, -1, +2, -2, ...) over the whole file,
/// but never starting before the end of the previous matched hunk's compared lines: hunks match
/// in order and do not overlap. A conflicting hunk changes neither the offset nor that bound.
///
/// Headers. A hunk without leading context is tied to its place by its header alone, and every
/// tool that applies it (git apply, GNU patch, apply_hunks()) places it by the "-" start. Where
/// its "+" start disagrees with that place (its "-" start shifted by the lines the hunks before
/// it add: a hand-edited or garbled header, "@@ -1,0 +1,2 @@" for lines written after line 1),
/// the post-image is expected where applying writes it, not where the "+" start says.
///
/// Fuzz. At level f = 0..options.fuzz, min(f, leading context) lines are dropped from the top
/// of both images and min(f, trailing context) from the bottom (added/removed lines are never
/// dropped, and a level that would empty a non-empty image does not match for that image; a
/// level that drops every context line leaves the changed lines alone, which say nothing of
/// where they belong: that image then matches only at its expected line, as a hunk without
/// context does, else `apply -R --fuzz 1` would take out a lone added line wherever one stands,
/// run after run; and only where the whole hunk, its dropped context included, starts after the
/// previous hunk's compared lines: a header placing it over them is the patch's hunks out of
/// order, a conflict with diagnostic "out-of-order").
/// Both images are tried at each level; the first level where either matches decides, and a
/// match at a lower level wins whatever its distance.
///
/// Lines. Lines compare byte for byte ("\r" included) unless options.ignore_whitespace. An
/// image line marked no_newline_at_eof only matches the file's last line when the file has no
/// final newline, and a line without that mark never matches such a last line.
///
/// Empty image (a zero-context insertion's pre-image, a zero-context deletion's post-image, an
/// added file's pre-image): matches at its expected line, clamped into [bound, size()]. But a
/// pure insertion without context whose expected line lies before the bound (its header places
/// it before the previous hunk: the patch's hunks out of order, "@@ -1,0" then "@@ -0,0") is a
/// conflict, diagnostic "out-of-order", as GNU patch refuses misordered hunks: clamped, it was
/// written after the previous hunk, a place the next run does not find it at.
///
/// Tie rule, when both images match at the deciding level (pre at P, post at Q):
///  1. an empty image is no evidence: the non-empty image wins (both_images stays false);
///  2. when one match's lines lie inside the other's where the hunk puts them (a pure
///     insertion's or deletion's changed lines at an edge of its context), the longer one wins:
///     a pure insertion's pre-image found inside its found post-image is applied, a pure
///     deletion's post-image found inside its found pre-image is applicable; inside it at
///     another place (the changed lines repeat the lines around them, `None,` added to a run
///     of `None,`) the hunk is kUnknown, presence_reason "repeats-context", places = {pre
///     line, post line}, both_images set (a blob id settles it, see verify);
///  3. otherwise the match nearer its own expected line wins;
///  4. at equal distance (or the same lines, possible with ignore_whitespace), the image that
///     also matches byte for byte wins when ignore_whitespace is set, else `applied`.
/// both_images is set in cases 2-4.
///
/// Returns one HunkMatch per hunk, in order. Never throws on content (std::bad_alloc aside).
/// Cost: each file line is hashed once per comparison mode per FileText (cached in `file`, see
/// FileText), and every candidate position is checked in O(1) by rolling hashes (then verified
/// line by line on a hash match). A hunk not at its expected line is looked up through the
/// occurrences of its rarest line or, when those are many, through an index of the file's
/// windows of the image's length (built once per length, O(file log file)); fuzz levels are
/// clamped to the hunk's edge context.
std::vector<HunkMatch> match_hunks(const FileText& file, const std::vector<Hunk>& hunks,
                                   const MatchOptions& options);

/// The whole file an image describes when the hunks cover the whole file (an added file's
/// post-image, a deleted file's pre-image): the image's lines joined with "\n", each terminated
/// unless marked no_newline_at_eof. Empty for no hunks.
std::string whole_image(const std::vector<Hunk>& hunks, Image image);

/// Whether `content` equals whole_image(hunks, image), compared in place (an added file of 40k
/// lines is not copied to be compared).
bool is_whole_image(std::string_view content, const std::vector<Hunk>& hunks, Image image);

}  // namespace sm120check
