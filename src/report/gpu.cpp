// Rendering of the GPU probe: the "sm120check.gpu/1" document, the verify document's "gpu"
// section, and the text of `sm120check gpu` (see docs/json.md).
#include <fmt/format.h>

#include <string>

#include "sm120check/report.hpp"

namespace sm120check {
namespace {

using json = nlohmann::ordered_json;

/// `value` as JSON, or null when `known` is false or the value is 0 (not reported).
json num_or_null(std::uint64_t value, bool known) {
  if (!known || value == 0) return nullptr;
  return value;
}

/// True when the CUDA runtime measured `d`'s limits (not --cc, not NVML).
bool limits_measured(const GpuDevice& d, GpuSource source) {
  return d.probed && source == GpuSource::kCudaRuntime;
}

json device_to_json(const GpuDevice& d, GpuSource source) {
  const std::optional<ArchFacts> facts = arch_facts(d.cc);
  const bool measured = limits_measured(d, source);
  json out = json::object();
  out["index"] = d.probed ? json(d.index) : json(nullptr);
  out["name"] = d.probed ? json(sanitize_utf8(d.name)) : json(nullptr);
  out["pci_bus_id"] =
      d.probed && !d.pci_bus_id.empty() ? json(sanitize_utf8(d.pci_bus_id)) : json(nullptr);
  out["compute_capability"] = d.cc.to_string();
  out["major"] = d.cc.major;
  out["minor"] = d.cc.minor;
  out["sm"] = d.cc.sm_name();
  out["family"] = facts ? json(std::string(facts->family)) : json(nullptr);
  out["multiprocessors"] = measured ? json(d.multiprocessors) : json(nullptr);
  out["shared_memory_per_block"] = num_or_null(d.shared_memory_per_block, measured);
  out["shared_memory_per_block_optin"] = num_or_null(d.shared_memory_per_block_optin, true);
  out["shared_memory_per_multiprocessor"] = num_or_null(d.shared_memory_per_multiprocessor, true);
  out["reserved_shared_memory_per_block"] =
      measured ? json(d.reserved_shared_memory_per_block) : json(nullptr);
  out["l2_cache_size"] = num_or_null(d.l2_cache_size, measured);
  out["global_memory"] = num_or_null(d.global_memory, d.probed);
  out["facts"] = measured ? "cuda-runtime" : "table";
  return out;
}

std::string mib(std::uint64_t bytes) {
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

std::string gib(std::uint64_t bytes) {
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
}

}  // namespace

nlohmann::ordered_json gpu_to_json(const GpuReport& gpu) {
  json out = json::object();
  out["source"] = std::string(to_string(gpu.source));
  out["state"] = std::string(to_string(gpu.state));
  json devices = json::array();
  for (const GpuDevice& d : gpu.devices) devices.push_back(device_to_json(d, gpu.source));
  out["devices"] = std::move(devices);
  out["error"] = gpu.error.empty() ? json(nullptr) : json(sanitize_utf8(gpu.error));
  out["driver_version"] = gpu.driver_version > 0 ? json(gpu.driver_version) : json(nullptr);
  out["runtime_version"] = gpu.runtime_version > 0 ? json(gpu.runtime_version) : json(nullptr);
  out["driver_release"] =
      gpu.driver_release.empty() ? json(nullptr) : json(sanitize_utf8(gpu.driver_release));
  out["fallback"] = gpu.fallback.empty() ? json(nullptr) : json(sanitize_utf8(gpu.fallback));
  const bool probed = gpu.source == GpuSource::kCudaRuntime || gpu.source == GpuSource::kNvml;
  out["probe_ms"] = probed
                        ? json(static_cast<double>(static_cast<long long>(gpu.probe_ms * 10)) / 10)
                        : json(nullptr);
  return out;
}

nlohmann::ordered_json gpu_document(const GpuReport& gpu, int exit_code) {
  json doc = json::object();
  doc["schema"] = kGpuSchema;
  doc["tool"] = tool_to_json();
  doc["tool"]["built_with_cuda"] = built_with_cuda();
  const json body = gpu_to_json(gpu);
  for (auto it = body.begin(); it != body.end(); ++it) doc[it.key()] = *it;
  doc["exit_code"] = exit_code;
  return doc;
}

std::vector<std::string> gpu_summary_lines(const GpuReport& gpu) {
  std::vector<std::string> lines;
  if (gpu.source == GpuSource::kOverride) {
    for (const GpuDevice& d : gpu.devices)
      lines.push_back(fmt::format("gpu: compute capability {} ({}), given with --cc",
                                  d.cc.to_string(), d.cc.sm_name()));
    return lines;
  }
  if (gpu.devices.empty()) {
    if (gpu.state == GpuState::kNotProbed)
      lines.push_back("gpu: not probed (--no-gpu)");
    else
      lines.push_back(
          fmt::format("gpu: none ({}: {})", to_string(gpu.state), escape_for_terminal(gpu.error)));
    return lines;
  }
  for (const GpuDevice& d : gpu.devices) {
    if (limits_measured(d, gpu.source))
      lines.push_back(fmt::format(
          "gpu {}: {}, compute capability {} ({}), {} SMs, {} bytes opt-in shared memory per "
          "block",
          d.index, escape_for_terminal(d.name), d.cc.to_string(), d.cc.sm_name(), d.multiprocessors,
          d.shared_memory_per_block_optin));
    else
      lines.push_back(fmt::format("gpu {}: {}, compute capability {} ({}), through {}", d.index,
                                  escape_for_terminal(d.name), d.cc.to_string(), d.cc.sm_name(),
                                  to_string(gpu.source)));
  }
  if (!gpu.error.empty()) lines.push_back("gpu: " + escape_for_terminal(gpu.error));
  return lines;
}

void render_gpu_text(std::ostream& out, const GpuReport& gpu, bool color) {
  const auto bold = [&](const std::string& text) {
    return color ? "\x1b[1m" + text + "\x1b[0m" : text;
  };
  out << "source: " << to_string(gpu.source) << "\n";
  if (!gpu.fallback.empty()) out << "fallback: " << escape_for_terminal(gpu.fallback) << "\n";
  if (gpu.source == GpuSource::kNvml) {
    std::string driver = gpu.driver_release.empty() ? std::string("unknown")
                                                    : escape_for_terminal(gpu.driver_release);
    if (gpu.driver_version > 0)
      driver += fmt::format(", CUDA {} ({})", cuda_version_string(gpu.driver_version),
                            gpu.driver_version);
    out << "driver: " << driver << "\n";
    out << fmt::format("probe: {:.1f} ms\n", gpu.probe_ms);
  } else if (gpu.source == GpuSource::kCudaRuntime) {
    out << "driver: "
        << (gpu.driver_version > 0
                ? fmt::format("CUDA {} ({})", cuda_version_string(gpu.driver_version),
                              gpu.driver_version)
                : std::string("none"))
        << "\n";
    out << "runtime: CUDA " << cuda_version_string(gpu.runtime_version) << " ("
        << gpu.runtime_version << ", static)\n";
    out << fmt::format("probe: {:.1f} ms\n", gpu.probe_ms);
  }
  if (gpu.devices.empty()) {
    out << "devices: none (" << to_string(gpu.state) << ")\n";
    if (!gpu.error.empty()) out << "error: " << escape_for_terminal(gpu.error) << "\n";
    return;
  }
  for (const GpuDevice& d : gpu.devices) {
    const std::optional<ArchFacts> facts = arch_facts(d.cc);
    const bool measured = limits_measured(d, gpu.source);
    out << "\n";
    if (d.probed)
      out << bold(fmt::format("device {}: {}", d.index, escape_for_terminal(d.name))) << "\n"
          << "  pci bus id:                        " << escape_for_terminal(d.pci_bus_id) << "\n";
    else
      out << bold("device given with --cc (facts from the CUDA Programming Guide table)") << "\n";
    out << fmt::format("  compute capability:                {} ({}){}\n", d.cc.to_string(),
                       d.cc.sm_name(), facts ? fmt::format(", {}", facts->family) : "");
    if (measured) {
      out << fmt::format("  multiprocessors:                   {}\n", d.multiprocessors);
      out << fmt::format("  shared memory per block:           {} bytes\n",
                         d.shared_memory_per_block);
    }
    // Through NVML the two limits come from the table; say so beside each.
    const std::string_view origin = d.probed && !measured ? " (table)" : "";
    const auto bytes_or_unknown = [&](std::uint64_t v) {
      return v == 0 ? std::string("unknown") : fmt::format("{} bytes{}", v, origin);
    };
    out << "  shared memory per block (opt-in):  "
        << bytes_or_unknown(d.shared_memory_per_block_optin) << "\n";
    out << "  shared memory per multiprocessor:  "
        << bytes_or_unknown(d.shared_memory_per_multiprocessor) << "\n";
    if (d.probed && !measured && d.global_memory > 0)
      out << fmt::format("  global memory:                     {} bytes ({})\n", d.global_memory,
                         gib(d.global_memory));
    if (measured) {
      out << fmt::format("  reserved shared memory per block:  {} bytes\n",
                         d.reserved_shared_memory_per_block);
      out << fmt::format("  L2 cache:                          {} bytes ({})\n", d.l2_cache_size,
                         mib(d.l2_cache_size));
      out << fmt::format("  global memory:                     {} bytes ({})\n", d.global_memory,
                         gib(d.global_memory));
    }
  }
  if (!gpu.error.empty()) out << "\nerror: " << escape_for_terminal(gpu.error) << "\n";
  if (gpu.source == GpuSource::kNvml) {
    out << "\n(table): CUDA C++ Programming Guide, \"Technical Specifications per Compute "
           "Capability\"";
    if (built_with_cuda())
      out << "; 'sm120check gpu --limits' measures every limit through the CUDA runtime";
    out << "\n";
  }
}

}  // namespace sm120check
