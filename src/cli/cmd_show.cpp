// `sm120check show PATCH...` (see commands.hpp).
#include <sstream>

#include "commands.hpp"
#include "inputs.hpp"
#include "sm120check/patch.hpp"

namespace sm120check::cli {

CLI::App* setup_show(CLI::App& app, ShowCommandOptions& options, Setup setup) {
  CLI::App* cmd = app.add_subcommand(
      "show", "Print what the parser understood of each patch: files, changes and hunks.");
  if (setup == Setup::kNameOnly) return cmd;
  cmd->add_option("PATCH", options.patches,
                  "Patch file, directory of *.patch/*.diff files (sorted by name), or - for "
                  "standard input")
      ->required()
      ->type_name("");
  add_output_options(*cmd, options.format, options.color);
  cmd->footer(
      "Exit codes:\n  0  the patches were parsed\n  3  a patch could not be read or parsed");
  return cmd;
}

int run_show(const ShowCommandOptions& options) {
  std::vector<Patch> patches = parse_inputs(read_patch_inputs(options.patches));
  std::string out;
  if (options.format == OutputFormat::kJson) {
    out = show_to_json(patches).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    out += '\n';
  } else {
    std::ostringstream text;
    render_show_text(text, patches, use_color(options.color));
    out = text.str();
  }
  write_stdout(out);
  return 0;
}

}  // namespace sm120check::cli
