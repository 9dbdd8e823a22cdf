// `sm120check verify [options] PATCH... TARGET` (see commands.hpp).
#include <fmt/format.h>

#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "inputs.hpp"
#include "sm120check/git_report.hpp"
#include "sm120check/patch.hpp"
#include "sm120check/tree.hpp"
#include "sm120check/verify.hpp"

namespace sm120check::cli {
namespace {

/// Shows TARGET as required in the help although CLI11 sees it as optional (see setup_verify).
class VerifyFormatter : public CLI::Formatter {
 public:
  std::string make_option_usage(const CLI::Option* opt) const override {
    if (opt->get_name() == "TARGET") return "TARGET";
    return CLI::Formatter::make_option_usage(opt);
  }
  std::string make_option_opts(const CLI::Option* opt) const override {
    if (opt->get_name() == "TARGET") return " " + get_label("REQUIRED");
    return CLI::Formatter::make_option_opts(opt);
  }
};

}  // namespace

/// Each patch or file that could not be verified also gets a one-line error on stderr naming the
/// patch file and line, so that scripts reading only stderr see why the exit code is 3.
void report_errors(const VerifyReport& report) {
  std::string err;
  for (const PatchReport& p : report.patches) {
    if (!p.error.empty())
      err += fmt::format("sm120check: error: {}:{}: {}\n", escape_for_terminal(p.source),
                         p.patch_line, escape_for_terminal(p.error));
    for (const FileReport& f : p.files)
      if (f.status == Status::kError)
        err += fmt::format("sm120check: error: {}:{}: {}\n", escape_for_terminal(p.source),
                           f.patch_line, escape_for_terminal(f.reason));
  }
  std::cerr << err;
}

CLI::App* setup_verify(CLI::App& app, VerifyCommandOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Report per patch, file and hunk whether the change is applied, applicable or in conflict "
      "in TARGET. Never modifies TARGET.");
  cmd->add_option("PATCH", options.patches,
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
  cmd->parse_complete_callback([&options] {
    if (options.patches.size() < 2) throw CLI::RequiredError("TARGET");
    options.target = std::move(options.patches.back());
    options.patches.pop_back();
  });
  cmd->add_option("-p,--strip", options.strip,
                  "Remove N leading path components from patch paths (like patch -pN); "
                  "detected per patch when omitted")
      ->type_name("N");
  cmd->add_option("--fuzz", options.fuzz,
                  "Allow up to N context lines at each edge of a hunk to mismatch (default 0)")
      ->type_name("N");
  cmd->add_flag("--ignore-whitespace", options.ignore_whitespace,
                "Compare lines with runs of white space folded and trailing white space ignored");
  cmd->add_option("--rev", options.revs,
                  "Verify this revision of TARGET's git repository (sha, tag, branch, HEAD~3, "
                  "...) instead of the work tree, without checking it out; repeat for one column "
                  "per revision")
      ->type_name("REV")
      ->allow_extra_args(false);
  add_output_options(*cmd, options.format, options.color);
  cmd->footer(kExitCodesHelp);
  cmd->formatter(std::make_shared<VerifyFormatter>());
  return cmd;
}

int run_verify(const VerifyCommandOptions& options) {
  std::vector<PatchInput> inputs = read_patch_inputs(options.patches);
  if (!options.revs.empty()) return run_verify_revisions(options, parse_inputs(inputs));
  // Opened before parsing so that a wrong TARGET is reported first, whatever the patches hold.
  std::unique_ptr<Tree> tree = open_disk_tree(options.target);
  std::vector<Patch> patches = parse_inputs(inputs);
  VerifyOptions verify_options;
  verify_options.strip = options.strip;
  verify_options.match.fuzz = options.fuzz;
  verify_options.match.ignore_whitespace = options.ignore_whitespace;
  VerifyReport report = verify(patches, *tree, verify_options);
  report_errors(report);
  std::optional<RepositoryFacts> facts = work_tree_facts(options.target, patches, report);

  std::string out;
  if (options.format == OutputFormat::kJson) {
    nlohmann::ordered_json doc = verify_to_json(report);
    doc["repository"] = repository_to_json(facts);
    doc["revisions"] = nullptr;
    // Invalid UTF-8 in paths or subjects is replaced rather than aborting the report.
    out = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    out += '\n';
  } else {
    std::ostringstream text;
    render_verify_text(text, report, use_color(options.color));
    out = text.str();
    if (facts) {  // after the "target:" line
      std::ostringstream repo;
      render_repository_text(repo, *facts, use_color(options.color));
      out.insert(out.find('\n') + 1, repo.str());
    }
  }
  write_stdout(out);
  return report.exit_code();
}

}  // namespace sm120check::cli
