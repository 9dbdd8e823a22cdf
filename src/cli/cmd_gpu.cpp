// `sm120check gpu [--cc CC] [--limits] [--format text|json]` (see commands.hpp), and the --cc
// option shared
// with `verify`.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iostream>

#include "commands.hpp"
#include "sm120check/gpu.hpp"

namespace sm120check::cli {

bool is_published_compute_capability(ComputeCapability cc) {
  // As sm numbers (major * 10 + minor), ascending; see the declaration for the sources.
  static constexpr std::array<int, 31> kPublished = {
      10, 11, 12, 13, 20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62,
      70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 103, 107, 110, 120, 121};
  return std::binary_search(kPublished.begin(), kPublished.end(), cc.sm());
}

ComputeCapability cc_option(const std::string& value, bool quiet) {
  const ComputeCapability cc = parse_compute_capability(value);
  if (!quiet && !is_published_compute_capability(cc))
    std::cerr << fmt::format(
        "sm120check: warning: --cc {}: compute capability {} ({}) is not one NVIDIA has "
        "published (developer.nvidia.com/cuda-gpus); it is used as given\n",
        escape_for_terminal(value), cc.to_string(), cc.sm_name());
  return cc;
}

CLI::Validator compute_capability_check() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        try {
          parse_compute_capability(value);
          return {};
        } catch (const Error& e) {
          return e.what();
        }
      },
      "");
}

CLI::Option* add_cc_option(CLI::App& cmd, std::optional<std::string>& cc,
                           const std::string& description) {
  return cmd
      .add_option("--cc", cc,
                  description.empty()
                      ? "Assume a GPU of this compute capability instead of probing the local "
                        "one: 12.0, 9.0, sm_120, sm120, sm_90a"
                      : description)
      ->type_name("CC")
      ->check(compute_capability_check());
}

CLI::App* setup_gpu(CLI::App& app, GpuCommandOptions& options, Setup setup) {
  if (setup == Setup::kNone) return nullptr;
  CLI::App* cmd = app.add_subcommand(
      "gpu",
      "Probe every NVIDIA GPU: name, PCI bus id, compute capability, global memory and driver "
      "through NVML (fast; shared memory limits from the CUDA Programming Guide's table), or "
      "every limit through the CUDA runtime with --limits (or when NVML is missing or "
      "CUDA_VISIBLE_DEVICES is set).");
    add_cc_option(*cmd, options.cc);
  cmd->add_flag("--limits", options.limits,
                "Measure every limit through the CUDA runtime (multiprocessors, shared memory "
                "per block and per SM, opt-in, reserved, L2); slower: it starts the CUDA "
                "driver");
  add_output_options(*cmd, options.output);
  cmd->footer(kGpuExitCodesHelp);
  return cmd;
}

int run_gpu(const GpuCommandOptions& options) {
  ReportSink sink(options.output);
  GpuProbeOptions probe;
  probe.limits = options.limits;
  const GpuReport gpu =
      options.cc ? override_gpu(cc_option(*options.cc, options.output.quiet))
                 : probe_local_gpus(probe);
  const int exit_code = gpu_exit_code(gpu);
  write_report(
      sink, options.output.format, [&] { return gpu_document(gpu, exit_code); },
      [&](std::ostream& out, bool color) { render_gpu_text(out, gpu, color); },
      fmt::format("gpu: {} device{}  -> exit {}", gpu.devices.size(),
                  gpu.devices.size() == 1 ? "" : "s", exit_code));
  return exit_code;
}

}  // namespace sm120check::cli
