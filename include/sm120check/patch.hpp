// The patch model: what a unified diff says, independent of any target tree.
//
// Vocabulary (as in git-apply(1) and GNU patch(1)): a *patch* is one change set (one commit of a
// `git format-patch` series, or one plain diff); it holds one *file patch* per file; a file patch
// holds *hunks*. A hunk's *pre-image* is its context and removed lines in order, its *post-image*
// its context and added lines in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sm120check {

/// Kind of a hunk body line, by its first character: ' ' context, '+' added, '-' removed.
enum class LineKind : char { kContext = ' ', kAdded = '+', kRemoved = '-' };

/// One body line of a hunk.
struct HunkLine {
  LineKind kind = LineKind::kContext;
  /// True when the line is followed by "\ No newline at end of file": in the image(s) it belongs
  /// to, it is the last line of the file and has no line terminator.
  bool no_newline_at_eof = false;
  /// Line content without the leading ' ', '+' or '-' and without the terminating "\n". A "\r"
  /// before the "\n" is kept: CRLF files are compared byte-exactly. A view into the patch text,
  /// which the hunk keeps alive (Hunk::patch_text): valid as long as a Hunk sharing it lives.
  std::string_view text;
};

/// One hunk: "@@ -old_start,old_lines +new_start,new_lines @@ section".
struct Hunk {
  std::uint32_t old_start = 0;  ///< 1-based first pre-image line; 0 for an empty pre-image.
  std::uint32_t old_lines = 0;  ///< pre-image length in lines; an omitted count means 1.
  std::uint32_t new_start = 0;  ///< 1-based first post-image line; 0 for an empty post-image.
  std::uint32_t new_lines = 0;  ///< post-image length in lines; an omitted count means 1.
  std::string section;          ///< text after the second "@@" (function context), trimmed.
  std::size_t patch_line = 0;   ///< 1-based line of the "@@" header in the patch source.
  std::vector<HunkLine> lines;  ///< body lines in order.
  /// The text the lines' views point into: the patch text parse_patches() read, shared by every
  /// hunk it returns (copying a hunk, a file patch or a patch keeps it). A hunk built by hand
  /// sets it, or points its lines into text that outlives the hunk and leaves it null.
  std::shared_ptr<const std::string> patch_text;

  std::size_t added() const;    ///< number of '+' lines.
  std::size_t removed() const;  ///< number of '-' lines.
  /// Number of context lines before the first and after the last added/removed line.
  std::size_t leading_context() const;
  std::size_t trailing_context() const;
};

/// What a file patch does to its file.
enum class ChangeKind { kModify, kAdd, kDelete, kRename, kCopy, kMode, kBinary };

/// Lower-case name used in reports: "modify", "add", "delete", "rename", "copy", "mode", "binary".
std::string_view to_string(ChangeKind kind);

/// Git file modes (octal) as written on "new file mode" / "old mode" lines.
inline constexpr std::uint32_t kModeRegular = 0100644;
inline constexpr std::uint32_t kModeExecutable = 0100755;
inline constexpr std::uint32_t kModeSymlink = 0120000;
inline constexpr std::uint32_t kModeGitlink = 0160000;

/// The changes to one file.
struct FilePatch {
  /// Paths exactly as the patch names them, unquoted (C escapes decoded) and with any timestamp
  /// or trailing tab removed, but with prefixes ("a/", "b/") kept: strip levels are applied later.
  /// "/dev/null" where the file does not exist on that side (added or deleted file).
  std::string old_path;
  std::string new_path;
  ChangeKind change = ChangeKind::kModify;
  std::optional<std::uint32_t> old_mode;  ///< from "old mode", "deleted file mode", "index ... MODE".
  std::optional<std::uint32_t> new_mode;  ///< from "new mode", "new file mode", "index ... MODE".
  std::optional<int> similarity;          ///< percent, from "similarity index N%".
  bool binary = false;                    ///< "Binary files ... differ" or "GIT binary patch".
  bool binary_data = false;               ///< a "GIT binary patch" payload is present.
  /// Blob ids from the "index OLD..NEW" line, lower-case hex, possibly abbreviated; empty if the
  /// patch has no index line. All zeros means "no file".
  std::string old_blob;
  std::string new_blob;
  bool git = false;             ///< introduced by "diff --git" (git's extended header rules apply).
  std::size_t patch_line = 0;   ///< 1-based line in the patch source where this file patch starts.
  std::vector<Hunk> hunks;
};

/// One patch: an optional message header and its file patches.
struct Patch {
  std::string source;  ///< where it was read from: a path, or "-" for stdin.
  /// Mail (mbox or "From:"/"Subject:" headers): the Subject header, unfolded, RFC 2047 decoded
  /// (charset not converted), without leading "Re:" and "[...]" groups ("[PATCH v2 1/3]").
  /// `git log -p`: the first non-empty message line, trimmed. `hg export`: the first description
  /// line after the "#" header lines, trimmed. Plain diffs: none.
  std::optional<std::string> subject;
  /// Text before the first file patch, verbatim: for mails, headers, message, "---" and
  /// diffstat.
  std::string message;
  std::size_t patch_line = 0;  ///< 1-based line in the source where the patch starts.
  std::vector<FilePatch> files;
  /// Non-empty for a source that could not be read or parsed, kept in a run so that the other
  /// patches are still judged: why (an Error's message), with `patch_line` the offending line
  /// (0 when none applies) and no files. verify() reports such a patch with status error.
  std::string error;
};

/// Start of the Error message parse_patches() throws for a text holding no patch at all.
inline constexpr std::string_view kNoPatchFound = "no patch found";

/// Most hunk body lines (context, added and removed, over all patches) one parse_patches() call
/// reads: a text with more is refused with an Error at the first line over the limit. Bounds the
/// memory the model takes besides the text (24 bytes a line).
inline constexpr std::size_t kMaxHunkLines = std::size_t{4} << 20;

/// Parses every patch in `text`, read from `source` (used in errors and Patch::source).
///
/// Accepts `git diff`, `git format-patch` (one or many per text: an mbox series), `git log -p`,
/// `hg export`, plain `diff -u` / `diff -ruN` (timestamps, "Only in" lines), "Index:" headers
/// (svn, quilt), quoted names with C escapes, "\ No newline at end of file", CRLF body lines,
/// hunk headers without counts or with a section, and a leading UTF-8 BOM. Patches are split at
/// mbox "From " lines, `git log` "commit <id>" lines, "# HG changeset patch" lines and at message
/// text that follows a file patch.
///
/// In a mail (mbox "From " line and/or "From:"/"Subject:" headers) whose message has a bare "---"
/// line (git format-patch's separator before the diffstat; the first one outside any hunk body)
/// followed by a file patch, everything before that line is message text, even a diff quoted in
/// the message. Without such a separator, diff-looking lines in the message are parsed as diffs.
/// A `git diff` file patch may have no hunk (mode change, binary, empty file, `git diff -w` with
/// only an index line); a plain one may not (svn property-only changes are skipped, no file patch).
///
/// Throws Error(source, line, message) for: a context diff, a combined diff (`diff --cc`),
/// a hunk whose body does not match its header's counts, a hunk with no lines ("@@ -0,0 +0,0 @@"),
/// a plain file patch whose header has no hunk after it (line of its "---"), a "---"/"+++" pair
/// with an empty name, a malformed hunk header, a "GIT binary patch" without payload, more than
/// kMaxHunkLines hunk lines (the first line over the limit), a text of 4 GiB or more (line 0),
/// or a text holding no patch (line 0, message starting with kNoPatchFound).
/// The hunks' lines are views into `text`, which every hunk keeps (Hunk::patch_text): the model
/// of a patch costs 24 bytes a line besides the text, whatever the lines' length.
std::vector<Patch> parse_patches(std::shared_ptr<const std::string> text, std::string_view source);

/// parse_patches() that keeps going past a patch it cannot parse: that patch is returned in its
/// place with Patch::error set (the Error's message; Patch::patch_line its line; no file
/// patches; its subject when its mail headers were read), and parsing resumes at the next patch
/// boundary (an mbox "From " line, a `git log` "commit" line, an `hg export` header): one bad
/// patch of a `git format-patch` series costs only itself. Errors about the text as a whole
/// (line 0: no patch at all, 4 GiB or more) are still thrown.
std::vector<Patch> parse_patches_keeping_errors(std::shared_ptr<const std::string> text,
                                                std::string_view source);

/// parse_patches() of a copy of `text` (the hunks keep the copy).
std::vector<Patch> parse_patches(std::string_view text, std::string_view source);

/// Removes `strip` leading path components from a patch path (as `patch -pN`). Returns
/// std::nullopt when the path has fewer than `strip + 1` components. "/dev/null" is returned
/// unchanged.
std::optional<std::string> strip_path(std::string_view path, unsigned strip);

}  // namespace sm120check
