// `sm120check grep [options] TARGET PATTERN...` (see commands.hpp): the marker search of
// `verify --markers` on its own, for scripts over SSH.
#include <fmt/format.h>
#include <unistd.h>

#include <mutex>

#include "commands.hpp"
#include "inputs.hpp"
#include "sm120check/error.hpp"
#include "sm120check/markers.hpp"
#include "sm120check/patch.hpp"
#include "sm120check/search.hpp"

namespace sm120check::cli {

CLI::App* setup_grep(CLI::App& app, GrepCommandOptions& options, Setup setup) {
  if (setup == Setup::kNone) return nullptr;
  CLI::App* cmd = app.add_subcommand(
      "grep",
      "Search TARGET for fixed strings (or markers of patches) in one pass per file and print "
      "each line holding one as path:line:text, like rg -n --no-heading (raw bytes; control "
      "bytes and invalid UTF-8 escaped only on a terminal). Parallel; never follows symlinks; "
      "skips .git directories, binary files (a NUL byte) and large files; unlike rg, searches "
      "hidden files and what .gitignore excludes (a deployed tree's ignored files are still "
      "code): rg -n --no-heading -uu -g '!.git' --max-filesize 32M searches the same files.");
    cmd->add_option("TARGET", options.target, "Directory to search")->required()->type_name("");
  add_positional_words(*cmd, "PATTERN", options.patterns,
                       "Fixed string to search for (PCRE2 regular expression with --regex)")
      ->type_name("");
  cmd->add_flag("-E,--regex", options.regex, "Patterns are PCRE2 regular expressions");
  cmd->add_option("--patch", options.patches,
                  "Also search for the markers of this patch (its Marker: trailers and "
                  "distinctive added lines; repeatable, - for standard input)")
      ->type_name("PATCH")
      ->allow_extra_args(false);
  cmd->add_flag("--gitignore", options.gitignore,
                "Skip what .gitignore excludes (when TARGET is in a git work tree)");
  cmd->add_option("--max-filesize", options.max_filesize,
                  "Skip (and report) files larger than N bytes (default 33554432)")
      ->type_name("N");
  cmd->add_option("-j,--threads", options.threads,
                  "Worker threads, 0 to 16 (0, the default: one per CPU, at most 16)")
      ->type_name("N")
      ->check(threads_at_most(kMaxSearchThreads));
  add_output_options(*cmd, options.output);
  cmd->footer(
      "Output: path:line:text, TARGET as given joined with the path below it, one line per "
      "line holding any pattern, in the order files are searched (pipe through sort for a "
      "stable order); the same bytes as rg -n --no-heading -uu -g '!.git' --max-filesize 32M -F -e "
      "P... "
      "TARGET, sorted. --format json keeps every hit in memory (sorted by pattern, path, "
      "line).\n\n"
      "Exit codes:\n  0  every pattern was found\n  1  some pattern was not found\n"
      "  3  could not search (missing target, bad regular expression, a regular expression "
      "PCRE2 gave up on for some line (match limit), usage error)");
  return cmd;
}

std::string target_prefix(const std::string& target) {
  std::string prefix = target;
  while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
  if (prefix != "/") prefix += '/';
  return prefix;
}

std::string unevaluated_regex(const MarkerHits& m, const std::string& path_prefix) {
  return fmt::format("regular expression '{}' could not be evaluated on {} line{} (first: {})",
                     escape_for_terminal(m.marker.text), m.error_lines,
                     m.error_lines == 1 ? "" : "s",
                     escape_for_terminal(m.errors.empty() ? std::string()
                                                          : path_prefix + m.errors.front()));
}

namespace {

/// 3 when a regular expression could not be evaluated somewhere, else 1 when a pattern has no
/// hit, else 0.
int grep_exit_code(const SearchResult& result) {
  bool all_found = true;
  for (const MarkerHits& m : result.markers) {
    if (m.error_lines > 0) return kExitError;
    all_found = all_found && m.total > 0;
  }
  return all_found ? 0 : 1;
}

/// "grep: 2 of 3 patterns found, 14 hits  -> exit 1".
std::string grep_summary(const SearchResult& result) {
  std::size_t found = 0, hits = 0;
  for (const MarkerHits& m : result.markers) {
    found += m.total > 0 ? 1u : 0u;
    hits += m.total;
  }
  return fmt::format("grep: {} of {} pattern{} found, {} hit{}  -> exit {}", found,
                     result.markers.size(), result.markers.size() == 1 ? "" : "s", hits,
                     hits == 1 ? "" : "s", grep_exit_code(result));
}

}  // namespace

int run_grep(const GrepCommandOptions& options) {
  ReportSink sink(options.output);
  std::vector<Marker> markers;
  for (const std::string& p : options.patterns) {
    if (p.empty()) throw Error("grep: an empty PATTERN matches every line; give a string");
    markers.push_back({p, options.regex, Marker::Origin::kOption, {}});
  }
  if (!options.patches.empty()) {
    for (const PatchInput& input : read_patch_inputs(options.patches))
      for (const Patch& patch : parse_patches(input.text, input.source))
        for (Marker& m : extract_markers(patch)) markers.push_back(std::move(m));
  }
  if (markers.empty()) throw Error("grep: no PATTERN given (and no marker in the --patch files)");
  SearchOptions so;
  so.gitignore = options.gitignore;
  so.max_file_size = options.max_filesize;
  so.threads = options.threads;

  if (options.output.format == OutputFormat::kJson) {
    SearchResult result = search_tree(options.target, markers, so);
    const int code = grep_exit_code(result);
    nlohmann::ordered_json doc = nlohmann::ordered_json::object();
    doc["schema"] = "sm120check.grep/1";
    doc["tool"] = tool_to_json();
    doc["target"] = {{"path", sanitize_utf8(options.target)}};
    doc["markers"] = markers_to_json(result.markers);
    doc["search"] = search_to_json(result);
    doc["exit_code"] = code;
    sink.write(dump_json(doc));
    sink.finish(grep_summary(result));
    return code;
  }

  // Text: each file's lines printed as found (memory bounded whatever the number of hits), as
  // rg -n --no-heading prints them: TARGET as given, "/", the relative path, ":", the line
  // number, ":", the raw line. Escaped only for a terminal.
  const std::string prefix = target_prefix(options.target);
  const bool terminal =
      (options.output.file.empty() || options.output.file == "-") && ::isatty(STDOUT_FILENO) == 1;
  std::mutex out_mutex;
  struct OutputClosed {};
  LineSink print = [&](std::string_view path, const std::vector<LineMatch>& lines) {
    std::string out;
    const std::string shown =
        terminal ? escape_for_terminal(prefix + std::string(path)) : prefix + std::string(path);
    for (const LineMatch& m : lines) {
      out += shown;
      out += ':';
      out += std::to_string(m.line);
      out += ':';
      if (terminal)
        out += escape_for_terminal(m.text);
      else
        out.append(m.text.data(), m.text.size());
      out += '\n';
    }
    std::lock_guard lock(out_mutex);
    if (!sink.write(out)) throw OutputClosed{};
  };
  SearchResult result;
  try {
    result = search_tree(options.target, markers, so, print);
  } catch (const OutputClosed&) {
    return 0;  // the reader closed standard output (| head): stop quietly
  }
  std::string errors, notes;
  for (const MarkerHits& m : result.markers) {
    if (m.error_lines > 0)
      errors += "sm120check: error: " + unevaluated_regex(m, prefix) +
                "; its result is incomplete\n";
    else if (m.total == 0)
      notes += "sm120check: not found: " + escape_for_terminal(m.marker.text) + "\n";
  }
  std::string skipped = search_skipped_text(result);
  if (!skipped.empty()) notes += "sm120check: " + skipped + "\n";
  if (options.output.quiet) notes.clear();  // -q: errors only
  if (!errors.empty() || !notes.empty()) std::fputs((errors + notes).c_str(), stderr);
  sink.finish(grep_summary(result));
  return grep_exit_code(result);
}

}  // namespace sm120check::cli
