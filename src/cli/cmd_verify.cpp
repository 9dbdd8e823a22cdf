// `sm120check verify [options] PATCH... TARGET` (see commands.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include "commands.hpp"
#include "../git/read_filter.hpp"
#include "inputs.hpp"
#include "sm120check/arch.hpp"
#include "sm120check/ci_report.hpp"
#include "sm120check/cpus.hpp"
#include "sm120check/error.hpp"
#include "sm120check/git.hpp"
#include "sm120check/git_report.hpp"
#include "sm120check/patch.hpp"
#include "sm120check/spare_threads.hpp"
#include "sm120check/trace.hpp"
#include "sm120check/tree.hpp"
#include "sm120check/verify.hpp"

namespace sm120check::cli {
/// Each patch or file that could not be verified also gets a one-line error on stderr naming the
/// patch file and line, so that scripts reading only stderr see why the exit code is 3.
void report_errors(const VerifyReport& report) {
  std::string err;
  for (const PatchReport& p : report.patches) {
    if (p.status == Status::kSkipped) continue;  // left out of the verdict by --only-relevant
    if (!p.error.empty())  // "FILE:LINE: what", or "FILE: what" without a line
      err += "sm120check: error: " +
             escape_for_terminal(Error(p.source, p.patch_line, p.error).what()) + "\n";
    for (const FileReport& f : p.files)
      if (f.status == Status::kError)
        err += fmt::format("sm120check: error: {}:{}: {}\n", escape_for_terminal(p.source),
                           f.patch_line, escape_for_terminal(f.reason));
  }
  std::cerr << err;
}

namespace {

/// Spare threads run_verify() starts ahead for verify()'s pool and the evidence search of the
/// main thread's first file (three: the 7-file patch's run uses three threads to verify on a
/// 16-core host, and one to search its largest file while that is verified), and how long
/// each spins before it sleeps (a run verifies its files within 2 ms of its start; a spare not
/// given work is retired sooner).
constexpr unsigned kSpareThreads = 3;
constexpr std::chrono::microseconds kSpareSpin{2000};

/// The fewest usable CPUs for which the evidence markers are extracted on a thread of their
/// own. Below, the thread that reads the repository extracts them after the blob ids (the
/// files' reads wait for those, their evidence searches for the markers, later): on two CPUs
/// a fourth thread only shares them, and its start (clone, stack, malloc arena) costs CPU:
/// on the 2-core development VM (a page fault there takes 10 us) the 7-file patch took 0.9 ms
/// less CPU and 0.2 ms less wall time without it (41 alternating runs).
constexpr unsigned kMarkersThreadCpus = 4;

/// KnownBlobIds worked out on another thread: id() waits for them (the first call; a load
/// after that), and knows none when there are none (no git work tree, an index not read).
class DeferredBlobIds final : public KnownBlobIds {
 public:
  explicit DeferredBlobIds(std::shared_future<std::shared_ptr<const KnownBlobIds>> ids)
      : ids_(std::move(ids)) {}
  std::string id(const std::string& path, const struct stat& st) const override {
    const std::shared_ptr<const KnownBlobIds>& ids = ids_.get();
    return ids ? ids->id(path, st) : std::string();
  }

 private:
  std::shared_future<std::shared_ptr<const KnownBlobIds>> ids_;
};

/// A one-line warning on stderr per regular expression PCRE2 gave up on for some line of the
/// marker search (its hits are incomplete; the verdicts do not depend on them).
void report_unevaluated(const VerifyReport& report, const std::string& target) {
  std::string err;
  std::set<std::string> seen;
  const auto note = [&](const MarkerHits& m) {
    if (m.error_lines == 0 || !seen.insert(m.marker.text).second) return;
    err += "sm120check: warning: " + unevaluated_regex(m, target_prefix(target)) +
           "; its hits are incomplete\n";
  };
  for (const PatchReport& p : report.patches) {
    if (p.search)
      for (const MarkerHits& m : p.search->markers) note(m);
    for (const MarkerHits& m : p.evidence) note(m);
  }
  std::cerr << err;
}

/// A note on standard error when files the patches modify are missing from TARGET and look
/// like tests (an upstream fix with its tests, against a pip install that has none): how to
/// leave them out.
void note_missing_tests(const VerifyReport& report) {
  std::size_t count = 0;
  std::string first;
  for (const PatchReport& p : report.patches)
    for (const FileReport& f : p.files)
      if (f.missing && f.target_path && looks_like_test(*f.target_path) && count++ == 0)
        first = *f.target_path;
  if (count == 0) return;
  std::cerr << fmt::format(
      "sm120check: note: {} file{} the patches modify {} not in the target and look{} like "
      "tests ({}{}); an installed package has none: --exclude GLOB (e.g. --exclude "
      "'tests/*') leaves them out of the verdict\n",
      count, count == 1 ? "" : "s", count == 1 ? "is" : "are", count == 1 ? "s" : "",
      escape_for_terminal(first), count == 1 ? "" : ", ...");
}

/// Writes the report of a work-tree run to `sink` in options.output.format (the repository
/// section from `facts`; `patches` give JUnit the hunks' lines; `started`, when the run began,
/// its time) and finishes it with the summary line.
void write_verify_report(ReportSink& sink, const VerifyReport& report,
                         const std::vector<Patch>& patches,
                         const std::optional<RepositoryFacts>& facts,
                         const VerifyCommandOptions& options,
                         std::chrono::steady_clock::time_point started) {
  const OutputFormat format = options.output.format;
  if (format == OutputFormat::kJson) {
    nlohmann::ordered_json extra = nlohmann::ordered_json::object();
    extra["repository"] = repository_to_json(facts);
    extra["revisions"] = nullptr;
    // Written as it is rendered, hunk by hunk (memory does not grow with the hunks); invalid
    // UTF-8 in paths or subjects is replaced rather than aborting the report.
    bool open = true;
    write_verify_json(report, extra, [&](std::string_view piece) {
      open = open && sink.write(piece);  // a closed stdout: stop quietly
    });
  } else if (format == OutputFormat::kText) {
    std::ostringstream text;
    render_verify_text(text, report, sink.color());
    std::string out = text.str();
    if (facts) {  // after the "target:" line
      std::ostringstream repo;
      render_repository_text(repo, *facts, sink.color());
      out.insert(out.find('\n') + 1, repo.str());
    }
    sink.write(out);
  } else {
    const CiContext context = ci_context(options.target, started);
    sink.write(verify_ci_report(report, patches, format, context));
    if (format == OutputFormat::kGithub)
      append_github_step_summary(verify_github_summary(report, context));
  }
  sink.finish(verify_summary_line(report));
}

}  // namespace

namespace {

/// A file of a sparse checkout that git tracks but did not check out (skip-worktree, absent:
/// RepositoryFacts::not_checked_out) is not judged from the work tree: it is not missing (a
/// conflict, "fix: absent") and no other copy in the tree is it (a relocation onto a vendored
/// copy read `applied`; hostile review hr25). Its file reads unknown, and `verify --rev HEAD`
/// judges the committed file. Patch statuses are summed again over their files.
void mark_not_checked_out(VerifyReport& report, const std::vector<std::string>& not_checked_out) {
  if (not_checked_out.empty()) return;
  const std::set<std::string> absent(not_checked_out.begin(), not_checked_out.end());
  for (PatchReport& p : report.patches) {
    bool changed = false;
    for (FileReport& f : p.files) {
      const std::string& named = f.old_path != "/dev/null" ? f.old_path : f.new_path;
      const std::optional<std::string> path = strip_path(named, p.strip);
      if (!path || absent.count(*path) == 0 || f.status == Status::kError) continue;
      f.status = Status::kUnknown;
      f.presence = Presence::kUnknown;
      f.missing = false;
      if (f.relocated) f.relocation.clear();
      f.relocated = false;
      f.candidates.clear();
      f.target_path = *path;
      for (HunkReport& h : f.hunks) {
        h.match.status = HunkStatus::kUnknown;
        h.match.presence = Presence::kUnknown;
      }
      f.reason = fmt::format(
          "'{}' is tracked but not checked out (sparse checkout: skip-worktree): the work tree "
          "holds no copy to judge; 'verify --rev HEAD' judges the committed file",
          *path);
      changed = true;
    }
    if (!changed || p.status == Status::kError) continue;
    std::vector<Status> statuses;
    std::vector<Presence> presences;
    for (const FileReport& f : p.files) {
      statuses.push_back(f.status);
      presences.push_back(f.presence);
    }
    p.status = combine(statuses);
    p.presence = combine_presence(presences);
  }
}

}  // namespace

CLI::App* setup_verify(CLI::App& app, VerifyCommandOptions& options, Setup setup) {
  if (setup == Setup::kNone) return nullptr;
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Report per patch, file and hunk whether the change is applied, applicable or in conflict "
      "in TARGET. Never modifies TARGET.");
    add_positional_words(*cmd, "PATCH", options.patches,
                       "Patch file, directory of *.patch/*.diff files (sorted by name), or - for "
                       "standard input")
      ->required()
      ->type_name("");
  // PATCH takes every positional (so that options may follow them); the last one is moved to
  // TARGET once parsing is complete. TARGET is declared for the help text only.
  cmd->add_option("TARGET", options.target,
                  "Directory to verify against (a git checkout or a "
                  "plain tree such as site-packages)")
      ->type_name("");
  take_target_from_patches(*cmd, options.patches, options.target);
  add_match_options(*cmd, options.strip, options.fuzz, options.ignore_whitespace, options.strict);
  cmd->add_flag("--independent", options.independent,
                "Judge each patch alone against TARGET; by default the patches are an ordered "
                "series, each judged in the tree as the series leaves it (later applied patches "
                "taken out, earlier missing ones put in, in memory)");
  cmd->add_option("-j,--threads", options.threads,
                  "Threads that verify the file patches, 0 to 16 (0, the default: one per CPU, "
                  "at most 16); the report is the same for any number")
      ->type_name("N")
      ->check(threads_at_most(kMaxVerifyThreads));
  cmd->add_flag("--markers", options.markers,
                "Search TARGET for each patch's markers (distinctive added lines) and report the "
                "lines found");
  cmd->add_option("--marker", options.marker_texts,
                  "Also search TARGET for this fixed string (repeatable)")
      ->type_name("TEXT")
      ->allow_extra_args(false);
  cmd->add_option("--marker-regex", options.marker_regexes,
                  "Also search TARGET for this PCRE2 regular expression (repeatable)")
      ->type_name("RE")
      ->allow_extra_args(false);
  cmd->add_option("--map", options.maps,
                  "Where a patch path starting with OLD does not exist, try NEW instead "
                  "(path prefixes after stripping, e.g. python/sglang=sglang; repeatable)")
      ->type_name("OLD=NEW")
      ->allow_extra_args(false);
  cmd->add_flag("--no-relocate", options.no_relocate,
                "Report a missing file as missing instead of looking for it elsewhere in TARGET");
  add_path_rule_options(*cmd, options.path_rules);
  add_cc_option(*cmd, options.cc);
  CLI::Option* no_gpu = cmd->add_flag(
      "--no-gpu", options.no_gpu,
      "Do not probe the local GPU (saves the CUDA driver's start-up, about 0.2 s on a GPU host)");
  no_gpu->excludes("--cc");
  cmd->add_flag("--only-relevant", options.only_relevant,
                "Leave patches that target other architectures than the GPU's (probed or --cc) "
                "out of the verdict and the exit code; they are reported as skipped");
  cmd->add_option("--rev", options.revs,
                  "Verify this revision of TARGET's git repository (sha, tag, branch, HEAD~3, "
                  "...) instead of the work tree, without checking it out; repeat for one column "
                  "per revision")
      ->type_name("REV")
      ->allow_extra_args(false);
  cmd->add_flag("--no-repo", options.no_repo,
                "Leave out the repository section (root, HEAD, branch, uncommitted files) of a "
                "work-tree run (read from the git directory; libgit2 only where that cannot tell)");
  add_output_options(*cmd, options.output, Formats::kAll);
  cmd->footer(std::string(kExitCodesHelp) +
              "Patches skipped by --only-relevant do not count toward the exit code.\n");
  cmd->formatter(std::make_shared<TargetFormatter>());
  return cmd;
}

CLI::Validator decimal_at_most(unsigned most) {
  return CLI::Validator(
      [most](std::string& value) -> std::string {
        if (value.empty() ||
            !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
          return fmt::format("'{}' is not a decimal number", value);
        // Any number of digits: compared as text past 4 (no overflow), then as a number.
        const std::size_t digits = value.size() - std::min(value.find_first_not_of('0'), value.size());
        if (digits > 4 || std::stoul(value) > most)
          return fmt::format("{} is out of range (0 to {})", value, most);
        return {};
      },
      "", "decimal");
}

CLI::Validator threads_at_most(unsigned most) {
  return CLI::Validator(
      [most](std::string& value) -> std::string {
        const bool digits = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
          return c >= '0' && c <= '9';
        });
        if (!digits || value.size() > 4 || std::stoul(value) > most)
          return fmt::format("-j {} is out of range (0 to {}; 0: one thread per CPU)", value,
                             most);
        return {};
      },
      "", "threads");
}

void add_strip_and_fuzz_options(CLI::App& cmd, std::optional<unsigned>& strip, unsigned& fuzz) {
  cmd.add_option("-p,--strip", strip,
                 "Remove N leading path components from patch paths (like patch -pN; 0 to " +
                     std::to_string(kMaxStripOption) + "); detected per patch when omitted")
      ->type_name("N")
      ->check(decimal_at_most(kMaxStripOption));
  cmd.add_option("--fuzz", fuzz,
                 "Allow up to N context lines at each edge of a hunk to mismatch (0 to " +
                     std::to_string(kMaxFuzzOption) + "; default 0)")
      ->type_name("N")
      ->check(decimal_at_most(kMaxFuzzOption));
}

void add_path_rule_options(CLI::App& cmd, std::vector<PathRule>& rules) {
  // Triggered as each is parsed, so that the rules keep the command line's order (the first
  // that matches a path decides).
  const auto rule = [&rules](bool include) {
    return [&rules, include](const std::vector<std::string>& values) {
      for (const std::string& v : values) rules.push_back({v, include});
    };
  };
  cmd.add_option_function<std::vector<std::string>>(
         "--include", rule(true),
         "Verify only the files whose path (after the strip level) matches this glob, as git "
         "apply --include ('*' matches '/' too; repeatable; with --exclude, the first pattern "
         "that matches a path decides)")
      ->type_name("GLOB")
      ->allow_extra_args(false)
      ->trigger_on_parse();
  cmd.add_option_function<std::vector<std::string>>(
         "--exclude", rule(false),
         "Leave out the files whose path (after the strip level) matches this glob, as git "
         "apply --exclude, e.g. 'tests/*' against a pip install that has no tests (repeatable)")
      ->type_name("GLOB")
      ->allow_extra_args(false)
      ->trigger_on_parse();
}

void add_match_options(CLI::App& cmd, std::optional<unsigned>& strip, unsigned& fuzz,
                       bool& ignore_whitespace, bool& strict) {
  add_strip_and_fuzz_options(cmd, strip, fuzz);
  cmd.add_flag("--ignore-whitespace", ignore_whitespace,
               "Compare lines with runs of white space folded and trailing white space ignored");
  add_strict_option(cmd, strict);
}

CLI::Option* add_positional_words(CLI::App& cmd, const std::string& name,
                                  std::vector<std::string>& words, const std::string& description) {
  // CLI11 (Option::_add_result, 2.1 to 2.4) reads a word "[a,b]" as the list a, b (and "[x]" as
  // x) for an option that allows extra arguments, which a vector positional needs to take more
  // words than its minimum count. Instead, the minimum is unbounded and extra arguments are
  // off: CLI11 gives such a positional every positional word while it has fewer than its
  // minimum, and TakeAll keeps it from asking for that many at the end (a missing NAME is still
  // "NAME is required" through ->required()).
  constexpr int kEvery = CLI::detail::expected_max_vector_size;
  return cmd.add_option(name, words, description)
      ->expected(kEvery, kEvery)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void take_target_from_patches(CLI::App& cmd, std::vector<std::string>& patches,
                              std::string& target) {
  cmd.parse_complete_callback([&patches, &target] {
    if (patches.size() < 2) throw CLI::RequiredError("TARGET");
    target = std::move(patches.back());
    patches.pop_back();
  });
}

void add_strict_option(CLI::App& cmd, bool& strict) {
  cmd.add_flag("--strict", strict,
               "Exact images only, as git apply and GNU patch: a hunk whose context no longer "
               "matches is a conflict, even when its change stands in the file (no drifted "
               "matches)");
}

int run_verify(const VerifyCommandOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  // Opened first: a FILE that cannot be written fails the run before any work.
  ReportSink sink(options.output);
  // Revisions are read from the repository: no work tree, so no probe or repository section.
  if (!options.revs.empty())
    return run_verify_revisions(
        options,
        parse_inputs(read_patch_inputs(options.patches, BadInput::kReport), BadInput::kReport),
        sink);
  // The probe (NVML's start-up, or the CUDA driver's) runs while patches are read and verified.
  std::future<GpuReport> probe;
  GpuReport gpu = unprobed_gpu();
  if (options.cc)
    gpu = override_gpu(cc_option(*options.cc, options.output.quiet));
  else if (!options.no_gpu)
    probe = std::async(std::launch::async, [] { return probe_local_gpus(); });
  // What depends on the patches alone (and their strip levels) is worked out on one more core
  // while the patches are verified. Before the patches are read there, TARGET's repository is
  // opened (its configuration read, its index mapped and, at 100k entries, the index's end
  // found: 0.1-0.3 ms on the H200 host, no longer on the verification's path); then the blob
  // ids the index vouches for (files unchanged since git hashed them need no hashing; a file
  // read waits for them where it needs them, DeferredBlobIds), then the repository section
  // (but for relocated files, known only after verification: read again then, with their
  // paths), then the patches' architecture targets (0.5 ms). `inputs` says when `patches` and
  // `strips` are final (false: the run stopped before, and the thread ends at once).
  std::vector<Patch> patches;
  std::vector<unsigned> strips;
  std::promise<bool> inputs;
  const std::shared_future<bool> inputs_ready = inputs.get_future().share();
  // The patches' evidence markers depend on the patches and their strip levels alone: they are
  // extracted on a core of their own once those are final, while the files are verified (which
  // wait for them where they need them: 0.3 ms on the H200 host). That thread is started by the
  // one below, not by this one: a thread's start costs its starter 20-50 us there, and this
  // thread's time is the run's. With fewer than kMarkersThreadCpus CPUs, the one below
  // extracts them itself.
  std::vector<Marker> given_markers;
  for (const std::string& t : options.marker_texts)
    given_markers.push_back({t, false, Marker::Origin::kOption, {}});
  for (const std::string& t : options.marker_regexes)
    given_markers.push_back({t, true, Marker::Origin::kOption, {}});
  std::promise<std::vector<std::vector<Marker>>> markers_extracted;
  const auto extract_markers = [&patches, &strips, &given_markers, &markers_extracted](bool final) {
    if (!final) {
      markers_extracted.set_value({});
      return;
    }
    try {
      const trace::Span markers_span("evidence-markers");
      std::vector<std::vector<Marker>> out;
      out.reserve(patches.size());
      for (std::size_t i = 0; i < patches.size(); ++i)
        out.push_back(evidence_markers(patches[i], strips[i], given_markers));
      markers_extracted.set_value(std::move(out));
    } catch (...) {
      markers_extracted.set_exception(std::current_exception());
    }
  };
  // Threads started ahead for verify()'s pool (SpareThreads: on the H200 host one started
  // where the files are verified began work 0.14 ms after the main thread). They spin while
  // they wait, so only where cores are plenty: the main thread, this function's two others
  // (below), the GPU probe's and the spares.
  const std::shared_ptr<SpareThreads> spares =
      options.threads != 1 && usable_cpus() >= kSpareThreads + 4 ? std::make_shared<SpareThreads>()
                                                                : nullptr;
  std::promise<std::shared_ptr<const KnownBlobIds>> blob_ids;
  std::shared_future<std::shared_ptr<const KnownBlobIds>> vouched = blob_ids.get_future().share();
  struct Aside {
    TargetWorkTree work_tree;
    std::optional<RepositoryFacts> facts;
    std::vector<ArchTargets> arch;
  };
  std::future<Aside> aside = std::async(
      std::launch::async,
      [&, ids = std::move(blob_ids)]() mutable {
        // Waited for on the way out (the future's destructor): it reads `patches`. Before it
        // waits for the inputs, that thread starts the spare threads verify() gives its pool's
        // work to (its time until then is idle).
        std::future<void> markers;
        const bool markers_after_ids = usable_cpus() < kMarkersThreadCpus;
        if (!markers_after_ids) {
          try {
            markers = std::async(std::launch::async, [&extract_markers, &inputs_ready, &spares] {
              if (spares) spares->start(kSpareThreads, kSpareSpin);
              extract_markers(inputs_ready.get());
            });
          } catch (const std::system_error&) {
            // no thread to be had: extracted here below
          }
        }
        Aside out;
        if (!options.no_repo) {
          const trace::Span open_span("open-repository");
          try {
            out.work_tree = open_target_work_tree(options.target);
          } catch (...) {  // (documented never to throw; out of memory): no repository section
            out.work_tree = {};
          }
        }
        if (!inputs_ready.get()) {
          ids.set_value(nullptr);
          if (!markers.valid()) extract_markers(false);
          return out;
        }
        if (!markers.valid() && !markers_after_ids) extract_markers(true);
        if (!options.no_repo) {
          const trace::Span ids_span("blob-ids");
          try {
            ids.set_value(work_tree_blob_ids(out.work_tree, patches, strips));
          } catch (...) {  // (documented never to throw)
            ids.set_value(nullptr);  // files are then hashed
          }
        }
        if (markers_after_ids) extract_markers(true);
        if (!options.no_repo) {
          const trace::Span facts_span("facts");
          out.facts = work_tree_facts(options.target, out.work_tree, patches, strips, {});
        }
        const trace::Span arch_span("arch");
        // Patches of a series on threads of their own, where there are CPUs to spare (the
        // run's file threads, -j, are busy meanwhile): a thread per 8 patches, at most -j.
        const unsigned cpus = options.threads != 0 ? options.threads : usable_cpus();
        const unsigned arch_threads =
            cpus >= 4 ? static_cast<unsigned>(std::min<std::size_t>(cpus, patches.size() / 8))
                      : 1u;
        out.arch = infer_arch_targets(patches, strips, arch_threads);
        return out;
      });
  // Declared after `aside`, so gone before it: on the way out before the inputs are final (a
  // bad patch, a wrong TARGET), it tells the thread, whose end `aside`'s destructor waits for.
  struct InputsFinal {
    std::promise<bool>& promise;
    bool told = false;
    void tell(bool value) {
      if (!told) promise.set_value(value);
      told = true;
    }
    ~InputsFinal() { tell(false); }
  } inputs_final{inputs};

  std::optional<trace::Span> span(std::in_place, "read-patches");
  std::vector<PatchInput> inputs_read = read_patch_inputs(options.patches, BadInput::kReport);
  // Opened before parsing so that a wrong TARGET is reported first, whatever the patches hold.
  span.emplace("open-tree");
  std::unique_ptr<Tree> tree = open_disk_tree(options.target);
  if (!options.no_repo) tree->set_known_blob_ids(std::make_shared<DeferredBlobIds>(vouched));
  span.emplace("parse");
  patches = parse_inputs(inputs_read, BadInput::kReport);
  span.emplace("options-strip");
  VerifyOptions verify_options;
  verify_options.strip = options.strip;
  verify_options.match.fuzz = options.fuzz;
  verify_options.match.ignore_whitespace = options.ignore_whitespace;
  verify_options.match.drift = !options.strict;
  verify_options.search_root = options.target;
  verify_options.relocate = !options.no_relocate;
  verify_options.series = !options.independent;
  verify_options.threads = options.threads;
  verify_options.search_markers = options.markers;
  verify_options.search.max_hits_per_marker = 20;
  verify_options.markers = given_markers;
  verify_options.path_map = parse_path_maps(options.maps);
  strips.reserve(patches.size());
  for (const Patch& p : patches)
    strips.push_back(options.strip ? *options.strip : detect_strip(p, *tree));
  if (!options.strip) verify_options.detected_strips = strips;  // not detected again
  // A work tree's files read as `git apply` reads them: a CRLF checkout (core.autocrlf,
  // eol=crlf) is compared in its repository form. Costs nothing for files without a "\r".
  if (!options.no_repo)
    set_read_filter(*tree, git_read_filter(options.target, paths_with_crlf_pre_image(patches, strips)));
  std::vector<std::vector<std::string>> excluded =
      select_file_patches(patches, strips, options.path_rules, &verify_options.left_out);
  verify_options.evidence_markers = markers_extracted.get_future().share();
  verify_options.spare_threads = spares;
  inputs_final.tell(true);
  span.reset();
  span.emplace("verify");
  VerifyReport report = verify(patches, *tree, verify_options);
  mark_excluded(report, std::move(excluded));
  span.emplace("wait: probe, aside");
  if (probe.valid()) gpu = probe.get();
  Aside aside_done = aside.get();
  span.emplace("assess");
  assess_arch(report, patches, std::move(aside_done.arch), strips, std::move(gpu),
              options.only_relevant);
  report_errors(report);
  if (!options.output.quiet) {
    report_unevaluated(report, options.target);
    note_missing_tests(report);
  }
  std::optional<RepositoryFacts> facts = std::move(aside_done.facts);
  span.emplace("facts-again");
  if (!options.no_repo) {
    const std::vector<std::string> relocated = relocated_paths(report);
    if (!relocated.empty() || strips_of(report) != strips)
      facts = work_tree_facts(options.target, aside_done.work_tree, patches, strips_of(report),
                              relocated);
  }

  if (facts) mark_not_checked_out(report, facts->not_checked_out);
  span.emplace("report");
  write_verify_report(sink, report, patches, facts, options, started);
  span.reset();  // recorded before exit_now() writes the trace
  // Ended here, not on return: the run's objects need no tearing down (exit_now()).
  return exit_now(report.exit_code());
}

}  // namespace sm120check::cli
