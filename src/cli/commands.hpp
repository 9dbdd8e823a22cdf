// The subcommands of the sm120check CLI, one setup_<cmd>() / run_<cmd>() pair each (after
// CLI11's subcom_in_files example). main.cpp owns the option structs, parses, and dispatches.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli11.hpp"
#include "output.hpp"
#include "sm120check/report.hpp"

namespace sm120check::cli {

/// Options of `sm120check verify [options] PATCH... TARGET`.
struct VerifyCommandOptions {
  std::vector<std::string> patches;  ///< files, directories, or "-" for standard input.
  std::string target;                ///< the tree to verify against.
  std::optional<unsigned> strip;     ///< -p/--strip; unset = detect per patch.
  unsigned fuzz = 0;
  bool ignore_whitespace = false;
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

}  // namespace sm120check::cli
