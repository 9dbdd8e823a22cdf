// `sm120check kernels [--cc CC]... [--entries] [--format text|json] PATH...` (see commands.hpp):
// the CUDA code each file carries and whether the GPU can run it.
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

#include <fmt/format.h>

#include "commands.hpp"
#include "sm120check/directory_walk.hpp"
#include "sm120check/gpu.hpp"
#include "sm120check/kernels.hpp"

namespace sm120check::cli {
namespace {

namespace fs = std::filesystem;

/// Files opened and waiting to be listed at once (list_below()): descriptors held at most.
constexpr std::size_t kListingBatch = 64;

/// The indexes [0, count) ordered by the size of the file open at descriptor `fd(index)`,
/// largest first (-1 or a descriptor fstat(2) refuses: last): the threads that list them end
/// together (one large library left for last would be listed on one thread).
template <typename Fd>
std::vector<std::size_t> largest_first(std::size_t count, Fd fd) {
  std::vector<std::pair<off_t, std::size_t>> sized;
  for (std::size_t k = 0; k < count; ++k) {
    struct stat st {};
    sized.emplace_back(fd(k) >= 0 && ::fstat(fd(k), &st) == 0 ? st.st_size : -1, k);
  }
  std::stable_sort(sized.begin(), sized.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::size_t> order;
  for (const auto& [size, k] : sized) order.push_back(k);
  return order;
}

/// Lists every regular file below directory `dir` (symlinks not followed: a link to a library
/// is listed where the library itself lies) into `report`: files_examined counts them, files
/// keeps those carrying CUDA code or that could not be read, sorted by path. The walk opens
/// each folder from its parent's descriptor and each file from its folder's (DirectoryWalk):
/// linear in the folders and names, at any depth. A folder that cannot be read for want of
/// permission is skipped; any other that cannot be read is an Error. The walk runs on the
/// calling thread; the files it opens are listed kListingBatch at a time on kernel_threads()
/// threads (for_each_concurrently(); the memory this takes: kernel_threads()); the result does
/// not depend on the number of threads.
void list_below(const std::string& dir, KernelsReport& report) {
  std::unique_ptr<Tree> tree = open_disk_tree(dir);
  DirectoryWalk walk(*tree, "");
  std::vector<KernelListing> found;
  /// A file opened by the walk, listed later. `folder` is its folder's path in the walk, one
  /// string for the files of a folder (the path of each file is built only for a file kept: a
  /// file in every folder of a deep chain would otherwise cost the chain's length per file).
  struct Pending {
    OpenFile file;
    int open_errno = 0;
    std::string name;
    std::shared_ptr<const std::string> folder;
    KernelListing listing;
  };
  std::vector<Pending> batch;
  const auto shown = [&](const Pending& p) {
    return (fs::path(dir) / (p.folder->empty() ? p.name : *p.folder + "/" + p.name)).string();
  };
  const auto flush = [&] {
    const std::vector<std::size_t> order = largest_first(
        batch.size(), [&](std::size_t k) { return batch[k].file.fd(); });
    for_each_concurrently(batch.size(), [&](std::size_t k) {
      Pending& p = batch[order[k]];
      if (p.file.fd() < 0) return;
      try {
        p.listing = list_kernels_at(p.file.fd(), p.name);
      } catch (const Error& err) {
        p.listing = KernelListing{};
        p.listing.error = err.message();
      }
    });
    for (Pending& p : batch) {
      if (p.file.fd() < 0) {
        p.listing.error = fmt::format("cannot open: {}", std::strerror(p.open_errno));
      } else if (p.listing.fatbins.empty() && p.listing.error.empty()) {
        continue;
      }
      p.listing.path = shown(p);
      found.push_back(std::move(p.listing));
    }
    batch.clear();
  };
  while (walk.next()) {
    if (!walk.error().empty()) {
      if (walk.error_number() == EACCES && !walk.path().empty()) continue;
      throw Error(dir, 0, "cannot walk the directory: " + walk.error());
    }
    std::shared_ptr<const std::string> folder;
    const std::vector<Tree::DirEntry>& entries = walk.entries();
    for (std::size_t k = 0; k < entries.size(); ++k) {
      const Tree::DirEntry& e = entries[k];
      if (e.type == Entry::Type::kDirectory) walk.enter(k);
      if (e.type != Entry::Type::kFile) continue;
      ++report.files_examined;
      if (folder == nullptr) folder = std::make_shared<const std::string>(walk.path());
      const int fd = ::openat(walk.fd(), e.name.c_str(),
                              O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
      const int open_errno = fd < 0 ? errno : 0;
      batch.push_back(Pending{OpenFile(fd), open_errno, e.name, folder, {}});
      if (batch.size() == kListingBatch) flush();
    }
  }
  flush();
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
  if (setup == Setup::kNone) return nullptr;
  CLI::App* cmd = app.add_subcommand(
      "kernels",
      "List the CUDA code compiled into files (ELF shared objects, executables, objects: their "
      ".nv_fatbin and __nv_relfatbin fat binaries): cubins per SM, PTX and its version, "
      "compression; and whether the GPU (probed, or --cc) can run it.");
    add_positional_words(*cmd, "PATH", options.paths,
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
      report.capabilities.push_back(cc_option(cc, options.output.quiet));
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
