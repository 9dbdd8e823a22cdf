// sm120check: does a patch's fix already sit in a target tree? (See commands.hpp.)
#include <algorithm>
#include <array>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
#include <string>
#include <string_view>

#include "commands.hpp"
#include "sm120check/report.hpp"
#include "sm120check/trace.hpp"
#include "version.hpp"

namespace {

/// How `command` is set up for the command line `argv`: a command line names its command
/// first, and only that one gets its options (all the commands' took 0.3 ms, a fifth of
/// `verify`'s start-up); the others get their name and description, so that help and error
/// messages stay the same. Where the first argument names no command, or another argument
/// spells a command's name (an option's value, a file, a second command), all are set up.
sm120check::cli::Setup setup_for(std::string_view command, int argc, char** argv) {
  static constexpr std::array<std::string_view, 8> kCommands = {
      "verify", "apply", "show", "grep", "gpu", "log", "scan", "kernels"};
  const auto names_command = [](const char* arg) {
    return std::find(kCommands.begin(), kCommands.end(), arg) != kCommands.end();
  };
  if (argc < 2 || argv[1] == command || !names_command(argv[1]))
    return sm120check::cli::Setup::kFull;
  for (int i = 2; i < argc; ++i)
    if (names_command(argv[i])) return sm120check::cli::Setup::kFull;
  return sm120check::cli::Setup::kNone;
}

/// Whether `cmd` (nullptr: a command not set up, Setup::kNone) is the one the line named.
bool parsed(const CLI::App* cmd) { return cmd != nullptr && cmd->parsed(); }

/// The first "--NAME=" with nothing after '=' before a "--" (nullptr: none). CLI11 2.1.2 reads
/// an empty "=value" as no value and takes the next word instead: `--output=$REPORT p1.patch`
/// with REPORT unset wrote the report over p1.patch (hostile review hr25).
const char* empty_equals(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") return nullptr;
    if (arg.size() > 3 && arg.substr(0, 2) == "--" && arg.back() == '=' &&
        arg.find('=') == arg.size() - 1)
      return argv[i];
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sm120check::cli;
  const std::int64_t cli_started = sm120check::trace::enabled() ? sm120check::trace::now_ns() : 0;
  const std::int64_t cli_faults = cli_started != 0 ? sm120check::trace::thread_faults() : 0;
  note_main_started(cli_started, cli_faults);
  std::signal(SIGPIPE, SIG_IGN);  // a closed stdout is EPIPE from write(2): stop quietly
  CLI::App app{"Verify whether patches are applied, applicable or in conflict in a tree."};
  app.name("sm120check");
  sm120check::set_tool_build(kBuildCommit, kBuildDirty);
  const std::string version = version_line();
  app.set_version_flag("--version", version);
  app.require_subcommand(0, 1);
  app.footer(std::string(kExitCodesHelp) + "(these are verify's; show, grep, apply, scan, kernels, gpu and log have their own: see 'sm120check apply --help', ...)\n");
  VerifyCommandOptions verify_options;
  ShowCommandOptions show_options;
  GrepCommandOptions grep_options;
  GpuCommandOptions gpu_options;
  LogCommandOptions log_options;
  ApplyCommandOptions apply_options;
  ScanCommandOptions scan_options;
  KernelsCommandOptions kernels_options;
  // `sm120check --version verify ...` and `sm120check --help verify`: the top-level flag
  // answers, as git's does, whatever follows (CLI11 would first require verify's arguments).
  if (argc >= 2 && std::string_view(argv[1]) == "--version") {
    std::cout << version << '\n';
    return exit_now(0);
  }
  if (const char* empty = empty_equals(argc, argv)) {
    std::cerr << "sm120check: error: " << sm120check::escape_for_terminal(empty)
              << " gives an empty value (nothing after '='); give a value or leave the option out\n";
    return kExitError;
  }
  CLI::App* verify_cmd = setup_verify(app, verify_options, setup_for("verify", argc, argv));
  CLI::App* apply_cmd = setup_apply(app, apply_options, setup_for("apply", argc, argv));
  CLI::App* show_cmd = setup_show(app, show_options, setup_for("show", argc, argv));
  CLI::App* grep_cmd = setup_grep(app, grep_options, setup_for("grep", argc, argv));
  CLI::App* gpu_cmd = setup_gpu(app, gpu_options, setup_for("gpu", argc, argv));
  CLI::App* log_cmd = setup_log(app, log_options, setup_for("log", argc, argv));
  CLI::App* scan_cmd = setup_scan(app, scan_options, setup_for("scan", argc, argv));
  CLI::App* kernels_cmd = setup_kernels(app, kernels_options, setup_for("kernels", argc, argv));
  for (CLI::App* cmd : {verify_cmd, apply_cmd, show_cmd, grep_cmd, gpu_cmd, log_cmd, scan_cmd,
                         kernels_cmd})
    if (cmd != nullptr) cmd->set_version_flag("--version", version);
  if (argc >= 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
    std::cout << app.help();
    return exit_now(0);
  }
  try {
    app.parse(argc, argv);
    if (cli_started != 0)
      sm120check::trace::record("cli", cli_started, sm120check::trace::now_ns(),
                                sm120check::trace::thread_faults() - cli_faults);
    if (parsed(verify_cmd)) return exit_now(run_verify(verify_options));
    if (parsed(show_cmd)) return exit_now(run_show(show_options));
    if (parsed(grep_cmd)) return exit_now(run_grep(grep_options));
    if (parsed(gpu_cmd)) return exit_now(run_gpu(gpu_options));
    if (parsed(log_cmd)) return exit_now(run_log(log_options));
    if (parsed(apply_cmd)) return exit_now(run_apply(apply_options));
    if (parsed(scan_cmd)) return exit_now(run_scan(scan_options));
    if (parsed(kernels_cmd)) return exit_now(run_kernels(kernels_options));
    std::cerr << app.help()
              << "\nsm120check: error: no command given (use verify, apply, scan, kernels, show, "
                 "grep, gpu or log)\n";
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version: stdout, exit 0
    const bool any_command = parsed(verify_cmd) || parsed(show_cmd) || parsed(grep_cmd) ||
                             parsed(gpu_cmd) || parsed(log_cmd) || parsed(apply_cmd) ||
                             parsed(scan_cmd) || parsed(kernels_cmd);
    if (!any_command && dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && argc > 1 &&
        argv[1][0] != '-') {
      std::cerr << "sm120check: error: unknown command '"
                << sm120check::escape_for_terminal(argv[1])
                << "' (commands: verify, apply, log, scan, kernels, show, grep, gpu; run 'sm120check --help')\n";
      return kExitError;
    }
    // One line, escaped: the message may quote what was typed. CLI11's words for an option
    // given twice ("--format: At Most 1 required but received 2") said as a user would.
    std::string message = e.what();
    static constexpr std::string_view kAtMostOne = "At Most 1 required but received ";
    if (const std::size_t at = message.find(kAtMostOne); at != std::string::npos)
      message = message.substr(0, at) + "given " + message.substr(at + kAtMostOne.size()) +
                " times; it takes one value";
    std::cerr << "sm120check: error: " << sm120check::escape_for_terminal(message)
              << " (run 'sm120check "
              << (parsed(verify_cmd) ? "verify "
                  : parsed(show_cmd) ? "show "
                  : parsed(grep_cmd) ? "grep "
                  : parsed(gpu_cmd)  ? "gpu "
                  : parsed(log_cmd)  ? "log "
                  : parsed(apply_cmd) ? "apply "
                  : parsed(scan_cmd) ? "scan "
                  : parsed(kernels_cmd) ? "kernels "
                                       : "")
              << "--help' for usage)\n";
  } catch (const sm120check::Error& e) {
    // Messages quote patch and file names: never let them carry terminal escapes.
    std::cerr << "sm120check: error: " << sm120check::escape_for_terminal(e.what()) << '\n';
    for (const std::string& more : e.more())
      std::cerr << "sm120check: error: " << sm120check::escape_for_terminal(more) << '\n';
  } catch (const std::bad_alloc&) {
    std::cerr << "sm120check: error: internal error: out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "sm120check: error: internal error: " << e.what() << '\n';
  }
  return kExitError;
}
