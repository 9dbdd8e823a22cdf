// The apply engine (see apply.hpp): rewrites a file's lines at the matcher's placements.
#include "sm120check/apply.hpp"

#include <stdexcept>
#include <string_view>

#include "../match/line_index.hpp"

namespace sm120check {
namespace {

using detail::TextMode;

/// The hunk line kinds of the image `direction` starts from, and of the one it writes.
struct Sides {
  LineKind from;  ///< lines only in the image that is replaced (removed, or added for reverse)
  LineKind to;    ///< lines only in the image written
};

Sides sides(Direction direction) {
  return direction == Direction::kForward ? Sides{LineKind::kRemoved, LineKind::kAdded}
                                          : Sides{LineKind::kAdded, LineKind::kRemoved};
}

/// File line `i` with its terminator as it stands in the content ("\n", or none for a last
/// line without one).
std::string_view line_with_end(const FileText& file, std::size_t i) {
  std::string_view line = file.line(i);
  const bool last = i + 1 == file.size();
  if (last && !file.final_newline()) return line;
  return std::string_view(line.data(), line.size() + 1);
}

/// Whether the file lines [m.image_begin, m.image_end) hold the hunk's `from`-side image with
/// m.dropped_top / m.dropped_bottom edge lines left out, as the matcher compared them.
bool placement_holds(const FileText& file, const Hunk& hunk, const HunkMatch& m, LineKind from,
                     bool ignore_whitespace) {
  std::size_t image_size = 0;
  for (const HunkLine& l : hunk.lines)
    if (l.kind != (from == LineKind::kRemoved ? LineKind::kAdded : LineKind::kRemoved))
      ++image_size;
  if (m.image_end < m.image_begin || m.image_end > file.size()) return false;
  if (m.dropped_top + m.dropped_bottom > image_size) return false;
  const std::size_t compared = image_size - m.dropped_top - m.dropped_bottom;
  if (m.image_end - m.image_begin != compared) return false;
  const TextMode mode = ignore_whitespace ? TextMode::kFoldWs : TextMode::kExact;
  std::string storage;
  std::size_t k = 0, at = m.image_begin;
  for (const HunkLine& l : hunk.lines) {
    if (l.kind != LineKind::kContext && l.kind != from) continue;
    const std::size_t index = k++;
    if (index < m.dropped_top || index >= image_size - m.dropped_bottom) continue;
    storage.clear();
    storage.reserve(l.text.size());
    if (!detail::line_equals(file.line(at), detail::normalise(l.text, mode, storage), mode))
      return false;
    ++at;
  }
  return true;
}

/// Whether the image written at `m` may end where it would: its last written line, when it has
/// no newline ("\ No newline at end of file"), must be the file's last line, not stand before
/// the file's lines after the placement (an empty pre-image matched before them, say).
bool end_fits(const FileText& file, const Hunk& hunk, const HunkMatch& m, Sides side) {
  std::size_t image_size = 0;
  for (const HunkLine& l : hunk.lines)
    if (l.kind != side.to) ++image_size;
  bool open_end = false;
  std::size_t index = 0;
  for (const HunkLine& l : hunk.lines) {
    if (l.kind == side.from) {
      ++index;
      continue;
    }
    if (l.kind == LineKind::kContext) {
      const std::size_t i = index++;
      if (i < m.dropped_top || i >= image_size - m.dropped_bottom) continue;  // left as it is
    }
    open_end = l.no_newline_at_eof;
  }
  return !open_end || m.image_end == file.size();
}

/// Whether the image written at `m` may begin where it would: placed after the file's last
/// line when that line has no newline, the written lines would run on from it (the line
/// glued to the first of them, and the hunk planned again on the next apply). git refuses such
/// a hunk too: it would have to rewrite that line, with "\ No newline at end of file".
bool start_fits(const FileText& file, const HunkMatch& m) {
  return file.size() == 0 || file.final_newline() || m.image_begin < file.size();
}

/// Offset in the content of file line `i` (the content's size for i == size()).
std::size_t byte_offset(const FileText& file, std::size_t i) {
  if (i >= file.size()) return file.content().size();
  return static_cast<std::size_t>(file.line(i).data() - file.content().data());
}

}  // namespace

std::string undo_splices(std::string_view content, const std::vector<HunkApply::Splice>& splices) {
  std::string out;
  out.reserve(content.size());
  std::size_t copied = 0;
  for (const HunkApply::Splice& s : splices) {
    if (s.at < copied || s.at + s.length > content.size())
      throw std::invalid_argument("undo_splices: splices out of order or range");
    out.append(content.substr(copied, s.at - copied));
    out += s.was;
    copied = s.at + s.length;
  }
  out.append(content.substr(copied));
  return out;
}

std::string_view to_string(Direction direction) {
  return direction == Direction::kForward ? "forward" : "reverse";
}

HunkApply apply_hunks(const FileText& file, const std::vector<Hunk>& hunks,
                      const std::vector<HunkMatch>& matches, Direction direction,
                      bool ignore_whitespace) {
  if (matches.size() != hunks.size())
    throw std::invalid_argument("apply_hunks: one match per hunk is needed");
  const Sides side = sides(direction);
  const HunkStatus want = direction == Direction::kForward ? HunkStatus::kApplicable
                                                           : HunkStatus::kApplied;
  const HunkStatus done = direction == Direction::kForward ? HunkStatus::kApplied
                                                           : HunkStatus::kApplicable;
  HunkApply out;
  out.content.reserve(file.content().size());
  std::size_t next = 0;  // first file line not yet copied
  for (std::size_t k = 0; k < hunks.size(); ++k) {
    const Hunk& hunk = hunks[k];
    const HunkMatch& m = matches[k];
    const bool placed = m.kind == MatchKind::kExact || m.kind == MatchKind::kFuzz;
    if (m.status == done) {
      out.already.push_back(k);
      continue;
    }
    if (m.status != want || !placed || m.image_begin < next ||
        !placement_holds(file, hunk, m, side.from, ignore_whitespace) ||
        !end_fits(file, hunk, m, side) || !start_fits(file, m)) {
      out.failed.push_back(k);
      continue;
    }
    for (; next < m.image_begin; ++next) out.content += line_with_end(file, next);
    HunkApply::Splice splice;
    splice.at = out.content.size();
    const std::size_t was_begin = byte_offset(file, next);
    // The image's lines in order: context kept from the file, `from` lines dropped, `to`
    // lines written; edge context fuzz dropped lies outside the placement and is not touched.
    std::size_t image_size = 0;
    for (const HunkLine& l : hunk.lines)
      if (l.kind != side.to) ++image_size;
    std::size_t index = 0;
    for (const HunkLine& l : hunk.lines) {
      if (l.kind == side.to) {
        out.content += l.text;
        if (!l.no_newline_at_eof) out.content += '\n';
        continue;
      }
      const std::size_t i = index++;
      if (i < m.dropped_top || i >= image_size - m.dropped_bottom) continue;
      if (l.kind == LineKind::kContext) out.content += line_with_end(file, next);
      ++next;  // a context line copied, or a `from` line dropped
    }
    splice.length = out.content.size() - splice.at;
    splice.was = std::string(
        std::string_view(file.content()).substr(was_begin, byte_offset(file, next) - was_begin));
    out.splices.push_back(std::move(splice));
    out.written.push_back(k);
  }
  for (; next < file.size(); ++next) out.content += line_with_end(file, next);
  return out;
}

}  // namespace sm120check
