// The apply engine: a file's content with a file patch's hunks written in (or taken out), in
// memory, at the places the matcher found. Writing files to disk: write.hpp.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sm120check/match.hpp"
#include "sm120check/patch.hpp"

namespace sm120check {

/// Which way a patch goes: forward (pre-image -> post-image, `git apply`) or reverse
/// (post-image -> pre-image, `git apply -R`).
enum class Direction { kForward, kReverse };

/// "forward", "reverse".
std::string_view to_string(Direction direction);

/// What apply_hunks() did to one file's content.
struct HunkApply {
  /// Hunks written (forward: found applicable; reverse: found applied, exact or fuzz), 0-based
  /// indices into the hunks, in order.
  std::vector<std::size_t> written;
  /// Hunks already as the direction wants them (forward: applied, also drifted; reverse:
  /// applicable), left alone.
  std::vector<std::size_t> already;
  /// Hunks that could not be written: conflict, unknown, or (reverse) a drifted match, whose
  /// change cannot be taken out mechanically. Nothing of the file should be written when this
  /// is not empty (all or nothing); `content` then holds the other hunks written anyway.
  std::vector<std::size_t> failed;
  /// The file's content with `written` applied: byte for byte what `git apply` (or GNU
  /// `patch`, where fuzz was needed) writes: added lines as the patch has them (a "\r" kept),
  /// the file's own context lines (also where white space was ignored or fuzz dropped them),
  /// a line marked "\ No newline at end of file" written without its "\n".
  std::string content;
  /// One written hunk's region: its bytes in `content`, [at, at + length), and the file's
  /// bytes they replaced.
  struct Splice {
    std::size_t at = 0;
    std::size_t length = 0;
    std::string was;
  };
  /// The written hunks' regions, in order: undo_splices(content, splices) gives the file back
  /// byte for byte.
  std::vector<Splice> splices;
};

/// `content` with each splice's region replaced by the bytes it replaced (see HunkApply).
std::string undo_splices(std::string_view content, const std::vector<HunkApply::Splice>& splices);

/// Writes into `file` what is missing of `hunks` in `direction`, at the placements `matches`
/// gives (match_hunks(file, hunks, options): one per hunk, in order). Only hunks matched exactly
/// or with fuzz move lines; the others are `already` or `failed` as above. A placement that does
/// not hold the image it claims (it is checked line by line, white space folded as the match
/// did when `ignore_whitespace`) is `failed`, never written blindly; so is one where an image
/// ending in a line without newline ("\ No newline at end of file") would not end the file.
///
/// Cost: linear in the file's bytes plus the hunks' lines. Never throws on content
/// (std::bad_alloc aside). `matches.size()` must equal `hunks.size()` (std::invalid_argument).
HunkApply apply_hunks(const FileText& file, const std::vector<Hunk>& hunks,
                      const std::vector<HunkMatch>& matches, Direction direction,
                      bool ignore_whitespace = false);

}  // namespace sm120check
