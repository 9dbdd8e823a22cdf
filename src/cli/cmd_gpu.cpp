// `sm120check gpu [--cc CC] [--limits] [--format text|json]` (see commands.hpp), and the --cc
// option shared
// with `verify`.
#include <fmt/format.h>

#include "commands.hpp"
#include "sm120check/gpu.hpp"

namespace sm120check::cli {

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

void add_cc_option(CLI::App& cmd, std::optional<std::string>& cc) {
  cmd.add_option("--cc", cc,
                 "Assume a GPU of this compute capability instead of probing the local one: "
                 "12.0, 9.0, sm_120, sm120, sm_90a")
      ->type_name("CC")
      ->check(compute_capability_check());
}

CLI::App* setup_gpu(CLI::App& app, GpuCommandOptions& options, Setup setup) {
  CLI::App* cmd = app.add_subcommand(
      "gpu",
      "Probe every NVIDIA GPU: name, PCI bus id, compute capability, global memory and driver "
      "through NVML (fast; shared memory limits from the CUDA Programming Guide's table), or "
      "every limit through the CUDA runtime with --limits (or when NVML is missing or "
      "CUDA_VISIBLE_DEVICES is set).");
  if (setup == Setup::kNameOnly) return cmd;
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
      options.cc ? override_gpu(parse_compute_capability(*options.cc)) : probe_local_gpus(probe);
  const int exit_code = gpu_exit_code(gpu);
  write_report(
      sink, options.output.format, [&] { return gpu_document(gpu, exit_code); },
      [&](std::ostream& out, bool color) { render_gpu_text(out, gpu, color); },
      fmt::format("gpu: {} device{}  -> exit {}", gpu.devices.size(),
                  gpu.devices.size() == 1 ? "" : "s", exit_code));
  return exit_code;
}

}  // namespace sm120check::cli
