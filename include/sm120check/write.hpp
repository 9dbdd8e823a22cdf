// Writing what `apply` decided: files replaced atomically under a target directory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace sm120check {

/// One file as `apply` leaves it.
struct FileChange {
  enum class Kind { kWrite, kDelete };
  Kind kind = Kind::kWrite;
  std::string path;     ///< normalised path relative to the target root ("dir/f.py")
  std::string content;  ///< kWrite: the new bytes (for a symlink: its target)
  /// kWrite: git mode of the result (0100644, 0100755, 0120000 symlink); std::nullopt keeps
  /// the mode of the existing file (0100644 for a new one).
  std::optional<std::uint32_t> mode;
};

}  // namespace sm120check
