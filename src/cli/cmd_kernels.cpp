// `sm120check kernels [--cc CC]... [--entries] [--format text|json] PATH...` (see commands.hpp):
// the CUDA code each file carries and whether the GPU can run it.
#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "commands.hpp"
#include "sm120check/directory_walk.hpp"
#include "sm120check/gpu.hpp"
#include "sm120check/kernels.hpp"

namespace sm120check::cli {
namespace {

namespace fs = std::filesystem;

/// Lists every regular file below directory `dir` (symlinks not followed: a link to a library
/// is listed where the library itself lies) into `report`: files_examined counts them, files
/// keeps those carrying CUDA code or that could not be read, sorted by path. The walk opens
/// each folder from its parent's descriptor and each file from its folder's (DirectoryWalk):
/// linear in the folders and names, at any depth. A folder that cannot be read for want of
/// permission is skipped; any other that cannot be read is an Error.
void list_below(const std::string& dir, KernelsReport& report) {
  std::unique_ptr<Tree> tree = open_disk_tree(dir);
  DirectoryWalk walk(*tree, "");
  std::vector<KernelListing> found;
  while (walk.next()) {
    if (!walk.error().empty()) {
      if (walk.error_number() == EACCES && !walk.path().empty()) continue;
      throw Error(dir, 0, "cannot walk the directory: " + walk.error());
    }
    const std::vector<Tree::DirEntry>& entries = walk.entries();
    for (std::size_t k = 0; k < entries.size(); ++k) {
      const Tree::DirEntry& e = entries[k];
      if (e.type == Entry::Type::kDirectory) walk.enter(k);
      if (e.type != Entry::Type::kFile) continue;
      ++report.files_examined;
      // The path is built only for a file kept (a file in every folder of a deep chain would
      // otherwise cost the chain's length per file).
      const auto shown = [&] {
        return (fs::path(dir) / (walk.path().empty() ? e.name : walk.path() + "/" + e.name)).string();
      };
      KernelListing listing;
      const OpenFile file(::openat(walk.fd(), e.name.c_str(),
                                   O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW));
      if (file.fd() < 0) {
        listing.path = shown();
        listing.error = fmt::format("cannot open: {}", std::strerror(errno));
      } else {
        try {
          listing = list_kernels_at(file.fd(), e.name);
        } catch (const Error& err) {
          listing = KernelListing{};
          listing.error = err.message();
        }
        if (listing.fatbins.empty() && listing.error.empty()) continue;
        listing.path = shown();
      }
      found.push_back(std::move(listing));
    }
  }
  if (!walk.lost().empty()) throw Error(dir, 0, "cannot walk the directory: " + walk.lost().front());
  std::sort(found.begin(), found.end(),
            [](const KernelListing& a, const KernelListing& b) { return a.path < b.path; });
  for (KernelListing& listing : found) report.files.push_back(std::move(listing));
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
      list_below(path, report);
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
