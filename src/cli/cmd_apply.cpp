// `sm120check apply [options] PATCH... TARGET` (see commands.hpp): plan_apply(), then
// write_changes() unless --dry-run or something blocks.
#include <fmt/format.h>

#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "../git/read_filter.hpp"
#include "inputs.hpp"
#include "sm120check/diff.hpp"
#include "sm120check/error.hpp"
#include "sm120check/patch.hpp"
#include "sm120check/tree.hpp"
#include "sm120check/verify.hpp"
#include "sm120check/write.hpp"

namespace sm120check::cli {
namespace {


/// What apply does with one patch, from its series verdict.
std::string_view action(const PatchReport& p, Direction direction, bool dry_run) {
  const bool forward = direction == Direction::kForward;
  switch (p.status) {
    case Status::kApplied:
      return forward ? "already applied" : dry_run ? "would take out" : "taken out";
    case Status::kApplicable:
      return forward ? (dry_run ? "would apply" : "applied") : "not in the tree";
    case Status::kPartial:
      return forward ? (dry_run ? "would complete" : "completed")
                     : dry_run ? "would take out" : "taken out";
    case Status::kConflict:
      return "conflict";
    case Status::kUnknown:
      return "cannot be decided";
    case Status::kError:
      return "error";
    case Status::kSkipped:
      return "skipped";
  }
  return "";
}

/// The unified diff (git form, modes included) of every change, against the tree as it is.
std::string diff_of(const ApplyPlan& plan, const Tree& tree) {
  std::string out;
  for (const FileChange& c : plan.changes) {
    const Entry e = tree.stat(c.path);
    std::string before;
    std::optional<std::uint32_t> old_mode;
    if (e.type == Entry::Type::kFile) {
      before = tree.read(c.path);
      old_mode = e.executable ? kModeExecutable : kModeRegular;
    } else if (e.type == Entry::Type::kSymlink) {
      before = tree.read_link(c.path);
      old_mode = kModeSymlink;
    }
    const bool exists = e.type != Entry::Type::kMissing;
    const bool gone = c.kind == FileChange::Kind::kDelete;
    out += unified_diff(exists ? std::string_view(c.path) : kDevNull,
                        gone ? kDevNull : std::string_view(c.path), before,
                        gone ? std::string_view() : std::string_view(c.content), 3, old_mode,
                        gone ? old_mode : c.mode ? c.mode : old_mode);
  }
  return out;
}

}  // namespace

CLI::App* setup_apply(CLI::App& app, ApplyCommandOptions& options, Setup setup) {
  if (setup == Setup::kNone) return nullptr;
  CLI::App* cmd = app.add_subcommand(
      "apply",
      "Apply what is missing of PATCH... (an ordered series) to TARGET: applied hunks and "
      "patches are left alone, so a second run changes nothing. All or nothing: if any patch "
      "conflicts, nothing is written. Each file is replaced atomically.");
    add_positional_words(*cmd, "PATCH", options.patches,
                       "Patch file, directory of *.patch/*.diff files (sorted by name), or - for "
                       "standard input")
      ->required()
      ->type_name("");
  cmd->add_option("TARGET", options.target, "Directory to write (a work tree or plain tree)")
      ->type_name("");
  take_target_from_patches(*cmd, options.patches, options.target);
  cmd->add_flag("--dry-run", options.dry_run,
                "Write nothing; print the unified diff of what would change");
  cmd->add_flag("-R,--reverse", options.reverse,
                "Take the series out (last patch first) instead of putting it in");
  cmd->add_flag("--backup", options.backup, "Keep each changed or deleted file as FILE.orig");
  add_match_options(*cmd, options.strip, options.fuzz, options.ignore_whitespace, options.strict);
  add_path_rule_options(*cmd, options.path_rules);
  cmd->add_option("--map", options.maps,
                  "Where a patch path starting with OLD does not exist, try NEW instead")
      ->type_name("OLD=NEW")
      ->allow_extra_args(false);
  cmd->add_flag("--relocate", options.relocate,
                "Where a patched file does not exist, write the file relocation finds elsewhere "
                "in TARGET (as verify reports it); off by default: apply writes only the paths "
                "the patch names (after --strip and --map)");
  cmd->add_option("--rev", options.revs, "Refused: apply writes a work tree, not a revision")
      ->type_name("REV")
      ->allow_extra_args(false);
  add_cc_option(*cmd, options.cc,
                "Accepted (and checked) as verify takes it, so that scripts can pass the same "
                "options to both: apply never probes or judges the GPU");
  cmd->add_flag("--no-gpu", options.no_gpu,
                "Accepted for symmetry with verify (scripts pass the same options to both): "
                "apply never probes the GPU")
      ->excludes("--cc");
  add_output_options(*cmd, options.output);
  cmd->footer(kApplyExitCodesHelp);
  cmd->formatter(std::make_shared<TargetFormatter>());
  return cmd;
}

int run_apply(const ApplyCommandOptions& options) {
  if (!options.revs.empty())
    throw Error(
        "apply: --rev is refused: a revision cannot be written; check it out and apply to the "
        "work tree (verify --rev reads revisions)");
  ReportSink sink(options.output);
  std::vector<PatchInput> inputs = read_patch_inputs(options.patches, BadInput::kReport);
  std::unique_ptr<Tree> tree = open_disk_tree(options.target);
  std::vector<Patch> patches = parse_inputs(inputs, BadInput::kReport);
  VerifyOptions verify_options;
  verify_options.strip = options.strip;
  verify_options.match.fuzz = options.fuzz;
  verify_options.match.ignore_whitespace = options.ignore_whitespace;
  verify_options.match.drift = !options.strict;
  verify_options.search_root = options.target;
  verify_options.relocate = options.relocate;
  verify_options.evidence = false;
  verify_options.path_map = parse_path_maps(options.maps);
  std::vector<std::vector<std::string>> excluded;
  std::size_t left_out_patches = 0;  // patches with every file left out: not in the plan
  std::vector<unsigned> strips;
  for (const Patch& p : patches)
    strips.push_back(options.strip ? *options.strip : detect_strip(p, *tree));
  if (!options.strip) verify_options.detected_strips = strips;
  // A work tree's files read as `git apply` reads them (a CRLF checkout in its repository
  // form, as verify reads it), and are written back in the work tree's form below.
  const std::shared_ptr<const ReadFilter> eol =
      git_read_filter(options.target, paths_with_crlf_pre_image(patches, strips));
  set_read_filter(*tree, eol);
  if (!options.path_rules.empty()) {
    excluded = select_file_patches(patches, strips, options.path_rules, &verify_options.left_out);
    // A patch left without files has nothing to apply (git apply skips it too): out of the plan,
    // with a note.
    std::size_t kept = 0;
    left_out_patches = 0;
    for (std::size_t i = 0; i < patches.size(); ++i) {
      if (patches[i].files.empty() && !excluded[i].empty()) {
        if (!options.output.quiet)
          std::cerr << fmt::format("sm120check: note: {}: every file is left out by --include / "
                                   "--exclude; nothing of it is applied\n",
                                   escape_for_terminal(patches[i].source));
        ++left_out_patches;
        continue;
      }
      if (kept != i) {
        patches[kept] = std::move(patches[i]);
        excluded[kept] = std::move(excluded[i]);
        verify_options.left_out[kept] = std::move(verify_options.left_out[i]);
        if (!options.strip) verify_options.detected_strips[kept] = strips[i];
      }
      ++kept;
    }
    patches.resize(kept);
    excluded.resize(kept);
    verify_options.left_out.resize(kept);
    if (!options.strip) verify_options.detected_strips.resize(kept);
  }
  const Direction direction = options.reverse ? Direction::kReverse : Direction::kForward;
  ApplyPlan plan = plan_apply(patches, *tree, verify_options, direction);
  mark_excluded(plan.report, std::move(excluded));
  report_errors(plan.report);
  bool errors = false;
  for (const PatchReport& p : plan.report.patches) {
    errors = errors || p.status == Status::kError;
    for (const FileReport& f : p.files) errors = errors || f.status == Status::kError;
  }
  const bool blocked = !plan.blockers.empty();
  // The diff is libgit2's (git_patch_from_buffers): on a host without it the plan still
  // stands, the diff is left out with the reason.
  std::string diff, no_diff;
  if (options.dry_run && !blocked) {
    try {
      diff = diff_of(plan, *tree);
    } catch (const Error& e) {
      no_diff = e.message();
    }
  }
  WriteResult written;
  if (!options.dry_run && !blocked && !plan.changes.empty()) {
    restore_work_tree_form(*eol, options.target, plan.changes);
    WriteOptions write_options;
    write_options.backup = options.backup;
    written = write_changes(options.target, plan.changes, write_options);
  }
  const int code = errors                                           ? kExitError
                   : blocked                                        ? 2
                   : options.dry_run && !plan.changes.empty()       ? 1
                                                                    : 0;
  std::string out;
  if (options.output.format == OutputFormat::kJson) {
    nlohmann::ordered_json doc;
    doc["schema"] = "sm120check.apply/1";
    doc["tool"] = tool_to_json();
    doc["target"] = options.target;
    doc["direction"] = std::string(to_string(direction));
    doc["dry_run"] = options.dry_run;
    nlohmann::ordered_json changes = nlohmann::ordered_json::array();
    for (const FileChange& c : plan.changes) {
      nlohmann::ordered_json one;
      one["path"] = c.path;
      one["action"] = c.kind == FileChange::Kind::kDelete ? "delete" : "write";
      one["mode"] = c.mode ? nlohmann::ordered_json(fmt::format("{:o}", *c.mode))
                           : nlohmann::ordered_json(nullptr);
      changes.push_back(std::move(one));
    }
    doc["changes"] = std::move(changes);
    doc["blockers"] = plan.blockers;
    doc["written"] = written.written;
    doc["deleted"] = written.deleted;
    doc["backups"] = written.backups;
    doc["diff"] = options.dry_run && !blocked && no_diff.empty() ? nlohmann::ordered_json(diff)
                                                                 : nlohmann::ordered_json(nullptr);
    doc["diff_unavailable"] =
        no_diff.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(no_diff);
    doc["exit_code"] = code;
    doc["verify"] = verify_to_json(plan.report);
    out = dump_json(doc);
  } else {
    std::ostringstream text;
    const std::size_t n = plan.report.patches.size();
    for (std::size_t i = 0; i < n; ++i) {
      const PatchReport& p = plan.report.patches[i];
      // A patch a blocker names, whose verdict alone would read as a plan (applied, applicable,
      // partial), says that it stops the run, not what would have been done with it.
      const bool stops = i < plan.patch_blocked.size() && plan.patch_blocked[i] &&
                         (p.status == Status::kApplied || p.status == Status::kApplicable ||
                          p.status == Status::kPartial);
      const std::string what =
          stops ? (direction == Direction::kForward ? "cannot be applied (below)"
                                                    : "cannot be taken out (below)")
                : std::string(action(p, direction, options.dry_run || blocked));
      text << fmt::format("patch {}/{}: {}{}: {}\n", i + 1, n, escape_for_terminal(p.source),
                          p.subject ? ": " + escape_for_terminal(*p.subject) : std::string(),
                          what);
    }
    if (blocked) {
      text << "nothing written: " << plan.blockers.size()
           << (plan.blockers.size() == 1 ? " problem" : " problems") << "\n";
      for (const std::string& b : plan.blockers) text << "  " << escape_for_terminal(b) << "\n";
    } else if (plan.changes.empty()) {
      if (left_out_patches > 0)
        text << fmt::format("nothing to do for the files --include/--exclude kept; {} patch{} "
                            "left out whole (not applied, not checked)\n",
                            left_out_patches, left_out_patches == 1 ? "" : "es");
      else
        text << (direction == Direction::kForward ? "nothing to do: every patch is applied\n"
                                                  : "nothing to do: no patch is in the tree\n");
    } else {
      text << (options.dry_run ? "would change " : "changed ") << plan.changes.size()
           << (plan.changes.size() == 1 ? " file:" : " files:") << "\n";
      for (const FileChange& c : plan.changes)
        text << "  " << (c.kind == FileChange::Kind::kDelete ? "delete " : "write ")
             << escape_for_terminal(c.path)
             << (c.mode ? fmt::format(" (mode {:o})", *c.mode) : std::string()) << "\n";
      for (const std::string& b : written.backups)
        text << "  backup " << escape_for_terminal(b) << "\n";
    }
    if (options.dry_run) {
      // The diff is what scripts take from stdout (git apply / patch -p1 accept it); the summary
      // goes to stderr.
      if (!no_diff.empty()) text << "diff not shown: " << escape_for_terminal(no_diff) << "\n";
      if (!options.output.quiet) std::cerr << text.str();
      out = diff;
    } else {
      out = text.str();
    }
  }
  sink.write(out);
  sink.finish(fmt::format("apply: {} patch{}, {} file{} {}  -> exit {}", plan.report.patches.size(),
                          plan.report.patches.size() == 1 ? "" : "es", plan.changes.size(),
                          plan.changes.size() == 1 ? "" : "s",
                          blocked                                 ? "blocked (nothing written)"
                          : options.dry_run                       ? "would change"
                                                                  : "changed",
                          code));
  return code;
}

}  // namespace sm120check::cli
