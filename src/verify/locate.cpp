// Where a patch's files are in the tree: strip levels, path resolution, and relocation of a
// modified file whose path does not exist (see README, "Relocation").
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <memory>

#include "internal.hpp"
#include "sm120check/error.hpp"
#include "sm120check/file_names.hpp"
#include "sm120check/markers.hpp"

namespace sm120check {
namespace detail {

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

Entry StatCache::stat(const std::string& path) const {
  auto it = known_.find(path);
  if (it == known_.end()) {
    std::variant<Entry, std::exception_ptr> answer;
    try {
      answer = base_.stat(path);
    } catch (...) {
      answer = std::current_exception();
    }
    it = known_.emplace(path, std::move(answer)).first;
  }
  if (const auto* error = std::get_if<std::exception_ptr>(&it->second))
    std::rethrow_exception(*error);
  return std::get<Entry>(it->second);
}

/// Whether `path` is in the tree. Throws Error when it cannot be examined (e.g. it resolves
/// outside the target through a symlink): the file is then reported as `error`.
bool exists(const Tree& tree, const std::string& path) {
  return tree.stat(path).type != Entry::Type::kMissing;
}

std::optional<std::string> removed_path(const FilePatch& fp, unsigned strip) {
  const Resolved from = resolve(fp.old_path, strip), to = resolve(fp.new_path, strip);
  if (!from.path || (to.path && (fp.change != ChangeKind::kRename || *to.path == *from.path)))
    return std::nullopt;
  return from.path;
}

std::optional<std::string> created_path(const FilePatch& fp, unsigned strip) {
  const Resolved from = resolve(fp.old_path, strip), to = resolve(fp.new_path, strip);
  if (!to.path) return std::nullopt;
  if (!from.path) return to.path;
  const bool move = fp.change == ChangeKind::kRename || fp.change == ChangeKind::kCopy;
  return move && *from.path != *to.path ? to.path : std::nullopt;
}

InPlaceNames in_place_names(std::span<const Patch> patches, const std::vector<unsigned>& strips,
                            const Tree& tree) {
  struct TwoNames {
    std::size_t at;  // run order
    const FilePatch* fp;
    std::string old_path, new_path;
  };
  std::vector<TwoNames> wanted;
  std::unordered_map<std::string, std::vector<std::pair<std::size_t, bool>>> events;  // brings?
  std::size_t at = 0;
  for (std::size_t i = 0; i < patches.size() && i < strips.size(); ++i)
    for (const FilePatch& fp : patches[i].files) {
      ++at;
      if (std::optional<std::string> p = created_path(fp, strips[i]))
        events[*p].emplace_back(at, true);
      if (std::optional<std::string> p = removed_path(fp, strips[i]))
        events[*p].emplace_back(at, false);
      if (fp.change == ChangeKind::kRename || fp.change == ChangeKind::kCopy) continue;
      Resolved from = resolve(fp.old_path, strips[i]), to = resolve(fp.new_path, strips[i]);
      if (from.path && to.path && *from.path != *to.path)
        wanted.push_back({at, &fp, std::move(*from.path), std::move(*to.path)});
    }
  InPlaceNames out;
  for (const TwoNames& w : wanted) {
    std::vector<std::string> notes;
    // Whether `name` exists at w's point of the run; a note when the tree says otherwise.
    auto there = [&](const std::string& name) {
      const bool in_tree = exists(tree, name);
      const auto it = events.find(name);
      if (it == events.end()) return in_tree;
      const std::vector<std::pair<std::size_t, bool>>& ev = it->second;  // in run order
      const auto later = std::lower_bound(ev.begin(), ev.end(), std::make_pair(w.at, false));
      const bool earlier = later != ev.begin();
      const bool brings = earlier ? std::prev(later)->second : later->second;
      const bool now = earlier ? brings : !brings;
      if (now != in_tree)
        notes.push_back(fmt::format("'{}' is {} by {} file patch of this run", name,
                                    brings ? "brought" : "taken away",
                                    earlier ? "an earlier" : "a later"));
      return now;
    };
    try {
      const bool new_there = there(w.new_path);
      const bool old_there = there(w.old_path);
      InPlace& choice = out[w.fp];
      choice.path = new_there || !old_there ? w.new_path : w.old_path;
      const bool tree_choice = exists(tree, w.new_path) || !exists(tree, w.old_path);
      if (tree_choice != (choice.path == w.new_path))
        choice.why = fmt::format("changed in place at '{}' ({})", choice.path,
                                 fmt::join(notes, "; "));
    } catch (const Error&) {
      out.erase(w.fp);  // verify_file() reports it
    }
  }
  return out;
}

ModifiedInPlace modified_in_place(std::span<const Patch> patches,
                                  const std::vector<unsigned>& strips,
                                  const std::vector<std::vector<FilePatch>>* left_out) {
  ModifiedInPlace out;
  auto add = [&out](const FilePatch& fp, unsigned strip) {
    if (fp.change != ChangeKind::kModify || fp.hunks.empty()) return;
    const Resolved from = resolve(fp.old_path, strip), to = resolve(fp.new_path, strip);
    if (from.path && to.path && *from.path == *to.path) out[*to.path].push_back(&fp);
  };
  for (std::size_t i = 0; i < patches.size() && i < strips.size(); ++i) {
    for (const FilePatch& fp : patches[i].files) add(fp, strips[i]);
    if (left_out != nullptr && i < left_out->size())
      for (const FilePatch& fp : (*left_out)[i]) add(fp, strips[i]);
  }
  return out;
}

std::string modified_path(const FilePatch& fp, const std::string& old_path,
                          const std::string& new_path, const Tree& tree,
                          const InPlaceNames* names) {
  if (names != nullptr)
    if (const auto it = names->find(&fp); it != names->end()) return it->second.path;
  return exists(tree, new_path) || !exists(tree, old_path) ? new_path : old_path;
}

namespace {

constexpr unsigned kMaxDetectedStrip = 4;

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

// ---------------------------------------------------------------------------------------------
// Relocation: a modified file whose path does not exist may live elsewhere in the tree.

constexpr std::size_t kMaxCandidates = 32;
/// Other candidates named in the relocation text when they would give another answer.
constexpr std::size_t kMaxOtherVerdicts = 3;

/// The extension of the last component of `path` (".py"), or "" when it has none; for the
/// extensions of one language, the family's name (a file renamed from .cu to .cuh, or .cc to
/// .cpp, is still the same kind of file).
std::string_view extension_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view name = slash == path.npos ? path : path.substr(slash + 1);
  const std::size_t dot = name.rfind('.');
  const std::string_view ext = dot == name.npos || dot == 0 ? std::string_view() : name.substr(dot);
  static constexpr std::array<std::string_view, 15> kCFamily = {
      ".c",   ".cc", ".cpp", ".cxx", ".c++", ".h",   ".hh", ".hpp",
      ".hxx", ".cu", ".cuh", ".inl", ".ipp", ".tcc", ".inc"};
  static constexpr std::array<std::string_view, 4> kPython = {".py", ".pyi", ".pyx", ".pxd"};
  if (std::find(kCFamily.begin(), kCFamily.end(), ext) != kCFamily.end()) return "C/C++/CUDA";
  if (std::find(kPython.begin(), kPython.end(), ext) != kPython.end()) return "Python";
  return ext;
}

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

/// Whether hunks `a` and `b` make the same change: the same removed and added lines, in the
/// same order (their context may differ).
bool same_change(const Hunk& a, const Hunk& b) {
  const auto next = [](const Hunk& h, std::size_t i) {
    while (i < h.lines.size() && h.lines[i].kind == LineKind::kContext) ++i;
    return i;
  };
  std::size_t i = next(a, 0), j = next(b, 0);
  for (; i < a.lines.size() && j < b.lines.size(); i = next(a, i + 1), j = next(b, j + 1))
    if (a.lines[i].kind != b.lines[j].kind || a.lines[i].text != b.lines[j].text) return false;
  return i == a.lines.size() && j == b.lines.size();
}

/// Another file patch of the run (`modified`) that changes the file at `path` in place and
/// makes every change of `fp` (same_change(), each hunk of fp matched by one of its hunks):
/// `path` then holds fp's lines because of that file patch, whatever became of fp's own file.
/// Null when there is none, or when fp has a hunk without a change.
const FilePatch* twin_in(const ModifiedInPlace* modified, const FilePatch& fp,
                         const std::string& path) {
  if (modified == nullptr || fp.hunks.empty()) return nullptr;
  const auto it = modified->find(path);
  if (it == modified->end()) return nullptr;
  for (const FilePatch* other : it->second) {
    if (other == &fp) continue;
    const bool all = std::all_of(fp.hunks.begin(), fp.hunks.end(), [&](const Hunk& h) {
      return std::any_of(other->hunks.begin(), other->hunks.end(),
                         [&](const Hunk& o) { return same_change(h, o); });
    });
    if (all) return other;
  }
  return nullptr;
}

struct Candidate {
  std::string path;
  std::size_t suffix = 0;  // trailing components shared with the patch path
  std::size_t marks = 0;   // distinct markers found in it
  std::size_t fit = 0;     // hunks found (either image), or 1 for a decided hunk-less change
  FileReport report;
};

}  // namespace

namespace {

std::string_view file_name_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == path.npos ? path : path.substr(slash + 1);
}

}  // namespace

void RelocationSearch::index_names() {
  by_name.clear();
  for (std::size_t i = 0; i < result.files.size(); ++i)
    by_name[std::string(file_name_of(result.files[i]))].push_back(i);
}

std::vector<std::size_t> RelocationSearch::named(const std::string& path) const {
  auto it = by_name.find(std::string(file_name_of(path)));
  if (it == by_name.end()) return {};
  if (!names_only) return it->second;
  std::vector<std::size_t> out;
  for (std::size_t i : it->second)
    if (check_listable(root, result.files[i], max_file_size)) out.push_back(i);
  return out;
}

bool decided_by_name(const RelocationSearch& rs, const std::string& path) {
  const std::vector<std::size_t> named = rs.named(path);
  if (named.size() > kMaxCandidates) return false;
  return std::any_of(named.begin(), named.end(),
                     [&](std::size_t i) { return common_suffix(rs.result.files[i], path) >= 2; });
}

std::vector<Marker> relocation_markers(const FilePatch& fp) {
  std::vector<Marker> markers = context_markers(fp);
  Patch one;
  one.files.push_back(fp);
  for (Marker& m : extract_markers(one, 0)) markers.push_back(std::move(m));
  return markers;
}

std::optional<std::pair<std::string, std::string>> map_path(const Context& ctx,
                                                            const std::string& path) {
  for (const auto& [from, to] : ctx.options.path_map) {
    std::string_view f = from;
    while (!f.empty() && f.back() == '/') f.remove_suffix(1);
    if (f.empty() || path.compare(0, f.size(), f) != 0 ||
        (path.size() > f.size() && path[f.size()] != '/'))
      continue;
    // An empty NEW maps the prefix onto TARGET itself.
    std::optional<std::string> mapped = normalize_relative_path(
        to.empty() ? path.substr(std::min(path.size(), f.size() + 1)) : to + path.substr(f.size()));
    if (!mapped || !exists(ctx.tree, *mapped)) continue;
    return std::make_pair(*mapped, fmt::format("mapped by --map {}={}", from, to));
  }
  return std::nullopt;
}

SearchResult search_target(const Tree& tree, const VerifyOptions& options,
                           const std::vector<Marker>& markers, const SearchOptions& so) {
  return options.search_root.empty() ? search_tree(tree, markers, so)
                                     : search_tree(options.search_root, markers, so);
}

std::optional<std::string> relocation_wanted(const FilePatch& fp, const Context& ctx,
                                             unsigned strip) {
  const VerifyOptions& options = ctx.options;
  if (!options.relocate || !can_search(options)) return std::nullopt;
  // As verify_file() decides which path a modified file lives at.
  Resolved old_side = resolve(fp.old_path, strip);
  Resolved new_side = resolve(fp.new_path, strip);
  if (!old_side.error.empty() || !new_side.error.empty() || !old_side.path || !new_side.path)
    return std::nullopt;
  if ((fp.change == ChangeKind::kRename || fp.change == ChangeKind::kCopy) &&
      *old_side.path != *new_side.path)
    return std::nullopt;
  try {
    const Tree& tree = ctx.tree;
    const std::string path =
        *old_side.path == *new_side.path
            ? *new_side.path
            : modified_path(fp, *old_side.path, *new_side.path, tree, ctx.in_place);
    if (exists(tree, path) || map_path(ctx, path)) return std::nullopt;
    return path;
  } catch (const Error&) {
    return std::nullopt;  // verify_file() reports it
  }
}

/// Tries --map prefixes, then candidates found by file name and content (see README,
/// "Relocation"). Returns false when nothing was found (the caller reports the missing file).
bool relocate(Context& ctx, const FilePatch& fp, const std::string& path, FileReport& fr) {
  const VerifyOptions& options = ctx.options;
  // Candidates are ranked by their verdicts and hunk counts only: they are judged without the
  // explanations of conflicting hunks (MatchOptions::explain), and the one adopted is judged
  // again in full.
  VerifyOptions quiet_options = options;
  quiet_options.match.explain = false;
  Context quiet{ctx.tree, quiet_options, ctx.cache, ctx.relocation_search, ctx.in_place};
  // A file that shares not even its name with the patch's is the file only by what its
  // content says, and drift is no such evidence: the drift search finds a change's lines
  // wherever they stand, and generic ones (`causal=True,` after `window_left=window_left,`)
  // stand in many files. Such candidates are judged by their images alone (as --strict): a
  // test-only fix read `applied` in flashinfer/prefill.py of an installed wheel, which has no
  // tests at all.
  VerifyOptions strict_options = options;
  strict_options.match.drift = false;
  VerifyOptions strict_quiet_options = quiet_options;
  strict_quiet_options.match.drift = false;
  Context strict{ctx.tree, strict_options, ctx.cache, ctx.relocation_search, ctx.in_place};
  Context strict_quiet{ctx.tree, strict_quiet_options, ctx.cache, ctx.relocation_search,
                       ctx.in_place};
  auto evaluate = [&](Candidate& c, Context& with) {
    c.report = FileReport{};
    c.report.old_path = fr.old_path;
    c.report.new_path = fr.new_path;
    c.report.target_path = c.path;
    c.report.change = fr.change;
    c.report.patch_line = fr.patch_line;
    try {
      c.report.status = verify_existing(with, c.path, fp, c.report);
    } catch (const Error& e) {
      c.report.status = Status::kError;
      c.report.reason = e.what();
    }
    if (fp.hunks.empty())
      c.fit = c.report.status == Status::kConflict || c.report.status == Status::kError ? 0 : 1;
    else
      c.fit = static_cast<std::size_t>(
          std::count_if(c.report.hunks.begin(), c.report.hunks.end(), [](const HunkReport& h) {
            return h.match.status == HunkStatus::kApplied ||
                   h.match.status == HunkStatus::kApplicable;
          }));
    c.report.presence = file_presence(c.report);
  };
  // `named`: the user named the file (--map), so it is the file whatever its name shares.
  auto adopt = [&](Candidate& c, std::string why, bool named = false) {
    evaluate(c, !named && c.suffix == 0 && options.match.drift ? strict : ctx);
    fr = std::move(c.report);
    fr.target_path = c.path;
    fr.relocated = true;
    fr.relocation = fmt::format("'{}' does not exist; {}", path, why);
  };
  if (std::optional<std::pair<std::string, std::string>> mapped = map_path(ctx, path)) {
    // Judged as the file at the patch's own path would be, drift included: a mapped file that
    // holds the fix with its context since edited read conflict, "fix: unknown" (new-user
    // review fu30), where the same file found by relocation read applied.
    Candidate c{mapped->first, 0, 0, 0, {}};
    adopt(c, mapped->second, true);
    return true;
  }
  // --map is asked for by name; the search by file name and content is what --no-relocate
  // turns off.
  if (!options.relocate || !can_search(options)) return false;

  // The walk of the whole tree is shared by every relocation of the run (verify() searches
  // once for all of them); a lone call searches here.
  SearchResult own;
  const std::vector<std::string>* files = nullptr;
  const MarkerHits* hits_begin = nullptr;
  const MarkerHits* hits_end = nullptr;
  const RelocationSearch* rs = ctx.relocation_search;
  auto shared = rs != nullptr ? rs->ranges.find(&fp) : decltype(rs->ranges)::const_iterator{};
  if (rs != nullptr && shared != rs->ranges.end()) {
    const SearchResult& all = rs->result;
    files = &all.files;
    hits_begin = all.markers.data() + shared->second.first;
    hits_end = all.markers.data() + shared->second.second;
  } else {
    SearchOptions so = options.search;
    so.collect_files = true;
    so.max_hits_per_marker = 0;
    own = search_target(ctx.tree, options, relocation_markers(fp), so);
    files = &own.files;
    hits_begin = own.markers.data();
    hits_end = own.markers.data() + own.markers.size();
  }
  std::vector<Candidate> cands;
  auto find_or_add = [&](const std::string& p) -> Candidate& {
    for (Candidate& c : cands)
      if (c.path == p) return c;
    cands.push_back({p, common_suffix(p, path), 0, 0, {}});
    return cands.back();
  };
  if (rs != nullptr && shared != rs->ranges.end()) {
    // The same files as the loop below finds, from the index by name.
    for (std::size_t i : rs->named(path))
      if (common_suffix((*files)[i], path) > 0) find_or_add((*files)[i]);
  } else {
    for (const std::string& f : *files)
      if (common_suffix(f, path) > 0) find_or_add(f);
  }
  // A file found by content only is a candidate only with the patch file's extension: a
  // document or a copy in another language quoting the fixed code is not the file. Nor is a
  // test (is_test_file()) for a file that is none: a test quoting the fixed code in a
  // string (hostile review hr30: the only file holding the fix's lines was a test's fixture,
  // and the missing module read applied).
  const std::string_view extension = extension_of(path);
  const bool patched_test = is_test_file(path);
  for (const MarkerHits* mhp = hits_begin; mhp != hits_end; ++mhp) {
    const MarkerHits& mh = *mhp;
    std::string last;
    for (const SearchHit& h : mh.hits) {
      if (h.path == last) continue;
      last = h.path;
      if (common_suffix(h.path, path) == 0 &&
          (extension_of(h.path) != extension || (!patched_test && is_test_file(h.path))))
        continue;
      ++find_or_add(h.path).marks;
    }
  }
  // A file the run changes in place the same way holds fp's lines as that file patch's, not
  // as fp's file moved there.
  std::vector<std::string> twins;
  std::erase_if(cands, [&](const Candidate& c) {
    if (twin_in(ctx.modified, fp, c.path) == nullptr) return false;
    twins.push_back(c.path);
    return true;
  });
  if (cands.empty()) {
    if (!twins.empty()) {
      std::sort(twins.begin(), twins.end());
      fr.relocation = fmt::format(
          "'{}' does not exist; '{}' holds its lines only as the same change another file "
          "patch of this run makes there",
          path, fmt::join(twins, "', '"));
    }
    return false;
  }
  std::sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
    if (a.suffix != b.suffix) return a.suffix > b.suffix;
    if (a.marks != b.marks) return a.marks > b.marks;
    return a.path < b.path;
  });
  if (cands.size() > kMaxCandidates) cands.resize(kMaxCandidates);
  for (Candidate& c : cands) evaluate(c, c.suffix == 0 ? strict_quiet : quiet);
  // A file at the same path suffix (same name and parent directory at least) is the installed
  // copy of the patched file even when it has drifted: the longer the shared path, the better,
  // whatever the content says; files sharing only their name (or nothing) rank by content.
  std::stable_sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
    const bool a_path = a.suffix >= 2, b_path = b.suffix >= 2;
    if (a_path != b_path) return a_path;
    if (a_path && a.suffix != b.suffix) return a.suffix > b.suffix;
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
  // Which candidate is the deployed file cannot be told when the path and the content point
  // at different files and their answers differ: then the file is unknown, never the answer
  // of the one the path prefers (a same-named copy under docs/ or vendor/ holding the fix
  // while the real file, moved, does not, read `applied`).
  auto ambiguous = [&](const Candidate& chosen, const Candidate& other) {
    fr.status = Status::kUnknown;
    fr.target_path = path;
    fr.candidates = names;
    fr.relocation = fmt::format(
        "'{}' does not exist; '{}' shares its path suffix '{}' and would give {} ({}), but "
        "'{}' holds {} of the hunks and would give {} ({}): which one is the file is unknown",
        path, chosen.path, suffix_text(chosen), to_string(chosen.report.status),
        to_string(chosen.report.presence), other.path, other.fit, to_string(other.report.status),
        to_string(other.report.presence));
    append_reason(fr, fr.relocation);
    return true;
  };
  if (best.fit == 0) {
    // Nothing holds the hunks: only a path that shares more than the file name is the file;
    // sharing one folder only (tests/jit/utils.py for flashinfer/jit/utils.py), not while
    // another candidate holds the hunks. A longer shared path (site-packages' sglang/srt/...)
    // is the installed copy, drifted.
    const auto fitting = std::find_if(cands.begin(), cands.end(), [&](const Candidate& c) {
      return c.fit == fp.hunks.size() &&
             (c.report.status == Status::kApplicable || c.report.status == Status::kApplied);
    });
    if (best.suffix == 2 && fitting != cands.end()) return ambiguous(best, *fitting);
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
  while (ties < cands.size() && cands[ties].fit == best.fit &&
         (cands[ties].suffix == best.suffix || (best.suffix < 2 && cands[ties].suffix < 2)))
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
  // The fix read as present in one file while another holds the whole pre-image (the patch
  // would apply there, cleanly): which is the deployed file decides between `applied` and
  // `applicable`, the worst mistake to make. A candidate that holds the hunks only in part
  // (a sibling module sharing some lines) is no such contradiction.
  // Likewise another file whose path is as much the patch's (its name and parent folder at
  // least) reading absent: a copy under vendor/ holding the fix while the file git moved does
  // not read `applied` for the path it shares more of.
  // Except that a file holding the patch's whole path under a prefix, or the module an
  // installed package imports (site-packages/ or dist-packages/ then the shared path), is the
  // file whatever a shorter-path sibling reads: Liger 2d8b2283's liger_kernel/ops/grpo_loss.py
  // in a venv read unknown because of ops/backends/_ascend/ops/grpo_loss.py (hostile review
  // hv17). A vendored copy (vendor/pkg/sub/file.py) is neither.
  const std::size_t patch_components =
      static_cast<std::size_t>(std::count(path.begin(), path.end(), '/')) + 1;
  auto installed_module = [&](const Candidate& c) {
    if (c.suffix >= patch_components) return true;
    for (const std::string_view dir : {"site-packages/", "dist-packages/"}) {
      const std::size_t at = c.path.rfind(dir);
      if (at == std::string::npos || (at > 0 && c.path[at - 1] != '/')) continue;
      const std::string_view rest = std::string_view(c.path).substr(at + dir.size());
      if (static_cast<std::size_t>(std::count(rest.begin(), rest.end(), '/')) + 1 == c.suffix &&
          c.suffix >= 2)
        return true;
    }
    return false;
  };
  if (best.report.presence == Presence::kPresent || best.report.presence == Presence::kPartial)
    for (std::size_t i = 1; i < cands.size(); ++i)
      if (((cands[i].report.status == Status::kApplicable && cands[i].fit == fp.hunks.size()) ||
           (cands[i].suffix >= 2 && cands[i].report.presence == Presence::kAbsent)) &&
          !(installed_module(best) && cands[i].suffix < best.suffix))
        return ambiguous(best, cands[i]);
  std::string why;
  std::size_t n = fp.hunks.size();
  if (best.suffix >= 2)
    why = fmt::format("found at '{}': same path suffix '{}'", best.path, suffix_text(best));
  else if (best.suffix == 1)
    why = fmt::format("found at '{}': same file name", best.path);
  else
    why = fmt::format("found at '{}': holds the patch's lines{}", best.path,
                      options.match.drift ? " (judged without drift: it shares no name)" : "");
  if (n > 0) why += fmt::format(", {}/{} hunk{} found", best.fit, n, n == 1 ? "" : "s");
  if (cands.size() > 1)
    why += fmt::format(" ({} other candidate{} rank lower)", cands.size() - 1,
                       cands.size() == 2 ? "" : "s");
  // Say when the choice matters: another candidate holding the hunks would answer otherwise.
  std::size_t told = 0;
  for (std::size_t i = 1; i < cands.size() && told < kMaxOtherVerdicts; ++i) {
    const Candidate& c = cands[i];
    if (c.fit == 0 || c.report.presence == best.report.presence) continue;
    why += fmt::format("; '{}' would give {} ({})", c.path, to_string(c.report.status),
                       to_string(c.report.presence));
    ++told;
  }
  names.erase(names.begin());
  adopt(best, why);
  fr.candidates = std::move(names);
  return true;
}

}  // namespace detail

using namespace detail;

unsigned detect_strip(const Patch& patch, const Tree& tree) {
  bool all_git = !patch.files.empty() && std::all_of(patch.files.begin(), patch.files.end(),
                                                     [](const FilePatch& f) { return f.git; });
  // A level that leaves some path of the patch without a component ("a/.gitignore" at -p2)
  // cannot be the patch's: it is never chosen, whatever the other files say (a patch adding
  // a folder of files whose names also stand at TREE's top would otherwise pick it).
  std::array<bool, kMaxDetectedStrip + 1> breaks{};
  for (unsigned p = 0; p <= kMaxDetectedStrip; ++p)
    for (const FilePatch& fp : patch.files)
      for (const std::string* raw : {&fp.old_path, &fp.new_path})
        if (!is_dev_null(*raw) && !strip_path(*raw, p)) breaks[p] = true;
  // An existing file the patch changes is strong evidence; an existing parent directory of an
  // added file is weak evidence, which only decides between levels with as much strong
  // evidence. An added file's own path existing is none: at the wrong level it is another file
  // (a patch adding python/LICENSE, at -p2, named the top-level LICENSE and read applied), and
  // at the right one the parent directory counts.
  unsigned preferred = all_git ? 1 : 0;
  if (breaks[preferred]) {  // the first level that leaves every path a component, if any
    for (unsigned p = 0; p <= kMaxDetectedStrip; ++p)
      if (!breaks[p]) {
        preferred = p;
        break;
      }
  }
  // At a level of 2 or more other than the preferred one, a path of one component (a file or
  // a parent folder at the tree's top) is no evidence: any tree has a README.md, a kernels/ or
  // a benchmark/ (hostile review, session 34: python/pkg/kernels/x.py, added where no python/
  // was, read applied at -p3 against an older kernels/x.py; lmdeploy d3e2cee41e's two new
  // docs/{en,zh_cn}/benchmark/guide.md named one benchmark/guide.md at -p2 and read conflict;
  // a python/pkg/README.md moved without rename detection was taken for the top README.md at
  // -p3). An installed copy's package folder (site-packages/sglang/srt/x.py for
  // python/sglang/srt/x.py) keeps two.
  const auto deep_enough = [&](unsigned p, const std::string& path, std::size_t components) {
    if (p < 2 || p == preferred) return true;
    return static_cast<std::size_t>(std::count(path.begin(), path.end(), '/')) + 1 >= components;
  };
  std::size_t needed = 0;  // the files the patch needs to exist (modified, deleted, renamed)
  for (const FilePatch& fp : patch.files)
    if (!is_dev_null(fp.old_path)) ++needed;
  // (strong, weak), compared in that order.
  auto score = [&](unsigned p) {
    std::pair<std::size_t, std::size_t> total{0, 0};
    for (const FilePatch& fp : patch.files) {
      Resolved old_side = resolve(fp.old_path, p);
      Resolved new_side = resolve(fp.new_path, p);
      if (old_side.path && deep_enough(p, *old_side.path, 2) &&
          exists_for_detection(tree, *old_side.path)) {
        ++total.first;
      } else if (old_side.path && new_side.path && deep_enough(p, *new_side.path, 2) &&
                 exists_for_detection(tree, *new_side.path)) {
        ++total.first;
      } else if (!old_side.path && new_side.path && new_side.error.empty() &&
                 new_side.path->find('/') != std::string::npos &&
                 deep_enough(p, *new_side.path, 3) &&
                 is_directory(tree, parent_of(*new_side.path))) {
        ++total.second;
      }
    }
    return total;
  };
  std::array<std::pair<std::size_t, std::size_t>, kMaxDetectedStrip + 1> scores{};
  scores[preferred] = score(preferred);
  // Every file the patch needs there at the preferred level: that is the level (the added
  // files' folders cannot outweigh it: a patch changing python/pkg/a.py and adding
  // python/pkg/sub/x.py, on a tree with a top pkg/ copy holding the fix, read applied at -p2).
  if (!breaks[preferred] && needed > 0 && scores[preferred].first == needed) return preferred;
  for (unsigned p = 0; p <= kMaxDetectedStrip; ++p)
    if (p != preferred) scores[p] = score(p);
  unsigned best = preferred;
  for (unsigned p = 0; p <= kMaxDetectedStrip; ++p) {
    if (breaks[p]) continue;
    if (scores[p] > scores[best] || (scores[p] == scores[best] && p < best && best != preferred))
      best = p;
  }
  return best;
}

}  // namespace sm120check
