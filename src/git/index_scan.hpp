// The git index read for a few paths (internal to src/git; tests/test_git.cpp uses it to compare
// the two ways of reading). Format: git's Documentation/gitformat-index.txt, versions 2, 3, 4.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

namespace sm120check::git {

/// One stage-0 entry's on-disk fields (gitformat-index.txt: 32-bit stat data as git stores
/// it, the object id as 40 hex digits, and the flags that change what `git status` says).
struct IndexEntry {
  std::uint32_t ctime_s = 0, ctime_ns = 0, mtime_s = 0, mtime_ns = 0, dev = 0, ino = 0, mode = 0,
                uid = 0, gid = 0, size = 0;
  std::string id;
  bool assume_valid = false, skip_worktree = false, intent_to_add = false;
  bool operator==(const IndexEntry&) const = default;
};

/// What the index says about each wanted path.
struct IndexScan {
  std::vector<std::optional<IndexEntry>> found;  ///< per wanted path: its stage-0 entry
  std::vector<bool> conflicted;                  ///< per wanted path: stages 1-3 present
  std::vector<bool> is_dir;                      ///< per wanted path: entries below "path/"
  std::optional<std::string> root_tree;          ///< the cache tree's root id, when valid
  struct timespec index_mtime {};
  /// True when entries were skipped by the search (IndexRead::search), false when every entry
  /// up to the last wanted path was read. Says how, never what: the other fields are the same.
  bool searched = false;
};

/// How scan_index() reaches the wanted paths.
enum class IndexRead {
  /// Versions 2 and 3: each wanted path is found by a search over the entries' bytes (about
  /// 2 log2(index bytes / 2 KiB) probes), the walk resuming just before it. Where the search
  /// cannot be sure of an entry boundary, or for version 4, the same as `walk`.
  search,
  /// Every entry from the first to the last wanted path (or to the end) is read in order.
  walk,
};

/// Reads the index file at `path` for the `wanted` paths (relative to the work tree, sorted,
/// no duplicates); results are per wanted path, in its order. With `may_stop`, the entries
/// after the last wanted path are not read when the cache tree (TREE extension) can be found
/// from the end of the file; without it every entry and extension is read. std::nullopt when
/// the file is missing or holds what is not read here (a malformed entry, a version other than
/// 2-4, a split or sparse index's extension met on the way).
std::optional<IndexScan> scan_index(const std::string& path, const std::vector<std::string>& wanted,
                                    bool may_stop, IndexRead how = IndexRead::search);

}  // namespace sm120check::git
