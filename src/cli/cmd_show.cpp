// `sm120check show PATCH...` (see commands.hpp).
#include <sstream>

#include <fmt/format.h>

#include "commands.hpp"
#include "inputs.hpp"
#include "sm120check/patch.hpp"

namespace sm120check::cli {

CLI::App* setup_show(CLI::App& app, ShowCommandOptions& options, Setup setup) {
  if (setup == Setup::kNone) return nullptr;
  CLI::App* cmd = app.add_subcommand(
      "show", "Print what the parser understood of each patch: files, changes and hunks.");
    add_positional_words(*cmd, "PATCH", options.patches,
                       "Patch file, directory of *.patch/*.diff files (sorted by name), or - for "
                       "standard input")
      ->required()
      ->type_name("");
  add_output_options(*cmd, options.output);
  cmd->footer(
      "Exit codes:\n  0  the patches were parsed\n  3  a patch could not be read or parsed");
  return cmd;
}

int run_show(const ShowCommandOptions& options) {
  ReportSink sink(options.output);
  std::vector<Patch> patches = parse_inputs(read_patch_inputs(options.patches));
  std::size_t files = 0;
  for (const Patch& p : patches) files += p.files.size();
  write_report(
      sink, options.output.format, [&] { return show_to_json(patches); },
      [&](std::ostream& out, bool color) { render_show_text(out, patches, color); },
      fmt::format("show: {} patch{}, {} file patch{}", patches.size(),
                  patches.size() == 1 ? "" : "es", files, files == 1 ? "" : "es"));
  return 0;
}

}  // namespace sm120check::cli
