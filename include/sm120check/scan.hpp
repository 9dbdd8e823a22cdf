// `sm120check scan TARGET`: which known SM12x fixes (the catalog, sm120check/catalog.hpp) does
// the software installed under TARGET carry? Discovery finds the installs (site-packages /
// dist-packages distributions, editable installs and the source trees they point at, git
// checkouts of known projects); each catalog entry is then judged per install by the rules of
// patches/catalog/README.md, with evidence lines, and assessed against the GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sm120check/catalog.hpp"
#include "sm120check/gpu.hpp"
#include "sm120check/kernels.hpp"
#include "sm120check/search.hpp"

namespace sm120check {

/// How an install was found, and so which catalog paths apply to it.
enum class InstallKind {
  kDistribution,  ///< a *.dist-info / *.egg-info in site-packages: `installed` paths
  kEditable,      ///< a source tree an editable install points at: `upstream` paths
  kCheckout,      ///< a git checkout found by the walk: `upstream` paths
  /// TARGET itself, without `.git`, when its layout is a catalog project's (a release tarball,
  /// a copy in an image): `upstream` paths; its revision is unknown
  kSourceTree,
};

/// "distribution", "editable", "checkout", "source".
std::string_view to_string(InstallKind kind);

/// HEAD of a git checkout, read from `.git/HEAD`, loose refs and `packed-refs` (a `.git` file's
/// `gitdir:` and the git directory's `commondir` followed) without libgit2.
struct GitHead {
  std::string commit;                 ///< 40 hex digits; "" when unborn or unreadable.
  std::optional<std::string> branch;  ///< short name; std::nullopt when detached.
  std::string error;                  ///< why HEAD could not be read; "" when it was.
};

/// One install of a project found under TARGET.
struct Install {
  InstallKind kind = InstallKind::kDistribution;
  /// Catalog projects whose entries are judged here ("flashinfer"); for a distribution, the
  /// projects of the entries that name it.
  std::vector<std::string> projects;
  /// The distribution (PEP 503 normalised: "flashinfer-python") and its version from
  /// METADATA / PKG-INFO; "" when unknown (a checkout found by the walk).
  std::string distribution;
  std::string version;
  /// For a distribution with several metadata folders in one site-packages (a broken upgrade
  /// left `X-0.2.5.dist-info` beside `X-0.3.1.dist-info`): each folder's version ("" when it
  /// names none), in `found_by`'s order. Empty with one folder. When they differ `version` is
  /// "": which one pip and importlib.metadata report depends on the directory's order.
  std::vector<std::string> metadata_versions;
  /// The directory the catalog paths are relative to: site-packages (kDistribution) or the
  /// source tree's root. Relative to TARGET ("" is TARGET itself) when inside it, else absolute.
  std::string root;
  bool outside_target = false;  ///< `root` is outside TARGET (an editable install's source).
  /// Not read: outside TARGET under ScanOptions::stay_inside, or it could not be opened; why.
  std::string unreadable;
  /// What named it, relative to TARGET: "venv/lib/python3.11/site-packages/X.dist-info", the
  /// `.pth`, `.egg-link` or `direct_url.json` of an editable install, or the `.git` entry.
  std::vector<std::string> found_by;
  std::optional<GitHead> head;  ///< for source trees holding `.git`.
  /// Why Python does not import this copy, when a site-packages holds another copy of its
  /// package that `import` finds first (patches/catalog/README.md has the order: a package
  /// folder in site-packages comes before .pth path lines and __editable__ finders), or why
  /// which copy it imports cannot be told; "" when neither. Its fixes then read unknown with
  /// this reason (and what its own files show).
  std::string not_imported;
  /// For checkouts: "remote" (a remote URL in .git/config names the project's repository) or
  /// "layout" (files of the project's catalog entries exist); "" otherwise.
  std::string identified_by;
  /// Why neither a version nor a revision is known, when neither is and nothing else says so
  /// (`metadata_versions` for ambiguous metadata, GitHead::error for a HEAD not read): a
  /// package folder in site-packages that no *.dist-info / *.egg-info names, a source tree
  /// without `.git`, an editable source without `.git` named by an `.egg-link`. "" otherwise.
  /// Verdicts come from the files, never from a version: this alone does not change them.
  std::string unversioned;
};

/// A fix's verdict in one install (patches/catalog/README.md, "Verdict rules").
enum class FixVerdict { kPresent, kMissing, kNotInstalled, kUnknown };

/// "present", "missing", "not-installed", "unknown".
std::string_view to_string(FixVerdict verdict);

/// What one marker of an entry found in the install's files.
struct MarkerFinding {
  CatalogMarker marker;
  bool fixed = true;             ///< a present-when-fixed marker (else present-when-unfixed).
  std::vector<SearchHit> hits;   ///< paths relative to the install's root; at most 20.
  std::size_t total = 0;         ///< all hits.
  std::size_t error_lines = 0;   ///< lines PCRE2 gave up on (the marker is then not known absent).
  /// For a marker of code (CatalogMarker::comment false) found on no code line: the lines that
  /// hold it once comments and docstrings are counted, which do not count (at most 20 kept) and
  /// their number. Empty and 0 otherwise.
  std::vector<SearchHit> comment_hits;
  std::size_t comment_total = 0;
  /// For a fixed marker found nowhere: a file of the entry is absent here
  /// (FixResult::absent_files), and the marker may stand in it, so its absence is not known.
  bool in_absent_file = false;
};

/// One catalog entry judged in one install (or, with no install, not-installed).
struct FixResult {
  std::size_t entry = 0;  ///< index into ScanReport::catalog.entries.
  FixVerdict verdict = FixVerdict::kUnknown;
  /// Why, one line: for unknown always ("none of the entry's files exists", "compiled into the
  /// binary; check kernels", "mixed signals: ..."); for the others a short account.
  std::string why;
  /// Whether the fix matters for the GPU: some device's capability is among the entry's
  /// compute_capabilities (true), none is (false), no device known (std::nullopt).
  std::optional<bool> relevant;
  bool skipped = false;  ///< left out of the exit code by --only-relevant (relevant is false).
  std::vector<std::string> looked_for;  ///< candidate paths (relative to the root), in order.
  std::vector<std::string> files;       ///< those that exist and were searched.
  /// The entry's files (each by its first candidate path) none of whose paths exists here,
  /// when another of its files does; a file not shipped in this kind of install (`installed`
  /// null) is not counted. A fixed marker found nowhere may stand in one of them.
  std::vector<std::string> absent_files;
  std::vector<MarkerFinding> markers;   ///< fixed markers, then unfixed ones; empty if no file.
};

/// An install and its fixes, in catalog order.
struct InstallReport {
  Install install;
  std::vector<FixResult> fixes;
};

/// Where the shared objects of a kernel group were found.
enum class ObjectSource {
  kRecord,          ///< the paths the distribution's dist-info RECORD lists
  kPackageFolders,  ///< no RECORD: its top_level.txt names' folders and modules in site-packages
  kWalk,            ///< a source tree's files (build outputs), found by the walk
};

/// "record", "package-folders", "walk".
std::string_view to_string(ObjectSource source);

/// The compiled CUDA code of one install or distribution: its shared objects (file names
/// ending ".so" or holding ".so.") that carry CUDA code, each listed by the kernels library
/// (sm120check/kernels.hpp) and judged for the GPU.
struct KernelGroup {
  InstallKind kind = InstallKind::kDistribution;
  /// PEP 503 normalised distribution name and its version ("" when unknown: a checkout); for a
  /// distribution no catalog entry names, both from the dist-info folder's name.
  std::string distribution;
  std::string version;
  std::vector<std::string> projects;  ///< catalog projects, for an install of the catalog
  std::string root;  ///< as Install::root: site-packages, or the source tree's root
  bool outside_target = false;
  ObjectSource source = ObjectSource::kRecord;
  /// Index into ScanReport::installs when the group is the compiled code of an install
  /// reported there (a distribution or source tree of the catalog); std::nullopt otherwise.
  std::optional<std::size_t> install;
  std::size_t shared_objects = 0;  ///< shared objects looked at (their first bytes read)
  /// Paths named (by RECORD) that are missing or not a regular file (a symlink is never
  /// followed): not looked at, not in the exit code.
  std::size_t absent = 0;
  /// The shared objects carrying CUDA code or that could not be read, sorted by path; paths
  /// relative to TARGET, absolute outside it.
  std::vector<KernelListing> objects;
  /// Per object, its FileFit per capability of ScanKernels::capabilities (same order).
  std::vector<std::vector<FileFit>> fits;
};

/// The kernel listing of a scan (ScanReport::kernels).
struct ScanKernels {
  std::vector<KernelGroup> groups;  ///< in walk order
  /// The capabilities the objects are judged for (the GPU's, ascending; empty: not judged).
  std::vector<ComputeCapability> capabilities;
  int driver_cuda_version = 0;      ///< of the probed driver (13000); 0 when unknown
  std::size_t shared_objects = 0;   ///< distinct shared objects looked at, all groups
  std::size_t with_cuda_code = 0;   ///< of them, those with a fat binary
};

/// How the kernels of one object stand for the GPU, for the exit code and the summaries:
/// FileFit::fit of its worst capability, std::nullopt when nothing is judged (no capability
/// known, or no module with a kernel).
std::optional<KernelFit> worst_fit(const std::vector<FileFit>& fits);

/// What the walk visited and where it stopped.
struct WalkStats {
  std::size_t directories = 0;  ///< directories listed.
  std::size_t entries = 0;      ///< names seen in them.
  std::size_t symlinks = 0;     ///< symlinks met and not followed.
  /// Symlinked Python library folders (site-packages, dist-packages, pythonX.Y, a venv's
  /// lib/lib64) that lead outside TARGET, so not followed: "path -> target". Installs there
  /// are not reported.
  std::vector<std::string> outside_symlinks;
  std::size_t depth_limited = 0;  ///< directories not entered: deeper than ScanOptions::max_depth.
  bool truncated = false;       ///< stopped at ScanOptions::max_entries.
  std::vector<std::string> unreadable;  ///< "path: reason" for directories that could not be listed.
  /// "path: reason" for what lists or holds installs and shared objects but was not read: a
  /// .pth, RECORD, direct_url.json, .egg-link or setuptools finder over its read cap, a shared
  /// object a RECORD lists that is a symlink leading outside TARGET (or in a loop), a zip
  /// archive on a .pth path line, a venv's base site-packages outside TARGET (pyvenv.cfg
  /// include-system-site-packages). What they name is not reported, so "nothing missing" is
  /// unknown.
  std::vector<std::string> not_read;

  /// Whether every directory the walk reached was listed and every install list read: no limit
  /// hit (depth, entries), none unreadable, no Python library folder symlinked outside TARGET,
  /// nothing in not_read. An incomplete walk may have missed installs: ScanReport::exit_code()
  /// is then never 0.
  bool complete() const {
    return !truncated && depth_limited == 0 && unreadable.empty() && outside_symlinks.empty() &&
           not_read.empty();
  }
};

/// Options of a scan.
struct ScanOptions {
  /// Deepest directory entered, counted from TARGET (TARGET/a/b is depth 2). A venv's
  /// site-packages is at depth 3, a container's /usr/local/lib/python3.X/dist-packages at 5.
  std::size_t max_depth = 16;
  /// Names listed at most (all directories together) before the walk stops, with a note.
  std::size_t max_entries = 2'000'000;
  /// Do not read editable-install sources outside TARGET (their fixes read unknown).
  bool stay_inside = false;
  /// Leave fixes whose compute capabilities the GPU does not have out of the exit code.
  bool only_relevant = false;
  /// Hits kept per marker for the evidence.
  std::size_t max_hits_per_marker = 20;
  /// List the CUDA code of the installs' shared objects (ScanReport::kernels); --no-kernels.
  bool kernels = true;
};

/// Counts of the fixes of a report by verdict (all installs, and not-installed entries).
struct ScanSummary {
  std::size_t present = 0, missing = 0, unknown = 0, not_installed = 0;
  std::size_t skipped = 0;  ///< fixes left out of the exit code (--only-relevant)
  /// Shared objects with CUDA code (each counted once per group), and of them, by the worst
  /// FileFit::fit over the judged capabilities (worst_fit(), the per-object verdicts): those
  /// with no kernel image (kNone), those with some kernels without an image (kPartial: a
  /// function missing from the cubin loaded or the PTX JIT-compiled), those the GPU runs only
  /// through PTX JIT (kPtxJit); those that could not be read whole; and those whose image fits
  /// but some module's function sets could not be compared (FileFit::not_compared: a missing
  /// kernel would not be seen).
  std::size_t kernel_objects = 0, kernel_no_image = 0, kernel_partial = 0, kernel_ptx_jit = 0;
  std::size_t kernel_errors = 0, kernel_not_compared = 0;
};

/// Result of a scan.
struct ScanReport {
  std::string target;  ///< TARGET as given.
  Catalog catalog;
  GpuReport gpu;
  WalkStats walk;
  std::vector<InstallReport> installs;  ///< in walk order (paths sorted).
  std::vector<FixResult> not_installed;  ///< entries no install concerns, in catalog order.
  std::vector<std::string> notes;        ///< one line each: where the scan was limited or guessed.
  bool only_relevant = false;
  /// False with --no-kernels (ScanOptions::kernels): `kernels` is then empty.
  bool kernels_listed = false;
  ScanKernels kernels;

  ScanSummary summary() const;
  /// 0: every counted fix present (or none installed), no kernel problem and the walk
  /// complete; 1: some counted fix missing, or some shared object with CUDA code has no kernel
  /// image for a GPU known (probed or --cc; FileFit::fit kNone with modules judged: "no kernel
  /// image is available" at run time) or some kernels without one (kPartial); 2: neither, and some counted fix unknown, some shared
  /// object unreadable or malformed, or the walk incomplete (WalkStats::complete(): an install
  /// may have been missed). Counted: every judged fix of an install, except those
  /// --only-relevant skips (relevant false). Not-installed entries never count; objects only
  /// PTX JIT can run do not either (they run, after a slow first start). (3, an error, is the
  /// CLI's: bad catalog, unreadable TARGET.)
  int exit_code() const;
};

/// Whether an entry matters for the GPU(s) of `gpu`: true when some device's compute capability
/// is one of `entry.capabilities`, false when devices are known and none is, std::nullopt when
/// no device is known (--no-gpu, no driver).
std::optional<bool> entry_relevant(const CatalogEntry& entry, const GpuReport& gpu);

/// Sets every fix's `relevant` (entry_relevant() for report.gpu) and `skipped` (with
/// report.only_relevant, relevant false), and judges every listed shared object for
/// report.gpu's capabilities and driver (KernelGroup::fits, ScanKernels::capabilities): for a
/// GPU probed while the scan ran.
void assess_relevance(ScanReport& report);

/// Scans TARGET: walks it once (never writing; a directory symlink is followed only when it
/// leads to a directory inside TARGET that the walk does not reach otherwise, which is then
/// walked at its real path; a Python library folder symlinked outside TARGET is not followed
/// and makes the walk incomplete), finds the installs,
/// judges every entry of `catalog` in each install that concerns it, and assesses relevance for
/// `gpu`. Files are read through DiskTree (openat, O_NOFOLLOW: nothing outside a tree's root is
/// reached through a symlink); each searched file is read once and searched once for all the
/// catalog's markers (one MarkerSearcher). Unless options.kernels is false, lists the CUDA code
/// of the shared objects of every distribution in the site-packages found (its RECORD's paths,
/// else its package folders) and of every source tree of the catalog (the files the walk found
/// under it; outside TARGET, a walk of that tree with the same bounds), each object opened
/// through its tree (Tree::open_file) and read once. Throws Error when TARGET is not a
/// readable directory.
ScanReport scan(const std::string& target, Catalog catalog, GpuReport gpu,
                const ScanOptions& options = {});

}  // namespace sm120check
