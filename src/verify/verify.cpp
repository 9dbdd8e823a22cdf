// Verification of patches against a tree: per file and hunk, applied / applicable / conflict.
// Decision rules per change kind are documented in docs/verify.md.
#include "sm120check/verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "internal.hpp"
#include "sm120check/cpus.hpp"
#include "sm120check/error.hpp"
#include "sm120check/file_names.hpp"
#include "sm120check/markers.hpp"
#include "sm120check/spare_threads.hpp"
#include "sm120check/trace.hpp"

namespace sm120check {

FileReport detail::verify_file(const FilePatch& fp, Context& ctx, unsigned strip) {
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
    const bool gitlink = fp.old_mode == kModeGitlink || fp.new_mode == kModeGitlink;
    if (add && del) {
      fr.status = Status::kError;
      fr.reason = "both sides are /dev/null";
    } else if (gitlink && !tree.gitlinks_as_files()) {
      // A submodule pointer: no file holds it here (Tree::gitlinks_as_files()).
      fr.target_path = new_side.path ? new_side.path : old_side.path;
      fr.status = verify_gitlink(tree, *fr.target_path, fp, fr);
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
      // the name that exists wins, the new one when both do, as the run has them at this
      // file patch (modified_path()).
      const std::string path =
          *old_side.path == *new_side.path
              ? *new_side.path
              : modified_path(fp, *old_side.path, *new_side.path, tree, ctx.in_place);
      fr.target_path = path;
      if (!exists(tree, path) && !relocate(ctx, fp, path, fr)) {
        fr.status = Status::kConflict;
        fr.reason = fmt::format("'{}' does not exist in the target", path);
        fr.missing = true;
        whole_file_hunks(fp, fr, HunkStatus::kConflict, false);
      } else if (!fr.relocated && fr.status != Status::kUnknown) {
        fr.status = verify_existing(ctx, path, fp, fr);
      }
      if (ctx.in_place != nullptr)
        if (const auto it = ctx.in_place->find(&fp); it != ctx.in_place->end())
          append_reason(fr, it->second.why);
    }
  } catch (const Error& e) {
    fr.status = Status::kError;
    fr.reason = e.what();
  } catch (const std::exception& e) {
    fr.status = Status::kError;
    fr.reason = fmt::format("internal error: {}", e.what());
  }
  fr.presence = file_presence(fr);
  return fr;
}

namespace {

using namespace detail;

/// The strip level of `patch`: --strip, or detected.
unsigned strip_of(const Patch& patch, const Context& ctx) {
  return ctx.options.strip ? *ctx.options.strip : detect_strip(patch, ctx.tree);
}

/// A patch's report before its files are verified: an error when it changes no file, else
/// one FileReport per file patch, to be filled in (verify_file()) and then summed up
/// (finish_report()).
PatchReport start_report(const Patch& patch, const VerifyOptions& options, unsigned strip) {
  PatchReport r;
  r.source = patch.source;
  r.subject = patch.subject;
  r.patch_line = patch.patch_line;
  r.strip_detected = !options.strip.has_value();
  r.strip = strip;
  if (!patch.error.empty()) {  // its source could not be read or parsed
    r.status = Status::kError;
    r.error = patch.error;
    return r;
  }
  if (patch.files.empty()) {
    r.status = Status::kError;
    r.error = "patch changes no file";
  } else {
    r.files.resize(patch.files.size());
  }
  return r;
}

/// The patch's status and presence from its files' (all verified).
void finish_report(PatchReport& r) {
  std::vector<Status> statuses;
  std::vector<Presence> presences;
  for (const FileReport& f : r.files) {
    statuses.push_back(f.status);
    presences.push_back(f.presence);
  }
  r.status = combine(statuses);
  r.presence = r.status == Status::kError ? Presence::kUnknown : combine_presence(presences);
}

PatchReport verify_patch_in(const Patch& patch, Context& ctx, unsigned strip) {
  PatchReport r = start_report(patch, ctx.options, strip);
  if (patch.files.empty()) return r;  // an error
  for (std::size_t k = 0; k < patch.files.size(); ++k)
    r.files[k] = verify_file(patch.files[k], ctx, r.strip);
  finish_report(r);
  return r;
}

/// The markers searched for `patch`: --marker/--marker-regex and "Marker:" trailers, plus those
/// of its added lines with --markers. Empty when no search is wanted.
std::vector<Marker> patch_markers(const Patch& patch, unsigned strip,
                                  const VerifyOptions& options) {
  if (!can_search(options)) return {};
  std::vector<Marker> out = options.markers;
  // Without --markers only the trailers are searched: the hunks' markers are not extracted.
  for (Marker& m : extract_markers(patch, strip, options.search_markers ? SIZE_MAX : 0))
    out.push_back(std::move(m));
  return out;
}

/// One walk for the markers of every patch; each report gets its own markers' hits. `done`,
/// when given, is a search already made with every hit kept whose markers start with these
/// (in order): then no walk is made here.
void attach_search(const Tree& tree, std::vector<PatchReport*> reports,
                   const std::vector<std::vector<Marker>>& sets, const VerifyOptions& options,
                   const SearchResult* done = nullptr) {
  std::vector<Marker> all;
  for (const auto& set : sets) all.insert(all.end(), set.begin(), set.end());
  if (all.empty()) return;
  SearchResult found;
  if (done != nullptr) {
    // As if searched here: no file list, at most max_hits_per_marker hits kept (the hits are
    // sorted, and the search keeps the first ones too).
    found = *done;
    found.files.clear();
    found.markers.resize(all.size());
    const std::size_t max = options.search.max_hits_per_marker;
    for (MarkerHits& mh : found.markers)
      if (max != 0 && mh.hits.size() > max) mh.hits.resize(max);
  } else {
    SearchOptions so = options.search;
    so.collect_files = false;
    found = search_target(tree, options, all, so);
  }
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

/// Hits kept per marker in a patch's evidence (the total is exact).
constexpr std::size_t kMaxEvidenceHits = 20;
/// Markers looked for as a patch's evidence at most (trailers and options first, then those
/// of the first hunks): each is a pass over the verified files.
constexpr std::size_t kMaxEvidenceMarkers = 64;

/// The paths a patch's evidence searches, before the existence test: each file report's
/// target path, each once, leaving out files in error.
std::vector<std::string> evidence_candidates(const std::vector<FileReport>& files) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  for (const FileReport& f : files)
    if (f.target_path && f.status != Status::kError && seen.insert(*f.target_path).second)
      out.push_back(*f.target_path);
  return out;
}


/// Hits of the patch's markers in the files verified for it (each file once, as it was read
/// for the verdict): the evidence a person would grep for. A regular expression that does not
/// compile leaves the patch without evidence (the marker search reports it, when asked).
void attach_evidence(const Patch& patch, PatchReport& r, Context& ctx) {
  if (!ctx.options.evidence || r.status == Status::kError) return;
  // The files verified for the patch that exist: with none (every file added and absent, say)
  // there is nothing to search, and no marker is extracted.
  std::vector<std::string> files;
  for (std::string& path : evidence_candidates(r.files))
    if (ctx.tree.stat(path).type == Entry::Type::kFile) files.push_back(std::move(path));
  if (files.empty()) return;
  std::vector<Marker> markers = evidence_markers(patch, r.strip, ctx.options.markers);
  if (markers.empty()) return;
  try {
    const MarkerSearcher searcher(std::move(markers));
    for (const std::string& path : files) {
      const FileText& text = ctx.cache.get(path, [&] { return ctx.tree.read(path); });
      searcher.add(r.evidence, path, text.content(), kMaxEvidenceHits);
    }
  } catch (const Error&) {
    r.evidence.clear();
  }
}

class EarlyEvidence;

/// A patch's evidence (attach_evidence()) searched file by file as each is verified, while its
/// content is in the cache (a run then need not keep every file it read until the end), by
/// whichever thread verified the file; finish() joins the files' hits in file order, and keeps
/// them only when the files searched are those attach_evidence() would search in the final
/// report (the series passes may still change verdicts).
class PatchEvidence {
 public:
  /// The evidence of `patch`, the run's patch number `index`, at strip level `strip`; its
  /// markers from `extracted` when valid (VerifyOptions::evidence_markers: each patch holds a
  /// copy of the future, as threads that wait on one must).
  PatchEvidence(const Patch& patch, std::size_t index, unsigned strip,
                std::shared_future<std::vector<std::vector<Marker>>> extracted)
      : patch_(patch),
        index_(index),
        strip_(strip),
        extracted_(std::move(extracted)),
        files_(patch.files.size()) {}

  /// One file's search: its hits, or why there are none.
  struct Found {
    bool searched = false;  ///< false: no marker, one that does not compile, or failed
    bool failed = false;    ///< the search threw Error
    std::vector<MarkerHits> hits;
  };

  /// Searches `text`, the file at `path`, for the patch's markers. Safe from several threads
  /// at once; waits for the patch's searcher (prepare()).
  Found search(const std::string& path, const FileText& text, const VerifyOptions& options) {
    Found found;
    const MarkerSearcher* searcher = prepare(options);
    if (searcher == nullptr) return found;  // no marker, or one that does not compile
    try {
      found.hits = searcher->search(path, text.content(), kMaxEvidenceHits);
      found.searched = true;
    } catch (const Error&) {
      found.failed = true;
    }
    return found;
  }

  /// After verify_file() of the patch's file `k` (`ctx`: the thread's): searches its file when
  /// attach_evidence() would, given the report so far, or takes `ahead`'s search of that file
  /// (EarlyEvidence: the same search, made while it was verified). Safe from several threads
  /// at once, for different `k`.
  void add(std::size_t k, const FileReport& f, Context& ctx, EarlyEvidence* ahead = nullptr);

  /// Makes the patch's searcher now, as the first add() would (the same markers, whatever the
  /// files): on a thread of its own while the others verify their first files, not by the
  /// first of them to finish one while the others wait for it.
  void prepare_early(const VerifyOptions& options) {
    if (options.evidence) prepare(options);
  }

  /// Sets r.evidence as attach_evidence() does for the final report `r` (`ctx`: the run's).
  void finish(PatchReport& r, Context& ctx) {
    if (!ctx.options.evidence || r.status == Status::kError) return;
    std::vector<std::string> searched;  // as evidence_candidates() of the reports verified
    std::unordered_set<std::string> seen;
    std::vector<MarkerHits> hits;
    bool failed = prepare_failed_;
    for (File& file : files_) {
      if (!file.path || !seen.insert(*file.path).second) continue;
      searched.push_back(*file.path);
      if (failed || !file.searched) {
        failed = failed || file.failed;
        continue;
      }
      MarkerSearcher::merge(hits, std::move(file.hits), kMaxEvidenceHits);
    }
    if (evidence_candidates(r.files) != searched)
      attach_evidence(patch_, r, ctx);
    else if (!failed)
      r.evidence = std::move(hits);
  }

 private:
  struct File {
    std::optional<std::string> path;  ///< its report's target path, when it has one
    bool searched = false;
    bool failed = false;
    std::vector<MarkerHits> hits;
  };

  /// The patch's searcher, made at the first file to search (as attach_evidence(): a patch
  /// none of whose files exists extracts no marker) or by prepare_early(); null without
  /// markers or when one does not compile.
  const MarkerSearcher* prepare(const VerifyOptions& options) {
    std::lock_guard lock(mutex_);
    if (!prepared_) {
      prepared_ = true;
      try {
        std::vector<Marker> markers = extracted_.valid()
                                          ? extracted_.get().at(index_)
                                          : evidence_markers(patch_, strip_, options.markers);
        if (!markers.empty()) searcher_.emplace(std::move(markers));
      } catch (const Error&) {
        prepare_failed_ = true;
      }
    }
    return searcher_ ? &*searcher_ : nullptr;
  }

  const Patch& patch_;
  std::size_t index_;
  unsigned strip_;
  std::shared_future<std::vector<std::vector<Marker>>> extracted_;
  std::vector<File> files_;
  std::mutex mutex_;
  bool prepared_ = false;
  bool prepare_failed_ = false;
  std::optional<MarkerSearcher> searcher_;
};

/// One file's evidence searched by a spare thread (SpareThreads) while the thread that read
/// it verifies it: on the H200 host the 7-file patch's largest file (mha.cu, 137 KB) took
/// 0.46 ms to verify and 0.17 ms more to search, one after the other on the thread that set
/// the run's length. The search is the one PatchEvidence::add() makes; add() takes it when the
/// verdict names the same file, and searches again otherwise (never a stale or other file's
/// hits). The text is held jointly (FileCache::shared()), so it outlives a cache that drops it.
/// How long the main thread spins for work it handed to spare threads before it sleeps
/// (SpareThreads::wait()): the hosts that have spares have cores to spin on.
constexpr std::chrono::microseconds kWaitSpin{300};

class EarlyEvidence {
 public:
  EarlyEvidence() = default;
  EarlyEvidence(const EarlyEvidence&) = delete;
  EarlyEvidence& operator=(const EarlyEvidence&) = delete;
  /// Waits for a search in hand (its thread reads this object and `evidence`).
  ~EarlyEvidence() { wait(); }

  /// For file patch `fp` (strip level `strip`) of the patch `evidence` gathers, verified next
  /// with `ctx`: when it modifies one existing regular file in place and has hunks, reads
  /// that file into ctx's cache (as verify_file() would) and hands its search to a thread of
  /// `spares` that waits for work. False, with nothing read or started, otherwise (no
  /// waiting thread, another kind of change, a read that fails). At most once per object.
  bool start(PatchEvidence& evidence, const FilePatch& fp, unsigned strip, Context& ctx,
             SpareThreads& spares) {
    if (started_ || !ctx.options.evidence || fp.change != ChangeKind::kModify ||
        fp.hunks.empty())
      return false;
    const Resolved old_side = resolve(fp.old_path, strip), new_side = resolve(fp.new_path, strip);
    if (!old_side.path || !new_side.path || *old_side.path != *new_side.path) return false;
    const std::string& path = *new_side.path;
    std::shared_ptr<const FileText> text;
    try {
      if (ctx.tree.stat(path).type != Entry::Type::kFile) return false;
      ctx.cache.read(ctx.tree, path);
      text = ctx.cache.shared(path);
    } catch (const Error&) {
      return false;  // verify_file() reads it again and reports why
    }
    if (!text) return false;
    path_ = path;
    const VerifyOptions& options = ctx.options;
    started_ = spares.run([this, &evidence, text, &options] {
      PatchEvidence::Found found;
      std::exception_ptr failed;
      try {
        found = evidence.search(path_, *text, options);
      } catch (...) {
        failed = std::current_exception();
      }
      std::lock_guard lock(mutex_);
      found_ = std::move(found);
      failed_ = failed;
      done_ = true;
      done_flag_.store(true, std::memory_order_release);
      ready_.notify_one();  // under the lock: the waiter cannot destroy this object before
    });
    return started_;
  }

  /// The search of `path` once done (rethrowing what it threw), or null when none was started
  /// for that path. Taken once.
  std::optional<PatchEvidence::Found> take(const std::string& path) {
    if (!started_ || taken_ || path != path_) return std::nullopt;
    wait();
    taken_ = true;
    if (failed_) std::rethrow_exception(failed_);
    return std::move(found_);
  }

 private:
  void wait() {
    if (!started_) return;
    spin_until(std::chrono::steady_clock::now() + kWaitSpin,
               [this] { return done_flag_.load(std::memory_order_acquire); });
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return done_; });
  }

  bool started_ = false, taken_ = false;
  std::string path_;
  std::mutex mutex_;
  std::condition_variable ready_;
  bool done_ = false;  ///< guarded by mutex_, as found_ and failed_
  std::atomic<bool> done_flag_{false};  ///< done_, read while wait() spins
  PatchEvidence::Found found_;
  std::exception_ptr failed_;
};

void PatchEvidence::add(std::size_t k, const FileReport& f, Context& ctx, EarlyEvidence* ahead) {
  if (!ctx.options.evidence || !f.target_path || f.status == Status::kError) return;
  File& file = files_[k];
  const std::string& path = *f.target_path;
  file.path = path;
  if (ctx.tree.stat(path).type != Entry::Type::kFile) return;
  if (std::optional<Found> found = ahead != nullptr ? ahead->take(path) : std::nullopt) {
    file.searched = found->searched;
    file.failed = found->failed;
    file.hits = std::move(found->hits);
    return;
  }
  const MarkerSearcher* searcher = prepare(ctx.options);
  if (searcher == nullptr) return;  // no marker, or one that does not compile
  try {
    const FileText& text = ctx.cache.get(path, [&] { return ctx.tree.read(path); });
    file.hits = searcher->search(path, text.content(), kMaxEvidenceHits);
    file.searched = true;
  } catch (const Error&) {
    file.failed = true;
  }
}

/// The tree paths that one file patch of a run names and no other (at their strip levels;
/// relocation aside): once it is verified and its evidence searched, verify() reads such a file
/// no more (the series passes judge only files named more than once), so it can leave the
/// run's cache, which then holds the files of a large patch one at a time.
class SingleUse {
 public:
  SingleUse(const std::vector<Patch>& patches, const std::vector<unsigned>& strips) {
    for (std::size_t i = 0; i < patches.size(); ++i)
      for (const FilePatch& fp : patches[i].files)
        for (const std::string& path : paths(fp, strips[i])) ++names_[path];
  }
  /// After file patch `fp` (at `strip`) is verified: drops its files named once from `cache`.
  void done(const FilePatch& fp, unsigned strip, FileCache& cache) const {
    for (const std::string& path : paths(fp, strip))
      if (auto it = names_.find(path); it != names_.end() && it->second == 1) cache.erase(path);
  }

 private:
  static std::vector<std::string> paths(const FilePatch& fp, unsigned strip) {
    std::vector<std::string> out;
    for (const std::string* side : {&fp.old_path, &fp.new_path}) {
      Resolved r = resolve(*side, strip);
      if (r.path && std::find(out.begin(), out.end(), *r.path) == out.end())
        out.push_back(std::move(*r.path));
    }
    return out;
  }
  std::unordered_map<std::string, std::size_t> names_;  ///< file patches naming each path
};

/// verify() over `cache`; with `release`, files named by one file patch of the run leave it
/// once done (SingleUse), else it holds every file read afterwards (verify_with()). With
/// `reopen`, up to `threads` threads verify the file patches, each extra one over its own
/// reopen->open_again() handle (one thread when there is none).
VerifyReport verify_run(const std::vector<Patch>& patches, const Tree& tree,
                        const VerifyOptions& options, FileCache& cache, bool release,
                        const Tree* reopen = nullptr, unsigned threads = 1);

/// The threads verify() uses for `jobs` file patches: options.threads (0: one per CPU), at
/// most kMaxVerifyThreads and one per file patch.
unsigned thread_count(const VerifyOptions& options, std::size_t jobs) {
  unsigned n = options.threads != 0 ? options.threads : usable_cpus();
  n = std::min({std::max(n, 1u), kMaxVerifyThreads,
                static_cast<unsigned>(std::min<std::size_t>(jobs, kMaxVerifyThreads))});
  return std::max(n, 1u);
}

}  // namespace

std::vector<Marker> evidence_markers(const Patch& patch, unsigned strip,
                                     const std::vector<Marker>& given) {
  // At most kMaxEvidenceMarkers: each is a pass over the verified files.
  std::vector<Marker> markers = given;
  for (Marker& m : extract_markers(patch, strip, kMaxEvidenceMarkers)) {
    if (markers.size() >= kMaxEvidenceMarkers) break;
    markers.push_back(std::move(m));
  }
  return markers;
}

PatchReport verify_patch(const Patch& patch, const Tree& tree, const VerifyOptions& options) {
  FileCache cache;
  Context ctx{tree, options, cache};
  const unsigned strip = strip_of(patch, ctx);
  const InPlaceNames in_place = in_place_names(std::span<const Patch>(&patch, 1), {strip}, tree);
  ctx.in_place = &in_place;
  const ModifiedInPlace modified = modified_in_place(std::span<const Patch>(&patch, 1), {strip});
  ctx.modified = &modified;
  PatchReport r = verify_patch_in(patch, ctx, strip);
  attach_evidence(patch, r, ctx);
  attach_search(tree, {&r}, {patch_markers(patch, r.strip, options)}, options);
  return r;
}

VerifyReport verify(const std::vector<Patch>& patches, const Tree& tree,
                    const VerifyOptions& options) {
  const StatCache cached(tree);
  std::size_t file_patches = 0;
  for (const Patch& p : patches) file_patches += p.files.size();
  FileCache cache;
  return verify_run(patches, cached, options, cache, true, &tree,
                    thread_count(options, file_patches));
}

VerifyReport detail::verify_with(const std::vector<Patch>& patches, const Tree& tree,
                                 const VerifyOptions& options, FileCache& cache) {
  return verify_run(patches, tree, options, cache, false);
}

namespace {

/// One file patch of a run: (patch, file) indices.
using FileJob = std::pair<std::size_t, std::size_t>;

/// How much work verifying `fp` is, roughly: 1 + its hunk lines.
std::size_t job_weight(const FilePatch& fp) {
  std::size_t w = 1;
  for (const Hunk& h : fp.hunks) w += h.lines.size();
  return w;
}

/// The run's file patches as the first pass hands them out: with one thread, one group in run
/// order; with more, one group per path (the stripped path each file patch names; /dev/null
/// sides aside), so that a file the run names several times is read by one thread, largest
/// groups (in hunk lines) first so that the last to finish are small.
std::vector<std::vector<FileJob>> file_jobs(const std::vector<Patch>& patches,
                                            const std::vector<unsigned>& strips,
                                            std::size_t threads) {
  std::vector<std::vector<FileJob>> groups;
  std::vector<std::size_t> weight;
  std::unordered_map<std::string, std::size_t> group_of;
  for (std::size_t i = 0; i < patches.size(); ++i)
    for (std::size_t k = 0; k < patches[i].files.size(); ++k) {
      const FilePatch& fp = patches[i].files[k];
      std::size_t g = groups.size();
      if (threads > 1) {
        const Resolved side =
            resolve(is_dev_null(fp.new_path) ? fp.old_path : fp.new_path, strips[i]);
        if (side.path) g = group_of.emplace(*side.path, groups.size()).first->second;
      } else if (!groups.empty()) {
        g = 0;
      }
      if (g == groups.size()) {
        groups.emplace_back();
        weight.push_back(0);
      }
      groups[g].emplace_back(i, k);
      weight[g] += job_weight(fp);
    }
  std::vector<std::size_t> order(groups.size());
  for (std::size_t g = 0; g < order.size(); ++g) order[g] = g;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return weight[a] > weight[b]; });
  std::vector<std::vector<FileJob>> out;
  out.reserve(groups.size());
  for (std::size_t g : order) out.push_back(std::move(groups[g]));
  return out;
}

/// A thread of the run's first pass: its own handle on the tree, its own stat and file caches.
struct Worker {
  Worker(const Tree& handle, const Context& run)
      : tree(handle),
        ctx{tree, run.options, cache, run.relocation_search, run.in_place, run.modified} {}
  StatCache tree;
  FileCache cache;
  Context ctx;
};

VerifyReport verify_run(const std::vector<Patch>& patches, const Tree& tree,
                        const VerifyOptions& options, FileCache& cache, bool release,
                        const Tree* reopen, unsigned threads) {
  // A handle on the tree per extra thread, opened as the threads are known to be needed (each
  // costs system calls); with none to be had, one thread.
  std::vector<std::unique_ptr<Tree>> handles;
  const auto open_handle = [&] {
    std::unique_ptr<Tree> handle = reopen != nullptr ? reopen->open_again() : nullptr;
    if (handle) handles.push_back(std::move(handle));
    return handles.size();
  };
  if (threads > 1 && open_handle() == 0) threads = 1;
  VerifyReport report;
  report.target = tree.name();
  report.series = options.series;
  report.patches.reserve(patches.size());
  Context ctx{tree, options, cache};
  std::vector<unsigned> strips;
  std::vector<std::vector<Marker>> sets;  // searched once below, for all patches
  const bool detected = !options.strip && options.detected_strips.size() == patches.size();
  for (std::size_t i = 0; i < patches.size(); ++i) {
    strips.push_back(detected ? options.detected_strips[i] : strip_of(patches[i], ctx));
    sets.push_back(patch_markers(patches[i], strips.back(), options));
  }
  // The searchers of the patches' evidence (marker extraction: a fifth of a 7-file patch's
  // run, 0.5 ms on the H200 host) are made on a thread of their own from here when the run has
  // several and the caller did not extract the markers ahead (VerifyOptions::evidence_markers),
  // while the files to relocate are found and the first files verified: made by the thread
  // that verifies files, they delayed them, and a file's search waits for its patch's searcher
  // anyway (PatchEvidence::prepare()).
  std::vector<std::unique_ptr<PatchEvidence>> evidence;
  for (std::size_t i = 0; i < patches.size(); ++i)
    evidence.push_back(
        std::make_unique<PatchEvidence>(patches[i], i, strips[i], options.evidence_markers));
  std::future<void> prepared;
  if (threads > 1 && options.evidence && !options.evidence_markers.valid())
    prepared = std::async(std::launch::async, [&evidence, &options] {
      const trace::Span span("evidence-prepare");
      for (const std::unique_ptr<PatchEvidence>& e : evidence) e->prepare_early(options);
    });
  std::optional<trace::Span> span(std::in_place, "in-place-names");
  const InPlaceNames in_place = in_place_names(patches, strips, tree);
  ctx.in_place = &in_place;
  const ModifiedInPlace modified = modified_in_place(patches, strips, &options.left_out);
  ctx.modified = &modified;
  span.emplace("relocation");
  // Every file to relocate, found before any is verified, so that the tree is walked once
  // for all of them and the patches' markers (reading every file is what a large tree costs,
  // not the matching). Without patch markers to search, a walk by name comes first (it opens
  // no file): a file whose candidates by name decide its relocation needs no content search,
  // and when every one is so decided no file is read.
  RelocationSearch shared;
  std::vector<Marker> markers;
  for (const auto& set : sets) markers.insert(markers.end(), set.begin(), set.end());
  const std::size_t patch_marker_count = markers.size();
  std::vector<const FilePatch*> to_relocate;
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < patches.size(); ++i)
    for (const FilePatch& fp : patches[i].files)
      if (std::optional<std::string> path = relocation_wanted(fp, ctx, strips[i])) {
        to_relocate.push_back(&fp);
        missing.push_back(std::move(*path));
      }
  bool searched = false;
  if (!to_relocate.empty()) {
    SearchOptions so = options.search;
    so.collect_files = true;
    so.max_hits_per_marker = 0;
    try {
      std::vector<const FilePatch*> by_content = to_relocate;
      if (markers.empty() && !so.gitignore && !options.search_root.empty()) {
        shared.result = SearchResult{};
        shared.result.files = walk_file_names(options.search_root);
        shared.names_only = true;
        shared.root = options.search_root;
        shared.max_file_size = so.max_file_size;
        shared.index_names();
        by_content.clear();
        for (std::size_t k = 0; k < to_relocate.size(); ++k) {
          if (decided_by_name(shared, missing[k]))
            shared.ranges[to_relocate[k]] = {0, 0};
          else
            by_content.push_back(to_relocate[k]);
        }
      }
      if (!by_content.empty()) {
        for (const FilePatch* fp : by_content) {
          std::vector<Marker> mine = relocation_markers(*fp);
          shared.ranges[fp] = {markers.size(), markers.size() + mine.size()};
          markers.insert(markers.end(), std::make_move_iterator(mine.begin()),
                         std::make_move_iterator(mine.end()));
        }
        shared.result = search_target(tree, options, markers, so);
        shared.names_only = false;
        shared.index_names();
        searched = true;
      }
      ctx.relocation_search = &shared;
    } catch (const Error&) {
      // Each relocation and the marker search then search alone, reporting it where they do.
      shared.ranges.clear();
      searched = false;
    }
  }
  // Each file is searched for its patch's evidence right after its verdict (PatchEvidence),
  // and, with `release`, leaves the cache then when no other file patch names it. Each file
  // patch is verified alone against the tree here, so they are shared out among threads
  // (each with its own handle on the tree and its own caches, the relocation search shared
  // read-only); their caches join the run's for the series passes, which follow in order.
  span.emplace("plan-jobs");
  const SingleUse single_use(patches, strips);
  for (std::size_t i = 0; i < patches.size(); ++i)
    report.patches.push_back(start_report(patches[i], options, strips[i]));
  const std::vector<std::vector<FileJob>> jobs = file_jobs(patches, strips, threads);
  threads =
      static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(jobs.size(), 1)));
  if (threads > 1) {
    // No more threads than the work keeps busy: a run lasts at least as long as its largest
    // group, so many more than total / largest threads finish no sooner, and each costs its
    // start (a stack, a malloc arena, their page faults): one 7-file patch took 7 threads on a
    // 16-core host, where 3 finish as soon. A group weighs its hunk lines and a line per 64
    // bytes of its files (read, hashed and searched), their sizes from the run's stat cache.
    const auto weight = [&](const FileJob& job) {
      const FilePatch& fp = patches[job.first].files[job.second];
      std::size_t w = job_weight(fp);
      const Resolved side =
          resolve(is_dev_null(fp.new_path) ? fp.old_path : fp.new_path, strips[job.first]);
      try {
        if (side.path) w += static_cast<std::size_t>(ctx.tree.stat(*side.path).size / 64);
      } catch (const Error&) {
        // reported where the file is verified
      }
      return w;
    };
    std::size_t total = 0, largest = 0;
    for (const std::vector<FileJob>& group : jobs) {
      std::size_t w = 0;
      for (const FileJob& job : group) w += weight(job);
      total += w;
      largest = std::max(largest, w);
    }
    // One more than total / largest: the threads start one after the other and the groups do
    // not share out evenly, so with just enough threads the last to finish also carried a
    // neighbour's files (the 7-file patch on the H200 host: 3 threads finish 0.2-0.3 ms
    // sooner than 2, 5-8 % of the run).
    const std::size_t useful = (total + largest - 1) / largest + 1;  // largest >= 1
    threads = static_cast<unsigned>(std::min<std::size_t>(threads, useful));
  }
  std::vector<std::unique_ptr<Worker>> workers;
  while (workers.size() + 1 < threads) {
    if (workers.size() == handles.size() && open_handle() == workers.size()) break;  // no more
    workers.push_back(std::make_unique<Worker>(*handles[workers.size()], ctx));
  }
  span.emplace("files");
  // The main thread takes the largest group (the first) before any other thread starts, and
  // starts one pool thread only: each pool thread starts the next before its own work. A
  // thread's start costs the thread that starts it 20-50 us (H200 host); started by the main
  // thread one after the other, they delayed its first file, and the first pool thread up took
  // the largest group (the 7-file patch's mha.cu, 137 KB) later than the main thread could have.
  std::atomic<std::size_t> next{workers.empty() ? std::size_t{0} : std::size_t{1}};
  // The spare threads (VerifyOptions::spare_threads) take the pool threads' starts and the
  // main thread's first file's evidence search (EarlyEvidence); once both are handed out (or
  // not), the rest are retired: they stop spinning.
  SpareThreads* const spares = options.spare_threads.get();
  std::atomic<int> spare_uses{workers.empty() ? 1 : 2};
  const auto spare_use_done = [&] {
    if (spares != nullptr && spare_uses.fetch_sub(1) == 1) spares->retire();
  };
  EarlyEvidence early;  // (declared after `evidence`: it waits for its search before both go)
  auto verify_job = [&](std::size_t j, Context& c, bool main_first) {
    for (const auto& [i, k] : jobs[j]) {
      const FilePatch& fp = patches[i].files[k];
      std::optional<trace::Span> file_span(std::in_place, "verify-file");
      if (main_first) {
        if (spares != nullptr) early.start(*evidence[i], fp, strips[i], c, *spares);
        spare_use_done();
      }
      FileReport& f = report.patches[i].files[k] = verify_file(fp, c, strips[i]);
      file_span.emplace("file-evidence");
      evidence[i]->add(k, f, c, main_first ? &early : nullptr);
      file_span.reset();
      if (release) single_use.done(fp, strips[i], c.cache);
      main_first = false;
    }
  };
  auto work = [&](Context& c, bool main) {
    const trace::Span worker_span("worker");
    if (main && !jobs.empty()) {
      const std::size_t j = workers.empty() ? next.fetch_add(1) : 0;
      if (j < jobs.size()) verify_job(j, c, true);
    } else if (main) {
      spare_use_done();
    }
    for (std::size_t j; (j = next.fetch_add(1)) < jobs.size();) verify_job(j, c, false);
  };
  if (workers.empty()) {
    work(ctx, true);
    if (spares != nullptr) spares->wait(kWaitSpin);
  } else {
    std::vector<std::exception_ptr> failed(workers.size() + 1);
    const auto stop_all = [&](std::size_t k) {
      failed[k] = std::current_exception();
      next = jobs.size();  // the others stop at their next group
    };
    // Pool thread `k` (0-based): starts thread k + 1, works, joins it. A thread that cannot
    // be started leaves its share to the others (they take groups from `next`).
    // A thread started ahead (VerifyOptions::spare_threads) takes a pool thread's work at once;
    // one started here runs 66 us after (H200 host). Spare threads wait for the rest in the
    // spares->wait() below; the others are joined by the thread that started them.
    const auto start = [&](std::thread& thread, auto&& task, bool last) {
      const bool spared = spares != nullptr && spares->run(task);
      if (last) spare_use_done();
      if (spared) return;
      try {
        thread = std::thread(std::move(task));
      } catch (const std::system_error&) {
      }
    };
    const auto pool_thread = [&](const auto& self, std::size_t k) -> void {
      std::thread after;
      if (k + 1 < workers.size())
        start(after, [&self, k] { self(self, k + 1); }, k + 2 >= workers.size());
      try {
        work(workers[k]->ctx, false);
      } catch (...) {
        stop_all(k + 1);
      }
      if (after.joinable()) after.join();
    };
    std::thread first_pool;
    start(first_pool, [&pool_thread] { pool_thread(pool_thread, 0); }, workers.size() == 1);
    try {
      work(ctx, true);
    } catch (...) {
      stop_all(0);
    }
    if (first_pool.joinable()) first_pool.join();
    if (spares != nullptr) spares->wait(kWaitSpin);  // (the pool's tasks do not throw)
    for (const std::exception_ptr& e : failed)
      if (e) std::rethrow_exception(e);
    for (const std::unique_ptr<Worker>& w : workers) cache.absorb(w->cache);
  }
  span.emplace("finish");
  if (prepared.valid()) prepared.get();
  for (PatchReport& r : report.patches)
    if (!r.files.empty()) finish_report(r);  // (a patch without files is an error already)
  span.emplace("series");
  if (options.series) {
    // The passes may use the pool's handles on the tree, one thread each, on unrelated paths.
    std::vector<const Tree*> lanes;
    for (const std::unique_ptr<Worker>& w : workers) lanes.push_back(&w->tree);
    judge_series(patches, report, ctx, lanes);
  }
  span.emplace("evidence-finish");
  for (std::size_t i = 0; i < patches.size(); ++i) evidence[i]->finish(report.patches[i], ctx);
  std::vector<PatchReport*> ptrs;
  for (PatchReport& r : report.patches) ptrs.push_back(&r);
  span.emplace("attach-search");
  attach_search(tree, ptrs, sets, options,
                searched && patch_marker_count > 0 ? &shared.result : nullptr);
  return report;
}

}  // namespace

}  // namespace sm120check
