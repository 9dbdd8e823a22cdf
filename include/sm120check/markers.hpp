// Markers of a patch: distinctive strings whose presence in a tree is evidence of the fix.
#pragma once

#include <cstddef>
#include <string>
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

/// Markers of `patch`, in order: the "Marker:" / "Marker-Regex:" trailers of its message, then
/// per hunk up to kMaxMarkersPerHunk markers of its added lines (the most distinctive first),
/// skipping any that also occur in the hunk's pre-image (then finding it proves nothing) and
/// duplicates. `strip` is applied to the paths recorded in Marker::file.
std::vector<Marker> extract_markers(const Patch& patch, unsigned strip = 1);

/// Fixed-string markers of the pre-image of a file patch (its context and removed lines,
/// chosen as for added lines, at most kMaxMarkersPerHunk per hunk), origin kContext. Used to
/// find where a moved file lives now.
std::vector<Marker> context_markers(const FilePatch& file);

}  // namespace sm120check
