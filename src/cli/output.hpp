// Output helpers shared by the subcommands: --format/--color options, colour detection, writing
// to standard output, and the exit-code help text. Header-only (the CLI's sources are fixed in
// CMakeLists.txt).
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli11.hpp"
#include "sm120check/error.hpp"
#include "sm120check/tree.hpp"
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

/// Resolves --color for standard output: kAuto colours only when stdout is a terminal and
/// NO_COLOR is unset or empty; CLICOLOR_FORCE set to anything but "" or "0" forces colour in
/// kAuto (even when stdout is not a terminal or NO_COLOR is set). kAlways/kNever ignore both.
inline bool use_color(ColorMode mode) {
  if (mode != ColorMode::kAuto) return mode == ColorMode::kAlways;
  const char* force = std::getenv("CLICOLOR_FORCE");
  if (force != nullptr && *force != '\0' && std::strcmp(force, "0") != 0) return true;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
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

/// Adds --format text|json and --color auto|always|never to `cmd`.
inline void add_output_options(CLI::App& cmd, OutputFormat& format, ColorMode& color) {
  static const std::map<std::string, OutputFormat> kFormats{{"text", OutputFormat::kText},
                                                            {"json", OutputFormat::kJson}};
  static const std::map<std::string, ColorMode> kColors{
      {"auto", ColorMode::kAuto}, {"always", ColorMode::kAlways}, {"never", ColorMode::kNever}};
  cmd.add_option("--format", format,
                 "Output format: text (for people, the default) or json (for scripts)")
      ->transform(choice(kFormats, "text or json"))
      ->type_name("text|json");
  cmd.add_option("--color", color,
                 "Colour the text output: auto (the default: when stdout is a terminal and "
                 "NO_COLOR is unset; CLICOLOR_FORCE=1 forces), always or never")
      ->transform(choice(kColors, "auto, always or never"))
      ->type_name("auto|always|never");
}

/// Writes `text` to standard output with write(2). Returns false when the reader closed standard
/// output (EPIPE): the caller should stop quietly. Throws Error for any other write failure.
inline bool write_stdout(const std::string& text) {
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

/// Writes a command's report to standard output: `document()` (an nlohmann::ordered_json) as
/// indented JSON with a final newline for --format json, else what `render(std::ostream&)`
/// writes. Returns write_stdout()'s answer.
template <typename Document, typename Render>
bool write_report(OutputFormat format, Document&& document, Render&& render) {
  if (format == OutputFormat::kJson)
    return write_stdout(
        document().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  std::ostringstream text;
  render(text);
  return write_stdout(text.str());
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
