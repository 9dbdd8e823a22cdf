// A file's old and new content as a `git diff`, for `apply --dry-run`: what would be written,
// in a form `git apply` and `patch -p1` accept and that reproduces the new content byte for byte.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sm120check {

/// The path that stands for "no file" on one side of a diff (an added or a deleted file).
inline constexpr std::string_view kDevNull = "/dev/null";

/// The `git diff` of one file from `old_content` to `new_content`: "diff --git a/OLD b/NEW", the
/// extended header lines, "--- a/OLD" / "+++ b/NEW" and "@@ -a,b +c,d @@" hunks with `context`
/// lines of context (3: git's default; hunks closer than that are merged as by git), with
/// "\ No newline at end of file" after a last line without one; CRLF kept byte for byte. Paths
/// are relative to the target root, without "a/" / "b/"; quoted as git quotes them (C escapes
/// for '"', '\\', control and non-ASCII bytes), a tab after a ---/+++ name holding a space.
///
/// `old_path` kDevNull: an added file ("new file mode", "--- /dev/null"; `old_content` must be
/// empty). `new_path` kDevNull: a deleted file. Different paths: a rename ("rename from/to").
/// Modes (git's 0100644, 0100755, 0120000; the content of a symlink is its target) are printed
/// only where known: `new_mode` std::nullopt means unchanged; "old mode"/"new mode" when they
/// differ ("new mode" alone when `old_mode` is unknown), else the mode ends the "index" line (ids
/// abbreviated to 7 digits); a new or deleted file without one is 0100644. Without a mode, `git
/// apply` keeps the file's. Contents libgit2 finds binary (a NUL byte, or many control bytes)
/// give a "GIT binary patch" with full ids (git apply takes it; patch does not).
///
/// Returns "" when there is nothing to show (same path, content and mode). Computed by libgit2's
/// xdiff (git_patch_from_buffers), loaded on first use: Myers' algorithm with git's cost limit,
/// about linear in the contents' bytes for typical edits (worst case O(n * sqrt(n)) lines).
/// Throws Error when libgit2 cannot be loaded ("libgit2 (...) could not be loaded: ...;
/// install the libgit2 package"), and Error(path, 0, ...) when both paths are kDevNull or empty,
/// a kDevNull side has content, or libgit2 fails.
std::string unified_diff(std::string_view old_path, std::string_view new_path,
                         std::string_view old_content, std::string_view new_content,
                         unsigned context = 3, std::optional<std::uint32_t> old_mode = std::nullopt,
                         std::optional<std::uint32_t> new_mode = std::nullopt);

}  // namespace sm120check
