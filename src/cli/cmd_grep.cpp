// `sm120check grep [options] TARGET PATTERN...` (see commands.hpp): the marker search of
// `verify --markers` on its own, for scripts over SSH.
#include <sstream>

#include "commands.hpp"
#include "inputs.hpp"
#include "sm120check/error.hpp"
#include "sm120check/markers.hpp"
#include "sm120check/patch.hpp"
#include "sm120check/search.hpp"

namespace sm120check::cli {

CLI::App* setup_grep(CLI::App& app, GrepCommandOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "grep",
      "Search TARGET for fixed strings (or markers of patches) and print each line found as "
      "path:line: text. Parallel; never follows symlinks; skips .git, binary and large files.");
  cmd->add_option("TARGET", options.target, "Directory to search")->required()->type_name("");
  cmd->add_option("PATTERN", options.patterns,
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
  cmd->add_option("-j,--threads", options.threads, "Worker threads (default: one per CPU)")
      ->type_name("N");
  add_output_options(*cmd, options.format, options.color);
  cmd->footer(
      "Exit codes:\n  0  every pattern was found\n  1  some pattern was not found\n"
      "  3  could not search (missing target, bad regular expression, usage error)");
  return cmd;
}

int run_grep(const GrepCommandOptions& options) {
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
  SearchResult result = search_tree(options.target, markers, so);
  bool all_found = true;
  for (const MarkerHits& m : result.markers) all_found = all_found && m.total > 0;

  std::string out;
  if (options.format == OutputFormat::kJson) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::object();
    doc["schema"] = "sm120check.grep/1";
    doc["tool"] = {{"name", "sm120check"}, {"version", SM120CHECK_VERSION}};
    doc["target"] = {{"path", sanitize_utf8(options.target)}};
    doc["markers"] = markers_to_json(result.markers);
    doc["search"] = search_to_json(result);
    doc["exit_code"] = all_found ? 0 : 1;
    out = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  } else {
    std::ostringstream text;
    render_hits_text(text, result.markers);
    out = text.str();
    std::string skipped = search_skipped_text(result);
    std::string missing;
    for (const MarkerHits& m : result.markers)
      if (m.total == 0)
        missing += "sm120check: not found: " + escape_for_terminal(m.marker.text) + "\n";
    if (!skipped.empty() || !missing.empty())
      std::fputs((missing + (skipped.empty() ? "" : "sm120check: " + skipped + "\n")).c_str(),
                 stderr);
  }
  write_stdout(out);
  return all_found ? 0 : 1;
}

}  // namespace sm120check::cli
