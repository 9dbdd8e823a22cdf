// Read-only access to the tree a patch is verified against. Verification never writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct stat;

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

/// An open file descriptor, closed when destroyed (move-only).
class OpenFile {
 public:
  explicit OpenFile(int fd = -1) noexcept : fd_(fd) {}
  OpenFile(OpenFile&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  OpenFile& operator=(OpenFile&& other) noexcept;
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  ~OpenFile();
  /// The descriptor (-1 when none).
  int fd() const noexcept { return fd_; }

 private:
  int fd_;
};

/// Git blob ids of a tree's files known without hashing them: what a git index vouches for
/// (index_blob_ids() in git.hpp).
class KnownBlobIds {
 public:
  virtual ~KnownBlobIds() = default;
  /// The blob id (40 hex digits) of the file at `path` (relative to the tree's root) whose
  /// stat data, taken through the descriptor its content was read from once the read was
  /// done, are `st`; "" when not known (no id, or other stat data than those it vouches for).
  virtual std::string id(const std::string& path, const struct stat& st) const = 0;
};

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
  /// read(path), and in `blob_id` the file's git blob id where the tree knows it without
  /// hashing the content, "" otherwise (the default; a DiskTree given KnownBlobIds knows it
  /// for a regular file read at its own path, not through a symlink).
  virtual std::string read_with_blob_id(const std::string& path, std::string& blob_id) const {
    blob_id.clear();
    return read(path);
  }
  /// The ids read_with_blob_id() may report from now on, this handle's and open_again()'s
  /// (DiskTree; other trees ignore them).
  virtual void set_known_blob_ids(std::shared_ptr<const KnownBlobIds> ids) { (void)ids; }
  /// Regular file `path` opened read-only, its final component never followed (a symlink is
  /// refused), for a reader that maps or reads it in parts (a shared object of hundreds of MiB;
  /// no size limit applies). Throws Error when it is missing, not a regular file, resolves
  /// outside the tree, cannot be opened, or the tree has no descriptors (the default).
  virtual OpenFile open_file(const std::string& path) const;
  /// Target of symlink `path` (readlink(2)). Throws Error if it is not a symlink.
  virtual std::string read_link(const std::string& path) const = 0;
  /// Largest file read() accepts, in bytes.
  virtual std::uint64_t max_file_size() const { return kDefaultMaxFileSize; }
  /// Whether a gitlink (a submodule, mode 160000) reads here as a regular file holding
  /// "Subproject commit <id>\n", the text git diffs show for it: true for a git revision's tree
  /// (GitRepository::tree()); false (the default) for a directory on disk, where a submodule is
  /// a folder (or nothing) and a regular file of that name is not the gitlink.
  virtual bool gitlinks_as_files() const { return false; }

  /// One name in a directory listing and its type, the final component never followed (a
  /// symlink is kSymlink, whatever it points to).
  struct DirEntry {
    std::string name;
    Entry::Type type = Entry::Type::kMissing;
  };
  /// The entries of directory `path` ("" for the root), "." and ".." left out, sorted by name
  /// (byte order). Throws Error when `path` is not a directory of the tree (a symlink to one
  /// included: it is not followed), cannot be read, or the tree cannot list (the default).
  virtual std::vector<DirEntry> list(const std::string& path) const;

  static constexpr std::uint64_t kDefaultMaxFileSize = 256ull << 20;  // 256 MiB

  /// Another handle on this same tree, for another thread: one Tree is not thread-safe, but
  /// two handles may be used at once. nullptr (the default) when the tree cannot be shared
  /// so; the caller then uses this one from one thread.
  virtual std::unique_ptr<Tree> open_again() const { return nullptr; }
};

/// Opens directory `root` as a tree. Throws Error(root, 0, ...) if it does not exist, is not a
/// directory or cannot be read.
std::unique_ptr<Tree> open_disk_tree(const std::string& root,
                                     std::uint64_t max_file_size = Tree::kDefaultMaxFileSize);

/// A tree seen through changes kept in memory: files written or removed over a base tree that
/// is never touched. What the series passes of `verify` and the plans of `apply` work on.
/// A path written here reads back as written; a removed one is missing; everything else is
/// the base's. A directory exists when the base has it or a written file lies below it.
class OverlayTree final : public Tree {
 public:
  explicit OverlayTree(const Tree& base) : base_(base) {}

  std::string name() const override { return base_.name(); }
  Entry stat(const std::string& path) const override;
  std::string read(const std::string& path) const override;
  std::string read_link(const std::string& path) const override;
  std::uint64_t max_file_size() const override { return base_.max_file_size(); }
  bool gitlinks_as_files() const override { return base_.gitlinks_as_files(); }

  /// Writes `content` at `path`: a regular file (executable or not) or, with `symlink`, a
  /// symlink whose target is `content`.
  void write(const std::string& path, std::string content, bool executable = false,
             bool symlink = false);
  /// Removes `path` (it then reads as missing).
  void remove(const std::string& path);
  /// Paths written or removed, sorted; each with its content (std::nullopt when removed).
  struct Node {
    std::optional<std::string> content;
    bool executable = false;
    bool symlink = false;
  };
  const std::map<std::string, Node>& changes() const { return nodes_; }
  /// The base tree.
  const Tree& base() const { return base_; }

 private:
  const Tree& base_;
  std::map<std::string, Node> nodes_;
};

/// Git's blob id of `content` ("blob <size>\0<content>" hashed with SHA-1, the same id as
/// libgit2's git_odb_hash, computed without loading libgit2), as 40 lower-case hex digits.
std::string git_blob_id(std::string_view content);

/// True when `content` looks binary the way git decides it: a NUL byte in the first 8000 bytes.
bool looks_binary(std::string_view content);

}  // namespace sm120check
