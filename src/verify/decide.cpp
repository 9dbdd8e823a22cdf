// Decisions per change kind: one file patch against what the tree holds (modify, mode and
// binary changes, added, deleted, renamed and copied files).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>

#include "internal.hpp"
#include "sm120check/error.hpp"
#include "sm120check/markers.hpp"

namespace sm120check::detail {
namespace {

bool all_zero(std::string_view hex) {
  return !hex.empty() && std::all_of(hex.begin(), hex.end(), [](char c) { return c == '0'; });
}

/// Abbreviated blob ids compare as prefixes of the full id.
bool blob_matches(std::string_view full_id, std::string_view patch_id) {
  return !patch_id.empty() && !all_zero(patch_id) && full_id.substr(0, patch_id.size()) == patch_id;
}

/// Fewest hex digits of an abbreviated blob id that decide anything (git's default
/// abbreviation): a shorter prefix matches by chance too often (1 in 16 for one digit).
constexpr std::size_t kMinBlobIdDigits = 7;

/// An id from an index line that may decide: at least kMinBlobIdDigits, not "no file".
bool usable_blob(std::string_view id) { return id.size() >= kMinBlobIdDigits && !all_zero(id); }

}  // namespace

void append_reason(FileReport& fr, std::string_view text) {
  if (text.empty()) return;
  if (!fr.reason.empty()) fr.reason += "; ";
  fr.reason += text;
}

/// Hunk reports for hunks that are decided as a whole with the file (added/deleted files). The
/// line is 1 when the decision is about a file that is there, none when the file is absent.
/// A conflict because the file is not there says nothing of the fix (it may stand in a file
/// that moved, or the target may not ship the file): presence unknown, "file-missing".
void whole_file_hunks(const FilePatch& fp, FileReport& fr, HunkStatus status, bool file_present) {
  for (std::size_t i = 0; i < fp.hunks.size(); ++i) {
    const Hunk& h = fp.hunks[i];
    HunkReport hr{i + 1, h.old_start, h.old_lines, h.new_start, h.new_lines, {}};
    hr.match.status = status;
    hr.match.kind = status == HunkStatus::kConflict ? MatchKind::kNone : MatchKind::kExact;
    hr.match.presence = status == HunkStatus::kApplied      ? Presence::kPresent
                        : status == HunkStatus::kApplicable ? Presence::kAbsent
                                                            : Presence::kUnknown;
    if (status == HunkStatus::kConflict && !file_present) hr.match.presence_reason = "file-missing";
    if (status != HunkStatus::kConflict && file_present) hr.match.line = 1;
    fr.hunks.push_back(hr);
  }
}

void refuse_fill_of_nonempty(const FilePatch& fp, const FileText& file,
                             const std::vector<HunkMatch*>& matches) {
  constexpr std::string_view kEmptyBlob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
  if (file.size() == 0 || !usable_blob(fp.old_blob) || !blob_matches(kEmptyBlob, fp.old_blob))
    return;
  for (std::size_t k = 0; k < matches.size() && k < fp.hunks.size(); ++k) {
    HunkMatch& m = *matches[k];
    if (m.status != HunkStatus::kApplicable || fp.hunks[k].old_lines != 0) continue;
    m = HunkMatch{};
    m.status = HunkStatus::kConflict;
    m.presence = Presence::kUnknown;
    m.presence_reason = "file-not-empty";
  }
}

namespace {

/// Matches the hunks of `fp` against `text` and records them; returns their statuses.
std::vector<Status> match_into(const FilePatch& fp, const FileText& text, FileReport& fr,
                               const VerifyOptions& options, std::optional<Image> by_blob) {
  MatchOptions match = options.match;
  match.prefer = by_blob;
  std::vector<HunkMatch> matches = match_hunks(text, fp.hunks, match);
  std::vector<HunkMatch*> all;
  for (HunkMatch& m : matches) all.push_back(&m);
  refuse_fill_of_nonempty(fp, text, all);
  std::vector<Status> statuses;
  for (std::size_t i = 0; i < fp.hunks.size() && i < matches.size(); ++i) {
    const Hunk& h = fp.hunks[i];
    fr.hunks.push_back({i + 1, h.old_start, h.old_lines, h.new_start, h.new_lines, matches[i]});
    statuses.push_back(from_hunk(matches[i].status));
  }
  return statuses;
}

/// What the hunks of `fp` are compared with at `path`: a symlink's target for symlink patches,
/// otherwise the file's content (read once per run, see FileCache). Returns nullptr (and sets
/// the file's status) when the entry cannot be compared.
const FileText* read_comparable(Context& ctx, const std::string& path, const Entry& entry,
                                const FilePatch& fp, FileReport& fr) {
  bool want_link = is_symlink_mode(fp.new_mode) || is_symlink_mode(fp.old_mode);
  if (want_link) {
    if (entry.type != Entry::Type::kSymlink) {
      fr.status = Status::kConflict;
      append_reason(fr, fmt::format("'{}' is not a symlink but the patch changes a symlink", path));
      return nullptr;
    }
    return &ctx.cache.get(path + " -> link", [&] { return ctx.tree.read_link(path); });
  }
  const bool gitlink = fp.old_mode == kModeGitlink || fp.new_mode == kModeGitlink;
  if (gitlink && entry.type == Entry::Type::kDirectory) {
    // A submodule: the commit it is at is recorded in the superproject's index (or, checked
    // out, in its own repository), not in any file: the tree alone cannot tell (`--rev` reads
    // the recorded commit).
    fr.status = Status::kUnknown;
    append_reason(fr, fmt::format("'{}' is a submodule: the commit it records is not in the "
                                  "tree's files (verify --rev reads it)",
                                  path));
    return nullptr;
  }
  if (entry.type == Entry::Type::kDirectory || entry.type == Entry::Type::kOther) {
    fr.status = Status::kConflict;
    append_reason(fr, fmt::format("'{}' is not a regular file", path));
    return nullptr;
  }
  const FileText& text = ctx.cache.read(ctx.tree, path);
  if (!fp.binary && looks_binary(text.content())) {
    fr.status = Status::kConflict;
    append_reason(fr, fmt::format("'{}' is a binary file but the patch has text hunks", path));
    return nullptr;
  }
  return &text;
}

/// Decides a binary change by blob ids. Returns the status of the content part.
Status binary_by_blob(const FilePatch& fp, const std::string& content, FileReport& fr) {
  if (fp.new_blob.empty() && fp.old_blob.empty()) {
    append_reason(fr, fp.binary ? "binary patch without an index line: no blob ids to compare"
                                : "no hunks and no index line: nothing to compare");
    return Status::kUnknown;
  }
  if (!usable_blob(fp.new_blob) && !usable_blob(fp.old_blob)) {
    append_reason(fr, fmt::format("index line ids shorter than {} hex digits: nothing to compare",
                                  kMinBlobIdDigits));
    return Status::kUnknown;
  }
  std::string id = git_blob_id(content);
  if (usable_blob(fp.new_blob) && blob_matches(id, fp.new_blob)) {
    append_reason(fr, "blob id matches the post-image");
    return Status::kApplied;
  }
  if (usable_blob(fp.old_blob) && blob_matches(id, fp.old_blob)) {
    append_reason(fr, "blob id matches the pre-image");
    return Status::kApplicable;
  }
  append_reason(fr, fmt::format("blob id {} matches neither pre-image {} nor post-image {}",
                                id.substr(0, 12), fp.old_blob, fp.new_blob));
  return Status::kConflict;
}

}  // namespace

bool has_blob_ids(const FilePatch& fp) {
  return usable_blob(fp.new_blob) || usable_blob(fp.old_blob);
}

std::optional<Image> blob_image(const FilePatch& fp, std::string_view content) {
  if (!has_blob_ids(fp)) return std::nullopt;
  return blob_image_of_id(fp, git_blob_id(content));
}

bool blob_id_names(std::string_view patch_id, std::string_view full_id) {
  return usable_blob(patch_id) && blob_matches(full_id, patch_id);
}

std::optional<Image> blob_image_of_id(const FilePatch& fp, std::string_view id) {
  if (usable_blob(fp.new_blob) && blob_matches(id, fp.new_blob)) return Image::kPost;
  if (usable_blob(fp.old_blob) && blob_matches(id, fp.old_blob)) return Image::kPre;
  return std::nullopt;
}

namespace {

/// Where `hunk`'s `image` starts when the file is that image byte for byte: the line its
/// header names (0-based; for an empty image, the line it sits before), and its size.
std::pair<std::size_t, std::size_t> header_place(const Hunk& hunk, Image image) {
  const bool post = image == Image::kPost;
  std::size_t size = 0;
  for (const HunkLine& l : hunk.lines)
    if (l.kind != (post ? LineKind::kRemoved : LineKind::kAdded)) ++size;
  const std::size_t start = post ? hunk.new_start : hunk.old_start;
  return {size == 0 ? start : (start == 0 ? 0 : start - 1), size};
}

/// Whether `hunk`'s `image` has no line (a pure insertion's pre-image, a pure deletion's
/// post-image).
bool image_is_empty(const Hunk& hunk, Image image) {
  const LineKind other = image == Image::kPost ? LineKind::kRemoved : LineKind::kAdded;
  return std::all_of(hunk.lines.begin(), hunk.lines.end(),
                     [&](const HunkLine& l) { return l.kind == other; });
}

/// Whether `hunk`'s `image` stands byte for byte at header_place() in `file` (the final
/// newline included).
bool at_header(const FileText& file, const Hunk& hunk, Image image) {
  const auto [begin, size] = header_place(hunk, image);
  if (begin + size > file.size()) return false;
  const LineKind other = image == Image::kPost ? LineKind::kRemoved : LineKind::kAdded;
  std::size_t at = begin;
  for (const HunkLine& l : hunk.lines) {
    if (l.kind == other) continue;
    if (file.line(at) != l.text) return false;
    const bool last_unterminated = at + 1 == file.size() && !file.final_newline();
    if (l.no_newline_at_eof != last_unterminated) return false;
    ++at;
  }
  return true;
}

}  // namespace

BlobDecision settle_by_blob(std::optional<Image> image, const std::vector<Hunk>& hunks,
                            const std::vector<HunkMatch*>& matches, const FileText& file) {
  BlobDecision out;
  if (!image) return out;
  out.image = image;
  const bool post = *image == Image::kPost;
  const HunkStatus says = post ? HunkStatus::kApplied : HunkStatus::kApplicable;
  // A hunk the id settles: both of its images matched (the matcher took `image`, given as
  // MatchOptions::prefer), or its `image` stands where its header says, as it must in a file
  // that is that image byte for byte (a -U0 hunk whose other image is empty, or that the
  // matcher could not decide).
  std::vector<bool> settle(matches.size(), false);
  for (std::size_t k = 0; k < matches.size(); ++k) {
    const HunkMatch& m = *matches[k];
    if (m.status == says) continue;
    // An empty image stands at its header in any file: no evidence against the other image,
    // found there (a lying index line, "-0,0 +1" whose ids name the file with the line as
    // its pre-image, flipped the applied insertion and apply wrote the line twice).
    const bool decided_by_lines =
        (m.status == HunkStatus::kApplied || m.status == HunkStatus::kApplicable) &&
        k < hunks.size() && image_is_empty(hunks[k], *image);
    if (m.both_images || (!decided_by_lines && k < hunks.size() &&
                          at_header(file, hunks[k], *image))) {
      settle[k] = true;
      ++out.open;
      continue;
    }
    out.disagree = k;
    return out;
  }
  for (std::size_t k = 0; k < matches.size(); ++k) {
    if (!settle[k]) continue;
    HunkMatch& m = *matches[k];
    if (!(m.both_images && (m.kind == MatchKind::kExact || m.kind == MatchKind::kFuzz) &&
          m.status == says)) {
      const auto [begin, size] = header_place(hunks[k], *image);
      m = HunkMatch{};
      m.kind = MatchKind::kExact;
      m.image_begin = begin;
      m.image_end = begin + size;
      m.line = begin + 1;
    }
    m.status = says;
    m.presence = post ? Presence::kPresent : Presence::kAbsent;
  }
  return out;
}

namespace {

/// Text hunks with `index` ids: a blob id equal to the post-image (applied) or the pre-image
/// (applicable) decides only what the hunks leave open (settle_by_blob()); it never overrules
/// them. A blob id that says applied while some hunk's post-image was not found (or applicable
/// while a pre-image was not) is a disagreement, reported in the reason, and the hunks decide.
/// Ids shorter than kMinBlobIdDigits are not used. std::nullopt when the ids do not decide.
/// `decided_open` is set when the id decided hunks the lines left open (BlobDecision::open, or
/// a hunk whose two images both matched).
std::optional<Status> text_by_blob(const FilePatch& fp, std::optional<Image> image_of,
                                   const FileText& file, FileReport& fr, bool& decided_open) {
  auto short_id = [](std::string_view id) {
    return !id.empty() && !all_zero(id) && !usable_blob(id);
  };
  if (short_id(fp.old_blob) || short_id(fp.new_blob))
    append_reason(
        fr, fmt::format("index line ids shorter than {} hex digits: not used", kMinBlobIdDigits));
  std::vector<HunkMatch*> matches;
  for (HunkReport& h : fr.hunks) matches.push_back(&h.match);
  const BlobDecision d = settle_by_blob(image_of, fp.hunks, matches, file);
  if (!d.image) return std::nullopt;
  const bool post = *d.image == Image::kPost;
  const char* image = post ? "post-image" : "pre-image";
  // The id steered the matcher too (MatchOptions::prefer) where a hunk's two images both
  // matched: that choice is the id's as much as the settled ones.
  decided_open = d.open > 0 || std::any_of(matches.begin(), matches.end(),
                                           [](const HunkMatch* m) { return m->both_images; });
  if (d.disagree) {
    const HunkReport& h = fr.hunks[*d.disagree];
    append_reason(fr, fmt::format("blob id matches the {}, but hunk {} is {}: the hunks decide "
                                  "(the patch text or its index line was changed)",
                                  image, h.index, to_string(h.match.status)));
    return std::nullopt;
  }
  append_reason(fr, d.open == 0 ? fmt::format("blob id matches the {}", image)
                                : fmt::format("blob id matches the {}: it decides {} hunk{} left "
                                              "open (both images match, or undecided)",
                                              image, d.open, d.open == 1 ? "" : "s"));
  return post ? Status::kApplied : Status::kApplicable;
}

/// The mode part of a change (old mode -> new mode): the file type when it changes (regular
/// file <-> symlink), else the executable bit.
std::optional<Status> mode_status(const FilePatch& fp, const Entry& entry, FileReport& fr) {
  if (!fp.old_mode || !fp.new_mode) return std::nullopt;
  constexpr std::uint32_t kTypeMask = 0170000;
  if ((*fp.old_mode & kTypeMask) != (*fp.new_mode & kTypeMask)) {
    // The tree shows regular files and symlinks: a type it cannot show (a gitlink, or a mode
    // of no file type, "new mode 201510") is not taken for a regular file.
    auto type_of = [](std::uint32_t mode) -> std::optional<Entry::Type> {
      if ((mode & kTypeMask) == kModeSymlink) return Entry::Type::kSymlink;
      if ((mode & kTypeMask) == (kModeRegular & kTypeMask)) return Entry::Type::kFile;
      return std::nullopt;
    };
    const std::optional<Entry::Type> old_type = type_of(*fp.old_mode);
    const std::optional<Entry::Type> new_type = type_of(*fp.new_mode);
    Status s = !new_type                  ? Status::kUnknown
               : entry.type == *new_type  ? Status::kApplied
               : !old_type                ? Status::kUnknown
               : entry.type == *old_type  ? Status::kApplicable
                                          : Status::kConflict;
    append_reason(fr, fmt::format("type change {:o} -> {:o}{}", *fp.old_mode, *fp.new_mode,
                                  s == Status::kUnknown
                                      ? ": only regular files and symlinks are verified"
                                      : ""));
    return s;
  }
  if (entry.type != Entry::Type::kFile) return std::nullopt;
  bool old_x = is_executable_mode(fp.old_mode), new_x = is_executable_mode(fp.new_mode);
  if (old_x == new_x) return std::nullopt;
  Status s = entry.executable == new_x ? Status::kApplied : Status::kApplicable;
  append_reason(fr, fmt::format("mode {:o} -> {:o}: executable bit is {}", *fp.old_mode,
                                *fp.new_mode, entry.executable ? "set" : "clear"));
  return s;
}

}  // namespace

/// Content and mode of an existing file against the patch's changes (modify, mode, binary,
/// and the content part of renames and copies).
Status verify_existing(Context& ctx, const std::string& path, const FilePatch& fp, FileReport& fr) {
  Entry entry = ctx.tree.stat(path);
  std::vector<Status> parts;
  if (std::optional<Status> m = mode_status(fp, entry, fr)) parts.push_back(*m);
  const bool moved = fp.change == ChangeKind::kRename || fp.change == ChangeKind::kCopy;
  const bool content_change =
      fp.binary || !fp.hunks.empty() || (!moved && parts.empty() && fp.old_blob != fp.new_blob);
  if (content_change && fp.hunks.empty()) {
    // A binary change, or a content change the patch shows no hunks for (`git diff -w`
    // output): only the index line's blob ids can tell.
    if (entry.type != Entry::Type::kFile) {
      append_reason(fr, fmt::format("'{}' is not a regular file", path));
      return Status::kConflict;
    }
    parts.push_back(
        binary_by_blob(fp, ctx.cache.get(path, [&] { return ctx.tree.read(path); }).content(), fr));
  } else if (!fp.hunks.empty()) {
    const FileText* text = read_comparable(ctx, path, entry, fp, fr);
    if (text == nullptr) return fr.status;
    const std::size_t hunks_before = fr.hunks.size(), reason_before = fr.reason.size();
    std::vector<Status> content;
    for (int pass = 0; pass < 2; ++pass) {
      const std::optional<Image> by_blob =
          blob_image_by(fp, [&] { return ctx.cache.blob_id(*text); });
      std::vector<Status> hunks = match_into(fp, *text, fr, ctx.options, by_blob);
      bool id_decided_open = false;
      if (std::optional<Status> blob = text_by_blob(fp, by_blob, *text, fr, id_decided_open))
        content = {*blob};
      else
        content = std::move(hunks);
      // A git index's blob id only saves hashing: when the file came out other than wholly
      // applied or applicable with it, or the id decided hunks whose lines left them open
      // (both images found), the id is hashed from the text, and where the index was wrong
      // (stale or crafted with current stat data) the file is judged again.
      const Status s = combine(content);
      if (pass == 1 || !by_blob ||
          (s != Status::kConflict && s != Status::kPartial && !id_decided_open) ||
          !ctx.cache.blob_id_vouched(*text) || !ctx.cache.recompute_blob_id(*text))
        break;
      fr.hunks.resize(hunks_before);
      fr.reason.resize(reason_before);
    }
    parts.insert(parts.end(), content.begin(), content.end());
  } else if (parts.empty() && !moved) {
    append_reason(fr, "the patch carries no change for this file (no hunks, mode or blob ids)");
    return Status::kUnknown;
  }
  return combine(parts);
}

Status verify_add(const Tree& tree, const std::string& path, const FilePatch& fp, FileReport& fr) {
  Entry entry = tree.stat(path);
  if (entry.type == Entry::Type::kMissing) {
    whole_file_hunks(fp, fr, HunkStatus::kApplicable, false);
    return Status::kApplicable;
  }
  Status s = Status::kConflict;
  if (is_symlink_mode(fp.new_mode)) {
    if (entry.type != Entry::Type::kSymlink) {
      append_reason(fr, "path exists and is not a symlink");
    } else if (is_whole_image(tree.read_link(path), fp.hunks, Image::kPost)) {
      s = Status::kApplied;
    } else {
      append_reason(fr, "symlink exists and points elsewhere");
    }
  } else if (entry.type != Entry::Type::kFile) {
    append_reason(fr, "path exists and is not a regular file");
  } else if (fp.binary) {
    s = binary_by_blob(fp, tree.read(path), fr);
    if (s == Status::kApplicable) s = Status::kConflict;  // pre-image of an add is "no file"
  } else if (is_whole_image(tree.read(path), fp.hunks, Image::kPost)) {
    s = Status::kApplied;
    if (fp.new_mode && is_executable_mode(fp.new_mode) && !entry.executable) {
      // The file the patch adds runs as a program: without the bit it does not.
      s = Status::kConflict;
      append_reason(fr, fmt::format("content matches but mode {:o} does not", *fp.new_mode));
    } else if (fp.new_mode && !is_executable_mode(fp.new_mode) && entry.executable) {
      // The file was made executable since (lightllm 049c1303's docs/EN/.readthedocs.yaml, made
      // 100755 by a later commit, read conflict at every later head): the fix is in.
      append_reason(fr, fmt::format("content matches; the patch adds it as {:o}, the tree has "
                                    "it executable (a later change)",
                                    *fp.new_mode));
    }
  } else {
    append_reason(fr, "file already exists with different content");
  }
  whole_file_hunks(fp, fr, s == Status::kApplied ? HunkStatus::kApplied : HunkStatus::kConflict,
                   true);
  return s;
}

Status verify_delete(const Tree& tree, const std::string& path, const FilePatch& fp,
                     FileReport& fr) {
  Entry entry = tree.stat(path);
  if (entry.type == Entry::Type::kMissing) {
    whole_file_hunks(fp, fr, HunkStatus::kApplied, false);
    return Status::kApplied;
  }
  Status s = Status::kConflict;
  if (is_symlink_mode(fp.old_mode)) {
    if (entry.type == Entry::Type::kSymlink &&
        is_whole_image(tree.read_link(path), fp.hunks, Image::kPre)) {
      s = Status::kApplicable;
    } else {
      append_reason(fr, "symlink to delete differs from the pre-image");
    }
  } else if (entry.type != Entry::Type::kFile) {
    append_reason(fr, "path exists and is not a regular file");
  } else if (fp.binary || (fp.hunks.empty() && !fp.old_blob.empty())) {
    // Binary deletion, or a deletion without hunks (an empty file, or git diff
    // --irreversible-delete): the index line's pre-image blob id decides.
    s = binary_by_blob(fp, tree.read(path), fr);
    if (s == Status::kApplied) s = Status::kConflict;  // post-image of a delete is "no file"
  } else if (is_whole_image(tree.read(path), fp.hunks, Image::kPre)) {
    s = Status::kApplicable;
  } else {
    append_reason(fr, "file differs from what the deletion expects");
  }
  whole_file_hunks(
      fp, fr, s == Status::kApplicable ? HunkStatus::kApplicable : HunkStatus::kConflict, true);
  return s;
}

Status verify_gitlink(const Tree& tree, const std::string& path, const FilePatch& fp,
                      FileReport& fr) {
  const Entry entry = tree.stat(path);
  const bool folder = entry.type == Entry::Type::kDirectory;
  const bool missing = entry.type == Entry::Type::kMissing;
  const Status s = folder || missing ? Status::kUnknown : Status::kConflict;
  constexpr std::string_view kWhatToDo =
      "apply does not change submodules: update it with `git submodule update` (or apply the "
      "patch with `git apply --index`)";
  if (folder)
    append_reason(fr, fmt::format("'{}' is a submodule: the commit it records is not in the "
                                  "tree's files (verify --rev reads it); {}",
                                  path, kWhatToDo));
  else if (missing)
    append_reason(fr, fmt::format("'{}' is a submodule (gitlink, mode 160000) that is not "
                                  "checked out here: its commit is not file content; {}",
                                  path, kWhatToDo));
  else
    append_reason(fr, fmt::format("'{}' is not a submodule folder but the patch changes a "
                                  "submodule (gitlink, mode 160000); {}",
                                  path, kWhatToDo));
  for (std::size_t i = 0; i < fp.hunks.size(); ++i) {
    const Hunk& h = fp.hunks[i];
    HunkReport hr{i + 1, h.old_start, h.old_lines, h.new_start, h.new_lines, {}};
    hr.match.status = s == Status::kUnknown ? HunkStatus::kUnknown : HunkStatus::kConflict;
    hr.match.kind = MatchKind::kNone;
    hr.match.presence = Presence::kUnknown;
    fr.hunks.push_back(hr);
  }
  return s;
}

namespace {

/// Whether `a` and `b` are both regular files with the same bytes, or both symlinks with the
/// same target.
bool same_file(const Tree& tree, const std::string& a, const std::string& b) {
  const Entry ea = tree.stat(a), eb = tree.stat(b);
  if (ea.type != eb.type) return false;
  if (ea.type == Entry::Type::kSymlink) return tree.read_link(a) == tree.read_link(b);
  if (ea.type != Entry::Type::kFile || ea.size != eb.size) return false;
  return tree.read(a) == tree.read(b);
}

}  // namespace

bool move_left_behind(const Tree& tree, const std::string& from, const std::string& to,
                      const FilePatch& fp, Direction direction, const MatchOptions& options) {
  if (fp.change != ChangeKind::kRename || from == to) return false;
  try {
    const Entry ef = tree.stat(from), et = tree.stat(to);
    if (ef.type != et.type) return false;
    const bool link = ef.type == Entry::Type::kSymlink;
    if (!link && ef.type != Entry::Type::kFile) return false;
    const std::string was = link ? tree.read_link(from) : tree.read(from);
    const std::string now = link ? tree.read_link(to) : tree.read(to);
    const bool forward = direction == Direction::kForward;
    if (fp.binary)
      return blob_id_names(forward ? fp.old_blob : fp.new_blob, git_blob_id(was)) &&
             blob_id_names(forward ? fp.new_blob : fp.old_blob, git_blob_id(now));
    if (fp.hunks.empty()) return was == now;
    const FileText text(was);
    MatchOptions match = options;
    match.prefer = blob_image(fp, was);
    const std::vector<HunkMatch> matches = match_hunks(text, fp.hunks, match);
    const HunkApply done =
        apply_hunks(text, fp.hunks, matches, direction, options.ignore_whitespace);
    return done.failed.empty() && done.already.empty() && done.written.size() == fp.hunks.size() &&
           done.content == now;
  } catch (const Error&) {
    return false;
  }
}

/// Renames and copies: the pre-image lives at the old path, the post-image at the new path.
Status verify_move(Context& ctx, const std::string& old_path, const std::string& new_path,
                   const FilePatch& fp, FileReport& fr) {
  const Tree& tree = ctx.tree;
  bool is_rename = fp.change == ChangeKind::kRename;
  // A folder at the old path holds no file to move: the file left it, and a folder may take
  // its name (`x` renamed to `x/y.py`: git's tree after it read conflict, "'x/y.py' already
  // exists and is not the post-image").
  bool old_exists = tree.stat(old_path).type != Entry::Type::kMissing &&
                    tree.stat(old_path).type != Entry::Type::kDirectory,
       new_exists = exists(tree, new_path);
  if (new_exists) {
    // The move (or copy) has been made when the new path holds the post-image.
    fr.target_path = new_path;
    Status content = verify_existing(ctx, new_path, fp, fr);
    // A pure move (no hunks, no binary change) carries no content: its post-image is the old
    // file itself. While the old path stands, the new one is the move (or copy) made only when
    // it holds the same bytes (a symlink: the same target).
    if (content == Status::kApplied && old_exists && fp.hunks.empty() && !fp.binary &&
        !same_file(tree, old_path, new_path)) {
      content = Status::kConflict;
      fr.reason.clear();
    }
    if (content == Status::kApplied) {
      if (is_rename && old_exists) {
        // Renamed, but the old path still holds the file that was renamed (an apply killed
        // between its write and its unlink): half done, and apply finishes it.
        if (move_left_behind(tree, old_path, new_path, fp, Direction::kForward,
                             ctx.options.match)) {
          append_reason(fr, fmt::format("renamed, but the old path '{}' still holds the file "
                                        "that was renamed (an interrupted apply?): apply "
                                        "removes it",
                                        old_path));
          return Status::kPartial;
        }
        append_reason(fr, fmt::format("old path '{}' still exists", old_path));
      }
      return Status::kApplied;
    }
    // Moved, but the content change is not made (or conflicts).
    if (!old_exists) return content == Status::kApplicable ? Status::kPartial : content;
    // Both paths exist and the new one is not the post-image: judge the old one.
    fr.hunks.clear();
    fr.reason.clear();
  }
  if (old_exists) {
    fr.target_path = old_path;
    Status content = verify_existing(ctx, old_path, fp, fr);
    if (new_exists) {
      append_reason(fr, fmt::format("'{}' already exists and is not the post-image", new_path));
      return Status::kConflict;
    }
    // Move not made yet: applicable if the content part is applicable (or empty).
    if (content == Status::kApplicable || (content == Status::kApplied && fp.hunks.empty()))
      return Status::kApplicable;
    return content == Status::kApplied ? Status::kPartial : content;
  }
  fr.target_path = new_path;
  append_reason(fr, fmt::format("neither '{}' nor '{}' exists", old_path, new_path));
  whole_file_hunks(fp, fr, HunkStatus::kConflict, false);
  return Status::kConflict;
}

}  // namespace sm120check::detail
