// The git index read for a few paths (internal to src/git; tests/test_git.cpp uses it to compare
// the two ways of reading). Format: git's Documentation/gitformat-index.txt, versions 2, 3, 4.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
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

/// What a touched file holds against its stage-0 index entry.
enum class EntryState {
  clean,            ///< the file is what the entry records
  dirty,            ///< it differs (or is deleted), flags notwithstanding
  not_checked_out,  ///< skip-worktree and absent: a sparse checkout left it out
};

/// The touched files among `paths` (relative to the work tree at `root`) whose index entries
/// (the index file at `index_path`) are flagged assume-unchanged or skip-worktree, which
/// `git status` and libgit2's status call unchanged without looking at them, compared with
/// the disk (stat data, then the blob id). `unknown` says why, naming the flag, when one of
/// them cannot be compared here (attributes that filter it, a submodule, a configuration not
/// read here) or the index is not read here (then `dirty` and `not_checked_out` are partial).
/// Reads the index once (a walk); never throws.
struct FlaggedEntries {
  std::vector<std::string> dirty, not_checked_out;  ///< sorted
  std::string unknown;                              ///< "" when every flagged file was compared
};
FlaggedEntries check_flagged_entries(const std::string& root, const std::string& index_path,
                                     const std::vector<std::string>& paths);

/// What git makes of an index file as a whole, and what a reader of it must know first.
struct IndexFileCheck {
  enum class State {
    missing,   ///< no index file: git reads it as an empty index
    readable,  ///< git reads it (read-cache.c, do_read_index())
    refused,   ///< git refuses it, or it is truncated or corrupt: `reason` says how
  };
  /// The trailing 20 bytes. Git verifies them only in `git fsck` (read-cache.c, verify_hdr():
  /// verify_index_checksum is set by fsck alone), so an index it reads may hold any of these.
  enum class Trailer {
    not_hashed,  ///< not all zeros, not compared (check_index_file() without `hash`)
    checksum,    ///< the SHA-1 of the bytes before it, as git writes by default
    zero,        ///< all zeros: git >= 2.40 with index.skipHash (feature.manyFiles) writes this
    other,       ///< neither: a stale or damaged trailer (libgit2 1.5 refuses the index)
  };
  State state = State::missing;
  std::string reason;  ///< for `refused`: git's words where it has them, e.g. "bad index version 9"
  std::uint32_t version = 0, entries = 0;
  bool split = false;   ///< a "link" extension: the entries live partly in .git/sharedindex.<id>
  bool sparse = false;  ///< an "sdir" extension: folders outside the sparse cone as entries
  Trailer trailer = Trailer::not_hashed;
};

/// Checks the index file at `path` from its header through every entry and extension to the
/// trailer, as git's reader would take it: the header (signature "DIRC", version 2-4), each
/// entry within the file, the extension chain ending exactly at the 20-byte trailer, no
/// lower-case (required) extension other than "link" and "sdir". With `hash`, the trailer is
/// compared with the SHA-1 of the bytes before it (Nettle: 22 ms for the 9 MB index of 100k
/// entries on a loaded 2-core EPYC, 0.4 GB/s; the walk alone is within the noise of a run).
/// Reads the whole file; never throws (a file that cannot be read is `refused`).
IndexFileCheck check_index_file(const std::string& path, bool hash);

/// A copy of the index bytes `data` (a whole index file) with its trailer set to the SHA-1 of
/// the bytes before it: what libgit2 1.5 requires of an index (git does not; see
/// IndexFileCheck::Trailer). Empty when `data` is shorter than a header and a trailer.
std::string with_index_checksum(std::string_view data);

}  // namespace sm120check::git
