// `scan`: discovery (discover.cpp), then every catalog entry judged per install by the verdict
// rules of patches/catalog/README.md, each file read once, its comments blanked, and searched
// for all markers on its code (and on whole lines, for markers that are comment text).
#include "sm120check/scan.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "discover.hpp"
#include "sm120check/code_text.hpp"
#include "sm120check/error.hpp"
#include "sm120check/kernels.hpp"

namespace sm120check {

std::string_view to_string(InstallKind kind) {
  switch (kind) {
    case InstallKind::kDistribution:
      return "distribution";
    case InstallKind::kEditable:
      return "editable";
    case InstallKind::kCheckout:
      return "checkout";
    case InstallKind::kSourceTree:
      return "source";
  }
  return "?";
}

std::string_view to_string(ObjectSource source) {
  switch (source) {
    case ObjectSource::kRecord:
      return "record";
    case ObjectSource::kPackageFolders:
      return "package-folders";
    case ObjectSource::kWalk:
      return "walk";
  }
  return "?";
}

std::optional<KernelFit> worst_fit(const std::vector<FileFit>& fits) {
  std::optional<KernelFit> worst;
  for (const FileFit& f : fits)
    if (!f.judged.empty() && (!worst || f.fit > *worst)) worst = f.fit;
  return worst;
}

std::string_view to_string(FixVerdict verdict) {
  switch (verdict) {
    case FixVerdict::kPresent:
      return "present";
    case FixVerdict::kMissing:
      return "missing";
    case FixVerdict::kNotInstalled:
      return "not-installed";
    case FixVerdict::kUnknown:
      return "unknown";
  }
  return "?";
}

std::optional<bool> entry_relevant(const CatalogEntry& entry, const GpuReport& gpu) {
  if (gpu.devices.empty()) return std::nullopt;
  for (const GpuDevice& d : gpu.devices)
    if (std::find(entry.capabilities.begin(), entry.capabilities.end(), d.cc) !=
        entry.capabilities.end())
      return true;
  return false;
}

void assess_relevance(ScanReport& report) {
  const auto assess = [&](FixResult& f) {
    f.relevant = entry_relevant(report.catalog.entries[f.entry], report.gpu);
    f.skipped = report.only_relevant && f.relevant == false;
  };
  for (InstallReport& i : report.installs)
    for (FixResult& f : i.fixes) assess(f);
  for (FixResult& f : report.not_installed) assess(f);
  ScanKernels& k = report.kernels;
  k.capabilities = report.gpu.capabilities();
  k.driver_cuda_version = report.gpu.driver_version;
  for (KernelGroup& g : k.groups) {
    g.fits.clear();
    for (const KernelListing& object : g.objects) {
      std::vector<FileFit> fits;
      for (const ComputeCapability& cc : k.capabilities)
        fits.push_back(file_fit(object, cc, k.driver_cuda_version));
      g.fits.push_back(std::move(fits));
    }
  }
}

ScanSummary ScanReport::summary() const {
  ScanSummary s;
  for (const InstallReport& i : installs)
    for (const FixResult& f : i.fixes) {
      if (f.skipped) ++s.skipped;
      switch (f.verdict) {
        case FixVerdict::kPresent:
          ++s.present;
          break;
        case FixVerdict::kMissing:
          ++s.missing;
          break;
        case FixVerdict::kUnknown:
          ++s.unknown;
          break;
        case FixVerdict::kNotInstalled:
          ++s.not_installed;
          break;
      }
    }
  s.not_installed += not_installed.size();
  for (const KernelGroup& g : kernels.groups)
    for (std::size_t i = 0; i < g.objects.size(); ++i) {
      if (!g.objects[i].error.empty()) ++s.kernel_errors;
      if (g.objects[i].fatbins.empty()) continue;
      ++s.kernel_objects;
      const std::optional<KernelFit> worst =
          i < g.fits.size() ? worst_fit(g.fits[i]) : std::nullopt;
      if (worst == KernelFit::kNone) ++s.kernel_no_image;
      if (worst == KernelFit::kPartial) ++s.kernel_partial;
      if (worst == KernelFit::kPtxJit) ++s.kernel_ptx_jit;
      if (worst.value_or(KernelFit::kPartial) < KernelFit::kPartial && i < g.fits.size() &&
          std::any_of(g.fits[i].begin(), g.fits[i].end(),
                      [](const FileFit& f) { return f.not_compared != 0; }))
        ++s.kernel_not_compared;
    }
  return s;
}

int ScanReport::exit_code() const {
  bool missing = false, unknown = false;
  for (const InstallReport& i : installs)
    for (const FixResult& f : i.fixes) {
      if (f.skipped) continue;
      missing = missing || f.verdict == FixVerdict::kMissing;
      unknown = unknown || f.verdict == FixVerdict::kUnknown;
    }
  const ScanSummary s = summary();
  missing = missing || s.kernel_no_image > 0 || s.kernel_partial > 0;
  unknown = unknown || s.kernel_errors > 0 || s.kernel_not_compared > 0 || !walk.complete();
  return missing ? 1 : unknown ? 2 : 0;
}

namespace {

using scan_detail::FoundInstall;
using scan_detail::ObjectSet;

/// The reason of an entry whose fix ships in no file of a wheel (ahead of what the kernel
/// listing says).
constexpr std::string_view kCompiledWhy =
    "compiled into the binary (no file of this fix ships in a wheel)";

/// Files opened and waiting to be listed at once (list_ahead()): descriptors held at most.
constexpr std::size_t kListingBatch = 64;

/// A file's listing made ahead by list_ahead(), or the Error list_kernels_at() threw for it;
/// `shown` is the path it was listed under.
struct ListedAhead {
  std::string shown;
  KernelListing listing;
  std::optional<Error> error;
};

/// The objects list_objects() reads, listed ahead on kernel_threads() threads (for_each_
/// concurrently(): kListingBatch files at a time, opened here, on the calling thread, which
/// alone uses the trees). The sets are gone through as list_objects() does: each (tree, path)
/// once, each file (device, inode) at its first path; a path that is not a regular file or
/// cannot be opened or examined is left to list_objects(), which meets it again. Peak memory:
/// the listings, plus kernel_threads() decompression buffers (see kernel_threads()).
std::map<std::pair<dev_t, ino_t>, ListedAhead> list_ahead(const std::vector<ObjectSet>& sets) {
  std::map<std::pair<dev_t, ino_t>, ListedAhead> ahead;
  std::set<std::pair<const Tree*, std::string>> seen;
  struct Job {
    OpenFile file;
    ListedAhead* out;
    off_t size;
  };
  std::vector<Job> batch;
  const auto flush = [&] {
    // Largest first: the threads end together (one large library left for last would be
    // listed on one thread).
    std::stable_sort(batch.begin(), batch.end(),
                     [](const Job& a, const Job& b) { return a.size > b.size; });
    for_each_concurrently(batch.size(), [&](std::size_t k) {
      ListedAhead& out = *batch[k].out;
      try {
        out.listing = list_kernels_at(batch[k].file.fd(), out.shown);
      } catch (const Error& e) {
        out.error = e;
      }
    });
    batch.clear();
  };
  for (const ObjectSet& set : sets) {
    for (const std::string& path : set.paths) {
      const std::string shown = set.group.outside_target ? set.tree->name() + "/" + path : path;
      const auto link = set.links.find(path);
      const std::string& real = link == set.links.end() ? path : link->second;
      if (!seen.emplace(set.tree, real).second) continue;
      try {
        if (set.tree->stat(real).type != Entry::Type::kFile) continue;
        OpenFile file = set.tree->open_file(real);
        struct stat st {};
        if (::fstat(file.fd(), &st) != 0) continue;
        const auto [it, added] = ahead.try_emplace({st.st_dev, st.st_ino});
        if (!added) continue;
        it->second.shown = shown;
        batch.push_back({std::move(file), &it->second, st.st_size});
      } catch (const Error&) {
        continue;
      }
      if (batch.size() == kListingBatch) flush();
    }
  }
  flush();
  return ahead;
}

/// Lists the objects of `sets` into out.groups, and counts them. Each file is read once,
/// known by its device and inode: a path two sets name, or two paths of one file (a hard link,
/// a bind mount, an editable source reached both through TARGET and by another path), are one
/// object. A distribution's group lists every object its RECORD or package folders name (a
/// file two distributions name is listed in both); a source tree's group (an editable install
/// or checkout) leaves out a file another group lists (a venv inside the project's own tree
/// holds its distributions' objects: they are theirs), and lists each file once. A path that
/// is missing or not a regular file (a RECORD naming files laid out elsewhere; a symlink,
/// listed where its target lies) is counted as absent, except a RECORD symlink of
/// ObjectSet::links, read where it leads inside its tree; an object that cannot be opened or
/// mapped is kept with its error.
void list_objects(std::vector<ObjectSet>& sets, ScanKernels& out) {
  struct Read {
    KernelListing listing;
    std::size_t owner = 0;  ///< the first group that lists it
  };
  /// (tree, path) -> its file's (device, inode), or std::nullopt when absent; error objects
  /// (not opened) get a key of their own.
  std::map<std::pair<const Tree*, std::string>, std::optional<std::pair<dev_t, ino_t>>> seen;
  std::map<std::pair<dev_t, ino_t>, Read> read;
  std::map<std::pair<const Tree*, std::string>, KernelListing> unopened;
  std::map<std::pair<dev_t, ino_t>, ListedAhead> ahead = list_ahead(sets);
  for (std::size_t n = 0; n < sets.size(); ++n) {
    ObjectSet& set = sets[n];
    KernelGroup g = std::move(set.group);
    const bool source_tree = g.kind != InstallKind::kDistribution;
    std::set<std::pair<dev_t, ino_t>> in_group;
    for (const std::string& path : set.paths) {
      // Shown relative to TARGET, or absolute for a tree outside it.
      const std::string shown = g.outside_target ? set.tree->name() + "/" + path : path;
      // A RECORD symlink inside the tree is read where it leads (discover's object_path()).
      const auto link = set.links.find(path);
      const std::string& real = link == set.links.end() ? path : link->second;
      const std::pair<const Tree*, std::string> at{set.tree, real};
      auto [it, added] = seen.try_emplace(at);
      if (added) {
        try {
          if (set.tree->stat(real).type == Entry::Type::kFile) {
            const OpenFile file = set.tree->open_file(real);
            struct stat st {};
            if (::fstat(file.fd(), &st) != 0) throw Error(shown, 0, "cannot examine the file");
            const std::pair<dev_t, ino_t> id{st.st_dev, st.st_ino};
            if (read.count(id) == 0) {
              Read r;
              r.owner = out.groups.size();
              // Listed ahead under this path (its first): taken; else (the file changed
              // since, a path list_ahead() could not open) listed now.
              if (auto a = ahead.find(id); a != ahead.end() && a->second.shown == shown) {
                ListedAhead listed = std::move(a->second);
                ahead.erase(a);
                if (listed.error) throw *listed.error;
                r.listing = std::move(listed.listing);
              } else {
                r.listing = list_kernels_at(file.fd(), shown);
              }
              read.emplace(id, std::move(r));
            }
            it->second = id;
          }
        } catch (const Error& e) {
          it->second.reset();
          KernelListing& l = unopened[at];
          l.path = shown;
          l.error = e.message();
        }
      }
      if (!it->second) {
        if (auto u = unopened.find(at); u != unopened.end()) {
          ++g.shared_objects;
          g.objects.push_back(u->second);
        } else {
          ++g.absent;
        }
        continue;
      }
      Read& r = read.at(*it->second);
      if (!in_group.insert(*it->second).second) continue;  // one file, twice in this group
      if (source_tree && r.owner != out.groups.size()) continue;  // another group's
      ++g.shared_objects;
      if (r.listing.fatbins.empty() && r.listing.error.empty()) continue;
      KernelListing listing = r.listing;
      listing.path = shown;  // where this group has it
      g.objects.push_back(std::move(listing));
    }
    std::sort(g.objects.begin(), g.objects.end(),
              [](const KernelListing& a, const KernelListing& b) { return a.path < b.path; });
    out.groups.push_back(std::move(g));
  }
  out.shared_objects = read.size() + unopened.size();
  for (const auto& [id, r] : read)
    if (!r.listing.fatbins.empty()) ++out.with_cuda_code;
}

/// "2 of its 5 shared objects carry CUDA code: see its kernels": the kernels of a
/// group, for the reason of a fix compiled into the binary.
std::string group_brief(const KernelGroup& g) {
  std::size_t with_code = 0;
  for (const KernelListing& o : g.objects) with_code += o.fatbins.empty() ? 0u : 1u;
  if (g.shared_objects == 0) return "no shared object in this install";
  if (with_code == 0)
    return fmt::format("none of its {} shared object{} carries CUDA code", g.shared_objects,
                       g.shared_objects == 1 ? "" : "s");
  return fmt::format("{} of its {} shared object{} carr{} CUDA code: see its kernels", with_code,
                     g.shared_objects, g.shared_objects == 1 ? "" : "s",
                     with_code == 1 ? "ies" : "y");
}

/// `"text"` or `regex "text"`, for the reasons.
std::string marker_text(const CatalogMarker& m) {
  return fmt::format("{}\"{}\"", m.regex ? "regex " : "", m.text);
}

/// Where an entry's files are looked up in `install`: `installed` paths (and moved ones) for a
/// distribution, `upstream` paths for a source tree; each once, in order.
std::vector<std::string> candidate_paths(const CatalogEntry& e, InstallKind kind) {
  std::vector<std::string> out;
  const auto add = [&](const std::optional<std::string>& p) {
    if (p && std::find(out.begin(), out.end(), *p) == out.end()) out.push_back(*p);
  };
  for (const CatalogFile& f : e.files) {
    add(kind == InstallKind::kDistribution ? f.installed : std::optional(f.upstream));
    for (const CatalogMove& m : f.moved)
      add(kind == InstallKind::kDistribution ? m.installed : std::optional(m.upstream));
  }
  return out;
}

/// Whether `entry` is judged in `install`: a distribution it names, or a source tree of its
/// project.
bool concerns(const CatalogEntry& e, const Install& install) {
  if (install.kind == InstallKind::kDistribution)
    return std::find(e.matched_distributions.begin(), e.matched_distributions.end(),
                     install.distribution) != e.matched_distributions.end();
  return std::find(install.projects.begin(), install.projects.end(), e.project) !=
         install.projects.end();
}

/// False when the install's source was not read (Install::unreadable).
bool install_readable(const InstallReport& ir) { return ir.install.unreadable.empty(); }

/// One file's hits of every marker: `code` on its code (comments and docstrings blanked,
/// sm120check/code_text.hpp; each hit's text the line as read), `whole` on its whole lines;
/// `whole` is empty when nothing was blanked (then `code` serves for both).
struct FileHits {
  std::vector<MarkerHits> code;
  std::vector<MarkerHits> whole;
  const std::vector<MarkerHits>& lines() const { return whole.empty() ? code : whole; }
};

/// `"text"` (path:line), for a marker found only in comments: the first such line.
std::string comment_only_text(const MarkerFinding& f) {
  std::string s = marker_text(f.marker);
  if (!f.comment_hits.empty())
    s += fmt::format(" (only in a comment or docstring: {}:{})", f.comment_hits.front().path,
                     f.comment_hits.front().line);
  return s;
}

/// Judges the entries of one install, reading each file once.
class InstallJudge {
 public:
  InstallJudge(const FoundInstall& found, const MarkerSearcher& searcher,
               std::size_t max_hits)
      : found_(found), searcher_(searcher), max_hits_(max_hits) {}

  /// `entry` (whose markers start at `first` in the searcher's list) in this install; unknown,
  /// with what its files show, when Python does not import this copy (Install::not_imported).
  FixResult judge(const CatalogEntry& entry, std::size_t index, std::size_t first) {
    FixResult r = judge_files(entry, index, first);
    const std::string& not_imported = found_.install.not_imported;
    if (!not_imported.empty()) {
      r.why = fmt::format("{}; this copy reads {}: {}", not_imported, to_string(r.verdict), r.why);
      r.verdict = FixVerdict::kUnknown;
    }
    return r;
  }

 private:
  FixResult judge_files(const CatalogEntry& entry, std::size_t index, std::size_t first) {
    FixResult r;
    r.entry = index;
    const Install& install = found_.install;
    r.looked_for = candidate_paths(entry, install.kind);
    if (!install.unreadable.empty()) {
      r.why = "source not read: " + install.unreadable;
      return r;
    }
    if (r.looked_for.empty()) {
      r.why = std::string(kCompiledWhy) + "; check kernels";
      return r;
    }
    // The entry's markers over its files: on code, and on whole lines.
    std::vector<MarkerHits> code, whole;
    const std::size_t count = entry.fixed.size() + entry.unfixed.size();
    const auto slice = [&](const std::vector<MarkerHits>& all) {
      const auto from = all.begin() + static_cast<std::ptrdiff_t>(first);
      return std::vector<MarkerHits>(from, from + static_cast<std::ptrdiff_t>(count));
    };
    for (const std::string& path : r.looked_for) {
      const FileHits* found = nullptr;
      try {
        found = search(path);
      } catch (const Error& e) {
        r.why = fmt::format("cannot read {}: {}", path, e.message());
        return r;
      }
      if (found == nullptr) continue;  // no such file
      r.files.push_back(path);
      MarkerSearcher::merge(code, slice(found->code), max_hits_);
      MarkerSearcher::merge(whole, slice(found->lines()), max_hits_);
    }
    if (r.files.empty()) {
      r.why = "none of the entry's files exists here (a release older than the file, or a "
              "file that moved elsewhere)";
      return r;
    }
    // A file of the entry none of whose paths exists (an older release without it, a part of
    // the package not installed): a fixed marker found nowhere may be its, so not found does
    // not mean absent.
    std::vector<std::string> bytecode_only;
    for (const CatalogFile& file : entry.files) {
      std::vector<std::string> paths;
      const bool by_installed = install.kind == InstallKind::kDistribution;
      if (by_installed ? file.installed.has_value() : true)
        paths.push_back(by_installed ? *file.installed : file.upstream);
      for (const CatalogMove& m : file.moved)
        if (by_installed ? m.installed.has_value() : true)
          paths.push_back(by_installed ? *m.installed : m.upstream);
      if (paths.empty()) continue;  // not shipped in this kind of install
      const bool exists = std::any_of(paths.begin(), paths.end(), [&](const std::string& p) {
        return std::find(r.files.begin(), r.files.end(), p) != r.files.end();
      });
      if (!exists && std::find(r.absent_files.begin(), r.absent_files.end(), paths.front()) ==
                         r.absent_files.end())
        r.absent_files.push_back(paths.front());
      // Python imports a sourceless FILE.pyc where FILE.py is absent: that module is there,
      // as bytecode no marker can read.
      if (!exists)
        for (const std::string& p : paths)
          if (p.size() > 3 && p.compare(p.size() - 3, 3, ".py") == 0 && is_file(p + "c")) {
            bytecode_only.push_back(p + "c");
            break;
          }
    }
    bool all_fixed = true, any_unfixed = false, unevaluated = false;
    std::vector<std::string> absent, found_unfixed, unfixed_in_comments;
    for (std::size_t m = 0; m < count; ++m) {
      const bool fixed = m < entry.fixed.size();
      const CatalogMarker& marker = fixed ? entry.fixed[m] : entry.unfixed[m - entry.fixed.size()];
      // A marker of code counts on code only; a comment marker on whole lines.
      MarkerHits& used = marker.comment ? whole[m] : code[m];
      MarkerFinding f{marker, fixed, std::move(used.hits), used.total, used.error_lines, {}, 0};
      if (!marker.comment && f.total == 0 && whole[m].total > 0) {
        f.comment_hits = std::move(whole[m].hits);
        f.comment_total = whole[m].total;
      }
      if (f.total == 0 && f.error_lines > 0) unevaluated = true;
      if (fixed && f.total == 0) {
        all_fixed = false;
        f.in_absent_file = !r.absent_files.empty();
        absent.push_back(comment_only_text(f));
      }
      if (!fixed && f.total > 0) {
        any_unfixed = true;
        found_unfixed.push_back(marker_text(marker));
      }
      if (!fixed && f.comment_total > 0) unfixed_in_comments.push_back(comment_only_text(f));
      r.markers.push_back(std::move(f));
    }
    const auto listed = [](const std::vector<std::string>& v) {
      std::string s;
      for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
      return s;
    };
    // Unfixed code that stands only in comments (an old line commented out) does not count.
    const std::string commented_out =
        unfixed_in_comments.empty()
            ? std::string()
            : "; unfixed markers only in comments, not counted: " + listed(unfixed_in_comments);
    if (unevaluated) {
      r.verdict = FixVerdict::kUnknown;
      r.why = "a regular expression could not be evaluated on some line (PCRE2 limit)";
    } else if (all_fixed && !any_unfixed && !bytecode_only.empty()) {
      // The fix changes that module too, and Python imports it from bytecode no marker reads:
      // present cannot be told (hostile review hr25: flashinfer-2574 read present with
      // flashinfer/prefill.py shipped only as the parent's prefill.pyc).
      r.verdict = FixVerdict::kUnknown;
      r.why = fmt::format("every fixed marker found ({}), no unfixed one, but the entry's ",
                          entry.fixed.size()) +
              "module stands only as bytecode here (" + listed(bytecode_only) +
              ", imported where the .py is absent): the fix changes it too, and no marker can "
              "read it" +
              commented_out;
    } else if (all_fixed && !any_unfixed) {
      r.verdict = FixVerdict::kPresent;
      r.why = fmt::format("every fixed marker found ({}), no unfixed one", entry.fixed.size()) +
              commented_out;
    } else if (!all_fixed && !r.absent_files.empty() && !any_unfixed) {
      // No unfixed code found, and what was not found may stand in a file this copy lacks.
      r.verdict = FixVerdict::kUnknown;
      r.why = "not found: " + listed(absent) + ", but the entry's file " +
              listed(r.absent_files) +
              " is absent here and may hold it (a release older than the file, or a part of "
              "the package not installed)" +
              commented_out;
    } else if (!all_fixed && (entry.unfixed.empty() || any_unfixed)) {
      r.verdict = FixVerdict::kMissing;
      r.why = "not found: " + listed(absent) +
              (any_unfixed ? "; unfixed code found: " + listed(found_unfixed) : "");
    } else if (all_fixed) {
      r.verdict = FixVerdict::kUnknown;
      r.why = "mixed signals: every fixed marker found, and unfixed code too: " +
              listed(found_unfixed);
    } else {
      r.verdict = FixVerdict::kUnknown;
      r.why = "mixed signals: not found: " + listed(absent) +
              ", and none of the unfixed markers either" + commented_out;
    }
    return r;
  }

  /// Whether `path` (relative to the install's root) is a regular file; false when it cannot
  /// be examined.
  bool is_file(const std::string& path) const {
    try {
      return found_.files.tree->stat(found_.files.path(path)).type == Entry::Type::kFile;
    } catch (const Error&) {
      return false;
    }
  }

  /// The hits of every marker in the file at `path` (relative to the install's root), read,
  /// blanked and searched on first use; nullptr when there is no such file. Throws Error when
  /// it cannot be read.
  const FileHits* search(const std::string& path) {
    if (auto it = files_.find(path); it != files_.end()) return it->second ? &*it->second : nullptr;
    const Tree& tree = *found_.files.tree;
    const std::string at = found_.files.path(path);
    const Entry::Type type = tree.stat(at).type;
    std::optional<FileHits>& slot = files_[path];
    if (type != Entry::Type::kFile && type != Entry::Type::kSymlink) return nullptr;
    const std::string content = tree.read(at);  // a symlink: followed inside the tree only
    const CodeText code = blank_comments(content, comment_syntax_for(path));
    slot.emplace();
    if (code.blanked) {
      slot->code = searcher_.search(path, code.text, content, max_hits_);
      slot->whole = searcher_.search(path, content, max_hits_);
    } else {
      slot->code = searcher_.search(path, content, max_hits_);
    }
    return &*slot;
  }

  const FoundInstall& found_;
  const MarkerSearcher& searcher_;
  std::size_t max_hits_;
  std::map<std::string, std::optional<FileHits>> files_;
};

}  // namespace

ScanReport scan(const std::string& target, Catalog catalog, GpuReport gpu,
                const ScanOptions& options) {
  ScanReport report;
  report.target = target;
  report.catalog = std::move(catalog);
  report.gpu = std::move(gpu);
  report.only_relevant = options.only_relevant;
  std::unique_ptr<Tree> tree = open_disk_tree(target);
  scan_detail::Discovery found = scan_detail::discover(*tree, target, report.catalog, options);
  report.walk = std::move(found.walk);
  report.notes = std::move(found.notes);

  // Every marker of every entry, compiled once: fixed markers, then unfixed ones, per entry.
  const std::vector<CatalogEntry>& entries = report.catalog.entries;
  std::vector<Marker> markers;
  std::vector<std::size_t> first(entries.size());
  for (std::size_t k = 0; k < entries.size(); ++k) {
    first[k] = markers.size();
    for (const auto* list : {&entries[k].fixed, &entries[k].unfixed})
      for (const CatalogMarker& m : *list)
        // crlf: a catalog pattern sees a line as Python's str.splitlines() gives it (the
        // catalog README's truth, bench/catalog_check.py), without a CRLF file's "\r".
        markers.push_back({m.text, m.regex, Marker::Origin::kOption, entries[k].id, true});
  }
  const MarkerSearcher searcher(std::move(markers));

  std::vector<bool> judged(entries.size(), false);
  std::vector<std::optional<std::size_t>> reported(found.installs.size());  // -> report.installs
  for (std::size_t n = 0; n < found.installs.size(); ++n) {
    const FoundInstall& f = found.installs[n];
    InstallReport ir;
    ir.install = f.install;
    InstallJudge judge(f, searcher, options.max_hits_per_marker);
    for (std::size_t k = 0; k < entries.size(); ++k) {
      if (!concerns(entries[k], f.install)) continue;
      judged[k] = true;
      ir.fixes.push_back(judge.judge(entries[k], k, first[k]));
    }
    if (ir.fixes.empty()) continue;
    reported[n] = report.installs.size();
    report.installs.push_back(std::move(ir));
  }
  if (options.kernels) {
    report.kernels_listed = true;
    for (ObjectSet& set : found.objects)
      set.group.install = set.found_install ? reported[*set.found_install] : std::nullopt;
    list_objects(found.objects, report.kernels);
    for (const KernelGroup& g : report.kernels.groups) {
      if (!g.install || !install_readable(report.installs[*g.install])) continue;
      // A fix compiled into the binary: its reason points at the install's kernels.
      for (FixResult& fix : report.installs[*g.install].fixes)
        if (fix.verdict == FixVerdict::kUnknown && fix.looked_for.empty())
          fix.why = std::string(kCompiledWhy) + "; " + group_brief(g);
    }
  }
  for (std::size_t k = 0; k < entries.size(); ++k) {
    if (judged[k]) continue;
    FixResult r;
    r.entry = k;
    r.verdict = FixVerdict::kNotInstalled;
    const CatalogEntry& e = entries[k];
    std::string names;
    for (const std::string& d : e.distributions) names += (names.empty() ? "" : ", ") + d;
    for (const std::string& d : e.matched_distributions)  // the other names it ships under
      if (std::find(e.normalized_distributions.begin(), e.normalized_distributions.end(), d) ==
          e.normalized_distributions.end())
        names += (names.empty() ? "" : ", ") + d;
    r.why = e.distributions.empty()
                ? fmt::format("no checkout of {} found", e.project)
                : fmt::format("no install of {} and no checkout of {} found", names, e.project);
    report.not_installed.push_back(std::move(r));
  }
  assess_relevance(report);
  return report;
}

}  // namespace sm120check
