// The local GPU, probed through the CUDA runtime API, and the hardware facts that decide whether
// an architecture-specific fix matters on it (e.g. SM120 vs Hopper shared-memory limits).
#pragma once

#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sm120check {

/// A CUDA compute capability, e.g. 12.0 (Blackwell workstation, "SM120") or 9.0 (Hopper, H100 and
/// H200). Minor versions are 0..9.
struct ComputeCapability {
  int major = 0;
  int minor = 0;

  /// major * 10 + minor: 120 for 12.0, 90 for 9.0, 86 for 8.6 (the XY of sm_XY).
  int sm() const noexcept { return major * 10 + minor; }
  /// The capability of sm number `sm` (120 -> 12.0).
  static ComputeCapability from_sm(int sm) noexcept { return {sm / 10, sm % 10}; }
  /// "12.0".
  std::string to_string() const;
  /// "sm_120".
  std::string sm_name() const;

  friend auto operator<=>(const ComputeCapability&, const ComputeCapability&) = default;
};

/// Parses a compute capability as users write it: "12.0", "12" (minor 0), "9.0a", "sm_120",
/// "sm120", "SM120", "sm_90a", "sm_100f", "compute_120" (letters are case-insensitive; the
/// architecture-specific suffixes a/f are accepted and ignored). Throws Error("bad compute
/// capability '...': ...") for anything else (minor above 9, major 0 or above 19, empty).
ComputeCapability parse_compute_capability(std::string_view text);

/// Shared-memory facts of one compute capability, from the CUDA C++ Programming Guide, table
/// "Technical Specifications per Compute Capability" (maximum shared memory per SM, maximum
/// shared memory per thread block with opt-in, i.e. cudaDevAttrMaxSharedMemoryPerBlockOptin).
/// Bytes. Used when the GPU is given with --cc instead of probed.
struct ArchFacts {
  std::string_view family;  ///< "Hopper", "Blackwell (workstation)", ...
  std::uint64_t shared_memory_per_multiprocessor;
  std::uint64_t shared_memory_per_block_optin;
};

/// The facts for `cc`, or std::nullopt for a capability the table does not list. Listed:
/// 7.0, 7.5, 8.0, 8.6, 8.7, 8.9, 9.0, 10.x, 12.x (e.g. 12.0: 102400 per SM and 101376 opt-in
/// per block; 9.0 and 10.x: 233472 and 232448; 8.0: 167936 and 166912).
std::optional<ArchFacts> arch_facts(ComputeCapability cc);

/// One CUDA device as the runtime reports it (cudaGetDeviceProperties). Sizes in bytes.
struct GpuDevice {
  /// False for a device given with --cc: only `cc` is known, and the two table facts
  /// (shared_memory_per_block_optin, shared_memory_per_multiprocessor) come from arch_facts()
  /// (0 when the table has none); every other field is 0 / empty.
  bool probed = true;
  int index = 0;           ///< CUDA device ordinal (as CUDA_VISIBLE_DEVICES presents it).
  std::string name;        ///< e.g. "NVIDIA H200".
  std::string pci_bus_id;  ///< "0000:3b:00.0" (cudaDeviceGetPCIBusId).
  ComputeCapability cc;
  int multiprocessors = 0;
  std::uint64_t shared_memory_per_block = 0;           ///< default limit (sharedMemPerBlock).
  std::uint64_t shared_memory_per_block_optin = 0;     ///< with cudaFuncSetAttribute opt-in.
  std::uint64_t shared_memory_per_multiprocessor = 0;  ///< sharedMemPerMultiprocessor.
  std::uint64_t reserved_shared_memory_per_block = 0;  ///< reservedSharedMemPerBlock.
  std::uint64_t l2_cache_size = 0;                     ///< l2CacheSize.
  std::uint64_t global_memory = 0;                     ///< totalGlobalMem.
};

/// Where the GPU facts of a report come from.
enum class GpuSource {
  kCudaRuntime,  ///< probed through the CUDA runtime (whatever the outcome)
  kOverride,     ///< given with --cc
  kNone,         ///< not probed: --no-gpu, or this binary was built without CUDA
};

/// "cuda-runtime", "override", "none".
std::string_view to_string(GpuSource source);

/// Outcome of a probe.
enum class GpuState {
  kOk,                ///< at least one device (or a --cc override)
  kNoDevice,          ///< a driver, but no CUDA device (cudaErrorNoDevice, or a count of 0)
  kNoDriver,          ///< no CUDA driver installed (cudaDriverGetVersion gives 0, or a stub)
  kDriverTooOld,      ///< the driver is older than the runtime (cudaErrorInsufficientDriver)
  kCudaError,         ///< any other CUDA error
  kBuiltWithoutCuda,  ///< this binary was built without the CUDA runtime
  kNotProbed,         ///< --no-gpu
};

/// "ok", "no-device", "no-driver", "driver-too-old", "cuda-error", "built-without-cuda",
/// "not-probed".
std::string_view to_string(GpuState state);

/// What is known about the GPUs of this host (or the one given with --cc).
struct GpuReport {
  GpuSource source = GpuSource::kNone;
  GpuState state = GpuState::kNotProbed;
  /// Devices in ordinal order. With state kOk and a failing device query, the devices that
  /// could be read (and `error` says which failed).
  std::vector<GpuDevice> devices;
  /// Why there is no device or what failed, one line, e.g. "no CUDA driver found" or
  /// "cudaErrorNoDevice (100): no CUDA-capable device is detected"; empty when nothing failed.
  std::string error;
  /// cudaDriverGetVersion / cudaRuntimeGetVersion (1000 * major + 10 * minor: 13000 is 13.0);
  /// 0 when unknown or (driver) not installed.
  int driver_version = 0;
  int runtime_version = 0;
  /// Wall time of the probe in milliseconds (mostly the CUDA driver's start-up); 0 if none ran.
  double probe_ms = 0;

  /// The distinct capabilities of the devices, ascending.
  std::vector<ComputeCapability> capabilities() const;
};

/// "13.0" for CUDA's version encoding 13000; "" for 0.
std::string cuda_version_string(int version);

/// The CUDA runtime calls the probe makes, one virtual per call, returning the cudaError_t value
/// (0 = cudaSuccess). The seam between the probe's logic (probe_gpus) and libcudart, so that
/// tests can script every outcome without a GPU.
class CudaApi {
 public:
  virtual ~CudaApi() = default;
  virtual int driver_version(int& version) = 0;   ///< cudaDriverGetVersion
  virtual int runtime_version(int& version) = 0;  ///< cudaRuntimeGetVersion
  virtual int device_count(int& count) = 0;       ///< cudaGetDeviceCount
  /// cudaGetDeviceProperties + cudaDeviceGetPCIBusId for device `index` into `device` (all
  /// fields but `index` and `probed`).
  virtual int device(int index, GpuDevice& device) = 0;
  /// cudaGetErrorName / cudaGetErrorString of `code`.
  virtual std::string error_name(int code) = 0;
  virtual std::string error_string(int code) = 0;
};

/// cudaError_t values the probe distinguishes (from driver_types.h; stable across CUDA versions).
inline constexpr int kCudaSuccess = 0;
inline constexpr int kCudaErrorStubLibrary = 34;
inline constexpr int kCudaErrorInsufficientDriver = 35;
inline constexpr int kCudaErrorNoDevice = 100;

/// The probe's logic over `api`: driver version (0 -> kNoDriver, "no CUDA driver found"),
/// runtime version, device count (cudaErrorNoDevice or 0 -> kNoDevice; a stub driver ->
/// kNoDriver; cudaErrorInsufficientDriver -> kDriverTooOld naming both versions; anything else ->
/// kCudaError "NAME (NUMBER): description"), then each device; a device that fails is left out
/// and named in `error` (kCudaError when none could be read). Source kCudaRuntime. Never throws
/// on a CUDA error. Does not set probe_ms.
GpuReport probe_gpus(CudaApi& api);

/// True when this binary was built with the CUDA runtime (CMake option SM120CHECK_WITH_CUDA).
bool built_with_cuda() noexcept;

/// The CUDA runtime linked into this binary, or nullptr when built without CUDA.
std::unique_ptr<CudaApi> cuda_runtime_api();

/// Probes this host's GPUs through the linked CUDA runtime and times it (probe_ms). When built
/// without CUDA: source kNone, state kBuiltWithoutCuda, error "built without CUDA support".
/// Never throws for CUDA errors. Safe to call from another thread.
GpuReport probe_local_gpus();

/// A report for a GPU given with --cc: source kOverride, state kOk, one device with probed false,
/// `cc` and the arch_facts() of `cc`.
GpuReport override_gpu(ComputeCapability cc);

/// A report for --no-gpu: source kNone, state kNotProbed, no devices, no error.
GpuReport unprobed_gpu();

/// Exit code of `sm120check gpu`: 0 state kOk; 1 kNoDevice or kNoDriver (nothing to probe on
/// this host); 2 kDriverTooOld, kCudaError or kBuiltWithoutCuda (the probe could not tell);
/// (3 is the usage error exit code of every command).
int gpu_exit_code(const GpuReport& report);

}  // namespace sm120check
