// `sm120check log`: the history of a fix along a first-parent history (see git.hpp).
//
// A commit's result depends only on the entries (object id, mode) at the paths the patches
// touch. The walk asks the repository where those entries change along the range (tree
// look-ups, no blob read), takes a status only at those commits, and verifies each file
// patch once per distinct state of its own paths (on worker threads when there are many):
// the answer is exact at every commit, and the cost is one tree descent per commit plus one
// verification per distinct file state.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "sm120check/cpus.hpp"
#include "sm120check/error.hpp"
#include "sm120check/git.hpp"

namespace sm120check {
namespace {

/// Whether a status counts as "the fix is in": the one place to change when verdicts gain a
/// presence (a hunk present although drifted) that should count too.
bool is_applied(Status s) { return s == Status::kApplied; }

/// The label of a file patch's result: the path examined, or the patch's own path.
std::string file_label(const FileReport& f) {
  if (f.target_path) return *f.target_path;
  return f.new_path == "/dev/null" ? f.old_path : f.new_path;
}

/// A file patch's verdict in one state of its paths.
struct FileState {
  Status status = Status::kError;
  std::vector<LogVerdictDetail> details;  ///< log_verdict_details()
};

/// The patches' verdict at one commit: each file patch's state, in patch and file order.
using State = std::vector<const FileState*>;

class Walker {
 public:
  /// `target` opens more repository objects for worker threads (libgit2 objects are used by
  /// one thread at a time). `threads`: 0 = one per CPU, at most kMaxThreads.
  Walker(const GitRepository& repo, std::string target, const std::vector<Patch>& patches,
         std::string prefix, const VerifyOptions& options, unsigned threads)
      : repo_(repo),
        target_(std::move(target)),
        patches_(patches),
        prefix_(std::move(prefix)),
        options_(options),
        threads_(threads) {}

  /// Fixes each patch's strip level from `commit` (detected there unless given), so that the
  /// touched paths are the same at every commit, and splits the patches into file patches.
  void fix_strips(const std::string& commit) {
    std::unique_ptr<Tree> tree = repo_.tree(commit, prefix_, commit.substr(0, 12));
    for (const Patch& p : patches_)
      strips_.push_back(options_.strip ? *options_.strip : detect_strip(p, *tree));
    paths_ = touched_paths(patches_, strips_, prefix_);
    for (std::size_t i = 0; i < patches_.size(); ++i) {
      for (const FilePatch& fp : patches_[i].files) {
        Slot slot;
        slot.patch = i;
        slot.one.source = patches_[i].source;
        slot.one.subject = patches_[i].subject;
        slot.one.message = patches_[i].message;
        slot.one.patch_line = patches_[i].patch_line;
        slot.one.files = {fp};
        for (const std::string& path : touched_paths({slot.one}, {strips_[i]}, prefix_))
          for (std::size_t k = 0; k < paths_.size(); ++k)
            if (paths_[k] == path) slot.paths.push_back(k);
        slots_.push_back(std::move(slot));
      }
    }
    caches_.resize(slots_.size());
    slots_of_path_.resize(paths_.size());
    for (std::size_t f = 0; f < slots_.size(); ++f)
      for (std::size_t k : slots_[f].paths) slots_of_path_[k].push_back(f);
  }

  /// Every path the patches touch (relative to the repository root).
  const std::vector<std::string>& paths() const { return paths_; }

  /// The state at `commit`, whose touched paths have the entries `entries` (parallel to
  /// paths()). Given the state at the commit before, only the file patches with a path in
  /// `changed` (indexes into paths()) are looked up again. A file patch whose paths' entries
  /// were not seen before is queued: its FileState is filled in by verify_pending().
  State plan(const std::string& commit, const std::vector<std::string>& entries,
             const State* before = nullptr, const std::vector<std::size_t>& changed = {}) {
    State s;
    if (before == nullptr) {
      for (std::size_t f = 0; f < slots_.size(); ++f) s.push_back(look_up(f, commit, entries));
      return s;
    }
    s = *before;
    for (std::size_t k : changed)
      for (std::size_t f : slots_of_path_[k]) s[f] = look_up(f, commit, entries);
    return s;
  }

  /// The state at a commit outside the walk (an --in ref), queued as plan() does.
  State plan(const std::string& commit) {
    std::vector<std::string> entries;
    for (const std::vector<PathChange>& c : repo_.path_history({commit}, paths_))
      entries.push_back(c.front().entry);
    return plan(commit, entries);
  }

  /// Verifies every queued file state: on this thread when there are few, else on worker
  /// threads, each with its own repository object, taking the states in commit order (so
  /// that consecutive ones share a revision tree). Throws the first Error a worker met.
  void verify_pending() {
    const std::size_t n = pending_.size();
    unsigned workers = threads_ != 0 ? threads_ : usable_cpus();
    workers = std::clamp<unsigned>(workers, 1, kMaxThreads);
    workers = static_cast<unsigned>(std::min<std::size_t>(workers, n / kStatesPerThread));
    if (!git_supports_threads()) workers = 1;
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto work = [&](const GitRepository& repo) {
      std::unique_ptr<Tree> tree;
      std::string tree_commit;
      for (std::size_t i = next++; i < n; i = next++) {
        const Pending& p = pending_[i];
        if (p.commit != tree_commit) {
          tree = repo.tree(p.commit, prefix_, p.commit.substr(0, 12));
          tree_commit = p.commit;
        }
        *p.out = verify_one(p.slot, *tree);
      }
    };
    if (workers <= 1) {
      work(repo_);
    } else {
      std::vector<std::thread> pool;
      for (unsigned w = 0; w < workers; ++w)
        pool.emplace_back([&] {
          try {
            work(*GitRepository::open(target_));
          } catch (...) {
            std::lock_guard<std::mutex> lock(failure_mutex);
            if (!failure) failure = std::current_exception();
            next = n;  // the others stop after their current state
          }
        });
      for (std::thread& t : pool) t.join();
      if (failure) std::rethrow_exception(failure);
    }
    verified_ += n;
    pending_.clear();
  }

  /// The patches' combined status in `s` (after verify_pending()).
  Status status(const State& s) const {
    std::vector<std::vector<Status>> per_patch(patches_.size());
    for (std::size_t f = 0; f < slots_.size(); ++f)
      per_patch[slots_[f].patch].push_back(s[f]->status);
    std::vector<Status> parts;
    for (std::size_t i = 0; i < patches_.size(); ++i)
      parts.push_back(patches_[i].files.empty() ? Status::kError : combine(per_patch[i]));
    return combine(parts);
  }

  std::size_t verified() const { return verified_; }

 private:
  /// Most worker threads, and the fewest queued states worth one more thread.
  static constexpr unsigned kMaxThreads = 16;
  static constexpr std::size_t kStatesPerThread = 8;

  /// One file patch: a patch holding only it (verified on its own: a file's verdict depends
  /// only on its own paths), and the indexes of its paths in paths_.
  struct Slot {
    std::size_t patch = 0;
    Patch one;
    std::vector<std::size_t> paths;
  };

  /// A file state to verify: file patch `slot` as in `commit`, the verdict going to `out`.
  struct Pending {
    std::size_t slot = 0;
    std::string commit;
    FileState* out = nullptr;
  };

  /// File patch `f`'s state for `entries`, queued for verification when new.
  const FileState* look_up(std::size_t f, const std::string& commit,
                           const std::vector<std::string>& entries) {
    std::string key;
    for (std::size_t k : slots_[f].paths) key += entries[k] + ";";
    auto [it, added] = caches_[f].try_emplace(std::move(key));
    if (added) pending_.push_back({f, commit, &it->second});
    return &it->second;
  }

  FileState verify_one(std::size_t f, const Tree& tree) const {
    const Slot& slot = slots_[f];
    VerifyOptions o = options_;
    o.strip = strips_[slot.patch];
    o.evidence = false;  // log reports no hits
    PatchReport r = verify_patch(slot.one, tree, o);
    FileState fs;
    fs.status = r.files.empty() ? r.status : r.files.front().status;
    if (!r.files.empty()) fs.details = log_verdict_details(r.files.front(), slot.patch + 1);
    return fs;
  }

  const GitRepository& repo_;
  std::string target_;
  const std::vector<Patch>& patches_;
  std::string prefix_;
  const VerifyOptions& options_;
  unsigned threads_ = 0;
  std::vector<unsigned> strips_;
  std::vector<std::string> paths_;
  std::vector<Slot> slots_;
  std::vector<std::vector<std::size_t>> slots_of_path_;  // per path, the file patches with it
  // Per file patch, by its paths' entries; map nodes stay put, so State pointers stay valid.
  std::vector<std::map<std::string, FileState>> caches_;
  std::vector<Pending> pending_;
  std::size_t verified_ = 0;
};

/// The details that differ between two states. Both states are of the same file patches, so
/// their details pair up one to one.
std::vector<LogVerdictChange> differences(const State& before, const State& after) {
  std::vector<LogVerdictChange> out;
  for (std::size_t f = 0; f < before.size(); ++f) {
    const std::vector<LogVerdictDetail>& a = before[f]->details;
    const std::vector<LogVerdictDetail>& b = after[f]->details;
    for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k)
      if (a[k].verdict != b[k].verdict) out.push_back({b[k], a[k].verdict});
  }
  return out;
}

}  // namespace

std::string_view to_string(LogEventKind kind) {
  switch (kind) {
    case LogEventKind::kApplied:
      return "applied";
    case LogEventKind::kReapplied:
      return "reapplied";
    case LogEventKind::kReverted:
      return "reverted";
    case LogEventKind::kRewritten:
      return "rewritten";
    case LogEventKind::kChanged:
      return "changed";
  }
  return "changed";
}

std::vector<LogVerdictDetail> log_verdict_details(const FileReport& file, std::size_t patch) {
  const std::string path = file_label(file);
  std::vector<LogVerdictDetail> out{{patch, path, 0, std::string(to_string(file.status))}};
  for (const HunkReport& h : file.hunks) {
    std::string verdict(to_string(h.match.status));
    if (h.match.kind == MatchKind::kDrifted)
      verdict += " (drifted)";
    else if (h.match.kind != MatchKind::kNone && (h.match.fuzz > 0 || h.match.both_images))
      verdict +=
          fmt::format(" (fuzz {}{})", h.match.fuzz, h.match.both_images ? ", both images" : "");
    out.push_back({patch, path, h.index, std::move(verdict)});
  }
  return out;
}

int LogResult::exit_code() const {
  if (tip.status == Status::kError) return 3;
  if (tip.status == Status::kApplied) return monotone ? 0 : 2;
  return tip.status == Status::kApplicable ? 1 : 2;
}

LogResult find_fixing_commit(const std::vector<Patch>& patches, const std::string& target,
                             const LogOptions& options) {
  std::unique_ptr<GitRepository> repo = GitRepository::open(target);
  LogResult r;
  r.root = repo->root();
  r.range = options.range;
  const std::vector<std::string> commits = repo->first_parent_commits(options.range);
  r.commits = commits.size();
  if (commits.empty()) throw Error(fmt::format("range '{}' holds no commit", options.range));
  Walker walker(*repo, target, patches, repo->prefix_of(target), options.verify, options.threads);
  walker.fix_strips(commits.back());

  // Every change of a touched path's entry, in commit order; a state at each commit with
  // one (and at the oldest), built from the state before.
  const std::vector<std::vector<PathChange>> history = repo->path_history(commits, walker.paths());
  std::vector<std::pair<std::size_t, std::size_t>> entry_changes;  // (commit index, path index)
  for (std::size_t k = 0; k < history.size(); ++k)
    for (const PathChange& c : history[k]) entry_changes.emplace_back(c.commit, k);
  std::sort(entry_changes.begin(), entry_changes.end());
  std::vector<std::string> entries(history.size(), "-");
  std::vector<std::size_t> cursor(history.size(), 0);  // per path, its next change
  std::vector<std::size_t> points;                     // commit indexes with a state
  std::vector<State> states;
  std::vector<std::size_t> changed;
  for (std::size_t i = 0; i < entry_changes.size();) {
    const std::size_t p = entry_changes[i].first;
    changed.clear();
    for (; i < entry_changes.size() && entry_changes[i].first == p; ++i) {
      const std::size_t k = entry_changes[i].second;
      entries[k] = history[k][cursor[k]++].entry;
      changed.push_back(k);
    }
    points.push_back(p);
    states.push_back(
        walker.plan(commits[p], entries, states.empty() ? nullptr : &states.back(), changed));
  }
  if (points.empty()) {  // no path to look at
    points.push_back(0);
    states.push_back(walker.plan(commits[0], entries));
  }
  std::vector<State> ref_states;
  for (const std::string& ref : options.in_refs) {
    LogRefAnswer a;
    a.ref = ref;
    a.commit = repo->resolve_commit(ref);
    ref_states.push_back(walker.plan(a.commit));
    r.in.push_back(std::move(a));
  }
  walker.verify_pending();

  // The timeline: a status change, or a changed verdict while applied, is an event.
  std::vector<Status> statuses;
  for (const State& s : states) statuses.push_back(walker.status(s));
  bool ever_applied = false;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Status now = statuses[i];
    if (i == 0) {
      r.oldest = {repo->commit_info(commits[points[i]]), now};
      if (is_applied(now)) {
        r.applied_at_oldest = ever_applied = true;
        r.first_ever_applied = r.first_applied = r.oldest;
      }
      continue;
    }
    const Status before = statuses[i - 1];
    const bool was = is_applied(before), is = is_applied(now);
    std::optional<LogEventKind> kind;
    if (!was && is) {
      kind = ever_applied ? LogEventKind::kReapplied : LogEventKind::kApplied;
    } else if (was && !is) {
      kind = now == Status::kApplicable || now == Status::kPartial ? LogEventKind::kReverted
                                                                   : LogEventKind::kRewritten;
    } else if (ever_applied && before != now) {
      kind = LogEventKind::kChanged;
    }
    std::vector<LogVerdictChange> changes;
    if (kind || (ever_applied && is)) changes = differences(states[i - 1], states[i]);
    if (!kind && is && !changes.empty()) kind = LogEventKind::kChanged;
    if (!kind) continue;
    LogEvent e;
    e.kind = *kind;
    e.info = repo->commit_info(commits[points[i]]);
    e.before = before;
    e.after = now;
    e.changes = std::move(changes);
    if (e.kind == LogEventKind::kApplied) r.first_ever_applied = LogCommit{e.info, e.after};
    if (e.kind == LogEventKind::kApplied || e.kind == LogEventKind::kReapplied)
      r.first_applied = LogCommit{e.info, e.after};
    if (e.kind == LogEventKind::kReverted || e.kind == LogEventKind::kRewritten) r.monotone = false;
    ever_applied = ever_applied || is;
    r.events.push_back(std::move(e));
  }
  r.tip = {repo->commit_info(commits.back()), statuses.back()};
  if (!is_applied(r.tip.status)) r.first_applied.reset();
  r.evaluated = points.size();
  // Applied at the oldest commit: did it bring the fix in, or is the fix older than the range?
  // Its first parent (A of A..B) tells; a root commit brought it in; a shallow boundary hides it.
  if (r.applied_at_oldest && !r.oldest.info.parent_missing) {
    std::optional<std::string> parent;
    try {
      parent = repo->resolve_commit(r.oldest.info.id + "^");
    } catch (const Error&) {  // no parent: the root commit
    }
    if (parent) {
      const State before = walker.plan(*parent);
      walker.verify_pending();
      ++r.evaluated;
      r.brought_in_by_oldest = !is_applied(walker.status(before));
    } else {
      r.brought_in_by_oldest = true;
    }
  }

  const std::unordered_set<std::string> in_range(commits.begin(), commits.end());
  for (std::size_t k = 0; k < r.in.size(); ++k) {
    LogRefAnswer& a = r.in[k];
    a.status = walker.status(ref_states[k]);
    if (in_range.count(a.commit) == 0) ++r.evaluated;
    a.contains = r.first_applied && repo->contains(a.commit, r.first_applied->info.id);
    // The events lie on one first-parent line, so the ref contains a prefix of them: find the
    // newest one it contains, then the fix and revert up to there.
    std::size_t upto = 0;  // events [0, upto) are contained
    for (std::size_t e = r.events.size(); e-- > 0;) {
      if (r.events[e].kind == LogEventKind::kChanged) continue;
      if (repo->contains(a.commit, r.events[e].info.id)) {
        upto = e + 1;
        break;
      }
    }
    for (std::size_t e = 0; e < upto; ++e) {
      switch (r.events[e].kind) {
        case LogEventKind::kApplied:
        case LogEventKind::kReapplied:
          a.fix_commit = r.events[e];
          a.reverted_by.reset();
          break;
        case LogEventKind::kReverted:
        case LogEventKind::kRewritten:
          a.reverted_by = r.events[e];
          break;
        case LogEventKind::kChanged:
          break;
      }
    }
  }
  r.verified = walker.verified();
  return r;
}

}  // namespace sm120check
