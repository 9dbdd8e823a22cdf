// Read-only access to the tree a patch is verified against. Verification never writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace sm120check {

/// What a path in a tree is. Symlinks are never followed for the final component.
struct Entry {
  enum class Type { kMissing, kFile, kSymlink, kDirectory, kOther };
  Type type = Type::kMissing;
  bool executable = false;  ///< owner execute bit, for kFile.
  std::uint64_t size = 0;   ///< bytes, for kFile.
};

/// Longest path accepted from a patch, in bytes (PATH_MAX on Linux).
inline constexpr std::size_t kMaxPathLength = 4096;

/// Checks a path taken from a patch (after stripping) and normalises it: "." components and
/// repeated "/" removed. Returns std::nullopt when it is empty, absolute, longer than
/// kMaxPathLength, or climbs out of the tree with "..".
std::optional<std::string> normalize_relative_path(std::string_view path);

/// A tree of files addressed by normalised relative paths ("dir/file.py"). Implementations:
/// DiskTree (a directory); tests may provide in-memory trees.
class Tree {
 public:
  virtual ~Tree() = default;
  /// Human-readable name of the tree (its path), for reports.
  virtual std::string name() const = 0;
  /// Type of `path`, without following a final symlink. Throws Error when `path` resolves
  /// outside the tree (through a symlinked directory) or cannot be examined.
  virtual Entry stat(const std::string& path) const = 0;
  /// Content of regular file `path`. Throws Error if it cannot be read, is larger than
  /// max_file_size(), or resolves outside the tree.
  virtual std::string read(const std::string& path) const = 0;
  /// Target of symlink `path` (readlink(2)). Throws Error if it is not a symlink.
  virtual std::string read_link(const std::string& path) const = 0;
  /// Largest file read() accepts, in bytes.
  virtual std::uint64_t max_file_size() const { return kDefaultMaxFileSize; }

  static constexpr std::uint64_t kDefaultMaxFileSize = 256ull << 20;  // 256 MiB
};

/// Opens directory `root` as a tree. Throws Error(root, 0, ...) if it does not exist, is not a
/// directory or cannot be read.
std::unique_ptr<Tree> open_disk_tree(const std::string& root,
                                     std::uint64_t max_file_size = Tree::kDefaultMaxFileSize);

/// Git's blob id of `content` ("blob <size>\0<content>" hashed with SHA-1, the same id as
/// libgit2's git_odb_hash, computed without loading libgit2), as 40 lower-case hex digits.
std::string git_blob_id(std::string_view content);

/// True when `content` looks binary the way git decides it: a NUL byte in the first 8000 bytes.
bool looks_binary(std::string_view content);

}  // namespace sm120check
