// Output helpers shared by the subcommands: --format/--color/--output/--quiet options, colour
// detection, writing the report to standard output or atomically to a file (ReportSink,
// output.cpp), and the exit-code help text.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli11.hpp"
#include "sm120check/error.hpp"
#include "sm120check/tree.hpp"
#include "sm120check/ci_report.hpp"
#include "sm120check/report.hpp"

namespace sm120check::cli {

/// Exit code for anything that stops a run: bad patch, missing target, usage error.
inline constexpr int kExitError = 3;

/// Help text listing the exit codes, used as the footer of the app and of `verify`.
inline constexpr const char* kExitCodesHelp =
    "Exit codes:\n"
    "  0  every patch applied\n"
    "  1  at least one patch applicable, and none partial, conflict or unknown\n"
    "  2  at least one patch partial, conflict or unknown\n"
    "  3  could not verify (bad patch, missing target, usage error, a patch or file with\n"
    "     status error)\n";

/// --color: whether the text output uses ANSI colour.
enum class ColorMode { kAuto, kAlways, kNever };

/// Resolves --color for standard output. kAuto: no colour when NO_COLOR is set and not empty
/// (no-color.org), else colour when CLICOLOR_FORCE is set to anything but "" or "0" (even when
/// stdout is not a terminal), else colour only on a terminal: NO_COLOR wins over CLICOLOR_FORCE,
/// as bixense.com/clicolors orders them. kAlways/kNever (the command line) ignore both.
inline bool use_color(ColorMode mode) {
  if (mode != ColorMode::kAuto) return mode == ColorMode::kAlways;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* force = std::getenv("CLICOLOR_FORCE");
  if (force != nullptr && *force != '\0' && std::strcmp(force, "0") != 0) return true;
  return ::isatty(STDOUT_FILENO) == 1;
}

/// A CLI11 transform accepting only the names in `choices` and replacing each by its enum value
/// (as an integer, which CLI11 converts back). The error reads "must be NAMES, not 'VALUE'".
template <typename Enum>
CLI::Validator choice(const std::map<std::string, Enum>& choices, const std::string& names) {
  return CLI::Validator(
      [&choices, names](std::string& value) -> std::string {
        auto it = choices.find(value);
        if (it == choices.end()) return "must be " + names + ", not '" + value + "'";
        value = std::to_string(static_cast<int>(it->second));
        return {};
      },
      std::string());  // no description: the option's type name already lists the names
}

/// --format, --color, --output and -q/--quiet of a command.
struct OutputOptions {
  OutputFormat format = OutputFormat::kText;
  ColorMode color = ColorMode::kAuto;
  /// --output FILE: the report is written there (atomically: a temporary file in the same
  /// directory, renamed over FILE once complete) and a one-line summary goes to standard output.
  /// "" (or "-"): the report goes to standard output.
  std::string file;
  /// -q/--quiet: only errors are printed (stderr); no report on standard output, no summary
  /// line, no warnings or notes. The report still goes to --output FILE, and the exit code is
  /// the same.
  bool quiet = false;
};

/// Which --format values a command takes.
enum class Formats {
  kTextJson,  ///< text and json
  kAll,       ///< also junit, github and sarif (verify, scan)
};

/// Adds --format, --color auto|always|never, --output FILE and -q/--quiet to `cmd`.
void add_output_options(CLI::App& cmd, OutputOptions& output,
                        Formats formats = Formats::kTextJson);

/// Where a command's report goes (OutputOptions): standard output, or with --output a temporary
/// file next to FILE, renamed over it by finish(). A ReportSink destroyed before finish() (the
/// run failed) removes its temporary file and leaves FILE as it was.
class ReportSink {
 public:
  /// Opens the temporary file for --output FILE (mkstemp in FILE's directory). Throws Error when
  /// FILE is a directory or its directory cannot be written.
  explicit ReportSink(const OutputOptions& options);
  ~ReportSink();
  ReportSink(const ReportSink&) = delete;
  ReportSink& operator=(const ReportSink&) = delete;

  /// Whether a text report may use ANSI colour: never for machine formats nor into a file
  /// (unless --color always), else use_color().
  bool color() const;
  /// Whether -q/--quiet was given: warnings and notes are to be left out.
  bool quiet() const { return options_.quiet; }
  /// Appends `piece` to the report. Returns false when standard output was closed by its
  /// reader (EPIPE): the caller stops quietly. Throws Error when a write fails otherwise.
  bool write(std::string_view piece);
  /// Ends the report. With --output: flushes the temporary file to disk (fsync), gives it the
  /// mode a new file gets (0666 less the umask; an existing FILE's mode is kept) and renames it
  /// over FILE; then, unless quiet, prints `summary` and "(FORMAT report: FILE)" as one line on
  /// standard output. Without --output, nothing more. Throws Error when the file cannot be
  /// written.
  void finish(std::string_view summary);

 private:
  OutputOptions options_;
  std::string temp_;  ///< the temporary file's path; "" when writing to standard output or in place
  int fd_ = -1;       ///< open on temp_, or on FILE itself when it is not a regular file
};

/// Records when main() started (trace::now_ns(); 0 when SM120CHECK_TRACE is off) and the main
/// thread's page faults then (trace::thread_faults()), for the "main" span exit_now() closes.
void note_main_started(std::int64_t ns, std::int64_t faults);

/// Ends the process with exit status `code` once a command's output is written (reports go
/// out with write(2); standard output's stdio buffer is flushed here): std::_Exit, so that
/// neither the caller's objects (the patches, file texts, report: thousands of frees, 0.1 ms
/// of a 2.7 ms verify on the H200 host) nor the libraries' globals and atexit handlers (the
/// option parser, a loaded NVML) are torn down. Returns `code` only under AddressSanitizer,
/// whose leak check needs the usual return from main.
int exit_now(int code);

/// With --format github and GITHUB_STEP_SUMMARY set (and not empty), appends `markdown` to the
/// file it names (created when missing), as GitHub Actions' job summary. A failure is a warning
/// on stderr (the exit code does not change).
void append_github_step_summary(const std::string& markdown);

/// What the CI formats need for a run over `target` that began at `started`: the prefix for
/// paths inside it (report_path_prefix() against the working directory), the working
/// directory, and the seconds since `started`.
CiContext ci_context(const std::string& target, std::chrono::steady_clock::time_point started);

/// Writes `text` to standard output with write(2). Returns false when the reader closed standard
/// output (EPIPE): the caller should stop quietly. Throws Error for any other write failure.
inline bool write_stdout(std::string_view text) {
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(STDOUT_FILENO, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) return false;
      throw Error(std::string("cannot write output: ") + std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

/// `document` as the JSON reports write it: indented by 2, invalid UTF-8 replaced, and "\n".
inline std::string dump_json(const nlohmann::ordered_json& document) {
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

/// Writes a command's report to `sink` and finishes it with `summary`: `document()` (an
/// nlohmann::ordered_json) for --format json, else what `render(std::ostream&, bool color)`
/// writes. For the commands that have text and JSON only.
template <typename Document, typename Render>
void write_report(ReportSink& sink, OutputFormat format, Document&& document, Render&& render,
                  std::string_view summary) {
  if (format == OutputFormat::kJson) {
    sink.write(dump_json(document()));
  } else {
    std::ostringstream text;
    render(text, sink.color());
    sink.write(text.str());
  }
  sink.finish(summary);
}

/// Shows a trailing TARGET positional as required in the help, although CLI11 sees it as
/// optional (PATCH takes every positional so that options may follow them; the last one is
/// moved to TARGET after parsing: see setup_verify, setup_apply).
class TargetFormatter : public CLI::Formatter {
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

/// --map OLD=NEW values as (OLD, NEW) pairs, each normalised. Throws Error for a value without
/// "=", an OLD that is not a relative path, or a NEW that is neither empty (TARGET itself) nor
/// a relative path inside TARGET (absolute, or climbing out with "..").
inline std::vector<std::pair<std::string, std::string>> parse_path_maps(
    const std::vector<std::string>& maps) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& m : maps) {
    const std::size_t eq = m.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error("--map '" + m + "': expected OLD=NEW (a path prefix, then its new value)");
    std::optional<std::string> from = normalize_relative_path(m.substr(0, eq));
    if (!from) throw Error("--map '" + m + "': OLD must be a relative path (a patch path prefix)");
    const std::string to_text = m.substr(eq + 1);
    std::optional<std::string> to =
        to_text.empty() ? std::optional<std::string>("") : normalize_relative_path(to_text);
    if (!to)
      throw Error("--map '" + m + "': NEW must be a relative path inside TARGET (or empty)");
    out.emplace_back(*from, *to);
  }
  return out;
}

}  // namespace sm120check::cli
