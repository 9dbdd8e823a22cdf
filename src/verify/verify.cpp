// Verification of patches against a tree: per file and hunk, applied / applicable / conflict.
// Decision rules per change kind are documented in docs/verify.md.
#include "sm120check/verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>

#include "sm120check/error.hpp"
#include "sm120check/markers.hpp"

namespace sm120check {
namespace {

constexpr std::string_view kDevNull = "/dev/null";
constexpr unsigned kMaxDetectedStrip = 4;

bool is_dev_null(std::string_view path) { return path == kDevNull; }

/// A patch path after stripping and normalising, or why it cannot be used.
struct Resolved {
  std::optional<std::string> path;  // nullopt for /dev/null or on error
  std::string error;
};

Resolved resolve(std::string_view patch_path, unsigned strip) {
  Resolved r;
  if (is_dev_null(patch_path)) return r;
  std::optional<std::string> stripped = strip_path(patch_path, strip);
  if (!stripped) {
    r.error =
        fmt::format("path '{}' has no component left after strip level -p{}", patch_path, strip);
    return r;
  }
  if (!stripped->empty() && stripped->front() == '/') {
    r.error = fmt::format("path '{}' is absolute; refused (never read)", *stripped);
    return r;
  }
  std::optional<std::string> norm = normalize_relative_path(*stripped);
  if (!norm) {
    r.error = fmt::format("path '{}' climbs out of the target; refused (never read)", *stripped);
    return r;
  }
  r.path = std::move(norm);
  return r;
}

/// Whether `path` is in the tree. Throws Error when it cannot be examined (e.g. it resolves
/// outside the target through a symlink): the file is then reported as `error`.
bool exists(const Tree& tree, const std::string& path) {
  return tree.stat(path).type != Entry::Type::kMissing;
}

/// For strip detection: a path that is there but cannot be examined still shows the level is
/// right (verification then reports why it cannot be read).
bool exists_for_detection(const Tree& tree, const std::string& path) {
  try {
    return exists(tree, path);
  } catch (const Error&) {
    return true;
  }
}

bool is_directory(const Tree& tree, const std::string& path) {
  if (path.empty()) return true;  // the root
  try {
    return tree.stat(path).type == Entry::Type::kDirectory;
  } catch (const Error&) {
    return false;
  }
}

std::string parent_of(const std::string& path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

bool is_symlink_mode(const std::optional<std::uint32_t>& mode) {
  return mode && (*mode & 0170000) == kModeSymlink;
}

bool is_executable_mode(const std::optional<std::uint32_t>& mode) {
  return mode && (*mode & 0111) != 0;
}

bool all_zero(std::string_view hex) {
  return !hex.empty() && std::all_of(hex.begin(), hex.end(), [](char c) { return c == '0'; });
}

/// Abbreviated blob ids compare as prefixes of the full id.
bool blob_matches(std::string_view full_id, std::string_view patch_id) {
  return !patch_id.empty() && !all_zero(patch_id) && full_id.substr(0, patch_id.size()) == patch_id;
}

Status from_hunk(HunkStatus s) {
  switch (s) {
    case HunkStatus::kApplied:
      return Status::kApplied;
    case HunkStatus::kApplicable:
      return Status::kApplicable;
    case HunkStatus::kConflict:
      return Status::kConflict;
  }
  return Status::kConflict;
}

void append_reason(FileReport& fr, std::string_view text) {
  if (text.empty()) return;
  if (!fr.reason.empty()) fr.reason += "; ";
  fr.reason += text;
}

/// Hunk reports for hunks that are decided as a whole with the file (added/deleted files). The
/// line is 1 when the decision is about a file that is there, none when the file is absent.
void whole_file_hunks(const FilePatch& fp, FileReport& fr, HunkStatus status, bool file_present) {
  for (std::size_t i = 0; i < fp.hunks.size(); ++i) {
    const Hunk& h = fp.hunks[i];
    HunkReport hr{i + 1, h.old_start, h.old_lines, h.new_start, h.new_lines, {}};
    hr.match.status = status;
    if (status != HunkStatus::kConflict && file_present) hr.match.line = 1;
    fr.hunks.push_back(hr);
  }
}

/// Files already read in this run, kept for later file patches and patches that touch them
/// again (a series, or several sections for one file): each is read and split once. Bounded:
/// when more than kMaxBytes are held, everything is dropped.
class FileCache {
 public:
  static constexpr std::size_t kMaxBytes = std::size_t{256} << 20;

  /// The content at `key` ("path" or "path -> link"), produced by `load` when not cached.
  template <typename Load>
  const FileText& get(const std::string& key, Load&& load) {
    auto it = files_.find(key);
    if (it != files_.end()) return *it->second;
    std::string content = load();
    if (bytes_ + content.size() > kMaxBytes) {
      files_.clear();
      bytes_ = 0;
    }
    bytes_ += content.size();
    auto text = std::make_unique<FileText>(std::move(content));
    return *files_.emplace(key, std::move(text)).first->second;
  }

 private:
  std::map<std::string, std::unique_ptr<FileText>> files_;
  std::size_t bytes_ = 0;
};

/// What every check of one run shares.
struct Context {
  const Tree& tree;
  const VerifyOptions& options;
  FileCache& cache;
};

/// Matches the hunks of `fp` against `text` and records them; returns their statuses.
std::vector<Status> match_into(const FilePatch& fp, const FileText& text, FileReport& fr,
                               const VerifyOptions& options) {
  std::vector<HunkMatch> matches = match_hunks(text, fp.hunks, options.match);
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
  if (entry.type == Entry::Type::kDirectory || entry.type == Entry::Type::kOther) {
    fr.status = Status::kConflict;
    append_reason(fr, fmt::format("'{}' is not a regular file", path));
    return nullptr;
  }
  const FileText& text = ctx.cache.get(path, [&] { return ctx.tree.read(path); });
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
  std::string id = git_blob_id(content);
  if (blob_matches(id, fp.new_blob)) {
    append_reason(fr, "blob id matches the post-image");
    return Status::kApplied;
  }
  if (blob_matches(id, fp.old_blob)) {
    append_reason(fr, "blob id matches the pre-image");
    return Status::kApplicable;
  }
  append_reason(fr, fmt::format("blob id {} matches neither pre-image {} nor post-image {}",
                                id.substr(0, 12), fp.old_blob, fp.new_blob));
  return Status::kConflict;
}

/// Text hunks with `index` ids: a blob id equal to the post-image (applied) or the pre-image
/// (applicable) decides the file exactly; the hunk verdicts stay in the report, and the reason
/// says when they disagree. One exception: the pre-image id with hunks in conflict is a
/// conflict (the patch body was mangled; it would not apply). std::nullopt when the ids are
/// absent or neither matches.
std::optional<Status> text_by_blob(const FilePatch& fp, std::string_view content,
                                   const std::vector<Status>& hunks, FileReport& fr) {
  if ((fp.new_blob.empty() || all_zero(fp.new_blob)) &&
      (fp.old_blob.empty() || all_zero(fp.old_blob)))
    return std::nullopt;
  std::string id = git_blob_id(content);
  Status s = blob_matches(id, fp.new_blob)   ? Status::kApplied
             : blob_matches(id, fp.old_blob) ? Status::kApplicable
                                             : Status::kError;
  if (s == Status::kError) return std::nullopt;
  Status by_hunks = combine(hunks);
  if (s == Status::kApplicable && by_hunks == Status::kConflict) {
    // The file is what the patch was made from, but its hunks do not match it (line endings
    // or white space lost in transit): it would not apply as written.
    append_reason(fr,
                  "blob id matches the pre-image, but the hunks do not match the file (the "
                  "patch does not apply as written)");
    return Status::kConflict;
  }
  append_reason(fr, s == Status::kApplied ? "blob id matches the post-image"
                                          : "blob id matches the pre-image");
  if (by_hunks != s)
    append_reason(fr, fmt::format("hunk matching alone says {}", to_string(by_hunks)));
  return s;
}

/// The mode part of a change (old mode -> new mode): the file type when it changes (regular
/// file <-> symlink), else the executable bit.
std::optional<Status> mode_status(const FilePatch& fp, const Entry& entry, FileReport& fr) {
  if (!fp.old_mode || !fp.new_mode) return std::nullopt;
  constexpr std::uint32_t kTypeMask = 0170000;
  if ((*fp.old_mode & kTypeMask) != (*fp.new_mode & kTypeMask)) {
    auto is_type = [&](std::uint32_t mode) {
      return is_symlink_mode(mode) ? entry.type == Entry::Type::kSymlink
                                   : entry.type == Entry::Type::kFile;
    };
    Status s = is_type(*fp.new_mode)   ? Status::kApplied
               : is_type(*fp.old_mode) ? Status::kApplicable
                                       : Status::kConflict;
    append_reason(fr, fmt::format("type change {:o} -> {:o}", *fp.old_mode, *fp.new_mode));
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
    std::vector<Status> hunks = match_into(fp, *text, fr, ctx.options);
    if (std::optional<Status> blob = text_by_blob(fp, text->content(), hunks, fr))
      parts.push_back(*blob);
    else
      parts.insert(parts.end(), hunks.begin(), hunks.end());
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
    } else if (tree.read_link(path) == whole_image(fp.hunks, Image::kPost)) {
      s = Status::kApplied;
    } else {
      append_reason(fr, "symlink exists and points elsewhere");
    }
  } else if (entry.type != Entry::Type::kFile) {
    append_reason(fr, "path exists and is not a regular file");
  } else if (fp.binary) {
    s = binary_by_blob(fp, tree.read(path), fr);
    if (s == Status::kApplicable) s = Status::kConflict;  // pre-image of an add is "no file"
  } else if (tree.read(path) == whole_image(fp.hunks, Image::kPost)) {
    s = Status::kApplied;
    if (fp.new_mode && is_executable_mode(fp.new_mode) != entry.executable) {
      s = Status::kConflict;
      append_reason(fr, fmt::format("content matches but mode {:o} does not", *fp.new_mode));
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
        tree.read_link(path) == whole_image(fp.hunks, Image::kPre)) {
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
  } else if (tree.read(path) == whole_image(fp.hunks, Image::kPre)) {
    s = Status::kApplicable;
  } else {
    append_reason(fr, "file differs from what the deletion expects");
  }
  whole_file_hunks(
      fp, fr, s == Status::kApplicable ? HunkStatus::kApplicable : HunkStatus::kConflict, true);
  return s;
}

/// Renames and copies: the pre-image lives at the old path, the post-image at the new path.
Status verify_move(Context& ctx, const std::string& old_path, const std::string& new_path,
                   const FilePatch& fp, FileReport& fr) {
  const Tree& tree = ctx.tree;
  bool is_rename = fp.change == ChangeKind::kRename;
  bool old_exists = exists(tree, old_path), new_exists = exists(tree, new_path);
  if (new_exists) {
    // The move (or copy) has been made when the new path holds the post-image.
    fr.target_path = new_path;
    Status content = verify_existing(ctx, new_path, fp, fr);
    if (content == Status::kApplied) {
      if (is_rename && old_exists)
        append_reason(fr, fmt::format("old path '{}' still exists", old_path));
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

// ---------------------------------------------------------------------------------------------
// Relocation: a modified file whose path does not exist may live elsewhere in the tree.

constexpr std::size_t kMaxCandidates = 32;

/// Number of trailing path components `a` and `b` share ("x/pkg/f.py", "pkg/f.py" -> 2).
std::size_t common_suffix(std::string_view a, std::string_view b) {
  std::size_t n = 0;
  for (;;) {
    std::size_t sa = a.rfind('/'), sb = b.rfind('/');
    std::string_view ca = sa == a.npos ? a : a.substr(sa + 1);
    std::string_view cb = sb == b.npos ? b : b.substr(sb + 1);
    if (ca != cb || ca.empty()) return n;
    ++n;
    if (sa == a.npos || sb == b.npos) return n;
    a = a.substr(0, sa);
    b = b.substr(0, sb);
  }
}

struct Candidate {
  std::string path;
  std::size_t suffix = 0;  // trailing components shared with the patch path
  std::size_t marks = 0;   // distinct markers found in it
  std::size_t fit = 0;     // hunks found (either image), or 1 for a decided hunk-less change
  FileReport report;
};

/// Tries --map prefixes, then candidates found by file name and content (see README,
/// "Relocation"). Returns false when nothing was found (the caller reports the missing file).
bool relocate(Context& ctx, const FilePatch& fp, const std::string& path, FileReport& fr) {
  const Tree& tree = ctx.tree;
  const VerifyOptions& options = ctx.options;
  if (!options.relocate || options.search_root.empty()) return false;
  auto adopt = [&](Candidate& c, std::string why) {
    fr = std::move(c.report);
    fr.target_path = c.path;
    fr.relocated = true;
    fr.relocation = fmt::format("'{}' does not exist; {}", path, why);
  };
  auto evaluate = [&](Candidate& c) {
    c.report = FileReport{};
    c.report.old_path = fr.old_path;
    c.report.new_path = fr.new_path;
    c.report.target_path = c.path;
    c.report.change = fr.change;
    c.report.patch_line = fr.patch_line;
    try {
      c.report.status = verify_existing(ctx, c.path, fp, c.report);
    } catch (const Error& e) {
      c.report.status = Status::kError;
      c.report.reason = e.what();
    }
    if (fp.hunks.empty())
      c.fit = c.report.status == Status::kConflict || c.report.status == Status::kError ? 0 : 1;
    else
      c.fit = static_cast<std::size_t>(std::count_if(
          c.report.hunks.begin(), c.report.hunks.end(),
          [](const HunkReport& h) { return h.match.status != HunkStatus::kConflict; }));
  };
  for (const auto& [from, to] : options.path_map) {
    std::string_view f = from;
    while (!f.empty() && f.back() == '/') f.remove_suffix(1);
    if (f.empty() || path.compare(0, f.size(), f) != 0 ||
        (path.size() > f.size() && path[f.size()] != '/'))
      continue;
    std::optional<std::string> mapped = normalize_relative_path(to + path.substr(f.size()));
    if (!mapped || !exists(tree, *mapped)) continue;
    Candidate c{*mapped, 0, 0, 0, {}};
    evaluate(c);
    adopt(c, fmt::format("mapped by --map {}={}", from, to));
    return true;
  }

  std::vector<Marker> markers = context_markers(fp);
  {
    Patch one;
    one.files.push_back(fp);
    for (Marker& m : extract_markers(one, 0)) markers.push_back(std::move(m));
  }
  SearchOptions so = options.search;
  so.collect_files = true;
  so.max_hits_per_marker = 0;
  SearchResult found = search_tree(options.search_root, markers, so);
  std::vector<Candidate> cands;
  auto find_or_add = [&](const std::string& p) -> Candidate& {
    for (Candidate& c : cands)
      if (c.path == p) return c;
    cands.push_back({p, common_suffix(p, path), 0, 0, {}});
    return cands.back();
  };
  for (const std::string& f : found.files)
    if (common_suffix(f, path) > 0) find_or_add(f);
  for (const MarkerHits& mh : found.markers) {
    std::string last;
    for (const SearchHit& h : mh.hits) {
      if (h.path == last) continue;
      last = h.path;
      ++find_or_add(h.path).marks;
    }
  }
  if (cands.empty()) return false;
  std::sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
    if (a.suffix != b.suffix) return a.suffix > b.suffix;
    if (a.marks != b.marks) return a.marks > b.marks;
    return a.path < b.path;
  });
  if (cands.size() > kMaxCandidates) cands.resize(kMaxCandidates);
  for (Candidate& c : cands) evaluate(c);
  // A file at the same path suffix (same name and parent directory at least) is the installed
  // copy of the patched file even when it has drifted: it outranks files found by content only.
  std::stable_sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
    const bool a_path = a.suffix >= 2, b_path = b.suffix >= 2;
    if (a_path != b_path) return a_path;
    if (a.fit != b.fit) return a.fit > b.fit;
    return a.suffix != b.suffix ? a.suffix > b.suffix : a.path < b.path;
  });
  std::vector<std::string> names;
  for (const Candidate& c : cands) names.push_back(c.path);
  Candidate& best = cands.front();
  auto suffix_text = [&](const Candidate& c) {
    std::string_view p = c.path;
    std::size_t at = p.size();
    for (std::size_t k = 0; k < c.suffix; ++k) at = k == 0 ? p.rfind('/') : p.rfind('/', at - 1);
    return std::string(at == p.npos ? p : p.substr(at + 1));
  };
  if (best.fit == 0) {
    // Nothing holds the hunks: only a path that shares more than the file name is the file.
    if (best.suffix >= 2 && (cands.size() == 1 || cands[1].suffix < best.suffix)) {
      std::string why = fmt::format(
          "found '{}' by its path suffix '{}', but its content does not "
          "match the hunks",
          best.path, suffix_text(best));
      names.erase(names.begin());
      adopt(best, why);
      fr.candidates = std::move(names);
      return true;
    }
    fr.candidates = std::move(names);
    fr.relocation = fmt::format(
        "'{}' does not exist; {} candidate{} by name or content, none "
        "holding the hunks",
        path, fr.candidates.size(), fr.candidates.size() == 1 ? "" : "s");
    return false;
  }
  std::size_t ties = 1;
  while (ties < cands.size() && cands[ties].fit == best.fit && cands[ties].suffix == best.suffix)
    ++ties;
  if (ties > 1) {
    fr.status = Status::kUnknown;
    fr.target_path = path;
    std::string list;
    for (std::size_t i = 0; i < ties; ++i)
      list += fmt::format("{}{} ({})", i == 0 ? "" : ", ", cands[i].path,
                          to_string(cands[i].report.status));
    fr.candidates = std::move(names);
    fr.relocation =
        fmt::format("'{}' does not exist; {} candidates fit equally: {}", path, ties, list);
    append_reason(fr, fr.relocation);
    return true;
  }
  std::string why;
  std::size_t n = fp.hunks.size();
  if (best.suffix >= 2)
    why = fmt::format("found at '{}': same path suffix '{}'", best.path, suffix_text(best));
  else if (best.suffix == 1)
    why = fmt::format("found at '{}': same file name", best.path);
  else
    why = fmt::format("found at '{}': holds the patch's lines", best.path);
  if (n > 0) why += fmt::format(", {}/{} hunk{} found", best.fit, n, n == 1 ? "" : "s");
  if (cands.size() > 1)
    why += fmt::format(" ({} other candidate{} fit less)", cands.size() - 1,
                       cands.size() == 2 ? "" : "s");
  names.erase(names.begin());
  adopt(best, why);
  fr.candidates = std::move(names);
  return true;
}

FileReport verify_file(const FilePatch& fp, Context& ctx, unsigned strip) {
  const Tree& tree = ctx.tree;
  FileReport fr;
  fr.old_path = fp.old_path;
  fr.new_path = fp.new_path;
  fr.change = fp.change;
  fr.patch_line = fp.patch_line;
  Resolved old_side = resolve(fp.old_path, strip);
  Resolved new_side = resolve(fp.new_path, strip);
  if (!old_side.error.empty() || !new_side.error.empty()) {
    fr.status = Status::kError;
    fr.reason = !old_side.error.empty() ? old_side.error : new_side.error;
    return fr;
  }
  try {
    bool add = !old_side.path, del = !new_side.path;
    if (add && del) {
      fr.status = Status::kError;
      fr.reason = "both sides are /dev/null";
    } else if (add) {
      fr.target_path = new_side.path;
      fr.status = verify_add(tree, *new_side.path, fp, fr);
    } else if (del) {
      fr.target_path = old_side.path;
      fr.status = verify_delete(tree, *old_side.path, fp, fr);
    } else if ((fp.change == ChangeKind::kRename || fp.change == ChangeKind::kCopy) &&
               *old_side.path != *new_side.path) {
      fr.status = verify_move(ctx, *old_side.path, *new_side.path, fp, fr);
    } else {
      // Modify, mode or binary change. Plain diffs may name a backup ("x.orig") on one side:
      // the name that exists wins, the new one when both do.
      const std::string& path = exists(tree, *new_side.path) || !exists(tree, *old_side.path)
                                    ? *new_side.path
                                    : *old_side.path;
      fr.target_path = path;
      if (!exists(tree, path) && !relocate(ctx, fp, path, fr)) {
        fr.status = Status::kConflict;
        fr.reason = fmt::format("'{}' does not exist in the target", path);
        whole_file_hunks(fp, fr, HunkStatus::kConflict, false);
      } else if (!fr.relocated && fr.status != Status::kUnknown) {
        fr.status = verify_existing(ctx, path, fp, fr);
      }
    }
  } catch (const Error& e) {
    fr.status = Status::kError;
    fr.reason = e.what();
  } catch (const std::exception& e) {
    fr.status = Status::kError;
    fr.reason = fmt::format("internal error: {}", e.what());
  }
  return fr;
}

PatchReport verify_patch_in(const Patch& patch, Context& ctx) {
  const Tree& tree = ctx.tree;
  const VerifyOptions& options = ctx.options;
  PatchReport r;
  r.source = patch.source;
  r.subject = patch.subject;
  r.patch_line = patch.patch_line;
  r.strip_detected = !options.strip.has_value();
  r.strip = options.strip ? *options.strip : detect_strip(patch, tree);
  if (patch.files.empty()) {
    r.status = Status::kError;
    r.error = "patch changes no file";
    return r;
  }
  std::vector<Status> statuses;
  for (const FilePatch& fp : patch.files) {
    r.files.push_back(verify_file(fp, ctx, r.strip));
    statuses.push_back(r.files.back().status);
  }
  r.status = combine(statuses);
  return r;
}

/// `content` with the exactly matched (fuzz 0) applied hunks of `hunks` undone: each post-image
/// replaced by its pre-image. Used to see a file as it was before a later patch of the run.
std::string undo_applied(const std::string& content, const std::vector<Hunk>& hunks,
                         const MatchOptions& options) {
  FileText text(content);
  std::vector<HunkMatch> matches = match_hunks(text, hunks, options);
  std::vector<std::size_t> starts{0};  // byte offset of each line, plus the end
  for (std::size_t i = 0; i < content.size(); ++i)
    if (content[i] == '\n') starts.push_back(i + 1);
  if (starts.back() != content.size()) starts.push_back(content.size());
  std::string out = content;
  for (std::size_t k = hunks.size(); k-- > 0;) {  // last first: earlier offsets stay valid
    const HunkMatch& m = matches[k];
    if (m.status != HunkStatus::kApplied || m.fuzz != 0 || m.line == 0) continue;
    const std::vector<Hunk> one{hunks[k]};
    const std::string post = whole_image(one, Image::kPost);
    const std::size_t post_lines = hunks[k].lines.size() - hunks[k].removed();
    const std::size_t first = m.line - 1, last = first + post_lines;
    if (post_lines == 0 || last >= starts.size()) continue;
    const std::size_t from = starts[first], to = starts[last];
    if (out.compare(from, to - from, post) != 0) continue;  // folded white space: leave it
    out.replace(from, to - from, whole_image(one, Image::kPre));
  }
  return out;
}

/// A series verified against its final tree: a patch whose lines a later patch of the same run
/// changed again conflicts there, although its fix is in. For each conflicting hunk, the later
/// patches' applied hunks on that file are undone (last patch first); a hunk whose post-image
/// then matches is `applied`, marked "superseded" (diagnostic) with the later patch named.
void resolve_superseded(const std::vector<Patch>& patches, VerifyReport& report, Context& ctx) {
  for (std::size_t i = 0; i + 1 < report.patches.size(); ++i) {
    PatchReport& pr = report.patches[i];
    bool changed = false;
    for (std::size_t f = 0; f < pr.files.size(); ++f) {
      FileReport& fr = pr.files[f];
      if (fr.change != ChangeKind::kModify || !fr.target_path || fr.status != Status::kConflict)
        continue;
      // Later patches of the run with applied hunks on the same file, in order.
      std::vector<std::pair<std::size_t, std::size_t>> later;
      for (std::size_t j = i + 1; j < report.patches.size(); ++j)
        for (std::size_t g = 0; g < report.patches[j].files.size(); ++g) {
          const FileReport& other = report.patches[j].files[g];
          if (other.target_path == fr.target_path &&
              std::any_of(other.hunks.begin(), other.hunks.end(), [](const HunkReport& h) {
                return h.match.status == HunkStatus::kApplied;
              }))
            later.emplace_back(j, g);
        }
      if (later.empty()) continue;
      std::string content;
      try {
        content = ctx.cache.get(*fr.target_path, [&] { return ctx.tree.read(*fr.target_path); })
                      .content();
      } catch (const Error&) {
        continue;
      }
      for (auto it = later.rbegin(); it != later.rend(); ++it)
        content =
            undo_applied(content, patches[it->first].files[it->second].hunks, ctx.options.match);
      FileText before(std::move(content));
      const std::vector<HunkMatch> again =
          match_hunks(before, patches[i].files[f].hunks, ctx.options.match);
      std::vector<Status> statuses;
      std::size_t superseded = 0;
      for (std::size_t h = 0; h < fr.hunks.size() && h < again.size(); ++h) {
        HunkMatch& m = fr.hunks[h].match;
        if (m.status == HunkStatus::kConflict && again[h].status == HunkStatus::kApplied) {
          m = HunkMatch{};
          m.status = HunkStatus::kApplied;
          m.diagnostic = "superseded";
          ++superseded;
        }
        statuses.push_back(from_hunk(m.status));
      }
      if (superseded == 0) continue;
      const PatchReport& by = report.patches[later.front().first];
      append_reason(fr, fmt::format("{} hunk{} superseded: patch {}{} changes these lines again",
                                    superseded, superseded == 1 ? "" : "s", later.front().first + 1,
                                    by.subject ? " (" + *by.subject + ")" : std::string()));
      fr.status = combine(statuses);
      changed = true;
    }
    if (changed) {
      std::vector<Status> statuses;
      for (const FileReport& fr : pr.files) statuses.push_back(fr.status);
      pr.status = combine(statuses);
    }
  }
}
/// The markers searched for `patch`: --marker/--marker-regex and "Marker:" trailers, plus those
/// of its added lines with --markers. Empty when no search is wanted.
std::vector<Marker> patch_markers(const Patch& patch, unsigned strip,
                                  const VerifyOptions& options) {
  if (options.search_root.empty()) return {};
  std::vector<Marker> out = options.markers;
  for (Marker& m : extract_markers(patch, strip))
    if (options.search_markers || m.origin == Marker::Origin::kTrailer) out.push_back(std::move(m));
  return out;
}

/// One walk for the markers of every patch; each report gets its own markers' hits.
void attach_search(std::vector<PatchReport*> reports, const std::vector<std::vector<Marker>>& sets,
                   const VerifyOptions& options) {
  std::vector<Marker> all;
  for (const auto& set : sets) all.insert(all.end(), set.begin(), set.end());
  if (all.empty()) return;
  SearchOptions so = options.search;
  so.collect_files = false;
  SearchResult found = search_tree(options.search_root, all, so);
  std::vector<MarkerHits> hits = std::move(found.markers);
  found.markers.clear();
  std::size_t next = 0;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    if (sets[i].empty()) continue;
    SearchResult mine = found;
    for (std::size_t k = 0; k < sets[i].size(); ++k)
      mine.markers.push_back(std::move(hits[next++]));
    reports[i]->search = std::move(mine);
  }
}

}  // namespace

unsigned detect_strip(const Patch& patch, const Tree& tree) {
  bool all_git = !patch.files.empty() && std::all_of(patch.files.begin(), patch.files.end(),
                                                     [](const FilePatch& f) { return f.git; });
  std::array<unsigned, kMaxDetectedStrip + 1> score{};
  for (unsigned p = 0; p <= kMaxDetectedStrip; ++p) {
    for (const FilePatch& fp : patch.files) {
      Resolved old_side = resolve(fp.old_path, p);
      Resolved new_side = resolve(fp.new_path, p);
      // An existing file is strong evidence (2); an existing parent directory of an added
      // file is weak evidence (1).
      if (old_side.path && exists_for_detection(tree, *old_side.path)) {
        score[p] += 2;
      } else if (new_side.path && exists_for_detection(tree, *new_side.path)) {
        score[p] += 2;
      } else if (!old_side.path && new_side.path && new_side.error.empty() &&
                 new_side.path->find('/') != std::string::npos &&
                 is_directory(tree, parent_of(*new_side.path))) {
        score[p] += 1;
      }
    }
  }
  unsigned preferred = all_git ? 1 : 0;
  unsigned best = preferred;
  for (unsigned p = 0; p <= kMaxDetectedStrip; ++p) {
    if (score[p] > score[best] || (score[p] == score[best] && p < best && best != preferred))
      best = p;
  }
  return best;
}

PatchReport verify_patch(const Patch& patch, const Tree& tree, const VerifyOptions& options) {
  FileCache cache;
  Context ctx{tree, options, cache};
  PatchReport r = verify_patch_in(patch, ctx);
  attach_search({&r}, {patch_markers(patch, r.strip, options)}, options);
  return r;
}

VerifyReport verify(const std::vector<Patch>& patches, const Tree& tree,
                    const VerifyOptions& options) {
  VerifyReport report;
  report.target = tree.name();
  report.patches.reserve(patches.size());
  FileCache cache;
  Context ctx{tree, options, cache};
  std::vector<std::vector<Marker>> sets;  // searched once below, for all patches
  for (const Patch& p : patches) {
    report.patches.push_back(verify_patch_in(p, ctx));
    sets.push_back(patch_markers(p, report.patches.back().strip, options));
  }
  resolve_superseded(patches, report, ctx);
  std::vector<PatchReport*> ptrs;
  for (PatchReport& r : report.patches) ptrs.push_back(&r);
  attach_search(ptrs, sets, options);
  return report;
}

}  // namespace sm120check
