// Reading the PATCH arguments of the CLI: files, directories of patches, standard input.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sm120check/error.hpp"
#include "sm120check/patch.hpp"

namespace sm120check::cli {

/// Largest patch input accepted, in bytes.
inline constexpr std::size_t kMaxPatchSize = std::size_t{64} << 20;  // 64 MiB

/// One patch input, read byte-exactly.
struct PatchInput {
  std::string source;  ///< the path as given (directory entries as "DIR/NAME"), "-" for stdin.
  /// The bytes read, shared with the parsed hunks (which view it: see parse_patches()).
  std::shared_ptr<const std::string> text;
  bool from_directory = false;  ///< found by listing a PATCH directory, not named.
  /// Set instead of `text` for an input larger than kMaxPatchSize (read_patch_inputs() with
  /// BadInput::kReport): the error parse_inputs() reports for it.
  std::optional<Error> error;
};

/// What the readers do with an input that cannot be used: throw (`show`, `log`, `grep`), or
/// keep it as a patch with status error so that the other inputs are still judged and reported
/// (`verify`, `apply`: a fleet script still gets a whole report; the exit code is 3).
enum class BadInput { kThrow, kReport };

/// Reads every PATCH argument in order. A directory contributes its regular `*.patch` and
/// `*.diff` files (not recursive), sorted by name; "-" reads standard input (at most once); a
/// FIFO or character device is read as a stream (waiting for a writer, as cat(1) does).
/// Throws Error naming the input when one cannot be opened or read, a directory holds no patch,
/// or "-" is given twice; an input larger than kMaxPatchSize is an Error too with kThrow, and
/// gets PatchInput::error with kReport.
std::vector<PatchInput> read_patch_inputs(const std::vector<std::string>& args,
                                          BadInput bad = BadInput::kThrow);

/// Parses every input in order. A file found in a PATCH directory that holds no patch and is a
/// series' cover letter (`git format-patch --cover-letter`: named *cover-letter*, or its
/// Subject tagged "[PATCH 0/N]") is skipped with a warning on stderr; any other is an error. Any other input that cannot be parsed (or was not read: PatchInput::error) is an
/// Error with kThrow, and with kReport one Patch with Patch::error set (its source, the line
/// of the error, no files) in its place; in a file of several patches (an mbox, `git log -p`)
/// only the bad patch is such an entry (parse_patches_keeping_errors()).
std::vector<Patch> parse_inputs(const std::vector<PatchInput>& inputs,
                                BadInput bad = BadInput::kThrow);

}  // namespace sm120check::cli
