// `sm120check log`: which commit of a first-parent history brought a fix in (see git.hpp).
//
// Statuses are computed on revision trees. A commit's result depends only on the objects at the
// paths the patches touch, so it is cached by a state key (their object ids and modes): walking
// many commits costs tree look-ups, and only distinct file states are verified.
#include <fmt/format.h>

#include <map>

#include "sm120check/error.hpp"
#include "sm120check/git.hpp"

namespace sm120check {
namespace {

constexpr std::size_t kSamples = 16;

class Walker {
 public:
  Walker(const GitRepository& repo, const std::vector<Patch>& patches, std::string prefix,
         const VerifyOptions& options)
      : repo_(repo), patches_(patches), prefix_(std::move(prefix)), options_(options) {}

  /// Fixes each patch's strip level from `commit` (detected there unless given), so that the
  /// touched paths, and with them the state keys, are the same at every commit.
  void fix_strips(const std::string& commit) {
    std::unique_ptr<Tree> tree = repo_.tree(commit, prefix_, commit.substr(0, 12));
    for (const Patch& p : patches_)
      strips_.push_back(options_.strip ? *options_.strip : detect_strip(p, *tree));
    paths_ = touched_paths(patches_, strips_, prefix_);
  }

  Status status(const std::string& commit) {
    auto done = by_commit_.find(commit);
    if (done != by_commit_.end()) return done->second;
    std::string key = repo_.state_key(commit, paths_);
    auto it = by_key_.find(key);
    Status s;
    if (it != by_key_.end()) {
      s = it->second;
    } else {
      std::unique_ptr<Tree> tree = repo_.tree(commit, prefix_, commit.substr(0, 12));
      std::vector<Status> parts;
      for (std::size_t i = 0; i < patches_.size(); ++i) {
        VerifyOptions o = options_;
        o.strip = strips_[i];
        parts.push_back(verify_patch(patches_[i], *tree, o).status);
      }
      s = combine(parts);
      by_key_.emplace(key, s);
      ++verified_;
    }
    by_commit_.emplace(commit, s);
    return s;
  }

  std::size_t verified() const { return verified_; }
  std::size_t evaluated() const { return by_commit_.size(); }

 private:
  const GitRepository& repo_;
  const std::vector<Patch>& patches_;
  std::string prefix_;
  const VerifyOptions& options_;
  std::vector<unsigned> strips_;
  std::vector<std::string> paths_;
  std::map<std::string, Status> by_key_;
  std::map<std::string, Status> by_commit_;
  std::size_t verified_ = 0;
};

}  // namespace

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
  std::vector<std::string> commits = repo->first_parent_commits(options.range);
  r.commits = commits.size();
  if (commits.empty()) throw Error(fmt::format("range '{}' holds no commit", options.range));
  Walker walker(*repo, patches, repo->prefix_of(target), options.verify);
  walker.fix_strips(commits.back());
  auto applied = [&](std::size_t i) { return walker.status(commits[i]) == Status::kApplied; };

  const std::size_t n = commits.size();
  r.tip.info = repo->commit_info(commits.back());
  r.tip.status = walker.status(commits.back());
  if (r.tip.status == Status::kApplied) {
    // Bisection for the first applied commit, assuming not-applied ... applied.
    std::size_t first = 0;
    if (applied(0)) {
      r.applied_at_oldest = true;
    } else {
      std::size_t lo = 0, hi = n - 1;  // !applied(lo), applied(hi)
      while (hi - lo > 1) {
        std::size_t mid = lo + (hi - lo) / 2;
        (applied(mid) ? hi : lo) = mid;
      }
      first = hi;
    }
    // Sampling: evenly spaced commits must agree with the boundary.
    for (std::size_t k = 0; k <= kSamples && r.monotone; ++k) {
      std::size_t i = (n - 1) * k / kSamples;
      if (applied(i) != (i >= first)) r.monotone = false;
    }
    if (!r.monotone) {
      // Exact: the last commit that is not applied, scanning back from the tip (state keys make
      // each step a tree look-up).
      first = 0;
      for (std::size_t i = n - 1; i-- > 0;) {
        if (!applied(i)) {
          first = i + 1;
          break;
        }
      }
      r.applied_at_oldest = first == 0;
    }
    r.first_applied = LogCommit{repo->commit_info(commits[first]), Status::kApplied};
  }
  for (const std::string& ref : options.in_refs) {
    LogRefAnswer a;
    a.ref = ref;
    a.commit = repo->resolve_commit(ref);
    a.contains = r.first_applied && repo->contains(a.commit, r.first_applied->info.id);
    a.status = walker.status(a.commit);
    r.in.push_back(std::move(a));
  }
  r.verified = walker.verified();
  r.evaluated = walker.evaluated();
  return r;
}

}  // namespace sm120check
