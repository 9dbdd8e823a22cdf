// Reading the PATCH arguments of the CLI: files, directories of patches, standard input.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

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
};

/// Reads every PATCH argument in order. A directory contributes its regular `*.patch` and
/// `*.diff` files (not recursive), sorted by name; "-" reads standard input (at most once).
/// Throws Error naming the input when one cannot be read, a directory holds no patch, "-" is
/// given twice, or an input is larger than kMaxPatchSize.
std::vector<PatchInput> read_patch_inputs(const std::vector<std::string>& args);

/// Parses every input in order. A file found in a PATCH directory that holds no patch (the
/// cover letter of a `git format-patch --cover-letter` series) is skipped with a warning on
/// stderr; anywhere else that is an Error, like any other parse error.
std::vector<Patch> parse_inputs(const std::vector<PatchInput>& inputs);

}  // namespace sm120check::cli
