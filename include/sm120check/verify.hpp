// Verification: per patch, file and hunk, is the fix applied, applicable or conflicting in a tree.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sm120check/apply.hpp"
#include "sm120check/arch.hpp"
#include "sm120check/gpu.hpp"
#include "sm120check/match.hpp"
#include "sm120check/patch.hpp"
#include "sm120check/search.hpp"
#include "sm120check/tree.hpp"
#include "sm120check/write.hpp"

namespace sm120check {

class SpareThreads;

/// Verdict for a file or a patch.
enum class Status {
  kApplied,     ///< every part is already in the tree
  kApplicable,  ///< every part can be applied
  kPartial,     ///< some parts applied, the rest applicable
  kConflict,    ///< some part is neither applied nor applicable
  kUnknown,     ///< cannot be decided from what the patch carries (reason given)
  kError,       ///< could not be verified (reason given)
  /// Patch only: targets other architectures than the GPU's, left out of the verdict and the
  /// exit code by --only-relevant (see assess_arch()). Its files keep their statuses.
  kSkipped,
};
inline constexpr std::size_t kStatusCount = 7;
/// Number of Presence values.
inline constexpr std::size_t kPresenceCount = 4;

/// "applied", "applicable", "partial", "conflict", "unknown", "error", "skipped".
std::string_view to_string(Status status);

/// Options of `sm120check verify`.
/// Most threads one verify() uses (VerifyOptions::threads).
inline constexpr unsigned kMaxVerifyThreads = 16;

struct VerifyOptions {
  /// Strip level (`-p N`); std::nullopt detects it per patch (see detect_strip()).
  std::optional<unsigned> strip;
  /// The levels detect_strip() gives the run's patches, one per patch in order, when the caller
  /// has them already (the CLI needs them before verify() for the architecture inference);
  /// otherwise empty, and verify() detects them. Ignored when `strip` is set.
  std::vector<unsigned> detected_strips;
  /// The file patches --include/--exclude took out of each patch (select_file_patches()'s
  /// `left_out`), one vector per patch in order, or empty: never verified, but a file they
  /// change in place still takes no relocation of a missing file they change the same way
  /// (relocation's twin rule), as if they had stayed.
  std::vector<std::vector<FilePatch>> left_out;
  MatchOptions match;
  /// The tree's directory on disk, for relocation and marker search (search_tree()); empty
  /// disables both (in-memory trees).
  std::string search_root;
  /// Without a search_root: search and relocate through the tree itself (Tree::list() and
  /// Tree::read(); a git revision, `verify --rev` and `log`), one file after the other.
  bool search_in_tree = false;
  /// Look for a file the patch modifies elsewhere in the tree when its path does not exist.
  bool relocate = true;
  /// --map OLD=NEW: path prefixes (after stripping) tried first when relocating.
  std::vector<std::pair<std::string, std::string>> path_map;
  /// Search the tree for every patch's markers (extract_markers() plus `markers`). The search
  /// also runs, without this, for patches with "Marker:" trailers and when `markers` is set.
  bool search_markers = false;
  /// Find each patch's markers (its trailers, --marker/--marker-regex, and those of its added
  /// lines; 64 at most, the first hunks' first) in the files verified for it, without a tree
  /// walk (PatchReport::evidence). `log` turns it off: it reports no hits.
  bool evidence = true;
  /// Judge the run's patches as an ordered series (default): a file patch that shares a file
  /// with another file patch of the run (a later patch, or a repeated section of the same
  /// patch) is judged in the tree as the series leaves it: the later ones that are applied
  /// taken out first, the earlier ones that are not applied put in first, in memory (see
  /// verify()). False (`--independent`) judges each patch alone against the tree.
  bool series = true;
  /// Threads that verify the run's patches at once before the series passes (`-j`): 0 is one
  /// per CPU (at most kMaxVerifyThreads), 1 verifies them one after the other. The report is
  /// the same for every count; more than one is used only over a tree with open_again() and a
  /// run of several patches.
  unsigned threads = 1;
  std::vector<Marker> markers;  ///< --marker / --marker-regex, searched for every patch.
  SearchOptions search;         ///< walk limits; max_hits_per_marker applies to reports.
  /// Each patch's evidence markers (evidence_markers(), one list per patch, in order), when the
  /// caller extracts them ahead on another thread (they depend on the patches and their strip
  /// levels alone: the CLI starts as soon as it has the levels, 0.3 ms before verify() would):
  /// verify() then waits for them where it needs them. Not valid: verify() extracts them.
  std::shared_future<std::vector<std::vector<Marker>>> evidence_markers;
  /// Threads the caller started ahead (SpareThreads::start()), which the first pass gives its
  /// extra threads' work to before it starts threads of its own; retired once it has started
  /// its threads. Null: it starts its own.
  std::shared_ptr<SpareThreads> spare_threads;
};

/// The markers `patch`'s evidence looks for (PatchReport::evidence) at strip level `strip`:
/// `given` (VerifyOptions::markers), then the patch's own (extract_markers()), 64 in all.
std::vector<Marker> evidence_markers(const Patch& patch, unsigned strip,
                                     const std::vector<Marker>& given);

/// One hunk's result.
struct HunkReport {
  std::size_t index = 0;  ///< 1-based position of the hunk in its file patch.
  std::uint32_t old_start = 0, old_lines = 0, new_start = 0, new_lines = 0;
  HunkMatch match;
};

/// One file patch's result.
struct FileReport {
  std::string old_path;                    ///< as in the patch ("/dev/null" for added files).
  std::string new_path;                    ///< as in the patch ("/dev/null" for deleted files).
  std::optional<std::string> target_path;  ///< path examined in the tree, after stripping.
  ChangeKind change = ChangeKind::kModify;
  Status status = Status::kError;
  std::string reason;          ///< why, for anything other than a plain hunk verdict; may be empty.
  std::size_t patch_line = 0;  ///< 1-based line of the file patch in its source.
  std::vector<HunkReport> hunks;
  /// The patch's path does not exist and target_path was found elsewhere (relocation).
  bool relocated = false;
  /// The file the patch modifies (target_path) is not in the tree and was not found elsewhere:
  /// status conflict, its hunks conflict.
  bool missing = false;
  std::string relocation;               ///< why that path was chosen, or why none could be.
  std::vector<std::string> candidates;  ///< paths examined by relocation, best first.
  /// Whether the file's change is in the tree (see file_presence()).
  Presence presence = Presence::kUnknown;
};

/// One patch's result.
struct PatchReport {
  std::string source;
  std::optional<std::string> subject;
  std::size_t patch_line = 0;  ///< where the patch starts in its source, 1-based.
  Status status = Status::kError;
  /// Whether the patch's change is in the tree: combine_presence() over its files; kUnknown
  /// for a patch that could not be verified.
  Presence presence = Presence::kUnknown;
  std::string error;            ///< non-empty when status is kError for the patch as a whole.
  unsigned strip = 1;           ///< strip level used.
  bool strip_detected = false;  ///< chosen by detect_strip() rather than given.
  std::vector<FileReport> files;
  /// The marker search, when it ran: hits per marker (search->markers) and what the walk
  /// skipped; `files` is empty.
  std::optional<SearchResult> search;
  /// Hits of the patch's markers in the files verified for it (the target paths of its file
  /// reports), found without a tree walk (MarkerSearcher over the contents read to verify
  /// them): one entry per marker, hits sorted by path, then line. A marker with no hit there
  /// has an entry with total 0. Empty when the patch has no markers or none of those files
  /// could be read.
  std::vector<MarkerHits> evidence;
  /// Earlier patches of the run (0-based indices into VerifyReport::patches) this patch's
  /// verdict needs: it is applicable only once they, not applied in the tree, are applied
  /// (series judgement, see verify()). Empty when it stands alone.
  std::vector<std::size_t> depends_on;
  /// Paths (at the strip level) of the file patches --include/--exclude left out
  /// (select_file_patches()), in the patch's order: not verified, not in `files`, not counted.
  std::vector<std::string> excluded;
  ArchTargets arch;              ///< architectures the patch targets (see assess_arch()).
  std::optional<bool> relevant;  ///< arch_relevant(arch, gpu); null when unknown.
};

/// Counts of patches per status, indexed by Status.
using Summary = std::array<std::size_t, kStatusCount>;

/// A whole run.
struct VerifyReport {
  std::string target;  ///< the tree's name()
  bool series = true;  ///< judged as a series (VerifyOptions::series)
  std::vector<PatchReport> patches;
  /// The GPU the patches were assessed for (see assess_arch()); std::nullopt when not assessed
  /// (rendered as source "none" without devices).
  std::optional<GpuReport> gpu;

  Summary summary() const;
  /// Counts of patches per presence, indexed by Presence (skipped patches included).
  std::array<std::size_t, kPresenceCount> presence_summary() const;
  /// The process exit code: 0 every patch applied; 1 at least one applicable and none partial,
  /// conflict or unknown; 2 at least one partial, conflict or unknown; 3 any error. Skipped
  /// patches do not count (all skipped, or none: 0).
  int exit_code() const;
  /// The strip level shared by every patch, or std::nullopt when they differ or there are none.
  std::optional<unsigned> common_strip() const;
};

/// The strip level at which the most of the patch's paths exist in `tree`: first the old paths
/// of modified, deleted, renamed and copied files, then, between levels with as many of those,
/// the parent directories of added files. The preferred level is 1 for git patches ("a/", "b/"
/// prefixes) and 0 otherwise; where every old path exists there, it is the answer. At levels
/// of 2 or more other than it, a path of one component (a top-level file, or an added file's
/// top-level folder: `README.md`, `kernels/`) counts for nothing: most trees have one. Ties
/// prefer the preferred level and otherwise the smallest.
/// Levels 0..4 are tried; a level that leaves some path of the patch without a component
/// (`a/.gitignore` at 2) is never chosen. Returns 1 for git patches and 0 otherwise when nothing
/// exists (or the first level that leaves every path a component, when that one does not).
unsigned detect_strip(const Patch& patch, const Tree& tree);

/// Verifies one patch against `tree`; never throws for problems of one file (they become
/// status kError with a reason), and never writes.
PatchReport verify_patch(const Patch& patch, const Tree& tree, const VerifyOptions& options);

/// Verifies every patch in order. With options.series, the patches are a series: file
/// patches that share a file with another file patch of the run are judged again, in memory,
/// as the series leaves the tree. Going from the last to the first, each is judged in the tree
/// with the later ones that were applied (or partly applied) there taken out; then from the
/// first to the last, each not applied is judged in the tree with everything before it put
/// in. So on state k of a linear series, patches 1..k are applied and k+1..n applicable; a
/// patch left out or applied out of order is judged right too. Where the series verdict
/// differs from the tree's alone, it replaces it, the file's reason says why, and
/// PatchReport::depends_on names the patches an applicable one needs.
VerifyReport verify(const std::vector<Patch>& patches, const Tree& tree,
                    const VerifyOptions& options);

/// What `sm120check apply` would do to a tree: the series judged there, and the files that
/// putting in what is missing (kForward) or taking the series out (kReverse) would write.
struct ApplyPlan {
  Direction direction = Direction::kForward;
  VerifyReport report;  ///< the series judged in the tree as it is (verify())
  /// Files to write or delete: the writes, then the deletes (a rename's new file is whole
  /// before its old one goes), each sorted by path; empty when nothing is missing (forward) or
  /// nothing of the series is in the tree (reverse).
  std::vector<FileChange> changes;
  /// Why nothing may be written, one line each ("patch 2 (subject): k.py: conflict: ..."):
  /// a patch or file in error, a file patch that conflicts or cannot be decided (forward), or
  /// one that is in the tree but cannot be taken out (reverse; a drifted hunk). Empty when
  /// `changes` may be written.
  std::vector<std::string> blockers;
  /// Per patch of `report.patches`, true when a blocker names it (its own error, or a file
  /// patch of it that stops the run); a blocker of the whole run (the stability check) names
  /// none. Same length as report.patches.
  std::vector<bool> patch_blocked;
};

/// Plans `apply` (see ApplyPlan): runs verify() and then the series passes over every file
/// patch of the run (not only those that share a file). Forward, the tree after the forward
/// pass; reverse, the tree after the backward pass (last patch first). Only what is missing
/// is written: applied hunks and patches are left alone, so planning again on the result
/// gives no changes. That is checked: a plan with changes is written into an OverlayTree over
/// `tree` (write_plan()) and planned again (a second verify() and series pass, in memory). When
/// that second plan has changes too, or blockers (the result would not read applied: a second
/// `apply` would refuse), a blocker ("the result would not be stable: ...") is added and nothing
/// may be written. Never writes; never throws for problems of one patch or file (they are
/// blockers).
ApplyPlan plan_apply(const std::vector<Patch>& patches, const Tree& tree,
                     const VerifyOptions& options, Direction direction);

/// Puts `plan.changes` into `tree` in order (writes with their mode, or the file's mode where the
/// plan names none; deletes): the tree `apply` leaves, in memory. Never throws.
void write_plan(const ApplyPlan& plan, OverlayTree& tree);

/// Sets report.gpu to `gpu` and, per patch, `arch` (infer_arch_targets() at the patch's strip
/// level) and `relevant` (arch_relevant()). With `only_relevant`, each patch whose relevant is
/// false gets status kSkipped. `patches` are those `report` was made from, in the same order.
void assess_arch(VerifyReport& report, const std::vector<Patch>& patches, GpuReport gpu,
                 bool only_relevant);

/// assess_arch() with the patches' targets already inferred (`arch[i]` by infer_arch_targets()
/// of patch i at `strips[i]`, e.g. on another thread while the patches were verified); a patch
/// whose strip level differs from its report's, or that has no entry, is inferred again here.
void assess_arch(VerifyReport& report, const std::vector<Patch>& patches,
                 std::vector<ArchTargets> arch, const std::vector<unsigned>& strips, GpuReport gpu,
                 bool only_relevant);

/// One rule of `--include` / `--exclude` (git apply's options of the same names).
struct PathRule {
  std::string pattern;  ///< a glob (fnmatch(3) without FNM_PATHNAME: `*` matches `/` too)
  bool include = false;  ///< --include (true) or --exclude (false)
};

/// True when `path` (a tree path, "/"-separated) looks like a test or benchmark file: a folder
/// named tests, test, testing, benchmarks or benchmark, or a file test_*, *_test.*, *_tests.*,
/// conftest.py.
bool looks_like_test(std::string_view path);

/// True when `path` is a test by its own name or folder alone: a folder named tests or test,
/// or a file test_*, *_test.*, *_tests.*, conftest.py (not benchmarks, nor a `testing` package:
/// torch.testing is library code). Relocation by content never takes one for a file that is
/// none.
bool is_test_file(std::string_view path);

/// Whether the file patch at `path` (after the strip level; the new path, or the old one of a
/// deleted file) is used under `rules`, as git apply decides (apply.c use_patch()): the first
/// rule whose pattern matches decides; a path no rule matches is used when no rule is an
/// --include. Empty `rules`: always.
bool path_selected(std::string_view path, const std::vector<PathRule>& rules);

/// Takes out of each patch the file patches `rules` do not select (path_selected() of their
/// path at `strips[i]`; a path the level leaves nothing of is kept); returns per patch the
/// paths taken out, in order (one vector per patch; all empty when `rules` is). `strips` has
/// one level per patch.
/// With `left_out`, also the file patches taken out themselves (one vector per patch), for
/// VerifyOptions::left_out.
std::vector<std::vector<std::string>> select_file_patches(
    std::vector<Patch>& patches, const std::vector<unsigned>& strips,
    const std::vector<PathRule>& rules, std::vector<std::vector<FilePatch>>* left_out = nullptr);

/// Records `excluded` (select_file_patches()'s result, one entry per patch of `report`) in the
/// report: PatchReport::excluded, and status kUnknown (presence unknown, no error: nothing of
/// it was checked; exit 2) for a patch that has no file left.
void mark_excluded(VerifyReport& report, std::vector<std::vector<std::string>> excluded);

/// The status a hunk verdict counts as when hunks are combined into a file status.
Status from_hunk(HunkStatus status);

/// Combines presences (of hunks into a file, of files into a patch): empty -> present; any
/// unknown -> unknown; all present -> present; all absent -> absent; otherwise partial.
Presence combine_presence(const std::vector<Presence>& parts);

/// A file's presence: applied -> present, applicable -> absent, partial -> partial; for a
/// conflict or unknown, its hunks' presences combined (a missing file with hunks: absent);
/// error, or a conflict without hunks: unknown.
Presence file_presence(const FileReport& file);

/// Combines file statuses into a patch status (and hunk verdicts into a file status):
/// any error -> error; else any conflict -> conflict; else any unknown -> unknown; else all
/// applied -> applied; all applicable -> applicable; otherwise partial. Empty -> applied.
Status combine(const std::vector<Status>& parts);

}  // namespace sm120check
