// The NvmlApi over libnvidia-ml.so.1 (part of the NVIDIA driver), loaded with dlopen at run time:
// no link-time dependency, no nvml.h at build time. The few entry points and structs the probe
// uses are declared here from the NVML API Reference Manual (docs.nvidia.com/deploy/nvml-api);
// each declaration names its page.
#include <dlfcn.h>

#include <array>
#include <cctype>
#include <string>

#include "sm120check/gpu.hpp"

namespace sm120check {
namespace {

// NVML API Reference, "Device Enums" / "Device Structs": nvmlReturn_t is a C enum (int-sized),
// nvmlDevice_t an opaque pointer.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;

// NVML API Reference, "struct nvmlPciInfo_t" (the layout nvmlDeviceGetPciInfo_v3 fills):
// busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE = 16], domain, bus, device, pciDeviceId,
// pciSubSystemId (unsigned int each), busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE = 32].
struct NvmlPciInfo {
  char bus_id_legacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pci_device_id;
  unsigned int pci_subsystem_id;
  char bus_id[32];
};

// NVML API Reference, "struct nvmlMemory_t" (version 1, filled by nvmlDeviceGetMemoryInfo):
// total, free, used, in bytes (unsigned long long each).
struct NvmlMemory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

// Buffer sizes from the NVML API Reference, "Device Queries" / "System Queries":
// NVML_DEVICE_NAME_V2_BUFFER_SIZE (96), NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE (80).
constexpr unsigned kNameBufferSize = 96;
constexpr unsigned kDriverVersionBufferSize = 80;

// Entry points, by their NVML API Reference pages:
// "Initialization and Cleanup": nvmlInit_v2(void) (nvmlShutdown is not called, see shutdown()).
// "Error reporting": const char* nvmlErrorString(nvmlReturn_t).
// "System Queries": nvmlSystemGetCudaDriverVersion(int*), nvmlSystemGetDriverVersion(char*,
//   unsigned int length).
// "Device Queries": nvmlDeviceGetCount_v2(unsigned int*), nvmlDeviceGetHandleByIndex_v2(
//   unsigned int, nvmlDevice_t*), nvmlDeviceGetCudaComputeCapability(nvmlDevice_t, int* major,
//   int* minor), nvmlDeviceGetName(nvmlDevice_t, char*, unsigned int length),
//   nvmlDeviceGetPciInfo_v3(nvmlDevice_t, nvmlPciInfo_t*), nvmlDeviceGetMemoryInfo(nvmlDevice_t,
//   nvmlMemory_t*).
using InitFn = nvmlReturn_t (*)();
using ErrorStringFn = const char* (*)(nvmlReturn_t);
using CudaDriverVersionFn = nvmlReturn_t (*)(int*);
using DriverVersionFn = nvmlReturn_t (*)(char*, unsigned int);
using CountFn = nvmlReturn_t (*)(unsigned int*);
using HandleFn = nvmlReturn_t (*)(unsigned int, nvmlDevice_t*);
using ComputeCapabilityFn = nvmlReturn_t (*)(nvmlDevice_t, int*, int*);
using NameFn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int);
using PciInfoFn = nvmlReturn_t (*)(nvmlDevice_t, NvmlPciInfo*);
using MemoryFn = nvmlReturn_t (*)(nvmlDevice_t, NvmlMemory*);

/// NVML's "00000000:3B:00.0" written as the CUDA runtime writes it: "0000:3b:00.0" (lower case,
/// a domain of four digits when it fits).
std::string cuda_style_bus_id(const char* nvml_bus_id) {
  std::string id(nvml_bus_id);
  for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::size_t colon = id.find(':');
  if (colon == 8 && id.compare(0, 4, "0000") == 0) id.erase(0, 4);
  return id;
}

class NvmlLibraryApi final : public NvmlApi {
 public:
  explicit NvmlLibraryApi(void* handle) : handle_(handle) {}
  // The library stays loaded: NVML may be in use until exit, and unloading it gains nothing.

  /// Resolves every entry point; false with `missing` naming the first that is absent.
  bool resolve(std::string& missing) {
    return sym(init_, "nvmlInit_v2", missing) && sym(error_string_, "nvmlErrorString", missing) &&
           sym(cuda_driver_version_, "nvmlSystemGetCudaDriverVersion", missing) &&
           sym(driver_version_, "nvmlSystemGetDriverVersion", missing) &&
           sym(count_, "nvmlDeviceGetCount_v2", missing) &&
           sym(handle_by_index_, "nvmlDeviceGetHandleByIndex_v2", missing) &&
           sym(compute_capability_, "nvmlDeviceGetCudaComputeCapability", missing) &&
           sym(name_, "nvmlDeviceGetName", missing) &&
           sym(pci_info_, "nvmlDeviceGetPciInfo_v3", missing) &&
           sym(memory_, "nvmlDeviceGetMemoryInfo", missing);
  }

  int init() override { return init_(); }
  // NVML stays initialised until the process exits, which releases it: on an H200 host
  // nvmlShutdown took 2.4-3.1 ms of a 17-20 ms probe (nvmlInit_v2 8-10 ms, the first device
  // handle 6.5 ms), and `sm120check gpu` went from 1.03-1.17x nvidia-smi's time to 1.00-1.05x
  // without it (bench/bench_gpu.sh). nvmlInit_v2 counts its calls, so a later probe in the same
  // process only adds one.
  int shutdown() override { return kNvmlSuccess; }
  int cuda_driver_version(int& version) override { return cuda_driver_version_(&version); }
  int driver_release(std::string& release) override {
    std::array<char, kDriverVersionBufferSize> buffer{};
    const int code = driver_version_(buffer.data(), kDriverVersionBufferSize);
    buffer.back() = '\0';
    if (code == kNvmlSuccess) release = buffer.data();
    return code;
  }
  int device_count(unsigned& count) override { return count_(&count); }

  int device(unsigned index, GpuDevice& device) override {
    nvmlDevice_t handle = nullptr;
    int code = handle_by_index_(index, &handle);
    if (code != kNvmlSuccess) return code;
    int major = 0;
    int minor = 0;
    code = compute_capability_(handle, &major, &minor);
    if (code != kNvmlSuccess) return code;
    device.cc = {major, minor};
    std::array<char, kNameBufferSize> name{};
    if (name_(handle, name.data(), kNameBufferSize) == kNvmlSuccess) {
      name.back() = '\0';
      device.name = name.data();
    }
    NvmlPciInfo pci{};
    if (pci_info_(handle, &pci) == kNvmlSuccess) {
      pci.bus_id[sizeof(pci.bus_id) - 1] = '\0';
      device.pci_bus_id = cuda_style_bus_id(pci.bus_id);
    }
    NvmlMemory memory{};
    if (memory_(handle, &memory) == kNvmlSuccess) device.global_memory = memory.total;
    return kNvmlSuccess;
  }

  std::string error_string(int code) override {
    const char* what = error_string_(code);
    return what != nullptr ? what : "";
  }

 private:
  template <typename Fn>
  bool sym(Fn& fn, const char* name, std::string& missing) {
    fn = reinterpret_cast<Fn>(dlsym(handle_, name));
    if (fn == nullptr) missing = name;
    return fn != nullptr;
  }

  void* handle_;
  InitFn init_ = nullptr;
  ErrorStringFn error_string_ = nullptr;
  CudaDriverVersionFn cuda_driver_version_ = nullptr;
  DriverVersionFn driver_version_ = nullptr;
  CountFn count_ = nullptr;
  HandleFn handle_by_index_ = nullptr;
  ComputeCapabilityFn compute_capability_ = nullptr;
  NameFn name_ = nullptr;
  PciInfoFn pci_info_ = nullptr;
  MemoryFn memory_ = nullptr;
};

}  // namespace

std::unique_ptr<NvmlApi> load_nvml(const std::string& library, std::string& error) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    error = why != nullptr ? why : library + ": cannot be loaded";
    return nullptr;
  }
  auto api = std::make_unique<NvmlLibraryApi>(handle);
  std::string missing;
  if (!api->resolve(missing)) {
    error = library + ": no symbol " + missing + " (NVML too old?)";
    dlclose(handle);
    return nullptr;
  }
  return api;
}

}  // namespace sm120check
