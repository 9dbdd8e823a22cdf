// A depth-first walk of a directory tree on disk whose cost per directory does not grow with
// its depth: each directory is opened with openat(2) and O_NOFOLLOW from its parent's
// descriptor (never by a path from the root), and the walk keeps one path string, trimmed and
// extended in place, plus the listings of the directories on the current branch. Memory and
// time are linear in the directories and names walked, whatever the depth (a chain of 4000
// nested folders included). Used by `scan` (discovery) and `kernels DIR`.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sm120check/tree.hpp"

namespace sm120check {

/// A tree whose directories can be opened for a DirectoryWalk (open_disk_tree()'s trees).
class DirectorySource {
 public:
  virtual ~DirectorySource() = default;
  /// Directory `path` ("" for the root) opened read-only, its final component never followed
  /// (a symlink is refused). Throws Error when it is missing, not a directory, resolves outside
  /// the tree or cannot be opened.
  virtual OpenFile open_directory(const std::string& path) const = 0;
};

/// The names of the directory open at `fd` ("." and ".." left out), sorted by name (byte
/// order), each with its type without following a symlink (lstat(2) where the file system
/// gives no d_type). Read with getdents64(2) from the first entry (the descriptor's offset is
/// reset; no other descriptor is taken); not closed. Throws Error(`shown`, 0, ...) when it
/// cannot be read.
std::vector<Tree::DirEntry> list_directory_fd(int fd, const std::string& shown);

/// A walk that enters only the directories its caller asks for (enter(), enter_path()), in
/// the order asked, depth first: the caller looks at each directory's entries and decides.
/// At most kMaxOpenDirectories descriptors are held; a directory whose descriptor was closed
/// to keep to that is reopened through its child's ".." (or by its path, below a directory
/// entered by enter_path()) and checked to be the same directory (device and inode); when it
/// is not (the tree changed while it was walked), its remaining subdirectories are not
/// entered and lost() names it. Not thread-safe.
class DirectoryWalk {
 public:
  /// Descriptors held at most (a chain deeper than this is reopened through "..").
  static constexpr std::size_t kMaxOpenDirectories = 64;

  /// Walks directory `path` of `tree` ("" for its root; DirectorySource::open_directory(): a
  /// tree that is no DirectorySource gives an error() for it), which is at `depth` for the
  /// caller. Nothing is opened until next().
  DirectoryWalk(const Tree& tree, std::string path, std::size_t depth = 0);
  ~DirectoryWalk();
  DirectoryWalk(const DirectoryWalk&) = delete;
  DirectoryWalk& operator=(const DirectoryWalk&) = delete;

  /// Moves to the next directory and lists it: the start first, then the directories asked
  /// for, depth first. False when none is left.
  bool next();

  /// The current directory's path in the tree ("" for the tree's root).
  const std::string& path() const { return path_; }
  /// Its last component ("" for the tree's root).
  std::string_view name() const;
  /// Its depth: the start's `depth`, plus one per directory entered on the way.
  std::size_t depth() const;
  /// Its entries (Tree::list()'s form); empty when it could not be opened or listed.
  const std::vector<Tree::DirEntry>& entries() const;
  /// Why it could not be opened or listed ("cannot list: Permission denied"); "" when it was.
  const std::string& error() const;
  /// The errno of error() (0 when none).
  int error_number() const;
  /// Its descriptor, for opening its files with openat(2) (valid until next()); -1 on error().
  int fd() const;

  /// Asks to enter entry `index` of entries() (a directory; a symlink is refused when opened),
  /// after those asked before.
  void enter(std::size_t index);
  /// Asks to enter directory `path` of the tree (opened from the tree's root:
  /// DirectorySource::open_directory()), after those asked before: a symlink's destination.
  void enter_path(std::string path);

  /// "path: why" of the directories whose remaining subdirectories were not entered because
  /// the directory changed while it was walked.
  const std::vector<std::string>& lost() const { return lost_; }

 private:
  struct Child {
    std::size_t index = 0;  ///< into the frame's entries, unless `jump`
    bool jump = false;
    std::string path;  ///< for `jump`: a path of the tree
  };
  struct Frame {
    OpenFile dir;  ///< -1 while closed (keep_to_limit()) or on error
    dev_t dev = 0;
    ino_t ino = 0;
    std::vector<Tree::DirEntry> entries;
    std::vector<Child> children;
    std::size_t next_child = 0;
    std::size_t depth = 0;
    std::size_t name_at = 0;  ///< where name() starts in path_
    bool jump = false;        ///< opened by path (the start, or enter_path())
    std::string parent_path;  ///< for `jump`: path_ of the frame below, restored on leaving
    std::string error;
    int error_number = 0;
  };

  void open_frame(Frame& f, OpenFile dir, int err);
  void close_frame(Frame& f);
  void keep_to_limit();
  bool reopen(Frame& f, int child_fd, bool child_jump);

  OpenFile open_by_path(const std::string& path) const;

  const Tree& tree_;
  std::string start_;
  std::size_t start_depth_;
  bool started_ = false;
  std::string path_;
  std::vector<Frame> frames_;
  std::size_t open_ = 0;    ///< frames holding a descriptor
  std::size_t lowest_ = 0;  ///< frames below this index hold none
  std::vector<std::string> lost_;
};

}  // namespace sm120check
