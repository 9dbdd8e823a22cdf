// sm120check: does a patch's fix already sit in a target tree? (See commands.hpp.)
#include <algorithm>
#include <array>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
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
  return sm120check::cli::Setup::kNameOnly;
}

/// Ends the process with `code` once a command has run: its output is written (reports with
/// write(2); standard output's stdio buffer is flushed here), and what remains to tear down
/// (the option parser, the libraries' globals, atexit handlers, a loaded NVML) costs only time:
/// 0.1 ms of a 3.5 ms verify on the H200 host. Under AddressSanitizer the process returns from
/// main as usual, so that its leak check runs.
// main()'s start, for the trace (SM120CHECK_TRACE; 0 when off).
std::int64_t g_main_started = 0;

int exit_now(int code) {
  if (g_main_started != 0) {
    sm120check::trace::record("main", g_main_started, sm120check::trace::now_ns());
    sm120check::trace::write();
  }
#if defined(__SANITIZE_ADDRESS__)
  return code;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return code;
#endif
#endif
  std::cout.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sm120check::cli;
  if (sm120check::trace::enabled()) g_main_started = sm120check::trace::now_ns();
  const std::int64_t cli_started = g_main_started;
  std::signal(SIGPIPE, SIG_IGN);  // a closed stdout is EPIPE from write(2): stop quietly
  CLI::App app{"Verify whether patches are applied, applicable or in conflict in a tree."};
  app.name("sm120check");
  sm120check::set_tool_build(kBuildCommit, kBuildDirty);
  const std::string version = version_line();
  app.set_version_flag("--version", version);
  app.require_subcommand(0, 1);
  app.footer(std::string(kExitCodesHelp) + "(these are verify's; apply, scan, kernels, gpu and log have their own: see 'sm120check apply --help', ...)\n");
  VerifyCommandOptions verify_options;
  ShowCommandOptions show_options;
  GrepCommandOptions grep_options;
  GpuCommandOptions gpu_options;
  LogCommandOptions log_options;
  ApplyCommandOptions apply_options;
  ScanCommandOptions scan_options;
  KernelsCommandOptions kernels_options;
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
    cmd->set_version_flag("--version", version);
  try {
    app.parse(argc, argv);
    if (cli_started != 0) sm120check::trace::record("cli", cli_started, sm120check::trace::now_ns());
    if (verify_cmd->parsed()) return exit_now(run_verify(verify_options));
    if (show_cmd->parsed()) return exit_now(run_show(show_options));
    if (grep_cmd->parsed()) return exit_now(run_grep(grep_options));
    if (gpu_cmd->parsed()) return exit_now(run_gpu(gpu_options));
    if (log_cmd->parsed()) return exit_now(run_log(log_options));
    if (apply_cmd->parsed()) return exit_now(run_apply(apply_options));
    if (scan_cmd->parsed()) return exit_now(run_scan(scan_options));
    if (kernels_cmd->parsed()) return exit_now(run_kernels(kernels_options));
    std::cerr << app.help()
              << "\nsm120check: error: no command given (use verify, apply, scan, kernels, show, "
                 "grep, gpu or log)\n";
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version: stdout, exit 0
    const bool any_command = verify_cmd->parsed() || show_cmd->parsed() || grep_cmd->parsed() ||
                             gpu_cmd->parsed() || log_cmd->parsed() || apply_cmd->parsed() ||
                             scan_cmd->parsed() || kernels_cmd->parsed();
    if (!any_command && dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && argc > 1 &&
        argv[1][0] != '-') {
      std::cerr << "sm120check: error: unknown command '"
                << sm120check::escape_for_terminal(argv[1])
                << "' (commands: verify, apply, log, scan, kernels, show, grep, gpu; run 'sm120check --help')\n";
      return kExitError;
    }
    // One line, escaped: the message may quote what was typed.
    std::cerr << "sm120check: error: " << sm120check::escape_for_terminal(e.what())
              << " (run 'sm120check "
              << (verify_cmd->parsed() ? "verify "
                  : show_cmd->parsed() ? "show "
                  : grep_cmd->parsed() ? "grep "
                  : gpu_cmd->parsed()  ? "gpu "
                  : log_cmd->parsed()  ? "log "
                  : apply_cmd->parsed() ? "apply "
                  : scan_cmd->parsed() ? "scan "
                  : kernels_cmd->parsed() ? "kernels "
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
