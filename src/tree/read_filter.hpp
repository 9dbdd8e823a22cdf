// A conversion a DiskTree applies to what it reads: how the files of a git work tree read
// once git has converted them (git_read_filter() in src/git/read_filter.hpp).
#pragma once

#include <memory>
#include <string>

#include "sm120check/tree.hpp"

namespace sm120check {

/// Converts the content of a file read from a tree into the form the comparison wants.
/// Implementations are thread-safe: one filter serves every handle of a tree.
class ReadFilter {
 public:
  virtual ~ReadFilter() = default;
  /// Converts `content`, the bytes of regular file `path` (relative to the tree's root), in
  /// place; returns whether it changed. Never throws: a conversion that cannot be made leaves
  /// `content` as read.
  virtual bool convert(const std::string& path, std::string& content) const = 0;
};

/// Gives `tree` a filter that its read() and read_with_blob_id() apply to every regular file
/// they return, from now on, for this handle and those open_again() makes. Returns false and
/// sets nothing when `tree` is not a directory opened by open_disk_tree().
bool set_read_filter(Tree& tree, std::shared_ptr<const ReadFilter> filter);

}  // namespace sm120check
