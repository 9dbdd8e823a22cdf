// The subcommands of the sm120check CLI, one setup_<cmd>() / run_<cmd>() pair each (after
// CLI11's subcom_in_files example). main.cpp owns the option structs, parses, and dispatches.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli11.hpp"
#include "output.hpp"
#include "sm120check/git.hpp"
#include "sm120check/report.hpp"

namespace sm120check::cli {

/// Options of `sm120check verify [options] PATCH... TARGET`.
struct VerifyCommandOptions {
  std::vector<std::string> patches;  ///< files, directories, or "-" for standard input.
  std::string target;                ///< the tree to verify against.
  std::optional<unsigned> strip;     ///< -p/--strip; unset = detect per patch.
  unsigned fuzz = 0;
  bool ignore_whitespace = false;
  std::vector<std::string> revs;  ///< --rev: verify these revisions of TARGET's repository.
  OutputFormat format = OutputFormat::kText;
  ColorMode color = ColorMode::kAuto;
};

/// Adds the `verify` subcommand to `app`, parsing into `options`. Returns the subcommand.
CLI::App* setup_verify(CLI::App& app, VerifyCommandOptions& options);

/// Runs `verify`; returns the process exit code (see kExitCodesHelp). Throws Error for input it
/// cannot process (unreadable patch, malformed patch, missing target).
int run_verify(const VerifyCommandOptions& options);

/// Options of `sm120check show PATCH...`.
struct ShowCommandOptions {
  std::vector<std::string> patches;
  OutputFormat format = OutputFormat::kText;
  ColorMode color = ColorMode::kAuto;
};

/// Adds the `show` subcommand to `app`, parsing into `options`. Returns the subcommand.
CLI::App* setup_show(CLI::App& app, ShowCommandOptions& options);

/// Runs `show`; returns 0. Throws Error for unreadable or malformed patches.
int run_show(const ShowCommandOptions& options);

/// Options of `sm120check log [options] PATCH... TARGET`.
struct LogCommandOptions {
  std::vector<std::string> patches;
  std::string target;
  std::string range = "HEAD";        ///< --rev: "TIP" or "A..B".
  std::vector<std::string> in_refs;  ///< --in REF.
  std::optional<unsigned> strip;
  unsigned fuzz = 0;
  bool ignore_whitespace = false;
  OutputFormat format = OutputFormat::kText;
  ColorMode color = ColorMode::kAuto;
};

/// Adds the `log` subcommand to `app`. Returns the subcommand.
CLI::App* setup_log(CLI::App& app, LogCommandOptions& options);

/// Runs `log`; returns its exit code (see LogResult::exit_code). Throws Error.
int run_log(const LogCommandOptions& options);

/// `verify --rev`: verifies `patches` on each revision of TARGET's repository and writes the
/// report; returns the worst exit code. Throws Error for an unknown revision (exit 3).
int run_verify_revisions(const VerifyCommandOptions& options, const std::vector<Patch>& patches);

/// Repository facts for a work-tree run, or std::nullopt when TARGET is not in a git work tree
/// (checked with stat(2) before libgit2 is loaded) or the repository cannot be opened.
std::optional<RepositoryFacts> work_tree_facts(const std::string& target,
                                               const std::vector<Patch>& patches,
                                               const VerifyReport& report);

/// Prints a one-line error on stderr for each patch or file with status error.
void report_errors(const VerifyReport& report);

}  // namespace sm120check::cli
