// `sm120check scan [options] TARGET` and `sm120check scan --list` (see commands.hpp).
#include <fmt/format.h>

#include <chrono>
#include <future>
#include <sstream>

#include "commands.hpp"
#include "sm120check/catalog.hpp"
#include "sm120check/ci_report.hpp"
#include "sm120check/scan.hpp"

namespace sm120check::cli {

CLI::App* setup_scan(CLI::App& app, ScanCommandOptions& options, Setup setup) {
  if (setup == Setup::kNone) return nullptr;
  CLI::App* cmd = app.add_subcommand(
      "scan",
      "Find the installs of known projects under TARGET (site-packages distributions, editable "
      "installs, git checkouts) and report, for each known SM12x fix of the catalog, whether it "
      "is present, missing, not installed or unknown, and whether it matters for this GPU; and "
      "list the CUDA code of the installs' shared objects (every distribution's, each checkout's "
      "build outputs) with whether this GPU can run it. Never modifies TARGET.");
    cmd->add_option("TARGET", options.target,
                  "Directory to scan: a venv, a site-packages folder, a container's root file "
                  "system, a source checkout, or any folder above them. Required, except with "
                  "--list")
      ->type_name("");
  cmd->add_option("--catalog", options.catalogs,
                  "Also read the fix signatures (*.json, the format of patches/catalog) in DIR and "
                  "one level below; an entry with a built-in entry's id replaces it (repeatable)")
      ->type_name("DIR")
      ->allow_extra_args(false);
  cmd->add_option("--only", options.only, "Judge only the catalog entry ID (repeatable)")
      ->type_name("ID")
      ->allow_extra_args(false);
  cmd->add_flag("--list", options.list,
                "Print the catalog (id, project, compute capabilities, title) and stop");
  add_cc_option(*cmd, options.cc);
  cmd->add_flag("--no-gpu", options.no_gpu, "Do not probe the local GPU")->excludes("--cc");
  cmd->add_flag("--only-relevant", options.only_relevant,
                "Leave fixes for other GPUs than this one (probed or --cc) out of the exit code; "
                "they are still reported, marked skipped");
  cmd->add_flag("--stay-inside", options.stay_inside,
                "Never read outside TARGET: an editable install whose source lies elsewhere gets "
                "unknown verdicts instead of being followed there");
  cmd->add_flag("--no-kernels", options.no_kernels,
                "Do not list the CUDA code compiled into the installs' shared objects (*.so: "
                "cubins per SM, PTX) nor judge it for the GPU");
  cmd->add_option("--max-depth", options.max_depth,
                  "Deepest directory the walk enters, counted from TARGET (default 16)")
      ->type_name("N")
      ->check(CLI::Range(std::size_t{1}, std::size_t{4096}));
  cmd->add_option("--max-entries", options.max_entries,
                  "Names the walk lists at most before it stops with a note (default 2000000)")
      ->type_name("N")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 40));
  add_output_options(*cmd, options.output, Formats::kAll);
  cmd->parse_complete_callback([&options] {
    if (!options.list && options.target.empty()) throw CLI::RequiredError("TARGET");
  });
  cmd->footer(kScanExitCodesHelp);
  return cmd;
}

int run_scan(const ScanCommandOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  // Opened first: a FILE that cannot be written fails the run before the walk.
  ReportSink sink(options.output);
  const OutputFormat format = options.output.format;
  if (options.list && format != OutputFormat::kText && format != OutputFormat::kJson)
    throw Error("scan --list: --format " + std::string(format_name(format)) +
                " reports a scan, not the catalog: use --format text or json");
  // The probe runs while the catalog is read and TARGET walked.
  std::future<GpuReport> probe;
  GpuReport gpu = unprobed_gpu();
  if (options.list) {
    // nothing to probe
  } else if (options.cc) {
    gpu = override_gpu(cc_option(*options.cc, options.output.quiet));
  } else if (!options.no_gpu) {
    probe = std::async(std::launch::async, [] { return probe_local_gpus(); });
  }
  Catalog catalog = builtin_catalog();
  for (const std::string& dir : options.catalogs) add_catalog_directory(catalog, dir);
  if (!options.only.empty()) keep_only(catalog, options.only);
  if (!options.output.quiet)
    for (const std::string& r : catalog.replaced)
      std::cerr << "sm120check: note: " << escape_for_terminal(r) << "\n";

  if (options.list) {
    write_report(
        sink, format, [&] { return catalog_to_json(catalog); },
        [&](std::ostream& out, bool) { render_catalog_text(out, catalog); },
        fmt::format("scan --list: {} entr{}", catalog.entries.size(),
                    catalog.entries.size() == 1 ? "y" : "ies"));
    return 0;
  }

  ScanOptions scan_options;
  scan_options.max_depth = options.max_depth;
  scan_options.max_entries = options.max_entries;
  scan_options.stay_inside = options.stay_inside;
  scan_options.only_relevant = options.only_relevant;
  scan_options.kernels = !options.no_kernels;
  // The walk does not need the GPU: relevance is assessed once the probe answers.
  ScanReport report = scan(options.target, std::move(catalog), unprobed_gpu(), scan_options);
  if (probe.valid()) gpu = probe.get();
  report.gpu = std::move(gpu);
  assess_relevance(report);
  if (report.walk.truncated && !options.output.quiet)
    std::cerr << "sm120check: warning: the walk stopped after " << report.walk.entries
              << " names (--max-entries): installs below unlisted directories are not reported\n";
  if (format == OutputFormat::kJson) {
    sink.write(dump_json(scan_to_json(report)));
  } else if (format == OutputFormat::kText) {
    std::ostringstream text;
    render_scan_text(text, report, sink.color());
    sink.write(text.str());
  } else {
    const CiContext context = ci_context(options.target, started);
    sink.write(scan_ci_report(report, format, context));
    if (format == OutputFormat::kGithub)
      append_github_step_summary(scan_github_summary(report, context));
  }
  sink.finish(scan_summary_line(report));
  return report.exit_code();
}

}  // namespace sm120check::cli
