// The patches of one run as an ordered series (see verify() in verify.hpp), and the plan of
// `apply`: both walk the run's file patches back and forth over an in-memory OverlayTree.
//
// Backward pass, last file patch first: each is judged in the tree with the later ones that
// were applied there taken out; an applied (or partly applied) one is then taken out too. The
// overlay ends as the tree before the series (what `apply --reverse` writes). Forward pass,
// first to last: a file patch applied in the backward pass keeps that verdict and is put back;
// any other is judged in the overlay as the series leaves it and, if applicable, put in. The
// overlay ends as the tree after the series (what `apply` writes). Each file patch is judged
// at most twice and written at most twice: linear in the run.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <unordered_map>

#include "internal.hpp"
#include "sm120check/apply.hpp"
#include "sm120check/error.hpp"
#include "sm120check/parallel.hpp"

namespace sm120check::detail {
namespace {

/// One file patch of the run, as the passes see it.
struct Unit {
  std::size_t patch = 0;  ///< index into the run's patches
  std::size_t file = 0;   ///< index into that patch's files
  /// The file patch (the run's own, or for a relocated file `moved`), set only for the units
  /// the passes judge (see run_series()), null before.
  const FilePatch* fp = nullptr;
  /// A relocated file's file patch: a copy whose paths are where the file was found.
  std::unique_ptr<FilePatch> moved;
  std::optional<std::string> relocated_to;  ///< where a relocated file was found
  unsigned strip = 1;
  std::vector<std::string> paths;  ///< tree paths it reads or writes
  bool shared = false;             ///< another file patch of the run reads or writes one of them
  /// A relocated one: the patch's own path (at `origin_strip`), which the tree lacks.
  std::optional<std::string> origin;
  unsigned origin_strip = 1;
  /// A file patch relocation moved elsewhere, judged at its own path instead: the earlier
  /// patch of the run that brings a file there.
  std::optional<std::size_t> brought_by;
};

bool status_in(Status s, std::initializer_list<Status> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

/// The run's file patches that can be judged again (no error), with their paths.
std::vector<Unit> units_of(const std::vector<Patch>& patches, const VerifyReport& report) {
  std::vector<Unit> out;
  for (std::size_t i = 0; i < report.patches.size(); ++i) {
    const PatchReport& pr = report.patches[i];
    if (!pr.error.empty()) continue;
    for (std::size_t f = 0; f < pr.files.size() && f < patches[i].files.size(); ++f) {
      const FileReport& fr = pr.files[f];
      if (fr.status == Status::kError) continue;
      const FilePatch& source = patches[i].files[f];
      Unit u{i, f, nullptr, {}, {}, pr.strip, {}, false, {}, pr.strip, {}};
      if (fr.relocated && fr.target_path) {
        u.relocated_to = *fr.target_path;
        u.strip = 0;
        u.origin = resolve(source.new_path, pr.strip).path;
        u.origin_strip = pr.strip;
      }
      for (const std::string* p : {u.relocated_to ? &*u.relocated_to : &source.old_path,
                                   u.relocated_to ? &*u.relocated_to : &source.new_path}) {
        const Resolved r = resolve(*p, u.strip);
        if (r.path && std::find(u.paths.begin(), u.paths.end(), *r.path) == u.paths.end())
          u.paths.push_back(*r.path);
      }
      out.push_back(std::move(u));
    }
  }
  return out;
}

/// Where the tree's files place the run's units by their blob ids (see pinned()).
struct Pinned {
  std::vector<bool> out;  ///< not in the tree: after the last state the file can be
  std::vector<bool> in;   ///< in the tree: before the first state the file can be
};

/// Units the backward pass must not take out, and units that are in, whatever their hunks
/// say: where a file is, byte for byte (by the `index` lines' blob ids), a state of the series'
/// history on it, the file patches on it after the last state it can be are not in the tree,
/// and those before the first state it can be are. Per path, the units on it in run order name
/// the states: unit i's pre-image (old id) is state i, its post-image (new id) state i + 1; a
/// reverted or repeated patch makes the file's id name several states, and then only the units
/// after the last of them are out and those before the first in (those between are left to the
/// hunks: git's own content cannot tell them apart: a patch and its exact revert on the tree
/// before both). Without the first, a later patch whose small hunk happens to match at an
/// offset in an earlier state reads applied, is taken out (writing lines that were never
/// there), and the result differs from putting the series in; and a revert reads applied by
/// its own lines in the tree before what it reverts. Without the second, a patch whose lines a
/// later one reverts (along with other changes) reads applicable by those lines on the tree
/// after both, though the later patch could not have been made without it. Only files every
/// unit of which changes, adds or deletes that file alone (no renames, copies, binaries).
Pinned pinned(const std::vector<Unit>& units, const Tree& base, FileCache& cache) {
  Pinned out{std::vector<bool>(units.size(), false), std::vector<bool>(units.size(), false)};
  std::map<std::string, std::vector<std::size_t>> by_path;
  std::set<std::string> mixed;
  for (std::size_t k = 0; k < units.size(); ++k) {
    const Unit& u = units[k];
    const ChangeKind c = u.fp->change;
    if (u.paths.size() == 1 && !u.fp->binary &&
        (c == ChangeKind::kModify || c == ChangeKind::kAdd || c == ChangeKind::kDelete))
      by_path[u.paths.front()].push_back(k);
    else
      mixed.insert(u.paths.begin(), u.paths.end());
  }
  for (const auto& [path, ks] : by_path) {
    if (mixed.count(path) != 0) continue;
    if (std::none_of(ks.begin(), ks.end(), [&](std::size_t k) { return has_blob_ids(*units[k].fp); }))
      continue;
    std::string id;  // the file's blob id, computed once for all its units
    try {
      if (base.stat(path).type != Entry::Type::kFile) continue;
      // A git index's id (a stale or crafted one) can only pin units out, which judges them
      // forward only: toward applicable, never applied. So it is used unhashed.
      id = cache.blob_id(cache.get(path, [&, &p = path] { return base.read(p); }));
    } catch (const Error&) {
      continue;  // verify_file reports it
    }
    std::optional<std::size_t> first, last;  // the first and last states the file can be
    for (std::size_t i = 0; i < ks.size(); ++i) {
      const FilePatch& fp = *units[ks[i]].fp;
      const bool pre = blob_id_names(fp.old_blob, id), post = blob_id_names(fp.new_blob, id);
      if (!first && (pre || post)) first = pre ? i : i + 1;
      if (pre) last = i;
      if (post) last = i + 1;
    }
    if (!last) continue;
    for (std::size_t i = *last; i < ks.size(); ++i) out.out[ks[i]] = true;
    for (std::size_t i = 0; i < *first; ++i) out.in[ks[i]] = true;
  }
  // A patch is one change: where a file of it is pinned in (or out) and none is pinned the
  // other way, so are its other files, even those whose ids name several states (a fix and
  // its revert give a file the same id before both and after both, while another file of the
  // patch, changed in between, tells which: ninja 52c1d0c8 and its revert 4baea2b8 on the
  // tree after both read build.cc applied once the revert is taken out and build.h
  // applicable, a `partial` fix).
  std::map<std::size_t, std::pair<bool, bool>> by_patch;  // patch -> (any in, any out)
  for (std::size_t k = 0; k < units.size(); ++k) {
    auto& [any_in, any_out] = by_patch[units[k].patch];
    any_in = any_in || out.in[k];
    any_out = any_out || out.out[k];
  }
  for (std::size_t k = 0; k < units.size(); ++k) {
    const auto& [any_in, any_out] = by_patch[units[k].patch];
    if (any_in && !any_out) out.in[k] = true;
    if (any_out && !any_in) out.out[k] = true;
  }
  return out;
}

/// Where the tree's files, by existing or not, place a file patch of the run (see
/// placed_by_existence()).
enum class Placed {
  kOpen,       ///< existence does not decide: the hunks do, in the passes
  kIn,         ///< its change is in the tree
  kOut,        ///< its change is not in the tree
  kAmbiguous,  ///< a file it needs is absent both before the run makes it and after the run
               ///< takes it away again, and nothing else in the tree tells which
  kWithAmbiguous,  ///< another unit of its patch is kAmbiguous, and existence does not place
                   ///< this one either (the file is there both before and after it)
};

/// What the existence of each file the run's units name says about each unit. Per path, the
/// units on it in run order form a chain; between two of them (and before the first, after
/// the last) the file exists or not, by what the units do (an add, a rename or copy to it
/// makes it; a delete or a rename away takes it away; others need it there). The gaps of the
/// chain where the file exists as it does in `tree` are where the tree can be: a unit before
/// every such gap is in, one after every such gap is out. A unit on several paths (a rename)
/// or in a patch with others (a move written as delete + add) must be in or out on all of them
/// alike, which narrows the other chains; `evidence` gives, per patch, what the tree's own
/// verdicts of its file patches on files no other file patch names say (kIn, kOut or kOpen).
/// A unit left open on a path the tree lacks, with gaps on both sides of it, is kAmbiguous:
/// git's own content cannot tell (add x, change it, delete it: a tree without x is both
/// before and after). Linear in the units (a bounded number of rounds).
std::vector<Placed> placed_by_existence(const std::vector<Unit>& units, const Tree& tree,
                                        const std::vector<Placed>& evidence) {
  const std::size_t n = units.size();
  struct Chain {
    std::vector<std::size_t> at;  ///< the units on the path, in run order
    std::vector<bool> gap;        ///< gap g (before at[g], or after the last): can be the tree
    bool absent = false;          ///< the tree lacks the path
  };
  std::map<std::string, Chain> chains;
  for (std::size_t k = 0; k < n; ++k)
    for (const std::string& p : units[k].paths) chains[p].at.push_back(k);
  for (auto it = chains.begin(); it != chains.end();) {
    Chain& c = it->second;
    bool present = false;
    try {
      present = exists(tree, it->first);
    } catch (const Error&) {
      it = chains.erase(it);  // not a path the passes can judge: no claim from it
      continue;
    }
    c.absent = !present;
    // exists[g]: the file exists in gap g.
    const FilePatch& first = *units[c.at.front()].fp;
    bool now = created_path(first, units[c.at.front()].strip) != it->first;
    c.gap.push_back(now == present);
    for (std::size_t k : c.at) {
      const Unit& u = units[k];
      if (created_path(*u.fp, u.strip) == it->first) now = true;
      else if (removed_path(*u.fp, u.strip) == it->first) now = false;
      c.gap.push_back(now == present);
    }
    if (std::none_of(c.gap.begin(), c.gap.end(), [](bool b) { return b; })) {
      it = chains.erase(it);  // no gap fits: the tree is no state of this chain
      continue;
    }
    ++it;
  }
  // Unit at position i of a chain: in when every fitting gap is after it, out when before.
  auto place = [](const Chain& c, std::size_t i) {
    bool before = false, after = false;
    for (std::size_t g = 0; g < c.gap.size(); ++g)
      if (c.gap[g]) (g > i ? after : before) = true;
    return after && !before ? Placed::kIn : before && !after ? Placed::kOut : Placed::kOpen;
  };
  std::vector<Placed> out(n, Placed::kOpen);
  std::vector<bool> clash(n, false);
  auto settle = [&](std::size_t k, Placed p) {
    if (p == Placed::kOpen || clash[k] || out[k] == p) return false;
    if (out[k] != Placed::kOpen) {
      clash[k] = true;  // the tree is no state of the run here: existence decides nothing
      out[k] = Placed::kOpen;
      return true;
    }
    out[k] = p;
    return true;
  };
  // Each round settles at least one unit or stops; a few rounds settle what chains of moves
  // tie together in practice.
  constexpr int kMaxRounds = 8;
  for (int round = 0; round < kMaxRounds; ++round) {
    bool changed = false;
    for (auto& [path, c] : chains)
      for (std::size_t i = 0; i < c.at.size(); ++i) changed |= settle(c.at[i], place(c, i));
    // One patch: its units that make or take away files go together, with the tree's verdicts
    // on its files no other file patch names.
    std::map<std::size_t, Placed> by_patch;
    for (std::size_t k = 0; k < n; ++k) {
      Placed p = out[k];
      if (p == Placed::kOpen && units[k].patch < evidence.size()) p = evidence[units[k].patch];
      if (p == Placed::kOpen) continue;
      auto [it, fresh] = by_patch.emplace(units[k].patch, p);
      if (!fresh && it->second != p) it->second = Placed::kAmbiguous;  // they disagree
    }
    for (std::size_t k = 0; k < n; ++k) {
      const auto it = by_patch.find(units[k].patch);
      const Unit& u = units[k];
      if (it != by_patch.end() && it->second != Placed::kAmbiguous && out[k] == Placed::kOpen &&
          (created_path(*u.fp, u.strip) || removed_path(*u.fp, u.strip)))
        changed |= settle(k, it->second);
    }
    // Settled units narrow their chains' gaps (never to none).
    for (auto& [path, c] : chains)
      for (std::size_t i = 0; i < c.at.size(); ++i) {
        const Placed p = out[c.at[i]];
        if (p != Placed::kIn && p != Placed::kOut) continue;
        std::vector<bool> narrowed = c.gap;
        for (std::size_t g = 0; g < narrowed.size(); ++g)
          if ((p == Placed::kIn) != (g > i)) narrowed[g] = false;
        if (narrowed != c.gap && std::any_of(narrowed.begin(), narrowed.end(),
                                             [](bool b) { return b; })) {
          c.gap = std::move(narrowed);
          changed = true;
        }
      }
    if (!changed) break;
  }
  std::set<std::size_t> unplaced;  // patches with a kAmbiguous unit
  for (const auto& [path, c] : chains)
    if (c.absent)
      for (std::size_t i = 0; i < c.at.size(); ++i)
        if (out[c.at[i]] == Placed::kOpen && place(c, i) == Placed::kOpen) {
          out[c.at[i]] = Placed::kAmbiguous;
          unplaced.insert(units[c.at[i]].patch);
        }
  // A patch's units that make or take away files go together: one that existence leaves open
  // on every path it names goes with a kAmbiguous one of its patch (a move written as delete +
  // add, and its revert, on a tree before both: the moved file is there before the move and
  // after the revert, its new path missing both times). Judging it by its own file alone
  // (there, so applied) and the other as not made read the patch partial, which neither
  // reading of the tree is.
  for (std::size_t k = 0; k < n; ++k) {
    const Unit& u = units[k];
    if (out[k] != Placed::kOpen || unplaced.count(u.patch) == 0 || u.paths.empty() ||
        (!created_path(*u.fp, u.strip) && !removed_path(*u.fp, u.strip)))
      continue;
    const bool open = std::all_of(u.paths.begin(), u.paths.end(), [&](const std::string& p) {
      const auto it = chains.find(p);
      if (it == chains.end()) return false;  // the tree is no state of that chain
      const std::vector<std::size_t>& at = it->second.at;
      const auto i = std::lower_bound(at.begin(), at.end(), k);  // run order: sorted
      return i != at.end() && *i == k &&
             place(it->second, static_cast<std::size_t>(i - at.begin())) == Placed::kOpen;
    });
    if (open) out[k] = Placed::kWithAmbiguous;
  }
  return out;
}

/// Whether `tree` reads as its base at every one of `paths`: nothing written or removed there,
/// in a folder above, or below (a folder that written files make).
bool as_base(const OverlayTree& tree, const std::vector<std::string>& paths) {
  const std::map<std::string, OverlayTree::Node>& nodes = tree.changes();
  if (nodes.empty()) return true;
  for (const std::string& path : paths) {
    if (nodes.count(path) != 0) return false;
    const std::string below = path + "/";
    const auto it = nodes.lower_bound(below);
    if (it != nodes.end() && it->first.compare(0, below.size(), below) == 0) return false;
    for (std::size_t slash = path.find('/'); slash != std::string::npos;
         slash = path.find('/', slash + 1))
      if (nodes.count(path.substr(0, slash)) != 0) return false;
  }
  return true;
}

/// The verdict the run's first judgement gave `u` (verify_file() over the tree), when judging
/// it again in `tree` must give the same: its files read as in the tree, and nothing of it
/// came from relocation (the passes do not relocate). Null otherwise.
const FileReport* first_verdict(const VerifyReport& report, const Unit& u,
                                const OverlayTree& tree) {
  if (u.relocated_to || !as_base(tree, u.paths)) return nullptr;
  const FileReport& fr = report.patches[u.patch].files[u.file];
  if (fr.relocated || !fr.relocation.empty() || !fr.candidates.empty()) return nullptr;
  return &fr;
}

/// The hunk matches `fr` holds when they are those change_file() would find for `fp` (a
/// verdict just given on the file as it stands, by matching: see verify_existing()); else
/// null.
std::optional<std::vector<HunkMatch>> matches_of(const FileReport& fr, const FilePatch& fp) {
  if (fp.hunks.empty() || fr.hunks.size() != fp.hunks.size() || fp.binary) return std::nullopt;
  if (fp.change != ChangeKind::kModify || is_dev_null(fp.old_path) || is_dev_null(fp.new_path))
    return std::nullopt;
  std::vector<HunkMatch> out;
  out.reserve(fr.hunks.size());
  for (const HunkReport& h : fr.hunks) out.push_back(h.match);
  return out;
}

/// Which file patch of the forward pass wrote a file line (see run_series()): `unit` is its
/// index + 1 (0: a line the pass did not write), `hunk` the hunk that wrote it (0 for a file
/// made whole).
struct LineTag {
  std::size_t unit = 0;
  std::size_t hunk = 0;
};
using LineTags = std::vector<LineTag>;

LineTag tag_at(const LineTags& tags, std::size_t line) {
  return line < tags.size() ? tags[line] : LineTag{};
}

/// `tags` of a file after change_file() rewrote hunks of `fp` in it in place, forward, as unit
/// `unit` (`wrote`: what it placed and wrote): a kept line keeps its tag, an added line gets
/// {unit + 1, its hunk}. Walks the hunks as apply_hunks() writes them. Empty when no line
/// carries a tag.
LineTags retag(const LineTags& tags, const FilePatch& fp, const FileUndo& wrote,
               std::size_t unit) {
  LineTags out;
  bool any = false;
  auto keep = [&](std::size_t line) {
    out.push_back(tag_at(tags, line));
    any |= out.back().unit != 0;
  };
  std::size_t next = 0;  // first line of the file before not yet copied
  for (const std::size_t h : wrote.written) {
    const Hunk& hunk = fp.hunks[h];
    const HunkMatch& m = wrote.matches[h];
    for (; next < m.image_begin; ++next) keep(next);
    const std::size_t image_size = hunk.lines.size() - hunk.added();  // the pre-image's lines
    std::size_t index = 0;
    for (const HunkLine& l : hunk.lines) {
      if (l.kind == LineKind::kAdded) {
        out.push_back({unit + 1, h});
        any = true;
        continue;
      }
      const std::size_t i = index++;
      if (i < m.dropped_top || i >= image_size - m.dropped_bottom) continue;  // not touched
      if (l.kind == LineKind::kContext) keep(next);
      ++next;
    }
  }
  for (; next < wrote.lines; ++next) keep(next);
  if (!any) out.clear();
  return out;
}

/// Whether two hunks are the same, line for line (one patch given twice in a run: its copy
/// reads applied on the lines the first wrote, and the tree decides both, see the Series
/// tests). Not the same change with other context: found drifted on another one's lines, that
/// claims them as much as any other change.
bool same_hunk(const Hunk& a, const Hunk& b) {
  return a.lines.size() == b.lines.size() &&
         std::equal(a.lines.begin(), a.lines.end(), b.lines.begin(),
                    [](const HunkLine& x, const HunkLine& y) {
                      return x.kind == y.kind && x.text == y.text &&
                             x.no_newline_at_eof == y.no_newline_at_eof;
                    });
}

/// The earlier unit of the forward pass (an index into `units`) whose written lines (`tags`)
/// hunk `h` of unit `self`, read applied at `m`, stands on with another change than that unit's
/// hunk wrote there: the two claim the same lines. A series never does that (the later one
/// finds the earlier one's post-image as its pre-image: applicable there, not applied), and
/// taking them out again (the next run's backward pass) goes through the wrong one. The lines
/// looked at are the hunk's added lines where the match places them, or around a pure
/// deletion's place (both neighbours). std::nullopt when none.
std::optional<std::size_t> claimed_from(const LineTags& tags, const std::vector<Unit>& units,
                                        std::size_t self, std::size_t h, const HunkMatch& m) {
  if (tags.empty() || m.status != HunkStatus::kApplied) return std::nullopt;
  const Hunk& hunk = units[self].fp->hunks[h];
  std::vector<std::size_t> lines;  // 0-based file lines the change claims
  bool deletion = hunk.added() == 0;
  if (m.kind == MatchKind::kDrifted) {
    if (m.line == 0) return std::nullopt;
    const std::size_t at = m.line - 1;
    for (std::size_t i = 0; i < hunk.added(); ++i) lines.push_back(at + i);
    if (deletion && at > 0) lines = {at - 1, at};
  } else if (m.kind == MatchKind::kExact || m.kind == MatchKind::kFuzz) {
    const std::size_t image_size = hunk.lines.size() - hunk.removed();  // the post-image's
    std::size_t index = 0;
    for (const HunkLine& l : hunk.lines) {
      if (l.kind == LineKind::kRemoved) {
        if (deletion && lines.empty()) {
          const std::size_t at = m.image_begin + index - m.dropped_top;  // after the top fuzz
          if (at > 0) lines = {at - 1, at};
        }
        continue;
      }
      const std::size_t i = index++;
      if (i < m.dropped_top || i >= image_size - m.dropped_bottom) continue;
      if (l.kind == LineKind::kAdded) lines.push_back(m.image_begin + (i - m.dropped_top));
    }
  } else {
    return std::nullopt;
  }
  if (lines.empty()) return std::nullopt;
  std::optional<std::size_t> by;
  for (const std::size_t line : lines) {
    const LineTag t = tag_at(tags, line);
    if (t.unit == 0 || t.unit - 1 == self) {
      if (deletion) return std::nullopt;  // a deletion claims the place only between two
      continue;
    }
    const Unit& other = units[t.unit - 1];
    if (t.hunk < other.fp->hunks.size() && same_hunk(other.fp->hunks[t.hunk], hunk)) {
      if (deletion) return std::nullopt;
      continue;  // the same hunk twice: judged by the tree
    }
    by = t.unit - 1;
    if (!deletion) return by;
  }
  return by;
}

std::string describe(const VerifyReport& report, std::size_t patch) {
  const PatchReport& p = report.patches[patch];
  return p.subject ? fmt::format("patch {} ({})", patch + 1, *p.subject)
                   : fmt::format("patch {}", patch + 1);
}

}  // namespace

bool restore_file(const FileUndo& undo, OverlayTree& tree, FileCache& cache) {
  if (!undo.valid) return false;
  const Entry e = tree.stat(undo.path);
  const Entry::Type type = e.type;
  if (type != Entry::Type::kFile && type != Entry::Type::kSymlink) return false;
  const std::string now =
      type == Entry::Type::kSymlink ? tree.read_link(undo.path) : tree.read(undo.path);
  if (now.size() != undo.size || std::hash<std::string_view>{}(now) != undo.hash) return false;
  tree.write(undo.path, undo_splices(now, undo.splices), undo.executable, undo.symlink);
  cache.erase(undo.path);
  return true;
}

std::string change_file(const FilePatch& fp, unsigned strip, OverlayTree& tree, FileCache& cache,
                        Direction direction, const MatchOptions& options,
                        const InPlaceNames* in_place, FileUndo* undo, const FileReport* judged) {
  Resolved old_side = resolve(fp.old_path, strip);
  Resolved new_side = resolve(fp.new_path, strip);
  if (!old_side.error.empty()) return old_side.error;
  if (!new_side.error.empty()) return new_side.error;
  const bool forward = direction == Direction::kForward;
  const bool named_move = fp.change == ChangeKind::kRename || fp.change == ChangeKind::kCopy;
  if (!named_move && old_side.path && new_side.path && *old_side.path != *new_side.path) {
    // A plain diff naming two files (a backup on one side) changes one of them in place: the
    // one verify_file() examines (modified_path()).
    const std::string path =
        modified_path(fp, *old_side.path, *new_side.path, tree, in_place);
    old_side.path = new_side.path = path;
  }
  const std::optional<std::string>& from = forward ? old_side.path : new_side.path;
  const std::optional<std::string>& to = forward ? new_side.path : old_side.path;
  // The mode written: the patch's where it changes the mode (names both modes, and they
  // differ) or makes the file; where it names one unchanged mode (an "index" line's) or one
  // side's mode only ("old mode" without "new mode"), the file keeps its own, as git apply
  // keeps it (it takes the file's mode for the missing side, and only warns when the file's
  // differs). Both directions alike, so that taking a file patch out and putting it back in
  // (the series passes) gives the file its mode back.
  const bool mode_changes =
      (fp.old_mode && fp.new_mode && *fp.old_mode != *fp.new_mode) || !from || !to;
  static const std::optional<std::uint32_t> kKeep;
  const std::optional<std::uint32_t>& mode_to =
      !mode_changes ? kKeep : forward ? fp.new_mode : fp.old_mode;
  const bool link_to = is_symlink_mode(mode_to);
  auto put = [&](const std::string& path, std::string content, bool executable, bool link) {
    tree.write(path, std::move(content), executable, link);
    cache.erase(path);
  };
  auto drop = [&](const std::string& path) {
    tree.remove(path);
    cache.erase(path);
  };
  if (!from && !to) return "both sides are /dev/null";
  if (!from) {  // the file comes into being: an add, or a delete taken out
    const std::string content = whole_image(fp.hunks, forward ? Image::kPost : Image::kPre);
    const Entry e = tree.stat(*to);
    if (e.type != Entry::Type::kMissing) {
      const bool same = e.type == (link_to ? Entry::Type::kSymlink : Entry::Type::kFile) &&
                        (link_to ? tree.read_link(*to) : tree.read(*to)) == content;
      return same ? "" : fmt::format("'{}' already exists", *to);
    }
    if (fp.binary)
      return fp.binary_data
                 ? fmt::format("'{}': writing a file from a git binary patch is not supported "
                               "yet (apply it with git apply)",
                               *to)
                 : fmt::format("'{}': a binary file's content is not in the patch", *to);
    put(*to, content, is_executable_mode(mode_to), link_to);
    return "";
  }
  if (!to) {  // the file goes: a delete, or an add taken out
    if (tree.stat(*from).type != Entry::Type::kMissing) drop(*from);
    return "";
  }
  const bool move = (fp.change == ChangeKind::kRename || fp.change == ChangeKind::kCopy) &&
                    *from != *to;
  if (move && fp.change == ChangeKind::kCopy && !forward) {  // a copy taken out: its copy goes
    if (tree.stat(*from).type != Entry::Type::kMissing) drop(*from);
    return "";
  }
  // Where the content is read: the destination when the move is made already.
  const bool moved = move && tree.stat(*to).type != Entry::Type::kMissing;
  const std::string& source = moved ? *to : *from;
  const Entry entry = tree.stat(source);
  if (entry.type == Entry::Type::kMissing) return fmt::format("'{}' does not exist", source);
  const bool link_from = entry.type == Entry::Type::kSymlink;
  if (!link_from && entry.type != Entry::Type::kFile)
    return fmt::format("'{}' is not a regular file", source);
  // A regular file's text comes from the cache verify_file() filled (its line hashes and blob
  // id are computed once).
  std::optional<FileText> link_text;
  if (link_from) link_text.emplace(tree.read_link(source));
  const FileText& text =
      link_from ? *link_text : cache.get(source, [&] { return tree.read(source); });
  std::string content;
  if (fp.binary) {
    const std::string& want = forward ? fp.new_blob : fp.old_blob;
    if (want.size() < 7 || cache.blob_id(text).compare(0, want.size(), want) != 0)
      return fp.binary_data
                 ? fmt::format("'{}': writing a file from a git binary patch is not supported "
                               "yet (apply it with git apply)",
                               source)
                 : fmt::format("'{}': a binary change cannot be applied from the patch", source);
    content = text.content();
  } else if (fp.hunks.empty()) {
    content = text.content();
  } else {
    // Hunks both of whose images match are decided by the index line's blob ids, as verify
    // decides them (else apply's matching could take in a hunk verify calls applicable).
    std::optional<std::vector<HunkMatch>> known;
    if (judged != nullptr && judged->target_path == source) known = matches_of(*judged, fp);
    std::vector<HunkMatch> matches;
    if (known) {
      matches = std::move(*known);
    } else {
      MatchOptions match = options;
      match.prefer = blob_image_by(fp, [&] {
        return link_from ? git_blob_id(text.content()) : cache.blob_id(text);
      });
      matches = match_hunks(text, fp.hunks, match);
      std::vector<HunkMatch*> open;
      for (HunkMatch& m : matches) open.push_back(&m);
      refuse_fill_of_nonempty(fp, text, open);
      settle_by_blob(match.prefer, fp.hunks, open, text);
    }
    HunkApply done = apply_hunks(text, fp.hunks, matches, direction, options.ignore_whitespace);
    if (!done.failed.empty()) {
      const HunkMatch& m = matches[done.failed.front()];
      const HunkStatus want = forward ? HunkStatus::kApplicable : HunkStatus::kApplied;
      if (m.status == want && m.kind != MatchKind::kDrifted)  // apply_hunks() refused the place
        return fmt::format("'{}': hunk {} cannot be written where it matches (line {})", source,
                           done.failed.front() + 1, m.line);
      return fmt::format("'{}': hunk {} is {}{}", source, done.failed.front() + 1,
                         to_string(m.status),
                         m.kind == MatchKind::kDrifted ? " (drifted: not taken out mechanically)"
                                                       : "");
    }
    content = std::move(done.content);
    if (undo && !move && source == *to) {
      undo->valid = true;
      undo->path = *to;
      undo->splices = std::move(done.splices);
      undo->size = content.size();
      undo->hash = std::hash<std::string_view>{}(content);
      undo->executable = entry.executable;
      undo->symlink = link_from;
      undo->lines = text.size();
      undo->written = std::move(done.written);
      undo->matches = std::move(matches);
    }
  }
  const bool executable =
      mode_to && !link_to ? is_executable_mode(mode_to) : (!link_from && entry.executable);
  const bool link = mode_to ? link_to : link_from;
  put(*to, std::move(content), executable, link);
  if (move && fp.change == ChangeKind::kRename) {
    if (*to != source) {
      drop(source);
    } else if (tree.stat(*from).type != Entry::Type::kMissing &&
               move_left_behind(tree, *from, *to, fp, direction, options)) {
      // Moved already, but the source was left behind (an interrupted apply): it goes now.
      drop(*from);
    }
  }
  return "";
}

namespace {

/// The units of a run in groups that the passes may judge apart: two units share a group when
/// they share a path (a unit's paths and, relocated, its own path), or one's path is a folder
/// above the other's (the overlay's answers at a path depend on what was written above and
/// below it: as_base(), exists()). Each group in run order; groups in order of their first unit.
/// Linear in the units' paths and their depth (union-find).
std::vector<std::vector<std::size_t>> series_components(const std::vector<Unit>& units) {
  std::unordered_map<std::string_view, std::size_t> id;  // path -> node
  std::vector<std::size_t> parent;
  const auto node = [&](std::string_view path) {
    const auto [it, fresh] = id.emplace(path, parent.size());
    if (fresh) parent.push_back(parent.size());
    return it->second;
  };
  const auto find = [&](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  const auto join = [&](std::size_t a, std::size_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  };
  std::vector<std::size_t> first(units.size());
  for (std::size_t k = 0; k < units.size(); ++k) {
    std::vector<std::string_view> paths(units[k].paths.begin(), units[k].paths.end());
    if (units[k].origin) paths.push_back(*units[k].origin);
    if (paths.empty()) {  // nothing shared: a group of its own
      first[k] = parent.size();
      parent.push_back(parent.size());
      continue;
    }
    first[k] = node(paths.front());
    for (std::string_view p : paths) join(first[k], node(p));
  }
  for (const auto& [path, x] : id)
    for (std::size_t slash = path.find('/'); slash != std::string_view::npos;
         slash = path.find('/', slash + 1))
      if (const auto above = id.find(path.substr(0, slash)); above != id.end())
        join(x, above->second);
  std::vector<std::vector<std::size_t>> groups;
  std::unordered_map<std::size_t, std::size_t> group_of;  // root -> index in groups
  for (std::size_t k = 0; k < units.size(); ++k) {
    const auto [it, fresh] = group_of.emplace(find(first[k]), groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(k);
  }
  return groups;
}

}  // namespace

SeriesResult run_series(const std::vector<Patch>& patches, const VerifyReport& report,
                        const Tree& base, const VerifyOptions& options, bool every_unit,
                        FileCache* base_cache, std::span<const Tree* const> handles) {
  SeriesResult out;
  std::vector<Unit> all = units_of(patches, report);
  // A relocated file patch whose own path an earlier file patch of the run brings a file to
  // (an add, a rename or copy there) is judged at its own path: the series makes the file it
  // changes, and the file relocation found by that name is the tree before the move.
  std::map<std::string, std::size_t> brought;  // path -> the patch that last brings a file there
  for (Unit& u : all) {
    if (u.relocated_to && u.origin)
      if (const auto it = brought.find(*u.origin); it != brought.end()) {
        u.brought_by = it->second;
        u.paths = {*u.origin};
        u.relocated_to.reset();
        u.origin.reset();
        u.strip = u.origin_strip;
      }
    if (std::optional<std::string> p = created_path(patches[u.patch].files[u.file], u.strip))
      brought[*p] = u.patch;
  }
  // A relocated file patch whose own path a later patch of the run takes away (a move, as
  // delete + add or a rename) may be judged there once that patch is taken out (see
  // moved_back below): it then takes part on that path too. Otherwise it never is.
  std::map<std::string, std::size_t> last_removal;
  for (const Unit& u : all)
    if (!u.relocated_to)
      if (std::optional<std::string> gone = removed_path(patches[u.patch].files[u.file], u.strip))
        last_removal[*gone] = u.patch;  // units come in patch order
  for (Unit& u : all)
    if (u.origin) {
      const auto it = last_removal.find(*u.origin);
      if (it == last_removal.end() || it->second <= u.patch) u.origin.reset();
    }
  // Which units share a path with another one (only those need the passes to judge).
  std::map<std::string, std::size_t> users;
  for (const Unit& u : all) {
    for (const std::string& p : u.paths) ++users[p];
    if (u.origin) ++users[*u.origin];
  }
  // Per patch, what the tree's verdicts on its files that no other file patch names say: in
  // (applied), out (applicable), or nothing (none, mixed, or anything else).
  std::vector<Placed> evidence(report.patches.size(), Placed::kOpen);
  {
    std::vector<std::set<Status>> seen(report.patches.size());
    for (const Unit& u : all)
      if (!u.relocated_to && std::all_of(u.paths.begin(), u.paths.end(), [&](const std::string& p) {
            return users[p] == 1;
          }))
        seen[u.patch].insert(report.patches[u.patch].files[u.file].status);
    for (std::size_t i = 0; i < seen.size(); ++i)
      if (seen[i].size() == 1)
        evidence[i] = *seen[i].begin() == Status::kApplied      ? Placed::kIn
                      : *seen[i].begin() == Status::kApplicable ? Placed::kOut
                                                                : Placed::kOpen;
  }
  std::vector<Unit> units;
  for (Unit& u : all) {
    const bool shared =
        std::any_of(u.paths.begin(), u.paths.end(),
                    [&](const std::string& p) { return users[p] > 1; }) ||
        (u.origin && users[*u.origin] > 1);
    if (shared || every_unit) {
      u.shared = shared;
      u.fp = &patches[u.patch].files[u.file];
      if (u.relocated_to) {
        u.moved = std::make_unique<FilePatch>(*u.fp);
        u.moved->old_path = u.moved->new_path = *u.relocated_to;
        u.fp = u.moved.get();
      }
      units.push_back(std::move(u));
    }
  }
  out.tree = std::make_unique<OverlayTree>(base);
  if (units.empty()) return out;
  FileCache cache(base_cache);  // files the passes have not changed: as the verdicts read them
  VerifyOptions local = options;
  local.relocate = false;  // relocated files carry their paths (units_of)
  // The names that modifications naming two files change: chosen for the run, as verify_file()
  // chose them over the tree, whatever the passes have written or taken out.
  std::vector<unsigned> strips;
  for (const PatchReport& pr : report.patches) strips.push_back(pr.strip);
  const InPlaceNames in_place = in_place_names(patches, strips, base);
  const std::size_t n = units.size();
  out.units.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    out.units[k].patch = units[k].patch;
    out.units[k].file = units[k].file;
    out.units[k].shared = units[k].shared;
    out.units[k].brought_by = units[k].brought_by;
  }
  const std::vector<Placed> placed = placed_by_existence(units, base, evidence);
  // A unit the tree's verdict judged by a missing path alone (an add: applicable; a delete:
  // applied): in a series that verdict is no evidence (the path may be missing before the run
  // makes it or after it takes it away), so the series' verdict stands (see
  // apply_series_verdicts()).
  for (std::size_t k = 0; k < n; ++k) {
    const Unit& u = units[k];
    if (u.relocated_to || (!is_dev_null(u.fp->old_path) && !is_dev_null(u.fp->new_path)))
      continue;
    try {
      out.units[k].by_absence = !exists(base, u.paths.front());
    } catch (const Error&) {
    }
  }
  // The non-blank lines of `kind` unit `u`'s hunks hold, sorted.
  auto lines_of = [&](std::size_t u, LineKind kind) {
    std::vector<std::string_view> lines;
    for (const Hunk& h : units[u].fp->hunks)
      for (const HunkLine& l : h.lines)
        if (l.kind == kind &&
            std::string_view(l.text).find_first_not_of(" \t\r\f\v") != std::string_view::npos)
          lines.push_back(l.text);
    std::sort(lines.begin(), lines.end());
    return lines;
  };
  // Whether unit `later` removes every non-blank line unit `k` adds (at least one) and is not
  // its exact revert (which leaves a tree that is both before and after the two: the content
  // cannot tell, and the tree's verdict stands).
  auto removes_all_added = [&](std::size_t k, std::size_t later) {
    if (lines_of(later, LineKind::kAdded) == lines_of(k, LineKind::kRemoved) &&
        lines_of(later, LineKind::kRemoved) == lines_of(k, LineKind::kAdded))
      return false;
    std::multiset<std::string_view> removed;
    for (const Hunk& h : units[later].fp->hunks)
      for (const HunkLine& l : h.lines)
        if (l.kind == LineKind::kRemoved) removed.insert(l.text);
    std::size_t added = 0;
    for (const Hunk& h : units[k].fp->hunks)
      for (const HunkLine& l : h.lines) {
        if (l.kind != LineKind::kAdded ||
            std::string_view(l.text).find_first_not_of(" \t\r\f\v") == std::string_view::npos)
          continue;
        auto it = removed.find(l.text);
        if (it == removed.end()) return false;
        removed.erase(it);
        ++added;
      }
    return added > 0;
  };
  auto nearest = [](const std::map<std::string, std::size_t>& by_path, const Unit& u,
                    std::vector<std::size_t>& into) {
    for (const std::string& p : u.paths)
      if (auto it = by_path.find(p); it != by_path.end() && it->second != u.patch &&
                                     std::find(into.begin(), into.end(), it->second) == into.end())
        into.push_back(it->second);
  };
  // Per path, the units that take it away, and per (patch, path), those that bring a file there
  // (see moved_back).
  std::map<std::string, std::vector<std::size_t>> removers;
  std::map<std::pair<std::size_t, std::string>, std::vector<std::size_t>> creators;
  for (std::size_t k = 0; k < n; ++k) {
    if (std::optional<std::string> p = removed_path(*units[k].fp, units[k].strip))
      removers[*p].push_back(k);
    if (std::optional<std::string> p = created_path(*units[k].fp, units[k].strip))
      creators[{units[k].patch, *p}].push_back(k);
  }
  // Judged in the forward pass only (nothing of them is in the tree to take out): units whose
  // file is an earlier state byte for byte (pinned()), units the existence of files places
  // after the tree, and units it cannot place (placed_by_existence(): judged as not in, the
  // reading under which the series, put in, gives git's tree).
  const Pinned pins = pinned(units, base, cache);
  std::vector<bool> forward_only = pins.out;
  for (std::size_t k = 0; k < n; ++k) {
    out.units[k].pinned_out = pins.out[k];
    out.units[k].pinned_in = pins.in[k];
  }
  for (std::size_t k = 0; k < n; ++k)
    if (placed[k] == Placed::kOut || placed[k] == Placed::kAmbiguous ||
        placed[k] == Placed::kWithAmbiguous)
      forward_only[k] = true;
  std::vector<FileUndo> undo(n);
  // The backward and forward passes over the units `ks` (in run order), in `tree` (over
  // `base` or another handle on the same tree), judged with `ctx` (over `tree`); `before`,
  // when given, receives the overlay between the passes. Everything a unit's passes read
  // or write is per path (and the units on its paths), so units on unrelated paths may go
  // through separate calls, on separate threads (see series_components()).
  const auto passes = [&](const std::vector<std::size_t>& ks, OverlayTree& tree, Context& ctx,
                          std::map<std::string, OverlayTree::Node>* before) {
    // Backward: later applied ones taken out first. `taken` holds, per path, the patch of the
    // nearest later file patch taken out (the one a verdict is judged without).
    std::map<std::string, std::size_t> taken, missing;
    std::map<std::string, std::size_t> taken_unit;  // per path, the unit behind `taken`
    // A relocated unit k is judged at its own path X instead of where relocation found its file
    // (Y) when the backward pass has shown that the tree holds a later patch's move of X to Y:
    // a later unit that takes X away (delete or rename) and one of the same patch that brings
    // the file to Y (add, rename, copy) were both taken out, so X is back as the series had it
    // before that patch. Returns the moving patch. Without that evidence (Y is not that patch's
    // file), the file stays where relocation found it.
    // The later units that take away the path relocated unit k names, once the overlay holds
    // that path again; none when k is not relocated or the path cannot be judged.
    auto removers_of = [&](std::size_t k) -> const std::vector<std::size_t>* {
      const Unit& u = units[k];
      if (!u.origin || !u.relocated_to) return nullptr;
      try {
        if (!exists(tree, *u.origin)) return nullptr;
      } catch (const Error&) {
        return nullptr;  // not a path the passes can judge
      }
      const auto gone = removers.find(*u.origin);
      return gone == removers.end() ? nullptr : &gone->second;
    };
    auto moved_back = [&](std::size_t k) -> std::optional<std::size_t> {
      const Unit& u = units[k];
      const std::vector<std::size_t>* gone = removers_of(k);
      if (gone == nullptr) return std::nullopt;
      for (std::size_t r : *gone) {
        if (r <= k || units[r].patch <= u.patch || !out.units[r].undone) continue;
        const auto made = creators.find({units[r].patch, *u.relocated_to});
        if (made == creators.end()) continue;
        for (std::size_t w : made->second)
          if (out.units[w].undone && out.units[w].back.status == Status::kApplied)
            return units[r].patch;
      }
      return std::nullopt;
    };
    // Likewise when that later unit is a bare deletion of X (no move: its patch brings no file
    // to Y) and the backward pass took it out: X is back as the series had it, and the file
    // relocation found by name (Y) is another one (a look-alike of the same name elsewhere).
    auto deleted_back = [&](std::size_t k) -> std::optional<std::size_t> {
      const Unit& u = units[k];
      const std::vector<std::size_t>* gone = removers_of(k);
      if (gone == nullptr) return std::nullopt;
      for (std::size_t r : *gone) {
        if (r <= k || units[r].patch <= u.patch || !out.units[r].undone) continue;
        if (units[r].fp->change != ChangeKind::kDelete) continue;
        if (creators.count({units[r].patch, *u.relocated_to}) != 0) continue;
        return units[r].patch;
      }
      return std::nullopt;
    };
    // A unit whose files still read as in the tree is judged as the run's first judgement did.
    auto judge = [&](std::size_t k) {
      if (const FileReport* first = first_verdict(report, units[k], tree)) return *first;
      return verify_file(*units[k].fp, ctx, units[k].strip);
    };
    for (auto at = ks.rbegin(); at != ks.rend(); ++at) {
      const std::size_t k = *at;
      SeriesUnit& su = out.units[k];
      if (forward_only[k]) continue;
      // Judged at its own path from now on, not where relocation found the file.
      auto at_origin = [&](Unit& u) {
        u.fp = &patches[u.patch].files[u.file];
        u.moved.reset();
        u.strip = u.origin_strip;
        u.paths = {*u.origin};
        u.relocated_to.reset();
      };
      if (const std::optional<std::size_t> mover = moved_back(k)) {
        at_origin(units[k]);
        su.moved_by = mover;
      } else if (const std::optional<std::size_t> remover = deleted_back(k)) {
        at_origin(units[k]);
        su.deleted_by = remover;
      }
      su.back = judge(k);
      nearest(taken, units[k], su.without);
      for (const std::string& p : units[k].paths)
        if (auto it = taken_unit.find(p); it != taken_unit.end() && units[it->second].patch != units[k].patch &&
                                          removes_all_added(k, it->second))
          su.lines_removed_later = true;
      // A partly applied one is taken out only when a hunk with added lines reads applied: a
      // pure deletion's post-image is its context meeting, as it does before the lines were ever
      // added (lightllm 76096187, f80ad720, a7ab39b5 on the tree before all three, without index
      // lines: the third's deletion of a block the second adds read applied, taking the third
      // out wrote that block, and the second, which moves it, read applied: a false applied).
      auto shown_by_added_lines = [&](const FileReport& fr) {
        if (fr.status != Status::kPartial) return true;
        const std::vector<Hunk>& hunks = units[k].fp->hunks;
        for (std::size_t h = 0; h < fr.hunks.size() && h < hunks.size(); ++h)
          if (fr.hunks[h].match.status == HunkStatus::kApplied && hunks[h].added() > 0) return true;
        return false;
      };
      if (status_in(su.back.status, {Status::kApplied, Status::kPartial}) &&
          shown_by_added_lines(su.back)) {
        su.undo_error = change_file(*units[k].fp, units[k].strip, tree, ctx.cache, Direction::kReverse,
                                    local.match, &in_place, &undo[k], &su.back);
        su.undone = su.undo_error.empty();
        if (su.undone)
          for (const std::string& p : units[k].paths) {
            taken[p] = units[k].patch;
            taken_unit[p] = k;
          }
      }
    }
    if (before != nullptr) *before = tree.changes();
    // Forward: each judged with everything before it put in. `missing` holds, per path, the
    // patch of the nearest earlier file patch put in that the tree did not have. `written`, per
    // path, which unit of this pass wrote each line (LineTag): a unit that reads applied on lines
    // another one wrote, with another change, claims the same lines (claimed_from()): a conflict.
    std::map<std::string, LineTags> written;
    auto claim_words = [&](std::size_t h, std::size_t by) {
      return fmt::format("hunk {} reads applied only on lines that file patch {} of {} wrote in "
                         "this run (two file patches of the run claim the same lines: neither "
                         "git apply nor a second run would take them as a series)",
                         h + 1, units[by].file + 1, describe(report, units[by].patch));
    };
    // Turns the hunks of verdict `fr` (unit k's, judged just now) that stand on lines another
    // unit wrote into conflicts, and then the verdict.
    auto overlaps = [&](std::size_t k, const LineTags& tags, FileReport& fr) {
      if (fr.hunks.size() != units[k].fp->hunks.size()) return;
      for (std::size_t h = 0; h < fr.hunks.size(); ++h) {
        const std::optional<std::size_t> by = claimed_from(tags, units, k, h, fr.hunks[h].match);
        if (!by) continue;
        HunkMatch conflict;
        conflict.status = HunkStatus::kConflict;
        conflict.diagnostic = "claimed-by-run";
        fr.hunks[h].match = std::move(conflict);
        fr.status = Status::kConflict;
        append_reason(fr, claim_words(h, *by));
      }
    };
    for (const std::size_t k : ks) {
      SeriesUnit& su = out.units[k];
      // Applied in the backward pass but not taken out (a drifted hunk: its lines found with
      // other context): when the run's earlier patches, put in, leave its pre-image standing
      // where it belongs, its change is not in the tree (a revert of a patch the tree lacks reads
      // applied by its own lines) and it is put in like any other; else it keeps that verdict.
      std::optional<FileReport> again;
      if (!forward_only[k] && !su.undone && su.back.status == Status::kApplied)
        if (FileReport now = judge(k); now.status == Status::kApplicable) again = std::move(now);
      if (!forward_only[k] && !again && (su.undone || su.back.status == Status::kApplied)) {
        su.verdict = su.back;
        su.from_back = true;
      } else {
        su.verdict = again ? std::move(*again) : judge(k);
        nearest(missing, units[k], su.needs);
        su.without.clear();
        if (su.verdict.target_path)
          if (const auto it = written.find(*su.verdict.target_path); it != written.end())
            overlaps(k, it->second, su.verdict);
      }
      const bool put_in = su.undone || status_in(su.verdict.status,
                                                 {Status::kApplicable, Status::kPartial});
      // A file patch taken out is put back as it was, byte for byte, when its file is still as
      // the backward pass left it (matching its hunks again could place an ambiguous one
      // elsewhere); a partly applied one is then completed.
      const bool restored = su.undone && restore_file(undo[k], tree, ctx.cache);
      if (restored)  // the tree's own lines again
        for (const std::string& p : units[k].paths) written.erase(p);
      if (put_in && (!restored || su.verdict.status == Status::kPartial)) {
        const FileReport* judged = !su.from_back || restored ? &su.verdict : nullptr;
        std::vector<bool> made;  // per path: missing before (an add writes every line)
        for (const std::string& p : units[k].paths) {
          try {
            made.push_back(!exists(tree, p));
          } catch (const Error&) {
            made.push_back(false);  // change_file() says why it cannot write there
          }
        }
        FileUndo wrote;
        su.redo_error = change_file(*units[k].fp, units[k].strip, tree, ctx.cache, Direction::kForward,
                                    local.match, &in_place, &wrote, judged);
        if (su.redo_error.empty() && judged == nullptr && wrote.valid)
          // Matched again here (taken out, its file since changed): the hunks it finds made
          // must not stand on what an earlier file patch of this pass wrote either.
          if (const auto it = written.find(wrote.path); it != written.end())
            for (std::size_t h = 0; h < wrote.matches.size() && su.redo_error.empty(); ++h)
              if (const auto by = claimed_from(it->second, units, k, h, wrote.matches[h]))
                su.redo_error = claim_words(h, *by);
        for (std::size_t i = 0; i < units[k].paths.size(); ++i) {
          const std::string& p = units[k].paths[i];
          if (!su.redo_error.empty()) {
            written.erase(p);  // nothing is followed further on a path the run cannot write
          } else if (wrote.valid && wrote.path == p) {
            LineTags tags = retag(written[p], *units[k].fp, wrote, k);
            if (tags.empty()) written.erase(p);
            else written[p] = std::move(tags);
          } else if (made[i] && units[k].fp->change == ChangeKind::kAdd &&
                     units[k].fp->hunks.size() == 1) {
            written[p] = LineTags(units[k].fp->hunks.front().added(), LineTag{k + 1, 0});
          } else {
            written.erase(p);  // a move or a mode: the pass does not follow these lines
          }
        }
      }
      if (!su.from_back && put_in && su.redo_error.empty())
        for (const std::string& p : units[k].paths) missing[p] = units[k].patch;
      if (placed[k] == Placed::kAmbiguous) {
        su.ambiguous = true;
        append_reason(su.verdict,
                      "the tree cannot tell whether this change was made: a file it needs is "
                      "missing both before this run makes it and after the run takes it away "
                      "again; judged as not made");
      } else if (placed[k] == Placed::kWithAmbiguous) {
        su.ambiguous = true;
        append_reason(su.verdict,
                      "the tree cannot tell whether this change was made: the file is there both "
                      "before it and after it, and another file of this patch is missing both "
                      "before this run makes it and after the run takes it away again; judged as "
                      "not made, as that one is");
      }
      if (forward_only[k]) {  // nothing of it was in the tree to take out
        su.back = su.verdict;
        if (su.back.status == Status::kApplied || su.back.status == Status::kPartial)
          su.back.status = Status::kApplicable;
      }
    }
  };
  const std::vector<std::vector<std::size_t>> groups =
      every_unit || handles.empty() ? std::vector<std::vector<std::size_t>>{}
                                    : series_components(units);
  if (groups.size() < 2) {
    std::vector<std::size_t> every(n);
    for (std::size_t k = 0; k < n; ++k) every[k] = k;
    Context ctx{*out.tree, local, cache, nullptr, &in_place};
    passes(every, *out.tree, ctx, &out.before);
    return out;
  }
  // Units on unrelated paths, on several threads: each takes the next group (largest first)
  // and runs the passes over it in an overlay of its own, over its own handle on the tree and
  // with a cache of its own (the calling thread: `base` and `cache`). out.tree and out.before
  // stay empty (judge_series() reads the verdicts only).
  std::vector<std::size_t> order(groups.size());
  for (std::size_t g = 0; g < order.size(); ++g) order[g] = g;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return groups[a].size() > groups[b].size();
  });
  const std::size_t lanes = std::min(handles.size() + 1, groups.size());
  std::vector<std::unique_ptr<FileCache>> caches;  // lane 0's is `cache`
  for (std::size_t lane = 1; lane < lanes; ++lane) caches.push_back(std::make_unique<FileCache>());
  for_each_shared(order.size(), static_cast<unsigned>(lanes), [&](std::size_t lane, std::size_t g) {
    const Tree& lane_base = lane == 0 ? base : *handles[lane - 1];
    OverlayTree overlay(lane_base);
    Context ctx{overlay, local, lane == 0 ? cache : *caches[lane - 1], nullptr, &in_place};
    passes(groups[order[g]], overlay, ctx, nullptr);
  });
  return out;
}

void judge_series(const std::vector<Patch>& patches, VerifyReport& report, Context& ctx,
                  std::span<const Tree* const> handles) {
  if (report.patches.size() < 2 &&
      (report.patches.empty() || report.patches[0].files.size() < 2))
    return;
  apply_series_verdicts(
      run_series(patches, report, ctx.tree, ctx.options, false, &ctx.cache, handles), report);
}

namespace {

/// A tree's `applied` that rests on a drifted hunk (found with its context differing) while the
/// series, with the run's earlier patches put in, finds every hunk's pre-image exactly where it
/// belongs: the context differs because those patches are not in the tree, and the change is not
/// there either. The shape: a revert of a patch the tree lacks reads applied by its own lines
/// (edit, edit, revert, on the tree before all three). The series decides.
bool applied_only_by_drift(const FileReport& tree, const FileReport& series) {
  if (tree.status != Status::kApplied || series.status != Status::kApplicable) return false;
  const bool drifted = std::any_of(tree.hunks.begin(), tree.hunks.end(), [](const HunkReport& h) {
    return h.match.kind == MatchKind::kDrifted;
  });
  return drifted && !series.hunks.empty() &&
         std::all_of(series.hunks.begin(), series.hunks.end(), [](const HunkReport& h) {
           return h.match.status == HunkStatus::kApplicable &&
                  (h.match.kind == MatchKind::kExact || h.match.kind == MatchKind::kFuzz);
         });
}

/// A tree's `applicable` that stands only at an offset, where the series, with the later
/// patches of the run on the file taken out, finds every hunk applied exactly at its header's
/// lines: the pre-image the tree holds elsewhere is lines the later patches made (lmdeploy
/// 6e01560e then d15fcf87 on the tree after both, without index lines: the second rewrote the
/// first's `MODULE_MAP = {` block into one like the block before it, whose end then held the
/// first's pre-image 16 lines down: `partial`, exit 2).
bool applicable_only_at_an_offset(const FileReport& tree, const SeriesUnit& su) {
  const FileReport& series = su.verdict;
  if (tree.status != Status::kApplicable || series.status != Status::kApplied || !su.from_back ||
      su.without.empty() || tree.hunks.empty() || tree.hunks.size() != series.hunks.size())
    return false;
  const bool moved = std::any_of(tree.hunks.begin(), tree.hunks.end(), [](const HunkReport& h) {
    return h.match.status == HunkStatus::kApplicable && h.match.offset != 0;
  });
  return moved &&
         std::all_of(series.hunks.begin(), series.hunks.end(), [](const HunkReport& h) {
           return h.match.status == HunkStatus::kApplied && h.match.kind == MatchKind::kExact &&
                  h.match.offset == 0;
         });
}

}  // namespace

void apply_series_verdicts(const SeriesResult& series, VerifyReport& report) {
  std::set<std::size_t> changed;
  for (const SeriesUnit& su : series.units) {
    if (!su.shared) continue;  // alone on its files: the tree's verdict is the series'
    FileReport& fr = report.patches[su.patch].files[su.file];
    if (su.verdict.status == fr.status) continue;
    // The series explains what the tree alone cannot decide: a file patch that is applied or
    // applicable there keeps that verdict (its change is, or is not, in the tree, whatever other
    // patches of the run do: a patch given twice is not applied because its copy is).
    // Not so for a verdict on a path's absence alone (see SeriesUnit::by_absence), nor for one
    // on a file relocation found that the series judged at the patch's own path, nor where the
    // file's blob id places it (pinned()): an `applied` after the last state the file can be, an
    // `applicable` before the first (a later patch of the run reverted its lines: the series,
    // taking that one out, finds them applied).
    if ((fr.status == Status::kApplied || fr.status == Status::kApplicable) && !su.by_absence &&
        !su.ambiguous &&
        !su.moved_by && !su.brought_by && !su.deleted_by &&
        !applied_only_by_drift(fr, su.verdict) && !applicable_only_at_an_offset(fr, su) &&
        !(su.pinned_out && fr.status == Status::kApplied) &&
        !(su.pinned_in && fr.status == Status::kApplicable && su.from_back &&
          su.verdict.status == Status::kApplied) &&
        !(su.lines_removed_later && fr.status == Status::kApplicable && su.from_back &&
          su.verdict.status == Status::kApplied))
      continue;
    // Applied only once earlier patches of the run are put in: the change is theirs, not the
    // tree's.
    if (!su.from_back && (su.verdict.status == Status::kApplied ||
                          su.verdict.status == Status::kPartial)) {
      std::vector<std::string> names;
      for (std::size_t p : su.needs) names.push_back(describe(report, p));
      if (!names.empty())
        append_reason(fr, fmt::format("its change is made by {} of this run", fmt::join(names, ", ")));
      continue;
    }
    const bool relocated = fr.relocated;
    std::string relocation = fr.relocation;
    std::vector<std::string> candidates = fr.candidates;
    if (su.moved_by) {  // judged at its own path: where relocation found it is a candidate
      if (fr.target_path) candidates.insert(candidates.begin(), *fr.target_path);
      relocation += fmt::format("; not used: {} of this run moves the file there, so it is "
                                "judged where the series has it",
                                describe(report, *su.moved_by));
    }
    if (su.brought_by) {  // judged at its own path: where relocation found it is a candidate
      if (fr.target_path) candidates.insert(candidates.begin(), *fr.target_path);
      relocation += fmt::format("; not used: {} of this run brings a file to the path the "
                                "patch names, so it is judged there",
                                describe(report, *su.brought_by));
    }
    if (su.deleted_by) {  // judged at its own path: where relocation found it is a candidate
      if (fr.target_path) candidates.insert(candidates.begin(), *fr.target_path);
      relocation += fmt::format("; not used: {} of this run deletes the file at the path the "
                                "patch names, so it is judged there before that deletion",
                                describe(report, *su.deleted_by));
    }
    fr = su.verdict;
    fr.relocated = relocated && !su.moved_by && !su.brought_by && !su.deleted_by;
    fr.relocation = std::move(relocation);
    fr.candidates = std::move(candidates);
    std::vector<std::string> names;
    if (su.from_back) {
      for (std::size_t p : su.without) names.push_back(describe(report, p));
      append_reason(fr, names.empty()
                            ? std::string("judged as the series leaves the tree")
                            : fmt::format("{} once {} {} taken out (it changes these lines "
                                          "again)",
                                          to_string(fr.status), fmt::join(names, ", "),
                                          names.size() == 1 ? "is" : "are"));
    } else {
      for (std::size_t p : su.needs) names.push_back(describe(report, p));
      if (!names.empty())
        append_reason(fr, fmt::format("{} once {} {} applied", to_string(fr.status),
                                      fmt::join(names, ", "), names.size() == 1 ? "is" : "are"));
      else
        append_reason(fr, fmt::format("{} after the earlier sections of this patch for the file",
                                      to_string(fr.status)));
      PatchReport& pr = report.patches[su.patch];
      for (std::size_t p : su.needs)
        if (std::find(pr.depends_on.begin(), pr.depends_on.end(), p) == pr.depends_on.end())
          pr.depends_on.push_back(p);
    }
    changed.insert(su.patch);
  }
  for (std::size_t i : changed) {
    PatchReport& pr = report.patches[i];
    std::sort(pr.depends_on.begin(), pr.depends_on.end());
    std::vector<Status> statuses;
    std::vector<Presence> presences;
    for (const FileReport& fr : pr.files) {
      statuses.push_back(fr.status);
      presences.push_back(fr.presence);
    }
    pr.status = combine(statuses);
    pr.presence = combine_presence(presences);
  }
}

}  // namespace sm120check::detail

namespace sm120check {

namespace {

ApplyPlan plan_apply_once(const std::vector<Patch>& patches, const Tree& target,
                          const VerifyOptions& options, Direction direction) {
  using namespace detail;
  const StatCache tree(target);
  ApplyPlan plan;
  plan.direction = direction;
  // The tree's verdicts first, then the series passes over every file patch once: they give
  // both the series verdicts (as verify() with options.series) and the tree apply writes.
  VerifyOptions alone = options;
  alone.series = false;
  FileCache cache;
  plan.report = verify_with(patches, tree, alone, cache);
  const SeriesResult series = run_series(patches, plan.report, tree, options, true, &cache);
  if (options.series) apply_series_verdicts(series, plan.report);
  plan.report.series = options.series;
  const VerifyReport& report = plan.report;
  auto where = [&](std::size_t i, const FileReport* f) {
    const std::string name = describe(report, i);
    if (!f) return name;
    if (f->target_path) return fmt::format("{}: {}", name, *f->target_path);
    // No tree path (an error): the patch's path, stripped as the patch was.
    const std::string& named = f->new_path != "/dev/null" ? f->new_path : f->old_path;
    const std::optional<std::string> stripped = strip_path(named, report.patches[i].strip);
    return fmt::format("{}: {}", name, stripped ? *stripped : named);
  };
  plan.patch_blocked.assign(report.patches.size(), false);
  for (std::size_t i = 0; i < report.patches.size(); ++i) {
    const PatchReport& pr = report.patches[i];
    if (!pr.error.empty()) {
      plan.blockers.push_back(fmt::format("{}: {}", where(i, nullptr), pr.error));
      plan.patch_blocked[i] = true;
    }
    for (const FileReport& f : pr.files)
      if (f.status == Status::kError) {
        plan.blockers.push_back(fmt::format("{}: error: {}", where(i, &f), f.reason));
        plan.patch_blocked[i] = true;
      }
  }
  const bool forward = direction == Direction::kForward;
  for (const SeriesUnit& su : series.units) {
    // Reverse, a file patch the series says is not in the tree (applicable once the ones
    // before it are in) has nothing to take out, whatever it reads in the backward pass.
    const bool judged_back = !forward && su.verdict.status != Status::kApplicable;
    const FileReport& f = judged_back ? su.back : su.verdict;
    const std::string at = where(su.patch, &report.patches[su.patch].files[su.file]);
    if (f.status == Status::kConflict || f.status == Status::kUnknown ||
        f.status == Status::kError) {
      std::string why = f.reason;
      for (const HunkReport& h : f.hunks) {  // the hunks that stop it, with their near miss
        const HunkMatch& m = h.match;
        if (m.status != HunkStatus::kConflict && m.status != HunkStatus::kUnknown) continue;
        std::string one = fmt::format("hunk {} (@@ -{},{} +{},{} @@) {}", h.index, h.old_start,
                                      h.old_lines, h.new_start, h.new_lines, to_string(m.status));
        if (!m.diagnostic.empty()) one += " (" + m.diagnostic + ")";
        else if (m.closest_line != 0)
          one += fmt::format(" (nearest: {} at line {}, {} of {} lines agree)",
                             m.closest_image == Image::kPre ? "pre-image" : "post-image",
                             m.closest_line, m.closest_agree, m.closest_lines);
        if (const std::string words = presence_words(m); !words.empty()) one += ": " + words;
        why += (why.empty() ? "" : "; ") + one;
      }
      plan.blockers.push_back(fmt::format("{}: {}{}", at, to_string(f.status),
                                          why.empty() ? "" : ": " + why));
      plan.patch_blocked[su.patch] = true;
    } else if (forward && !su.redo_error.empty()) {
      plan.blockers.push_back(fmt::format("{}: cannot be applied: {}", at, su.redo_error));
      plan.patch_blocked[su.patch] = true;
    } else if (judged_back && !su.undo_error.empty()) {
      plan.blockers.push_back(fmt::format("{}: cannot be taken out: {}", at, su.undo_error));
      plan.patch_blocked[su.patch] = true;
    }
  }
  // What apply prints is `report`: forward, a file patch it shows as a conflict or unknown
  // stops the run even where the series pass found a way to write it (the two are one
  // judgement today; this keeps apply from ever printing `conflict` and writing, as --map once
  // did: new-user review fu30).
  if (forward)
    for (std::size_t i = 0; i < report.patches.size(); ++i)
      for (const FileReport& f : report.patches[i].files)
        if (!plan.patch_blocked[i] &&
            (f.status == Status::kConflict || f.status == Status::kUnknown)) {
          plan.blockers.push_back(fmt::format("{}: {}{}", where(i, &f), to_string(f.status),
                                              f.reason.empty() ? "" : ": " + f.reason));
          plan.patch_blocked[i] = true;
        }
  const std::map<std::string, OverlayTree::Node>& nodes =
      forward ? series.tree->changes() : series.before;
  for (const auto& [path, node] : nodes) {
    const Entry base = tree.stat(path);
    FileChange c;
    c.path = path;
    // What the path holds as the run read it (the bytes the new content was made from), for
    // write_changes() to check that nobody changed it meanwhile.
    std::optional<std::string> file_bytes, link_target;
    FileChange::Before before;
    if (base.type == Entry::Type::kFile) {
      file_bytes = cache.get(path, [&, &p = path] { return tree.read(p); }).content();
      before.type = FileChange::Before::Type::kFile;
      before.blob_id = git_blob_id(*file_bytes);
    } else if (base.type == Entry::Type::kSymlink) {
      link_target = tree.read_link(path);
      before.type = FileChange::Before::Type::kSymlink;
      before.blob_id = git_blob_id(*link_target);
    }
    if (base.type != Entry::Type::kDirectory && base.type != Entry::Type::kOther)
      c.before = std::move(before);
    if (!node.content) {
      if (base.type == Entry::Type::kMissing) continue;
      c.kind = FileChange::Kind::kDelete;
      plan.changes.push_back(std::move(c));
      continue;
    }
    const std::uint32_t mode = node.symlink      ? kModeSymlink
                               : node.executable ? kModeExecutable
                                                 : kModeRegular;
    if (base.type == Entry::Type::kFile && !node.symlink && base.executable == node.executable &&
        *file_bytes == *node.content)
      continue;
    if (base.type == Entry::Type::kSymlink && node.symlink && *link_target == *node.content)
      continue;
    c.kind = FileChange::Kind::kWrite;
    c.content = *node.content;
    const bool same_mode = (base.type == Entry::Type::kFile && !node.symlink &&
                            base.executable == node.executable) ||
                           (base.type == Entry::Type::kSymlink && node.symlink);
    if (!same_mode) c.mode = mode;
    plan.changes.push_back(std::move(c));
  }
  // Writes before deletes: a rename is a write of the new path and a delete of the old one, and
  // a kill between the two must leave the file under one of its names (write_changes() commits
  // in order).
  std::stable_partition(plan.changes.begin(), plan.changes.end(),
                        [](const FileChange& c) { return c.kind == FileChange::Kind::kWrite; });
  return plan;
}

}  // namespace

void write_plan(const ApplyPlan& plan, OverlayTree& tree) {
  for (const FileChange& c : plan.changes) {
    if (c.kind == FileChange::Kind::kDelete) {
      tree.remove(c.path);
      continue;
    }
    const bool executable = c.mode ? *c.mode == kModeExecutable : tree.stat(c.path).executable;
    tree.write(c.path, c.content, executable, c.mode && *c.mode == kModeSymlink);
  }
}

ApplyPlan plan_apply(const std::vector<Patch>& patches, const Tree& target,
                     const VerifyOptions& options, Direction direction) {
  ApplyPlan plan = plan_apply_once(patches, target, options, direction);
  if (plan.changes.empty() || !plan.blockers.empty()) return plan;
  // The result must be stable: written, it is what the series leaves, so planning again there
  // plans nothing and refuses nothing. Where hunks match again in what this plan writes (tiny
  // images that stand at other offsets of the result, lines two file patches of the run both
  // claim), a second run would write again; where the result does not read as the series'
  // end (a line written past the end that a second run looks for at its header line only, an
  // added NUL byte that makes the file binary), a second run would refuse, and verify would not
  // read the patches in. Either way nothing is written.
  OverlayTree after(target);
  write_plan(plan, after);
  VerifyOptions again = options;
  if (const std::optional<unsigned> strip = plan.report.common_strip()) again.strip = strip;
  const ApplyPlan second = plan_apply_once(patches, after, again, direction);
  const std::string_view run = direction == Direction::kForward ? "apply" : "apply --reverse";
  if (!second.changes.empty()) {
    std::string paths;
    for (const FileChange& c : second.changes) paths += (paths.empty() ? "" : ", ") + c.path;
    plan.blockers.push_back(fmt::format(
        "the result would not be stable: {} run again on it would change {} again (hunks match "
        "again in what this run writes); nothing is written",
        run, paths));
  } else if (!second.blockers.empty()) {
    plan.blockers.push_back(fmt::format(
        "the result would not be stable: {} run again on it would refuse it ({}); nothing is "
        "written",
        run, second.blockers.front()));
  }
  return plan;
}

}  // namespace sm120check
