// Git-native verification: revision trees read through libgit2 (no checkout), repository facts
// for a target inside a work tree, and the history walk of `sm120check log`.
// libgit2 is loaded on first use (src/git/libgit2.hpp); nothing here writes to the repository.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sm120check/patch.hpp"
#include "sm120check/tree.hpp"
#include "sm120check/verify.hpp"

namespace sm120check {

/// The directory holding a `.git` entry (directory or file) at or above `path`, found with
/// stat(2) only (libgit2 is not loaded); std::nullopt when there is none or `path` is missing.
std::optional<std::string> find_git_work_tree(const std::string& path);

/// Facts about the repository a target lies in (JSON "repository").
struct RepositoryFacts {
  std::string root;                   ///< work tree root (the git directory for a bare one).
  std::string head;                   ///< HEAD's commit id (40 hex), empty when HEAD is unborn.
  std::optional<std::string> branch;  ///< short branch name; std::nullopt when detached.
  /// Paths (relative to root) touched by the patches that have uncommitted changes (modified,
  /// staged, untracked or deleted): their work-tree content, not HEAD's, decides the answer.
  /// A path inside a submodule (nested_work_tree_of()) counts when it has uncommitted changes
  /// in the submodule, or the submodule's HEAD is not the commit HEAD here records for it.
  /// A file flagged `git update-index --assume-unchanged` or `--skip-worktree` counts when its
  /// disk copy differs from the index, although `git status` does not show it: the verdict
  /// reads the disk copy.
  std::vector<std::string> dirty;
  /// Touched paths the index has, flagged skip-worktree, that are absent from
  /// the work tree (a sparse checkout left them out): git calls them unchanged, not deleted,
  /// but the work-tree answer reads them as missing files. Sorted; empty when `dirty_unknown`.
  std::vector<std::string> not_checked_out;
  /// Why `dirty` cannot be told (then it is empty and means nothing), e.g. a split index, which
  /// neither the reader here nor libgit2 1.5 reads; "" when it is known.
  std::string dirty_unknown;
};

/// A git work tree's repository and index opened once for several reads from its git
/// directory (index_blob_ids(), read_work_tree_facts()): the configuration files are read, the
/// index is mapped (a snapshot: git replaces its index by rename, so the mapping keeps the
/// bytes it had when opened) and, for an index searched rather than walked, where its entries
/// end is found once (at 100k entries the cache tree found from the end costs as much as the
/// search). Opening it first, while the patches are still being read, takes that work off the
/// verification's path. What a reader would decline for (a reftable, core.worktree, a split
/// index, ...) is kept for each reader to decline. Its readers take it const; one thread at a
/// time.
class WorkTreeIndex {
 public:
  struct State;
  explicit WorkTreeIndex(std::unique_ptr<State> state);
  ~WorkTreeIndex();
  WorkTreeIndex(const WorkTreeIndex&) = delete;
  WorkTreeIndex& operator=(const WorkTreeIndex&) = delete;
  const State& state() const { return *state_; }

 private:
  std::unique_ptr<State> state_;
};

/// Opens the repository of the work tree at `root` (as find_git_work_tree() gives it) for
/// index_blob_ids() and read_work_tree_facts(); nullptr where neither reads it (no git
/// directory, a reftable, a bare repository, core.worktree, core.ignorecase, another object
/// format or ref storage, a configuration not understood). A missing index is no error (the
/// readers then decline). Never throws.
std::shared_ptr<const WorkTreeIndex> open_work_tree_index(const std::string& root);

/// The facts of the work tree at `root` (a directory holding `.git`, as find_git_work_tree()
/// gives it) for `paths` (relative to root), read from the git directory without libgit2: HEAD
/// and its branch (loose refs, packed-refs, `.git` files of worktrees and submodules), and the
/// touched paths' index entries (index versions 2-4) against their files' stat data, hashing a
/// file only when the stat data cannot vouch for it. It costs a pass over the index, none over
/// the work tree. std::nullopt when it cannot tell as `git status -- PATHS` would (e.g. a split
/// or sparse index, an untracked touched path, attributes on a file to hash, a staged change,
/// HEAD's commit deltified in a pack): the caller then asks GitRepository::facts().
std::optional<RepositoryFacts> read_work_tree_facts(const std::string& root,
                                                    const std::vector<std::string>& paths);
/// read_work_tree_facts() from an opened repository (open_work_tree_index()).
std::optional<RepositoryFacts> read_work_tree_facts(const WorkTreeIndex& repository,
                                                    const std::vector<std::string>& paths);

/// The blob ids the git index of the work tree at `root` (as find_git_work_tree() gives it)
/// vouches for, for `paths` (relative to the tree verified, `prefix` + path relative to
/// `root`: see GitRepository::prefix_of()): an entry's id is given for a file whose stat data,
/// taken once its content was read, are those the entry holds (KnownBlobIds::id()), as `git
/// status` trusts them, and only for a stage-0 regular file with no skip-worktree,
/// assume-unchanged or intent-to-add flag, not racily clean (hashed before the index was
/// written), and no attributes or end-of-line settings that may filter it. nullptr when none,
/// or when the index is not read here (split or sparse, another object format, ...). Reads
/// the index for these paths only; never throws.
std::shared_ptr<const KnownBlobIds> index_blob_ids(const std::string& root,
                                                   const std::string& prefix,
                                                   const std::vector<std::string>& paths);
/// index_blob_ids() from an opened repository (open_work_tree_index()).
std::shared_ptr<const KnownBlobIds> index_blob_ids(const WorkTreeIndex& repository,
                                                   const std::string& prefix,
                                                   const std::vector<std::string>& paths);

/// Whether the work tree at `root` has a split index (`git update-index --split-index`): its
/// index (in `.git`, or where a `.git` file points) has a "link" extension. A `sharedindex.*`
/// file alone does not count: git leaves one after `--no-split-index`, to expire after two
/// weeks. Neither read_work_tree_facts() nor libgit2 1.5 reads a split index: the uncommitted
/// files are then unknown (RepositoryFacts::dirty_unknown). Reads the whole index (a walk, no
/// hashing); never throws.
bool work_tree_may_have_split_index(const std::string& root);

/// The folder of another work tree that `path` (relative to the work tree at `root`) lies in:
/// the shallowest folder above it, below `root`, holding a `.git` entry (a submodule's `.git`
/// file, or a repository cloned inside), as "dir/sub" (relative to root, no trailing slash).
/// std::nullopt when there is none. Git's status of `root` says nothing about such a path: its
/// own repository does. lstat(2) only, one per folder level; never throws.
std::optional<std::string> nested_work_tree_of(const std::string& root, const std::string& path);

/// Whether the work tree at `root` may have a sparse index (`git sparse-checkout
/// --sparse-index`, config index.sparse=true): its entries for folders outside the cone
/// ("sdir") are read neither by read_work_tree_facts() nor by libgit2 1.5, which calls a
/// modified file clean: the uncommitted files are then unknown. Never throws.
bool work_tree_may_have_sparse_index(const std::string& root);

/// Where one path's tree entry changes along a list of commits (GitRepository::path_history).
struct PathChange {
  std::size_t commit = 0;  ///< index into the commit list: the entry holds from this commit on.
  std::string entry;       ///< "OID:MODE" (40 hex, octal mode), or "-" when the path is absent.
};

/// Short commit information, for `log`.
struct CommitInfo {
  std::string id;          ///< 40 hex digits.
  std::string subject;     ///< first line of the message.
  std::int64_t time = 0;   ///< committer time, seconds since the epoch.
  int offset_minutes = 0;  ///< committer time zone offset.
  /// The commit has a parent that is not in the repository: the boundary of a shallow clone
  /// (`git clone --depth`), before which the history is unknown here.
  bool parent_missing = false;
};

/// An open repository. Not thread-safe. Trees returned by tree() keep it alive.
class GitRepository {
 public:
  /// Opens the repository containing `path` (searching upwards; bare repositories too). Throws
  /// Error(path, 0, "not in a git repository ...") when there is none.
  static std::unique_ptr<GitRepository> open(const std::string& path);
  virtual ~GitRepository() = default;

  /// Work tree root (without trailing slash), or the git directory of a bare repository.
  virtual std::string root() const = 0;
  /// `path` (an existing directory) relative to root(), "" for the root itself, with a trailing
  /// "/" otherwise: the prefix patch paths get when TARGET is a subfolder.
  virtual std::string prefix_of(const std::string& path) const = 0;
  /// The commit `rev` names (sha, abbreviated sha, tag, branch, HEAD~3, origin/main, ...), as
  /// 40 hex digits. Throws Error("unknown revision 'REV' in ROOT: ...").
  virtual std::string resolve_commit(const std::string& rev) const = 0;
  /// The tree of `commit_id` under `prefix` (see prefix_of) as a read-only Tree named `name`.
  /// stat(): 100644 file, 100755 executable, 120000 symlink, 040000 directory; a 160000
  /// gitlink (submodule) reads as a file holding "Subproject commit <id>\n", the text git
  /// diffs show for it, so submodule pointer changes are verified like text.
  virtual std::unique_ptr<Tree> tree(const std::string& commit_id, const std::string& prefix,
                                     const std::string& name) const = 0;
  /// HEAD, branch and the `paths` (relative to root) with uncommitted changes.
  virtual RepositoryFacts facts(const std::vector<std::string>& paths) const = 0;
  /// The first-parent commits of `range` ("B", or "A..B": from B back, stopping at commits
  /// reachable from A), oldest first. Throws Error for an unknown revision.
  virtual std::vector<std::string> first_parent_commits(const std::string& range) const = 0;
  /// True when `commit` is `of` or one of its ancestors.
  virtual bool contains(const std::string& of, const std::string& commit) const = 0;
  virtual CommitInfo commit_info(const std::string& commit_id) const = 0;
  /// A key naming the state of `paths` (relative to root) in `commit_id`: each path's entry as
  /// in PathChange, ";"-terminated. Equal keys mean equal verification results.
  virtual std::string state_key(const std::string& commit_id,
                                const std::vector<std::string>& paths) const = 0;
  /// For each of `paths` (relative to root), the indexes of `commits` at which its tree entry
  /// differs from the one in the commit before in the list (index 0 always), with the entry.
  /// Tree look-ups only, no blob is read; a subtree whose id equals the previous commit's is not
  /// descended into, so consecutive commits of one history cost little more than their root
  /// trees. Throws Error for a commit that cannot be read.
  virtual std::vector<std::vector<PathChange>> path_history(
      const std::vector<std::string>& commits, const std::vector<std::string>& paths) const = 0;
};

/// Whether the loaded libgit2 was built thread-safe (GIT_FEATURE_THREADS): then repository
/// objects opened separately may be used from different threads at once. Loads libgit2.
bool git_supports_threads();

/// The repository paths (prefix + stripped, normalised patch path) each file of `report`
/// touches, both sides; for dirty checks and state keys.
std::vector<std::string> touched_paths(const std::vector<Patch>& patches,
                                       const std::vector<unsigned>& strips,
                                       const std::string& prefix);

/// One revision's verification (`verify --rev`).
struct RevisionReport {
  std::string rev;     ///< as given.
  std::string commit;  ///< 40 hex digits.
  VerifyReport report;
};

/// Options of `sm120check log`.
struct LogOptions {
  std::string range = "HEAD";        ///< "TIP" or "A..B".
  std::vector<std::string> in_refs;  ///< refs asked about with --in.
  VerifyOptions verify;
  /// Threads verifying distinct file states (each with its own repository object); 0 = one
  /// per CPU, at most 16. Few states are verified on the calling thread.
  unsigned threads = 0;
};

/// One commit's answer in a `log` run.
struct LogCommit {
  CommitInfo info;
  Status status = Status::kError;
};

/// What a commit of the walked history did to the fix (LogEvent::kind).
enum class LogEventKind {
  kApplied,    ///< not applied -> applied, the first time in the range.
  kReapplied,  ///< not applied -> applied after an earlier kReverted or kRewritten.
  /// applied -> applicable or partial: the pre-image is back in some or all files (a revert).
  kReverted,
  /// applied -> conflict, unknown or error: neither image matches any more (the fix's lines
  /// were reworked, moved away, or reverted together with other changes).
  kRewritten,
  /// After the first kApplied: the touched files changed and the verdict details changed
  /// (log_verdict_details()) while the status stayed applied, or the status changed between
  /// two not-applied statuses (e.g. applicable -> conflict after a revert).
  kChanged,
};

/// "applied", "reapplied", "reverted", "rewritten", "changed".
std::string_view to_string(LogEventKind kind);

/// One item of a file patch's verdict that `log` compares between two states of its files.
struct LogVerdictDetail {
  std::size_t patch = 1;  ///< 1-based index of the patch in the run.
  std::string path;       ///< the file's path as examined (after stripping).
  std::size_t hunk = 0;   ///< 1-based hunk index; 0 for the file itself.
  /// "applied", "conflict", ... (Status or HunkStatus); hunks add " (fuzz F[, both images])".
  std::string verdict;
};

/// A verdict detail that differs between two commits.
struct LogVerdictChange {
  LogVerdictDetail at;  ///< where, and the verdict after.
  std::string before;   ///< the verdict before.
};

/// One step of a fix's history: a first-parent commit and what it did.
struct LogEvent {
  LogEventKind kind = LogEventKind::kChanged;
  CommitInfo info;
  Status before = Status::kError;  ///< status at the commit before it (first parent).
  Status after = Status::kError;   ///< status at the commit.
  /// The verdict details that differ from the commit before, in patch, file and hunk order.
  std::vector<LogVerdictChange> changes;
};

/// The answer for one `--in REF`: is the fix in REF, and why.
struct LogRefAnswer {
  std::string ref;
  std::string commit;              ///< the ref's commit.
  Status status = Status::kError;  ///< the patches' status at the ref itself: the answer.
  /// LogResult::first_applied is the ref's commit or an ancestor of it.
  bool contains = false;
  /// The newest kApplied or kReapplied event of the range that the ref contains.
  std::optional<LogEvent> fix_commit;
  /// The newest kReverted or kRewritten event after fix_commit that the ref contains.
  std::optional<LogEvent> reverted_by;
  bool applied() const { return status == Status::kApplied; }
};

/// Result of `log`: the fix's history along the first-parent commits of a range.
struct LogResult {
  std::string root;         ///< repository root.
  std::string range;        ///< as given.
  std::size_t commits = 0;  ///< first-parent commits in the range.
  /// Distinct states of a file patch's paths that were verified (per file patch; the rest
  /// were cache hits).
  std::size_t verified = 0;
  /// Commits at which a status was taken: the oldest, each commit where the touched paths'
  /// entries change, --in refs outside the range, and the oldest commit's parent when the
  /// patches are applied at the oldest; every other commit has its parent's.
  std::size_t evaluated = 0;
  LogCommit tip;     ///< the newest commit of the range.
  LogCommit oldest;  ///< the oldest commit of the range.
  /// Exact: the patches are applied at no commit, or at every commit from one commit on to the
  /// tip and at none before it. False after a kReverted or kRewritten event.
  bool monotone = true;
  bool applied_at_oldest = false;  ///< already applied at the oldest commit of the range.
  /// With applied_at_oldest: the oldest commit brought the fix in, i.e. its first parent (the
  /// commit an A..B range starts from) is not applied, or it has no parent (a root commit).
  /// False when the fix is older than the range, or a shallow clone's boundary hides the parent.
  bool brought_in_by_oldest = false;
  /// The commit from which the patches stay applied to the tip (the newest kApplied or
  /// kReapplied event, or the oldest commit); std::nullopt when not applied at the tip.
  std::optional<LogCommit> first_applied;
  /// The first commit of the range at which the patches are applied (the first kApplied
  /// event, or the oldest commit); std::nullopt when never applied in the range.
  std::optional<LogCommit> first_ever_applied;
  /// What happened from the first applied commit on, oldest first (nothing before it).
  std::vector<LogEvent> events;
  std::vector<LogRefAnswer> in;
  /// 0 applied at the tip, monotone; 1 not applied at the tip (applicable there); 2 applied at
  /// the tip but not monotone, or the tip is partial, conflict or unknown; 3 error at the tip.
  int exit_code() const;
};

/// The details of one file patch's result that `log` compares: the file's status, then each
/// hunk's status, fuzz and both_images. Line numbers and offsets are left out (lines inserted
/// above a fix move it without changing it). The one place to extend when hunk verdicts gain
/// detail (e.g. a match kind).
/// `patch` is stored in each detail.
std::vector<LogVerdictDetail> log_verdict_details(const FileReport& file, std::size_t patch);

/// Walks the first-parent history of `options.range` in the repository holding `target`: the
/// patches' status at every commit, exact, from the commits where the entries of the touched
/// paths change (GitRepository::path_history), each distinct state of a file patch's paths
/// verified once. Throws Error for an unknown revision, an empty range or a target outside any
/// repository.
LogResult find_fixing_commit(const std::vector<Patch>& patches, const std::string& target,
                             const LogOptions& options);

}  // namespace sm120check
