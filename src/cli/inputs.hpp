// Reading the PATCH arguments of the CLI: files, directories of patches, standard input.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace sm120check::cli {

/// Largest patch input accepted, in bytes.
inline constexpr std::size_t kMaxPatchSize = std::size_t{64} << 20;  // 64 MiB

/// One patch input, read byte-exactly.
struct PatchInput {
  std::string source;  ///< the path as given (directory entries as "DIR/NAME"), "-" for stdin.
  std::string text;
};

/// Reads every PATCH argument in order. A directory contributes its regular `*.patch` and
/// `*.diff` files (not recursive), sorted by name; "-" reads standard input (at most once).
/// Throws Error naming the input when one cannot be read, a directory holds no patch, "-" is
/// given twice, or an input is larger than kMaxPatchSize.
std::vector<PatchInput> read_patch_inputs(const std::vector<std::string>& args);

}  // namespace sm120check::cli
