// GPU probe logic (over the NvmlApi and CudaApi seams), compute-capability parsing and the table
// of hardware facts (see gpu.hpp). The CUDA runtime itself is only touched in cuda_runtime.cpp,
// NVML in nvml.cpp.
#include "sm120check/gpu.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <string>

#include "sm120check/error.hpp"

namespace sm120check {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool starts_with_nocase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (lower(text[i]) != prefix[i]) return false;
  return true;
}

[[noreturn]] void bad_capability(std::string_view text, std::string_view why) {
  throw Error(fmt::format(
      "bad compute capability '{}': {} (expected e.g. 12.0, 9.0, sm_120, sm_90a)", text, why));
}

/// "NAME (NUMBER): description" for a CUDA error.
std::string cuda_error_text(CudaApi& api, int code) {
  std::string text = fmt::format("{} ({})", api.error_name(code), code);
  std::string what = api.error_string(code);
  if (!what.empty()) text += ": " + what;
  return text;
}

/// "function: description (NUMBER)" for an NVML error, e.g. "nvmlInit_v2: Driver Not Loaded (9)".
std::string nvml_error_text(NvmlApi& api, std::string_view function, int code) {
  std::string what = api.error_string(code);
  if (what.empty()) what = "NVML error";
  return fmt::format("{}: {} ({})", function, what, code);
}

/// The table's shared-memory facts of `device.cc` (NVML has no shared-memory query).
void add_table_facts(GpuDevice& device) {
  if (std::optional<ArchFacts> facts = arch_facts(device.cc)) {
    device.shared_memory_per_block_optin = facts->shared_memory_per_block_optin;
    device.shared_memory_per_multiprocessor = facts->shared_memory_per_multiprocessor;
  }
}

/// True when an NVML report is the answer: devices, or a driver that sees none.
bool nvml_answered(const GpuReport& report) {
  return report.state == GpuState::kOk || report.state == GpuState::kNoDevice;
}

}  // namespace

std::string ComputeCapability::to_string() const { return fmt::format("{}.{}", major, minor); }

std::string ComputeCapability::sm_name() const { return fmt::format("sm_{}", sm()); }

ComputeCapability parse_compute_capability(std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.empty()) bad_capability(text, "empty");
  bool sm_form = false;
  if (starts_with_nocase(s, "compute_")) {
    s.remove_prefix(8);
    sm_form = true;
  } else if (starts_with_nocase(s, "sm")) {
    s.remove_prefix(2);
    if (!s.empty() && s.front() == '_') s.remove_prefix(1);
    sm_form = true;
  }
  // An architecture-specific (a) or family-specific (f) suffix names the same capability.
  if (!s.empty() && (lower(s.back()) == 'a' || lower(s.back()) == 'f')) s.remove_suffix(1);
  if (s.empty()) bad_capability(text, "no number");
  ComputeCapability cc;
  if (sm_form) {
    if (s.size() < 2 || s.size() > 3 || !std::all_of(s.begin(), s.end(), is_digit))
      bad_capability(text, "sm_ needs two or three digits");
    int sm = std::stoi(std::string(s));
    cc = ComputeCapability::from_sm(sm);
  } else {
    std::size_t dot = s.find('.');
    std::string_view major = s.substr(0, dot);
    std::string_view minor = dot == std::string_view::npos ? "0" : s.substr(dot + 1);
    if (dot == std::string_view::npos && major.size() == 3 &&
        std::all_of(major.begin(), major.end(), is_digit))
      bad_capability(text, fmt::format("a major version has one or two digits; for the SM "
                                       "number write sm_{}",
                                       major));
    if (major.empty() || !std::all_of(major.begin(), major.end(), is_digit))
      bad_capability(text, "the major version must be a number");
    if (major.size() > 2)
      bad_capability(text, fmt::format("major version {} out of range 1..19", major));
    if (minor.size() != 1 || !is_digit(minor[0]))
      bad_capability(text, "the minor version must be one digit");
    cc.major = std::stoi(std::string(major));
    cc.minor = minor[0] - '0';
  }
  if (cc.major < 1 || cc.major > 19) bad_capability(text, "major version out of range 1..19");
  return cc;
}

std::optional<ArchFacts> arch_facts(ComputeCapability cc) {
  // CUDA C++ Programming Guide, "Technical Specifications per Compute Capability": maximum
  // amount of shared memory per SM and per thread block (opt-in), in KB, times 1024.
  constexpr std::uint64_t kKiB = 1024;
  switch (cc.major) {
    case 7:
      if (cc.minor == 0) return ArchFacts{"Volta", 96 * kKiB, 96 * kKiB};
      if (cc.minor == 5) return ArchFacts{"Turing", 64 * kKiB, 64 * kKiB};
      return std::nullopt;
    case 8:
      if (cc.minor == 0) return ArchFacts{"Ampere (data center)", 164 * kKiB, 163 * kKiB};
      if (cc.minor == 6) return ArchFacts{"Ampere", 100 * kKiB, 99 * kKiB};
      if (cc.minor == 7) return ArchFacts{"Ampere (Orin)", 164 * kKiB, 163 * kKiB};
      if (cc.minor == 9) return ArchFacts{"Ada", 100 * kKiB, 99 * kKiB};
      return std::nullopt;
    case 9:
      if (cc.minor == 0) return ArchFacts{"Hopper", 228 * kKiB, 227 * kKiB};
      return std::nullopt;
    case 10:
      return ArchFacts{"Blackwell (data center)", 228 * kKiB, 227 * kKiB};
    case 12:  // 12.0: RTX PRO 6000, GeForce RTX 50; 12.1: GB10 (DGX Spark)
      if (cc.minor == 1) return ArchFacts{"Blackwell (GB10, DGX Spark)", 100 * kKiB, 99 * kKiB};
      return ArchFacts{"Blackwell (workstation, GeForce)", 100 * kKiB, 99 * kKiB};
    default:
      return std::nullopt;
  }
}

std::string_view to_string(GpuSource source) {
  switch (source) {
    case GpuSource::kNvml:
      return "nvml";
    case GpuSource::kCudaRuntime:
      return "cuda-runtime";
    case GpuSource::kOverride:
      return "override";
    case GpuSource::kNone:
      return "none";
  }
  return "none";
}

std::string_view to_string(GpuState state) {
  switch (state) {
    case GpuState::kOk:
      return "ok";
    case GpuState::kNoDevice:
      return "no-device";
    case GpuState::kNoDriver:
      return "no-driver";
    case GpuState::kDriverTooOld:
      return "driver-too-old";
    case GpuState::kCudaError:
      return "cuda-error";
    case GpuState::kNvmlError:
      return "nvml-error";
    case GpuState::kBuiltWithoutCuda:
      return "built-without-cuda";
    case GpuState::kNotProbed:
      return "not-probed";
  }
  return "cuda-error";
}

std::vector<ComputeCapability> GpuReport::capabilities() const {
  std::vector<ComputeCapability> out;
  for (const GpuDevice& d : devices) out.push_back(d.cc);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string cuda_version_string(int version) {
  if (version <= 0) return {};
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

GpuReport probe_gpus(CudaApi& api) {
  GpuReport report;
  report.source = GpuSource::kCudaRuntime;
  int driver = 0;
  int code = api.driver_version(driver);
  if (code != kCudaSuccess) driver = 0;
  report.driver_version = driver;
  int runtime = 0;
  if (api.runtime_version(runtime) == kCudaSuccess) report.runtime_version = runtime;
  if (driver == 0) {
    // cudaDriverGetVersion reports 0 "if no driver is installed" (CUDA runtime API reference).
    report.state = GpuState::kNoDriver;
    report.error = "no CUDA driver found";
    return report;
  }
  int count = 0;
  code = api.device_count(count);
  if (code == kCudaErrorNoDevice || (code == kCudaSuccess && count <= 0)) {
    report.state = GpuState::kNoDevice;
    report.error = code == kCudaSuccess ? "no CUDA device found" : cuda_error_text(api, code);
    return report;
  }
  if (code == kCudaErrorStubLibrary) {
    report.state = GpuState::kNoDriver;
    report.error = "no CUDA driver found (only a stub library): " + cuda_error_text(api, code);
    return report;
  }
  if (code == kCudaErrorInsufficientDriver) {
    report.state = GpuState::kDriverTooOld;
    report.error = fmt::format(
        "CUDA driver too old: it supports CUDA {}, this binary's runtime is CUDA {}: {}",
        cuda_version_string(driver), cuda_version_string(report.runtime_version),
        cuda_error_text(api, code));
    return report;
  }
  if (code != kCudaSuccess) {
    report.state = GpuState::kCudaError;
    report.error = cuda_error_text(api, code);
    return report;
  }
  std::string failures;
  for (int i = 0; i < count; ++i) {
    GpuDevice device;
    code = api.device(i, device);
    if (code != kCudaSuccess) {
      if (!failures.empty()) failures += "; ";
      failures += fmt::format("device {}: {}", i, cuda_error_text(api, code));
      continue;
    }
    device.index = i;
    device.probed = true;
    report.devices.push_back(std::move(device));
  }
  report.error = failures;
  report.state = report.devices.empty() ? GpuState::kCudaError : GpuState::kOk;
  return report;
}

GpuReport probe_gpus_nvml(NvmlApi& api) {
  GpuReport report;
  report.source = GpuSource::kNvml;
  int code = api.init();
  if (code != kNvmlSuccess) {
    report.state = code == kNvmlErrorDriverNotLoaded ? GpuState::kNoDriver : GpuState::kNvmlError;
    report.error = nvml_error_text(api, "nvmlInit_v2", code);
    return report;
  }
  int driver = 0;
  if (api.cuda_driver_version(driver) == kNvmlSuccess && driver > 0) report.driver_version = driver;
  std::string release;
  if (api.driver_release(release) == kNvmlSuccess) report.driver_release = release;
  unsigned count = 0;
  code = api.device_count(count);
  if (code != kNvmlSuccess) {
    report.state = GpuState::kNvmlError;
    report.error = nvml_error_text(api, "nvmlDeviceGetCount_v2", code);
  } else if (count == 0) {
    report.state = GpuState::kNoDevice;
    report.error = "no NVIDIA GPU found (NVML counts 0 devices)";
  } else {
    std::string failures;
    for (unsigned i = 0; i < count; ++i) {
      GpuDevice device;
      code = api.device(i, device);
      if (code != kNvmlSuccess) {
        if (!failures.empty()) failures += "; ";
        failures += fmt::format("device {}: {} ({})", i, api.error_string(code), code);
        continue;
      }
      device.index = static_cast<int>(i);
      device.probed = true;
      add_table_facts(device);
      report.devices.push_back(std::move(device));
    }
    report.error = failures;
    report.state = report.devices.empty() ? GpuState::kNvmlError : GpuState::kOk;
  }
  api.shutdown();
  return report;
}

GpuReport probe_gpus(NvmlApi* nvml, std::string_view nvml_error, CudaApi* cuda,
                     const GpuProbeOptions& options) {
  std::string why_not_nvml;
  if (cuda != nullptr && options.limits)
    why_not_nvml = "--limits asked for the CUDA runtime's limits";
  else if (cuda != nullptr && options.cuda_visible_devices)
    why_not_nvml = "CUDA_VISIBLE_DEVICES is set: the CUDA runtime presents the devices it leaves";
  if (why_not_nvml.empty()) {
    GpuReport report;
    if (nvml != nullptr) {
      report = probe_gpus_nvml(*nvml);
      if (nvml_answered(report) || cuda == nullptr) {
        report.runtime_version = linked_cuda_runtime_version();
        return report;
      }
      why_not_nvml = "NVML: " + report.error;
    } else {
      why_not_nvml = "NVML: " + std::string(nvml_error);
      if (cuda == nullptr) {
        report.source = GpuSource::kNone;
        report.state = GpuState::kBuiltWithoutCuda;
        report.error = "built without CUDA support, and " + why_not_nvml;
        return report;
      }
    }
  }
  GpuReport report = probe_gpus(*cuda);
  report.fallback = std::move(why_not_nvml);
  return report;
}

GpuReport probe_local_gpus(GpuProbeOptions options) {
  const auto start = std::chrono::steady_clock::now();
  if (std::getenv("CUDA_VISIBLE_DEVICES") != nullptr) options.cuda_visible_devices = true;
  std::unique_ptr<CudaApi> cuda = cuda_runtime_api();
  std::unique_ptr<NvmlApi> nvml;
  std::string nvml_error;
  // NVML is loaded only when it may answer.
  if (cuda == nullptr || !(options.limits || options.cuda_visible_devices)) {
    const char* library = std::getenv("SM120CHECK_NVML_LIBRARY");
    nvml = load_nvml(library != nullptr && *library != '\0' ? library : kNvmlLibrary, nvml_error);
  }
  GpuReport report = probe_gpus(nvml.get(), nvml_error, cuda.get(), options);
  const auto end = std::chrono::steady_clock::now();
  report.probe_ms = std::chrono::duration<double, std::milli>(end - start).count();
  return report;
}

GpuReport override_gpu(ComputeCapability cc) {
  GpuReport report;
  report.source = GpuSource::kOverride;
  report.state = GpuState::kOk;
  GpuDevice device;
  device.probed = false;
  device.cc = cc;
  add_table_facts(device);
  report.devices.push_back(std::move(device));
  return report;
}

GpuReport unprobed_gpu() {
  GpuReport report;
  report.source = GpuSource::kNone;
  report.state = GpuState::kNotProbed;
  return report;
}

int gpu_exit_code(const GpuReport& report) {
  switch (report.state) {
    case GpuState::kOk:
      return 0;
    case GpuState::kNoDevice:
    case GpuState::kNoDriver:
    case GpuState::kNotProbed:
      return 1;
    case GpuState::kDriverTooOld:
    case GpuState::kCudaError:
    case GpuState::kNvmlError:
    case GpuState::kBuiltWithoutCuda:
      return 2;
  }
  return 2;
}

}  // namespace sm120check
