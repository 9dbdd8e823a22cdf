// libgit2, loaded on first use.
//
// sm120check does not link libgit2: loading it and its 20 dependent libraries (krb5, mbedtls,
// libssh2, libcrypto, ...) costs about 6 ms at every start (measured in bench/), which is more
// than `git apply --check` takes for a whole run. Most runs never need git (text hunks are
// matched without it), so libgit2 is opened with dlopen() the first time a blob id or a
// repository is needed, and its functions are called through the table below. The declarations
// come from libgit2's own headers, so every call is type-checked against the installed version.
//
// The self-contained build (CMake option SM120CHECK_STATIC) links Debian's libgit2.a and its
// dependencies instead, for hosts without libgit2: the table then holds the linked functions
// (SM120CHECK_LIBGIT2_LINKED), nothing is loaded, and SM120CHECK_LIBGIT2_LIBRARY is not read.
#pragma once

#include <git2.h>
#include <git2/sys/repository.h>

namespace sm120check::git {

// Every libgit2 function sm120check calls. Add a function here to use it.
#define SM120CHECK_LIBGIT2_FUNCTIONS(X) \
  X(git_libgit2_init)                   \
  X(git_libgit2_opts)                   \
  X(git_libgit2_features)               \
  X(git_error_last)                     \
  X(git_odb_hash)                       \
  X(git_oid_tostr)                      \
  X(git_repository_open)                \
  X(git_repository_open_ext)            \
  X(git_repository_free)                \
  X(git_repository_workdir)             \
  X(git_repository_path)                \
  X(git_ignore_path_is_ignored)         \
  X(git_repository_head)                \
  X(git_repository_head_detached)       \
  X(git_repository_head_unborn)         \
  X(git_reference_free)                 \
  X(git_reference_target)               \
  X(git_reference_shorthand)            \
  X(git_reference_lookup)               \
  X(git_reference_symbolic_target)      \
  X(git_revparse_single)                \
  X(git_object_peel)                    \
  X(git_object_free)                    \
  X(git_object_id)                      \
  X(git_oid_fromstr)                    \
  X(git_commit_lookup)                  \
  X(git_commit_free)                    \
  X(git_commit_tree)                    \
  X(git_commit_tree_id)                 \
  X(git_commit_parentcount)             \
  X(git_commit_parent_id)               \
  X(git_commit_summary)                 \
  X(git_commit_time)                    \
  X(git_commit_time_offset)             \
  X(git_tree_lookup)                    \
  X(git_tree_free)                      \
  X(git_tree_entry_byname)              \
  X(git_tree_entry_bypath)              \
  X(git_tree_entry_free)                \
  X(git_tree_entry_filemode)            \
  X(git_tree_entry_id)                  \
  X(git_tree_entrycount)                \
  X(git_tree_entry_byindex)             \
  X(git_tree_entry_name)                \
  X(git_blob_lookup)                    \
  X(git_blob_free)                      \
  X(git_blob_rawcontent)                \
  X(git_blob_rawsize)                   \
  X(git_status_file)                    \
  X(git_status_list_new)                \
  X(git_status_list_free)               \
  X(git_status_list_entrycount)         \
  X(git_status_byindex)                 \
  X(git_graph_descendant_of)            \
  X(git_revwalk_new)                    \
  X(git_revwalk_free)                   \
  X(git_revwalk_push)                   \
  X(git_revwalk_hide)                   \
  X(git_revwalk_next)                   \
  X(git_revwalk_sorting)                \
  X(git_revwalk_simplify_first_parent)  \
  X(git_diff_from_buffer)               \
  X(git_diff_free)                      \
  X(git_diff_options_init)              \
  X(git_patch_from_buffers)             \
  X(git_patch_to_buf)                   \
  X(git_patch_free)                     \
  X(git_buf_dispose)                    \
  X(git_filter_list_load)               \
  X(git_filter_list_apply_to_buffer)    \
  X(git_filter_list_free)               \
  X(git_apply_to_tree)                  \
  X(git_index_free)                     \
  X(git_index_open)                     \
  X(git_repository_set_index)

/// Pointers to the libgit2 functions listed in SM120CHECK_LIBGIT2_FUNCTIONS, same names.
struct Libgit2 {
#define SM120CHECK_LIBGIT2_DECLARE(name) decltype(&::name) name = nullptr;
  SM120CHECK_LIBGIT2_FUNCTIONS(SM120CHECK_LIBGIT2_DECLARE)
#undef SM120CHECK_LIBGIT2_DECLARE
};

/// The loaded and initialised library (git_libgit2_init called once). Thread-safe. Throws
/// Error("libgit2 (libgit2.so.N) could not be loaded: <dlerror>; install the libgit2 package")
/// when the shared library or one of the functions is missing (never in the self-contained
/// build, where only Error("libgit2 could not be initialised") remains).
const Libgit2& libgit2();

/// The message of libgit2's last error on this thread, or `fallback`.
const char* last_error_message(const char* fallback);

}  // namespace sm120check::git
