// How `git apply` reads a work tree's files: through git's end-of-line conversion.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "../tree/read_filter.hpp"
#include "sm120check/patch.hpp"
#include "sm120check/write.hpp"

namespace sm120check {

/// The conversion `git apply` makes to a work tree file before it matches a patch against it
/// (apply.c read_old_data() -> convert_to_git()): "\r\n" -> "\n" where core.autocrlf,
/// core.eol or the `text` / `eol` / `crlf` attributes say the file is text kept with CRLF in
/// the work tree and LF in the repository, as libgit2's crlf and ident filters decide
/// (git_filter_list_load(), GIT_FILTER_TO_ODB; external filter drivers are not run).
///
/// `target` is the directory the tree was opened on, inside the work tree libgit2 finds at or
/// above it (git_repository_open_ext()). Paths in `keep_crlf` (relative to `target`) are left as read:
/// like git apply (CONV_EOL_KEEP_CRLF), a file whose patch has a pre-image line ending in "\r"
/// is compared as it is. Only a file holding a "\r" is converted, so a run over LF files
/// never loads libgit2. Where libgit2 cannot be loaded or the repository opened, nothing is
/// converted. One difference from git: libgit2 leaves a file whose index blob already holds
/// a "\r" unconverted under `text=auto` / core.autocrlf, where git apply renormalises it.
std::shared_ptr<const ReadFilter> git_read_filter(std::string target,
                                                  std::set<std::string> keep_crlf);

/// For `apply`, after a plan made from a tree read through `filter` (git_read_filter()):
/// each regular file it writes put into the work tree's form as git apply writes it
/// (convert_to_working_tree(): libgit2's filters in GIT_FILTER_TO_WORKTREE mode, "\n" ->
/// "\r\n" where the file is kept with CRLF), and FileChange::before of a file converted
/// when read (written or deleted) set to the bytes on disk under `target`, for
/// write_changes()' check. Other filters: nothing changes. Throws Error(path, 0, "changed
/// while apply ran: ...") when a converted file no longer holds what was read, and as
/// open_disk_tree() and Tree::read() do.
void restore_work_tree_form(const ReadFilter& filter, const std::string& target,
                            std::vector<FileChange>& changes);

/// The paths (relative to the tree, each file patch's side that names a file at strip level
/// `strips[i]`) whose patch has a pre-image line ending in "\r": git_read_filter()'s
/// `keep_crlf`.
std::set<std::string> paths_with_crlf_pre_image(const std::vector<Patch>& patches,
                                                const std::vector<unsigned>& strips);

}  // namespace sm120check
