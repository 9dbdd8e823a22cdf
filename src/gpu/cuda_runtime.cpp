// The CudaApi over the CUDA runtime linked statically into this binary (CUDA::cudart_static),
// so that it starts on hosts with no driver and no toolkit. Plain C++ against
// cuda_runtime_api.h; no nvcc. Without SM120CHECK_HAVE_CUDA it only says so.
#include "sm120check/gpu.hpp"

#if SM120CHECK_HAVE_CUDA
#include <cuda_runtime_api.h>

#include <array>
#endif

namespace sm120check {

#if SM120CHECK_HAVE_CUDA
namespace {

class CudaRuntimeApi final : public CudaApi {
 public:
  int driver_version(int& version) override { return cudaDriverGetVersion(&version); }
  int runtime_version(int& version) override { return cudaRuntimeGetVersion(&version); }
  int device_count(int& count) override { return cudaGetDeviceCount(&count); }

  int device(int index, GpuDevice& device) override {
    cudaDeviceProp prop{};
    cudaError_t code = cudaGetDeviceProperties(&prop, index);
    if (code != cudaSuccess) return code;
    prop.name[sizeof(prop.name) - 1] = '\0';
    device.name = prop.name;
    std::array<char, 32> bus{};
    if (cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), index) == cudaSuccess)
      device.pci_bus_id = bus.data();
    device.cc = {prop.major, prop.minor};
    device.multiprocessors = prop.multiProcessorCount;
    device.shared_memory_per_block = prop.sharedMemPerBlock;
    device.shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
    device.shared_memory_per_multiprocessor = prop.sharedMemPerMultiprocessor;
    device.reserved_shared_memory_per_block = prop.reservedSharedMemPerBlock;
    device.l2_cache_size = static_cast<std::uint64_t>(prop.l2CacheSize);
    device.global_memory = prop.totalGlobalMem;
    return cudaSuccess;
  }

  std::string error_name(int code) override {
    const char* name = cudaGetErrorName(static_cast<cudaError_t>(code));
    return name != nullptr ? name : "cudaError";
  }
  std::string error_string(int code) override {
    const char* what = cudaGetErrorString(static_cast<cudaError_t>(code));
    return what != nullptr ? what : "";
  }
};

}  // namespace

bool built_with_cuda() noexcept { return true; }

int linked_cuda_runtime_version() noexcept { return CUDART_VERSION; }

std::unique_ptr<CudaApi> cuda_runtime_api() { return std::make_unique<CudaRuntimeApi>(); }

#else

bool built_with_cuda() noexcept { return false; }

int linked_cuda_runtime_version() noexcept { return 0; }

std::unique_ptr<CudaApi> cuda_runtime_api() { return nullptr; }

#endif

}  // namespace sm120check
