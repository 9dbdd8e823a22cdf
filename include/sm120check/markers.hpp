// Markers of a patch: distinctive strings whose presence in a tree is evidence of the fix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sm120check/patch.hpp"
#include "sm120check/search.hpp"

namespace sm120check {

/// Trailer in a patch's message header that names an explicit fixed-string marker, one per line:
/// "Marker: CUDA_CAPABILITY[0] == 12".
inline constexpr const char* kMarkerTrailer = "Marker:";
/// Trailer naming a PCRE2 regular expression marker: "Marker-Regex: sm_?120".
inline constexpr const char* kMarkerRegexTrailer = "Marker-Regex:";

/// Most markers taken from the added lines of one hunk.
inline constexpr std::size_t kMaxMarkersPerHunk = 3;

/// The distinctive part of one added line, or "" when the line tells nothing: blank,
/// punctuation only, a bare keyword (`return`, `else:`, `pass`, `}` ...), an import/include
/// line, or under 6 significant characters. A comment gives its text, an `if`/`elif`/`while`
/// its condition (`CUDA_CAPABILITY[0] == 12`), any other line its trimmed text.
std::string marker_of_line(std::string_view line);
/// marker_of_line() as a part of `line` (valid while `line` is): no copy.
std::string_view marker_view(std::string_view line);

/// How much a marker tells, higher is rarer in other code: its longest identifier (up to 20),
/// +4 when it holds a digit, +8 per comparison operator (`==`, `!=`, `>=`, `<=`), +1 per 10
/// bytes (up to 60). Orders the markers of a hunk.
int marker_score(std::string_view marker);

/// Markers of `patch`, in order: the "Marker:" / "Marker-Regex:" trailers of its message, then
/// per hunk up to kMaxMarkersPerHunk markers of its added lines (highest marker_score() first,
/// equal scores in line order), skipping any that occur in the file's pre-image (a substring of
/// a context or removed line of any hunk of the same file patch: then finding it proves
/// nothing) and any fixed string already taken (trailers included). `strip` is applied to the
/// paths recorded in Marker::file.
/// Cost: a file patch's pre-image is indexed once (its 4-byte windows hashed: a few operations
/// per byte), and each hunk's candidates are looked up in it in order, only until the hunk has
/// its markers (a candidate that is new is told at once, most often by a window of it the
/// pre-image lacks); duplicates through hash sets. A repetitive pre-image, where the lookups
/// would compare more than a few positions per pre-image byte, has all the file patch's
/// candidates looked up at once instead, with the literal set of src/search (one pass over the
/// pre-image per 4096 candidates). Time is linear in the patch's size while no file patch has
/// more than 4096 candidates to look up there; memory is linear.
/// `max_hunk_markers` stops the extraction at the first file patch that begins once that many
/// hunk markers are taken (0: trailers only); the markers returned are then a prefix of the
/// unbounded result, and later file patches cost nothing.
std::vector<Marker> extract_markers(const Patch& patch, unsigned strip = 1,
                                    std::size_t max_hunk_markers = SIZE_MAX);

/// Fixed-string markers of the pre-image of a file patch (its context and removed lines,
/// chosen and ordered as for added lines, at most kMaxMarkersPerHunk per hunk, none twice),
/// origin kContext. Used to find where a moved file lives now. Linear time.
std::vector<Marker> context_markers(const FilePatch& file);

}  // namespace sm120check
