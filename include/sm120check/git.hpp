// Git-native verification: revision trees read through libgit2 (no checkout), repository facts
// for a target inside a work tree, and the history walk of `sm120check log`.
// libgit2 is loaded on first use (src/git/libgit2.hpp); nothing here writes to the repository.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
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
  std::vector<std::string> dirty;
};

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
};

/// One commit's answer in a `log` run.
struct LogCommit {
  CommitInfo info;
  Status status = Status::kError;
};

/// Whether the fixing commit is in a ref (`--in`).
struct LogRefAnswer {
  std::string ref;
  std::string commit;              ///< the ref's commit.
  bool contains = false;           ///< the fixing commit is the ref's commit or an ancestor of it.
  Status status = Status::kError;  ///< the patches' status at the ref itself.
};

/// Result of `log`: which commit brought the fix in.
struct LogResult {
  std::string root;                ///< repository root.
  std::string range;               ///< as given.
  std::size_t commits = 0;         ///< first-parent commits in the range.
  std::size_t verified = 0;        ///< distinct file states verified (the rest were cache hits).
  std::size_t evaluated = 0;       ///< commits whose status was looked at.
  LogCommit tip;                   ///< the newest commit of the range.
  bool monotone = true;            ///< no sampled commit contradicts the bisection.
  bool applied_at_oldest = false;  ///< already applied at the oldest commit of the range.
  std::optional<LogCommit> first_applied;  ///< first commit from which it stays applied.
  std::vector<LogRefAnswer> in;
  /// 0 found (monotone); 1 not applied at the tip (applicable); 2 not monotone, or the tip is
  /// partial, conflict or unknown; 3 error at the tip.
  int exit_code() const;
};

/// Walks the first-parent history of `options.range` in the repository holding `target` and
/// finds the first commit from which `patches` stay applied: bisection when the statuses are
/// monotone, checked by sampling; an exact backward scan when a sample contradicts it. Throws
/// Error for an unknown revision or a target outside any repository.
LogResult find_fixing_commit(const std::vector<Patch>& patches, const std::string& target,
                             const LogOptions& options);

}  // namespace sm120check
