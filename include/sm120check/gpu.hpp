// The local GPU, probed through NVML (identity and compute capability, fast) or the CUDA runtime
// API (every limit), and the hardware facts that decide whether an architecture-specific fix
// matters on it (e.g. SM120 vs Hopper shared-memory limits).
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

/// One CUDA device as the runtime (cudaGetDeviceProperties) or NVML reports it. Sizes in bytes.
struct GpuDevice {
  /// False for a device given with --cc: only `cc` is known, and the two table facts
  /// (shared_memory_per_block_optin, shared_memory_per_multiprocessor) come from arch_facts()
  /// (0 when the table has none); every other field is 0 / empty. Also true for a device read
  /// through NVML, which gives name, pci_bus_id, cc and global_memory only: the two table facts
  /// come from arch_facts() as with --cc, the other limits stay 0.
  bool probed = true;
  /// CUDA device ordinal (as CUDA_VISIBLE_DEVICES presents it); through NVML, the NVML index
  /// (nvidia-smi's, PCI bus order: the CUDA ordinal under CUDA_DEVICE_ORDER=PCI_BUS_ID).
  int index = 0;
  std::string name;  ///< e.g. "NVIDIA H200".
  /// "0000:3b:00.0" (cudaDeviceGetPCIBusId; NVML's "00000000:3B:00.0" is written the same way).
  std::string pci_bus_id;
  ComputeCapability cc;
  int multiprocessors = 0;
  std::uint64_t shared_memory_per_block = 0;           ///< default limit (sharedMemPerBlock).
  std::uint64_t shared_memory_per_block_optin = 0;     ///< with cudaFuncSetAttribute opt-in.
  std::uint64_t shared_memory_per_multiprocessor = 0;  ///< sharedMemPerMultiprocessor.
  std::uint64_t reserved_shared_memory_per_block = 0;  ///< reservedSharedMemPerBlock.
  std::uint64_t l2_cache_size = 0;                     ///< l2CacheSize.
  /// totalGlobalMem; through NVML, nvmlMemory_t::total (nvidia-smi's memory.total).
  std::uint64_t global_memory = 0;
};

/// Where the GPU facts of a report come from.
enum class GpuSource {
  kNvml,         ///< probed through NVML (libnvidia-ml.so.1, loaded at run time)
  kCudaRuntime,  ///< probed through the CUDA runtime (whatever the outcome)
  kOverride,     ///< given with --cc
  kNone,         ///< not probed: --no-gpu, or this binary was built without CUDA
};

/// "nvml", "cuda-runtime", "override", "none".
std::string_view to_string(GpuSource source);

/// Outcome of a probe.
enum class GpuState {
  kOk,        ///< at least one device (or a --cc override)
  kNoDevice,  ///< a driver, but no CUDA device (cudaErrorNoDevice, or a count of 0, NVML's too)
  /// no CUDA driver installed (cudaDriverGetVersion gives 0, or a stub), or NVML's
  /// NVML_ERROR_DRIVER_NOT_LOADED when there is no runtime to ask
  kNoDriver,
  kDriverTooOld,      ///< the driver is older than the runtime (cudaErrorInsufficientDriver)
  kCudaError,         ///< any other CUDA error
  kNvmlError,         ///< NVML failed and this binary has no CUDA runtime to fall back on
  kBuiltWithoutCuda,  ///< built without the CUDA runtime, and NVML is not installed either
  kNotProbed,         ///< --no-gpu
};

/// "ok", "no-device", "no-driver", "driver-too-old", "cuda-error", "nvml-error",
/// "built-without-cuda", "not-probed".
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
  /// cudaDriverGetVersion (or nvmlSystemGetCudaDriverVersion) / cudaRuntimeGetVersion (or the
  /// CUDART_VERSION linked in, through NVML) (1000 * major + 10 * minor: 13000 is 13.0); 0 when
  /// unknown or (driver) not installed.
  int driver_version = 0;
  int runtime_version = 0;
  /// The driver's release, e.g. "580.65.06" (nvmlSystemGetDriverVersion); empty when unknown.
  std::string driver_release;
  /// Why the CUDA runtime answered instead of NVML, one line, e.g. "--limits asked for the
  /// CUDA runtime's limits", "CUDA_VISIBLE_DEVICES is set", "NVML: libnvidia-ml.so.1: cannot
  /// open shared object file..."; empty when NVML answered or was not tried.
  std::string fallback;
  /// Wall time of the probe in milliseconds (NVML's or the CUDA driver's start-up); 0 if none ran.
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

/// The NVML calls the probe makes, one virtual per call, returning the nvmlReturn_t value (0 =
/// NVML_SUCCESS). The seam between the NVML probe's logic (probe_gpus_nvml) and
/// libnvidia-ml.so.1, so that tests can script every outcome. NVML API Reference Manual
/// (docs.nvidia.com/deploy/nvml-api), "Initialization and Cleanup", "System Queries", "Device
/// Queries".
class NvmlApi {
 public:
  virtual ~NvmlApi() = default;
  virtual int init() = 0;  ///< nvmlInit_v2
  /// nvmlShutdown, or nothing: the library's version leaves NVML initialised until the process
  /// exits (nvmlShutdown is a tenth of the probe's time, see nvml.cpp).
  virtual int shutdown() = 0;
  virtual int cuda_driver_version(int& version) = 0;     ///< nvmlSystemGetCudaDriverVersion
  virtual int driver_release(std::string& release) = 0;  ///< nvmlSystemGetDriverVersion
  virtual int device_count(unsigned& count) = 0;         ///< nvmlDeviceGetCount_v2
  /// nvmlDeviceGetHandleByIndex_v2 and nvmlDeviceGetCudaComputeCapability for device `index`
  /// into `device.cc` (their error is returned), then, where they answer, nvmlDeviceGetName,
  /// nvmlDeviceGetPciInfo_v3 and nvmlDeviceGetMemoryInfo into name, pci_bus_id, global_memory.
  virtual int device(unsigned index, GpuDevice& device) = 0;
  virtual std::string error_string(int code) = 0;  ///< nvmlErrorString
};

/// nvmlReturn_t values the probe distinguishes (NVML API Reference, "Error reporting"; stable).
inline constexpr int kNvmlSuccess = 0;
inline constexpr int kNvmlErrorNoPermission = 4;
inline constexpr int kNvmlErrorDriverNotLoaded = 9;
inline constexpr int kNvmlErrorLibraryNotFound = 12;
inline constexpr int kNvmlErrorGpuIsLost = 15;
inline constexpr int kNvmlErrorLibRmVersionMismatch = 18;
inline constexpr int kNvmlErrorUnknown = 999;

/// NVML's library name: dlopen'ed at run time, so that hosts without a driver still start the
/// binary. The environment variable SM120CHECK_NVML_LIBRARY, when set and not empty, names
/// another file instead (a fake NVML in the tests, or a driver in an unusual place).
inline constexpr const char* kNvmlLibrary = "libnvidia-ml.so.1";

/// Loads NVML from `library` (dlopen, then dlsym of every entry point NvmlApi uses). Returns
/// nullptr and sets `error` ("libnvidia-ml.so.1: cannot open shared object file...", or
/// "...: no symbol nvmlInit_v2") when it cannot. Never throws for a missing library.
std::unique_ptr<NvmlApi> load_nvml(const std::string& library, std::string& error);

/// The NVML probe's logic over `api`: init (NVML_ERROR_DRIVER_NOT_LOADED -> kNoDriver; any other
/// error -> kNvmlError "nvmlInit_v2: description (NUMBER)"), CUDA driver version and release,
/// device count (0 -> kNoDevice), then each device; a device that fails is left out and named in
/// `error` (kNvmlError when none could be read). Devices get
/// the arch_facts() of their capability. Source kNvml. Does not set probe_ms or runtime_version.
/// Calls api.shutdown() when init succeeded.
GpuReport probe_gpus_nvml(NvmlApi& api);

/// What `sm120check gpu` and `verify` ask of the probe.
struct GpuProbeOptions {
  /// Every limit the CUDA runtime reports (multiprocessors, shared memory per block, L2, ...):
  /// the CUDA runtime answers, not NVML (`gpu --limits`).
  bool limits = false;
  /// CUDA_VISIBLE_DEVICES is set: only the CUDA runtime presents the devices a CUDA program sees
  /// (NVML lists every device), so it answers when this binary has it.
  bool cuda_visible_devices = false;
};

/// Chooses the source and probes: the CUDA runtime when `options` asks for it and `cuda` is not
/// null; otherwise NVML when `nvml` is not null (`nvml_error` says why it is null); the CUDA
/// runtime again when NVML could not answer (not loaded, init failed, every device failed), with
/// `fallback` saying why. An NVML answer of ok or no-device stands. Without `cuda`: NVML's
/// answer, or kBuiltWithoutCuda when NVML could not be loaded. Does not set probe_ms.
GpuReport probe_gpus(NvmlApi* nvml, std::string_view nvml_error, CudaApi* cuda,
                     const GpuProbeOptions& options);

/// CUDART_VERSION of the CUDA runtime linked in (13000 for 13.0), 0 without one; no CUDA call.
int linked_cuda_runtime_version() noexcept;

/// True when this binary was built with the CUDA runtime (CMake option SM120CHECK_WITH_CUDA).
bool built_with_cuda() noexcept;

/// The CUDA runtime linked into this binary, or nullptr when built without CUDA.
std::unique_ptr<CudaApi> cuda_runtime_api();

/// Probes this host's GPUs (probe_gpus over NVML, loaded only when it may answer, and the linked
/// CUDA runtime; CUDA_VISIBLE_DEVICES read from the environment) and times it (probe_ms). When
/// built without CUDA and NVML is missing: source kNone, state kBuiltWithoutCuda, error "built
/// without CUDA support, and NVML: ...". Never throws for CUDA or NVML errors. Safe to call from
/// another thread.
GpuReport probe_local_gpus(GpuProbeOptions options = {});

/// A report for a GPU given with --cc: source kOverride, state kOk, one device with probed false,
/// `cc` and the arch_facts() of `cc`.
GpuReport override_gpu(ComputeCapability cc);

/// A report for --no-gpu: source kNone, state kNotProbed, no devices, no error.
GpuReport unprobed_gpu();

/// Exit code of `sm120check gpu`: 0 state kOk; 1 kNoDevice or kNoDriver (nothing to probe on
/// this host); 2 kDriverTooOld, kCudaError, kNvmlError or kBuiltWithoutCuda (the probe could not
/// tell);
/// (3 is the usage error exit code of every command).
int gpu_exit_code(const GpuReport& report);

}  // namespace sm120check
