// The git parts of the CLI: `verify --rev`, repository facts for work-tree runs, and `log`
// (see commands.hpp). libgit2 is loaded only here, and only when a repository is involved.
#include <fmt/format.h>
#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>

#include "commands.hpp"
#include "inputs.hpp"
#include "sm120check/git.hpp"
#include "sm120check/git_report.hpp"

namespace sm120check::cli {
namespace {

constexpr const char* kLogExitCodesHelp =
    "Exit codes:\n"
    "  0  applied at the tip, and from the commit that brought it in on (history monotone)\n"
    "  1  not applied at the tip (applicable there)\n"
    "  2  applied at the tip but not monotone (reverted or rewritten, then applied again), or\n"
    "     the tip is partial, conflict or unknown\n"
    "  3  could not verify (bad patch, unknown revision, not a git repository, usage error)\n";

/// Writes `text` with the repository lines inserted after its first ("target:") line.
std::string with_repository(std::string text, const std::optional<RepositoryFacts>& facts,
                            bool color) {
  if (!facts) return text;
  std::ostringstream repo;
  render_repository_text(repo, *facts, color, /*from_revisions=*/true);
  text.insert(text.find('\n') + 1, repo.str());
  return text;
}

std::string dump(const nlohmann::ordered_json& doc) {
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

/// The paths whose uncommitted changes matter: those the patches name, and where a relocated
/// file was read instead.
std::vector<std::string> paths_read(const std::vector<Patch>& patches,
                                    const std::vector<unsigned>& strips,
                                    const std::vector<std::string>& relocated,
                                    const std::string& prefix) {
  std::vector<std::string> out = touched_paths(patches, strips, prefix);
  for (const std::string& path : relocated) {
    std::string full = prefix + path;
    if (std::find(out.begin(), out.end(), full) == out.end()) out.push_back(std::move(full));
  }
  return out;
}

/// TARGET's place in the work tree at `root`: "" for the root itself, "dir/" below it (by
/// realpath(3)); std::nullopt when it cannot be told.
std::optional<std::string> prefix_in(const std::string& root, const std::string& target) {
  char real[PATH_MAX];
  if (::realpath(target.c_str(), real) == nullptr) return std::nullopt;
  const std::string t = real;
  if (t == root) return "";
  if (t.size() > root.size() && t.compare(0, root.size(), root) == 0 && t[root.size()] == '/')
    return t.substr(root.size() + 1) + "/";
  return std::nullopt;
}

}  // namespace

TargetWorkTree open_target_work_tree(const std::string& target) {
  TargetWorkTree out;
  out.root = find_git_work_tree(target);
  if (!out.root) return out;
  out.prefix = prefix_in(*out.root, target);
  if (out.prefix) out.index = open_work_tree_index(*out.root);
  return out;
}

std::shared_ptr<const KnownBlobIds> work_tree_blob_ids(const TargetWorkTree& work_tree,
                                                       const std::vector<Patch>& patches,
                                                       const std::vector<unsigned>& strips) {
  if (!work_tree.index) return nullptr;
  return index_blob_ids(*work_tree.index, *work_tree.prefix, touched_paths(patches, strips, ""));
}

std::vector<unsigned> strips_of(const VerifyReport& report) {
  std::vector<unsigned> strips;
  for (const PatchReport& p : report.patches) strips.push_back(p.strip);
  return strips;
}

std::vector<std::string> relocated_paths(const VerifyReport& report) {
  std::vector<std::string> out;
  for (const PatchReport& p : report.patches)
    for (const FileReport& f : p.files)
      if (f.relocated && f.target_path) out.push_back(*f.target_path);
  return out;
}

namespace {

/// Submodules inside submodules are followed this deep.
constexpr int kMaxNesting = 8;

std::optional<RepositoryFacts> facts_of_work_tree(const std::string& root,
                                                  const WorkTreeIndex* index,
                                                  const std::vector<std::string>& paths, int depth);

/// Adds to `facts` (of the work tree at `root`) the paths below `dir`, another work tree inside
/// it (nested_work_tree_of(): a submodule), given relative to `dir`: dirty when they are in the
/// submodule, or when its HEAD is not the commit `root`'s HEAD records for `dir` (a gitlink;
/// none for a repository cloned inside without `git submodule add`); the list becomes unknown
/// when the submodule's cannot be told. `repo`: `root`'s libgit2 repository, opened here when
/// needed.
void add_nested_facts(RepositoryFacts& facts, const std::string& root, const std::string& dir,
                      const std::vector<std::string>& paths, std::unique_ptr<GitRepository>& repo,
                      int depth) {
  const std::string nested_root = root + "/" + dir;
  const std::shared_ptr<const WorkTreeIndex> index = open_work_tree_index(nested_root);
  const std::optional<RepositoryFacts> nested =
      facts_of_work_tree(nested_root, index.get(), paths, depth + 1);
  auto unknown = [&](std::string why) {
    for (const char* see : {"; see git status", ": see git status"})
      if (why.size() > std::strlen(see) &&
          why.compare(why.size() - std::strlen(see), std::string::npos, see) == 0)
        why.resize(why.size() - std::strlen(see));
    facts.dirty.clear();
    facts.not_checked_out.clear();
    facts.dirty_unknown = fmt::format(
        "{}/{} is in submodule {} (its own repository{}), whose uncommitted changes cannot be "
        "told: {}; see git -C {} status",
        dir, paths.front(), dir,
        nested && !nested->head.empty() ? ", HEAD " + nested->head.substr(0, 12) : "", why, dir);
  };
  if (!nested) return unknown("it cannot be opened");
  if (!nested->dirty_unknown.empty()) return unknown(nested->dirty_unknown);
  std::string recorded;  // the gitlink's commit in HEAD here, "" when there is none
  if (!facts.head.empty()) {
    try {
      if (!repo) repo = GitRepository::open(root);
      const std::string entry = repo->path_history({facts.head}, {dir}).at(0).at(0).entry;
      if (entry.size() == 40 + 7 && entry.compare(40, 7, ":160000") == 0)
        recorded = entry.substr(0, 40);
    } catch (const std::exception& e) {
      return unknown(std::string("the commit HEAD records for it cannot be read: ") + e.what());
    }
  }
  for (const std::string& path : nested->not_checked_out)
    facts.not_checked_out.push_back(dir + "/" + path);
  for (const std::string& path : paths)
    if (recorded.empty() || nested->head != recorded ||
        std::find(nested->dirty.begin(), nested->dirty.end(), path) != nested->dirty.end())
      facts.dirty.push_back(dir + "/" + path);
}

/// The facts of the work tree at `root` for `paths` (relative to root): read from the git
/// directory through `index` (open_work_tree_index(), may be null) where that can tell,
/// through libgit2 otherwise; paths inside a submodule from the submodule (add_nested_facts()).
/// std::nullopt when the repository cannot be opened.
std::optional<RepositoryFacts> facts_of_work_tree(const std::string& root,
                                                  const WorkTreeIndex* index,
                                                  const std::vector<std::string>& paths,
                                                  int depth) {
  std::vector<std::string> own;
  std::map<std::string, std::vector<std::string>> nested;  // by submodule folder
  for (const std::string& path : paths) {
    std::optional<std::string> dir =
        depth < kMaxNesting ? nested_work_tree_of(root, path) : std::nullopt;
    if (dir)
      nested[*dir].push_back(path.substr(dir->size() + 1));
    else
      own.push_back(path);
  }
  // Read from the git directory where it can be told so (no libgit2: its loading and start-up
  // alone cost about 8 ms, and its status reads the whole index into memory); libgit2 otherwise.
  std::optional<RepositoryFacts> facts;
  if (index != nullptr) facts = read_work_tree_facts(*index, own);
  std::unique_ptr<GitRepository> repo;
  if (!facts) {
    try {
      repo = GitRepository::open(root);
      facts = repo->facts(own);
    } catch (const Error&) {
      return std::nullopt;  // e.g. a broken .git: the work-tree answer stands on its own
    }
    // A split index (its "link" extension) or one git refuses are told by facts() itself.
    if (facts->dirty_unknown.empty() && work_tree_may_have_sparse_index(root)) {
      facts->dirty.clear();
      facts->not_checked_out.clear();
      facts->dirty_unknown =
          "the index is sparse (git sparse-checkout --sparse-index), which libgit2 1.5 does "
          "not read: see git status";
    }
  }
  for (const auto& [dir, below] : nested) {
    if (!facts->dirty_unknown.empty()) break;
    add_nested_facts(*facts, root, dir, below, repo, depth);
  }
  for (std::vector<std::string>* list : {&facts->dirty, &facts->not_checked_out}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  return facts;
}

}  // namespace

std::optional<RepositoryFacts> work_tree_facts(const std::string& target,
                                               const TargetWorkTree& work_tree,
                                               const std::vector<Patch>& patches,
                                               const std::vector<unsigned>& strips,
                                               const std::vector<std::string>& relocated) {
  const std::optional<std::string>& root = work_tree.root;
  if (!root) return std::nullopt;  // stat only: plain trees skip libgit2
  std::optional<std::string> prefix = work_tree.prefix;
  if (!prefix) {
    try {
      prefix = GitRepository::open(target)->prefix_of(target);
    } catch (const Error&) {
      return std::nullopt;
    }
  }
  return facts_of_work_tree(*root, work_tree.index.get(),
                            paths_read(patches, strips, relocated, *prefix), 0);
}

int run_verify_revisions(const VerifyCommandOptions& options, std::vector<Patch> patches,
                         ReportSink& sink) {
  if (options.output.format != OutputFormat::kText && options.output.format != OutputFormat::kJson)
    throw Error("--format " + std::string(format_name(options.output.format)) +
                " reports one tree, not --rev revisions: use --format json, or one run per "
                "revision");
  std::unique_ptr<GitRepository> repo = GitRepository::open(options.target);
  const std::string prefix = repo->prefix_of(options.target);
  std::vector<std::string> commits;  // all resolved first: an unknown one fails before output
  for (const std::string& rev : options.revs) commits.push_back(repo->resolve_commit(rev));
  VerifyOptions verify_options;
  verify_options.strip = options.strip;
  verify_options.match.fuzz = options.fuzz;
  verify_options.match.ignore_whitespace = options.ignore_whitespace;
  verify_options.match.drift = !options.strict;
  verify_options.series = !options.independent;
  // A file the patch names that a revision lacks is looked for in that revision's tree, as in
  // a checkout of it.
  verify_options.relocate = !options.no_relocate;
  verify_options.search_in_tree = true;
  std::vector<RevisionReport> revisions;
  std::vector<std::vector<std::string>> excluded;
  for (std::size_t i = 0; i < commits.size(); ++i) {
    std::unique_ptr<Tree> tree =
        repo->tree(commits[i], prefix, options.target + "@" + options.revs[i]);
    if (i == 0 && !options.path_rules.empty()) {
      // --include / --exclude match paths at the strip level: the first revision's, for all.
      std::vector<unsigned> strips;
      for (const Patch& p : patches)
        strips.push_back(options.strip ? *options.strip : detect_strip(p, *tree));
      if (!options.strip) verify_options.detected_strips = strips;
      excluded = select_file_patches(patches, strips, options.path_rules);
    }
    revisions.push_back({options.revs[i], commits[i], verify(patches, *tree, verify_options)});
    mark_excluded(revisions.back().report, excluded);
    report_errors(revisions.back().report);
  }
  std::optional<RepositoryFacts> facts;
  if (find_git_work_tree(options.target))
    facts = repo->facts(touched_paths(patches, strips_of(revisions.front().report), prefix));
  const int exit_code = revisions_exit_code(revisions);
  if (options.output.format == OutputFormat::kJson) {
    sink.write(dump(revisions_to_json(revisions, options.target, facts)));
  } else {
    std::ostringstream text;
    render_revisions_text(text, revisions, options.target, sink.color());
    sink.write(with_repository(text.str(), facts, sink.color()));
  }
  std::string summary = "summary:";
  for (const RevisionReport& r : revisions)
    summary += " " + escape_for_terminal(r.rev) + ": exit " + std::to_string(r.report.exit_code()) + ";";
  sink.finish(summary + fmt::format("  -> exit {}", exit_code));
  return exit_code;
}

CLI::App* setup_log(CLI::App& app, LogCommandOptions& options, Setup setup) {
  if (setup == Setup::kNone) return nullptr;
  CLI::App* cmd = app.add_subcommand(
      "log",
      "Walk TARGET's first-parent git history and explain the fix's history: the commit that "
      "brought it in, and the later commits that reverted it, re-applied it or changed its "
      "lines (exact: every commit where the touched files change is looked at), and whether it "
      "is in given refs. Reads revisions through libgit2; never checks out.");
    add_positional_words(*cmd, "PATCH", options.patches,
                       "Patch file, directory of patches, or - for stdin")
      ->required()
      ->type_name("");
  cmd->add_option("TARGET", options.target,
                  "A directory in the git repository (work tree or "
                  "bare); a subfolder restricts patch paths to it")
      ->type_name("");
  take_target_from_patches(*cmd, options.patches, options.target);
  cmd->formatter(std::make_shared<TargetFormatter>());
  cmd->add_option("--rev", options.range,
                  "History to walk: TIP or A..B (first parents of B not reachable from A); "
                  "default HEAD")
      ->type_name("RANGE");
  cmd->add_option("--in", options.in_refs,
                  "Also say whether the fix is in REF (tag or branch): its status there, and "
                  "the fix and revert commits REF contains; repeatable")
      ->type_name("REF")
      ->allow_extra_args(false);
  add_strip_and_fuzz_options(*cmd, options.strip, options.fuzz);
  cmd->add_flag("--ignore-whitespace", options.ignore_whitespace,
                "Compare lines with white space folded");
  add_strict_option(*cmd, options.strict);
  cmd->add_option("-j,--threads", options.threads,
                  "Threads verifying the distinct file states, 0 to 16 (0, the default: one per "
                  "CPU, at most 16)")
      ->type_name("N")
      ->check(threads_at_most(16));
  add_cc_option(*cmd, options.cc,
                "Accepted (and checked) as verify takes it, so that scripts can pass the same "
                "options to both: log never probes or judges the GPU");
  cmd->add_flag("--no-gpu", options.no_gpu,
                "Accepted for symmetry with verify (scripts pass the same options to both): "
                "log never probes the GPU")
      ->excludes("--cc");
  add_output_options(*cmd, options.output);
  cmd->footer(kLogExitCodesHelp);
  return cmd;
}

int run_log(const LogCommandOptions& options) {
  ReportSink sink(options.output);
  std::vector<Patch> patches = parse_inputs(read_patch_inputs(options.patches));
  LogOptions log_options;
  log_options.range = options.range;
  log_options.in_refs = options.in_refs;
  log_options.verify.strip = options.strip;
  log_options.verify.match.fuzz = options.fuzz;
  log_options.verify.match.ignore_whitespace = options.ignore_whitespace;
  log_options.verify.match.drift = !options.strict;
  log_options.threads = options.threads;
  LogResult result = find_fixing_commit(patches, options.target, log_options);
  write_report(
      sink, options.output.format, [&] { return log_to_json(result, options.target); },
      [&](std::ostream& out, bool color) { render_log_text(out, result, options.target, color); },
      fmt::format("log: {} patch{}  -> exit {}", patches.size(), patches.size() == 1 ? "" : "es",
                  result.exit_code()));
  return result.exit_code();
}

}  // namespace sm120check::cli
