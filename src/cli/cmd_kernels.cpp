// `sm120check kernels [--cc CC]... [--entries] [--format text|json] PATH...` (see commands.hpp):
// the CUDA code each file carries and whether the GPU can run it.
#include <algorithm>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "commands.hpp"
#include "sm120check/gpu.hpp"
#include "sm120check/kernels.hpp"

namespace sm120check::cli {
namespace {

namespace fs = std::filesystem;

/// Every regular file below `dir`, sorted; symlinks are not followed (a link to a library is
/// listed where the library itself lies). An unreadable folder is skipped.
std::vector<std::string> files_below(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) throw Error(dir, 0, "cannot read the directory: " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    std::error_code type_error;
    if (it->is_regular_file(type_error) && !it->is_symlink(type_error))
      out.push_back(it->path().string());
  }
  if (ec) throw Error(dir, 0, "cannot walk the directory: " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

/// Lists `path`; an unreadable file becomes a listing with its error.
KernelListing list_one(const std::string& path) {
  try {
    return list_kernels(path);
  } catch (const Error& e) {
    KernelListing listing;
    listing.path = path;
    listing.error = e.message();
    return listing;
  }
}

}  // namespace

CLI::App* setup_kernels(CLI::App& app, KernelsCommandOptions& options, Setup setup) {
  CLI::App* cmd = app.add_subcommand(
      "kernels",
      "List the CUDA code compiled into files (ELF shared objects, executables, objects: their "
      ".nv_fatbin and __nv_relfatbin fat binaries): cubins per SM, PTX and its version, "
      "compression; and whether the GPU (probed, or --cc) can run it.");
  if (setup == Setup::kNameOnly) return cmd;
  cmd->add_option("PATH", options.paths,
                  "A file, or a directory whose files carrying CUDA code are listed")
      ->required();
  cmd->add_option("--cc", options.ccs,
                  "Judge for a GPU of this compute capability instead of probing the local one "
                  "(12.0, 12.1, sm_90; repeat for several)")
      ->type_name("CC")
      ->expected(1)  // one value per --cc: a PATH may follow
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->check(compute_capability_check());
  cmd->add_flag("--no-gpu", options.no_gpu, "Do not probe the local GPU: list without judging");
  cmd->add_flag("--entries", options.entries,
                "Text output: every fat binary and entry (offset, size, compression, functions)");
  add_output_options(*cmd, options.output);
  cmd->footer(kKernelsExitCodesHelp);
  return cmd;
}

int run_kernels(const KernelsCommandOptions& options) {
  ReportSink sink(options.output);
  KernelsReport report;
  if (!options.ccs.empty()) {
    for (const std::string& cc : options.ccs)
      report.capabilities.push_back(parse_compute_capability(cc));
    std::sort(report.capabilities.begin(), report.capabilities.end());
    report.capabilities.erase(std::unique(report.capabilities.begin(), report.capabilities.end()),
                              report.capabilities.end());
    report.gpu_source = std::string(to_string(GpuSource::kOverride));
  } else if (options.no_gpu) {
    report.gpu_source = std::string(to_string(GpuSource::kNone));
    report.gpu_error = "--no-gpu";
  } else {
    const GpuReport gpu = probe_local_gpus();
    report.capabilities = gpu.capabilities();
    report.driver_cuda_version = gpu.driver_version;
    report.gpu_source = std::string(to_string(gpu.source));
    if (report.capabilities.empty())
      report.gpu_error = gpu.error.empty() ? std::string(to_string(gpu.state)) : gpu.error;
  }
  for (const std::string& path : options.paths) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) throw Error(path, 0, "no such file or directory");
    if (fs::is_directory(status)) {
      for (const std::string& file : files_below(path)) {
        ++report.files_examined;
        KernelListing listing = list_one(file);
        if (!listing.fatbins.empty() || !listing.error.empty())
          report.files.push_back(std::move(listing));
      }
    } else {
      ++report.files_examined;
      report.files.push_back(list_one(path));
    }
  }
  for (const KernelListing& listing : report.files) {
    std::vector<FileFit> fits;
    for (const ComputeCapability& cc : report.capabilities)
      fits.push_back(file_fit(listing, cc, report.driver_cuda_version));
    report.fits.push_back(std::move(fits));
  }
  const int exit_code = kernels_exit_code(report);
  write_report(
      sink, options.output.format, [&] { return kernels_document(report, exit_code); },
      [&](std::ostream& out, bool color) {
        render_kernels_text(out, report, color, options.entries);
      },
      fmt::format("kernels: {} file{} examined, {} listed  -> exit {}", report.files_examined,
                  report.files_examined == 1 ? "" : "s", report.files.size(), exit_code));
  return exit_code;
}

}  // namespace sm120check::cli
