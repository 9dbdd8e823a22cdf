// Writing `apply`'s results to a directory: every file replaced atomically (a temporary file in
// its folder, fsync, rename), all files checked before any is touched, no symlink followed.
// The only code under src/ that writes to the target (docs/ARCHITECTURE.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sm120check {

/// One file as `apply` leaves it.
struct FileChange {
  enum class Kind { kWrite, kDelete };
  Kind kind = Kind::kWrite;
  /// Path relative to the target root ("dir/f.py"); "." and repeated "/" are tolerated, ".."
  /// components, absolute and empty paths are refused.
  std::string path;
  /// kWrite: the new bytes (for a symlink: its target, no NUL, not empty).
  std::string content;
  /// kWrite: git mode of the result (0100644, 0100755, 0120000 symlink; patch.hpp's kMode*);
  /// std::nullopt keeps the mode of the existing file (0100644 for a new one).
  std::optional<std::uint32_t> mode;

  /// What the path held when the change was planned (the bytes the new content was made
  /// from). write_changes() refuses the change, "changed while apply ran", when the path holds
  /// anything else (see there).
  struct Before {
    enum class Type { kMissing, kFile, kSymlink };
    Type type = Type::kMissing;
    /// kFile: git blob id (tree.hpp's git_blob_id()) of the bytes; kSymlink: of the target.
    std::string blob_id;
  };
  /// std::nullopt: whatever the path holds is replaced (or deleted), unchecked.
  std::optional<Before> before;
};

/// How write_changes() writes.
struct WriteOptions {
  /// Keep FILE.orig (the old bytes, a hard link to the old file where the file system allows,
  /// else a copy with its permission bits) for every changed or deleted existing file. An
  /// existing FILE.orig is replaced.
  bool backup = false;
};

/// What write_changes() did: normalised paths relative to the root, in the order of the changes.
struct WriteResult {
  std::vector<std::string> written;  ///< files (and symlinks) replaced or created
  std::vector<std::string> deleted;  ///< files removed (renamed to FILE.orig with `backup`)
  std::vector<std::string> backups;  ///< FILE.orig paths written
};

/// Writes `changes` under directory `root` (which may itself be reached through a symlink; nothing
/// below it is), in three phases, like git's apply.c (check_patch_list, then write_out_results):
///
/// 1. Check every change, touching nothing: the path still holds what FileChange::before says
///    (its type, and the blob id of its bytes or symlink target; a stat of it (device, inode,
///    size, mtime, ctime) is kept for the checks below); the path is safe; no component of its folder is a
///    symlink or a non-folder (missing folders are created later); the target is absent, a regular
///    file, or (only when the change writes a symlink, or deletes) a symlink, never a folder or
///    device; its folder (or the deepest existing one) is writable; no two changes name the same
///    path, a path and a folder above it, or (with `backup`) a path and another's FILE.orig.
///    A kWrite whose file already holds its bytes and mode, and a kDelete of an absent file, are
///    done already: they are skipped, and not listed in the result (a rerun after an interrupted
///    run finishes the job without backing up new content over FILE.orig).
/// 2. Stage: create missing folders (mkdir, mode 0777 less umask), then for each file a temporary
///    `.NAME.sm120check-XXXXXX` in the target's folder (O_CREAT|O_EXCL|O_NOFOLLOW; NAME cut to
///    200 bytes), written in full and fsynced; a symlink is made with symlink(2) under such a
///    name; a backup is staged the same way as `.NAME.orig.sm120check-XXXXXX`. Any failure removes
///    every temporary and every folder made, and rethrows: nothing changed.
/// 3. Commit. First every change with `before` is checked again by its stat (a changed stat whose
///    bytes still have the blob id is accepted): a file edited, created or removed by someone
///    else since phase 1 stops the run as in phase 2, nothing changed. Then change by change in
///    order: the same check again, rename the backup to NAME.orig, rename the temporary over
///    NAME (a delete unlinks NAME, or renames it to NAME.orig); then fsync each folder touched.
///    An edit that lands between the last check of a file and its rename (microseconds) is not
///    seen: nothing short of a lock held by every editor closes that window.
///
/// Permission bits: an existing file keeps its rwx bits (setuid, setgid and sticky are dropped);
/// mode 0100755 adds x where r is set, 0100644 removes every x. A new file is 0644 or 0755 less
/// umask. Owner, hard links, ACLs and extended attributes of a replaced file are not kept (as
/// `git apply`).
///
/// A kill at any moment leaves every file whole, either old or new; only temporaries (names as
/// above, safe to delete) and empty new folders can remain, and a rerun with the same changes
/// finishes the job. A failure in phase 3 (an I/O error after all checks passed) cannot be undone:
/// the files before it are new, the rest old, and the Error says which were written.
///
/// Throws Error(path, 0, message), one line naming the change's path (or `root`), for a refused or
/// failed change; in phases 1 and 2 nothing was changed. A file found changed is refused with
/// "changed while apply ran: ..." naming it: before the first rename nothing was changed; found
/// in phase 3 after some renames, the message names the files already written (as any phase 3
/// failure).
WriteResult write_changes(const std::string& root, const std::vector<FileChange>& changes,
                          const WriteOptions& options);

/// Writes all of `data` to file descriptor `fd`, again after EINTR and short writes. Returns
/// false with errno set when write(2) fails.
bool write_all(int fd, std::string_view data);

namespace detail {

/// Test-only fault injection, not a product option: when set (non-null), write_changes() calls
/// `hook(step, path)` at each step: "dir-created" (folder path), "temp-written", "backup-staged",
/// "before-rename", "backup-renamed", "renamed", "deleted" (change path), "dir-synced" (folder
/// path, "" for the root). A hook may throw (a failure at that step) or _exit() (a kill).
/// Process-wide; nullptr turns it off.
using WriteFaultHook = void (*)(std::string_view step, const std::string& path);
void set_write_fault_hook(WriteFaultHook hook);

}  // namespace detail

}  // namespace sm120check
