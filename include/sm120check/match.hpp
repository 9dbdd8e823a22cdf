// The hunk matcher: where, if anywhere, a hunk's pre-image or post-image sits in a file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sm120check/patch.hpp"

namespace sm120check {

/// Which side of a hunk: the pre-image (context + removed lines) or the post-image (context +
/// added lines).
enum class Image { kPre, kPost };

/// A file's content split into lines at "\n". Lines keep a trailing "\r" (CRLF files compare
/// byte-exactly). Holds its own copy of the content.
class FileText {
 public:
  explicit FileText(std::string content);
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;
  FileText(FileText&&) noexcept;
  FileText& operator=(FileText&&) noexcept;
  ~FileText();

  /// Number of lines; a last line without "\n" counts; "" has 0 lines.
  std::size_t size() const noexcept { return lines_.size(); }
  /// Line `i` (0-based) without its "\n".
  std::string_view line(std::size_t i) const noexcept { return lines_[i]; }
  /// False when the content is non-empty and does not end with "\n".
  bool final_newline() const noexcept { return final_newline_; }
  const std::string& content() const noexcept { return content_; }

 private:
  std::string content_;
  std::vector<std::string_view> lines_;
  bool final_newline_ = true;
};

/// Matching options (GNU patch's --fuzz and --ignore-whitespace).
struct MatchOptions {
  /// Most context lines that may be dropped at each edge of a hunk (never added/removed lines).
  unsigned fuzz = 0;
  /// Compare lines with every run of white space (space, tab, CR, VT, FF) folded to one space
  /// and white space at the end of a line ignored.
  bool ignore_whitespace = false;
};

/// Per-hunk verdict.
enum class HunkStatus {
  kApplied,     ///< the post-image is in the file
  kApplicable,  ///< the pre-image is in the file and the post-image is not
  kConflict,    ///< neither image is in the file
};

/// "applied", "applicable", "conflict".
std::string_view to_string(HunkStatus status);

/// Where and how one hunk matched.
struct HunkMatch {
  HunkStatus status = HunkStatus::kConflict;
  /// 1-based file line where the matched image (after fuzz) starts; for an empty image, the line
  /// before which it sits. 0 for a conflict.
  std::size_t line = 0;
  /// `line` minus the start the header names for that image (new_start for applied, old_start
  /// for applicable), counted on the lines actually compared (fuzz-dropped lines excluded). 0 for
  /// a conflict.
  std::int64_t offset = 0;
  /// Context lines dropped at each edge to get the match (0 = exact).
  unsigned fuzz = 0;
  /// Both images matched; the documented tie rule chose `status` (see match_hunks()).
  bool both_images = false;
  /// For a conflict, why the nearest candidate failed, as a stable code: "line-ending-mismatch"
  /// (matches when CR is ignored), "whitespace-only-mismatch" (matches with white space
  /// folded), "final-newline-mismatch" (differs only in the newline at end of file), or "" when
  /// nothing explains it.
  std::string diagnostic;
};

/// Matches the hunks of one file patch, in order, against `file`.
///
/// Each hunk is searched from the line its header names (shifted by the offset of the previous
/// matched hunk) outward in both directions over the whole file, never starting before the end
/// of the previous hunk's match: hunks do not overlap. At each fuzz level 0..options.fuzz both
/// images are tried and the first level with a match decides. Tie rule when both images match at
/// the same fuzz: the match nearer the expected line wins; at equal distance, `applied` wins
/// (the added lines are present), and `both_images` is set. An image line marked
/// no_newline_at_eof only matches the file's last line when the file has no final newline, and
/// a line without that mark never matches such a last line. An empty image matches at the
/// expected line.
///
/// Returns one HunkMatch per hunk, in order. Never throws on content; cost is
/// O(file lines x hunk lines) in the worst case, linear in practice.
std::vector<HunkMatch> match_hunks(const FileText& file, const std::vector<Hunk>& hunks,
                                   const MatchOptions& options);

/// The whole file an image describes when the hunks cover the whole file (an added file's
/// post-image, a deleted file's pre-image): the image's lines joined with "\n", each terminated
/// unless marked no_newline_at_eof. Empty for no hunks.
std::string whole_image(const std::vector<Hunk>& hunks, Image image);

}  // namespace sm120check
