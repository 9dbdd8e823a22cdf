// Tests of the GPU probe: its logic over a scripted CudaApi (no device, no driver, driver too
// old, 12.0, 9.0, several devices), NVML through a fake libnvidia-ml (tests/fake_nvml.cpp: 12.0,
// 12.0 + 12.1, no library, init failure, no device, a lost device) and the choice between the
// two sources, compute-capability parsing, the facts table, the JSON and text renderings, the
// real probe on this (GPU-less) host, and the `gpu` command.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sm120check/error.hpp"
#include "sm120check/gpu.hpp"
#include "sm120check/report.hpp"
#include "test_util.hpp"

namespace sm120check {
namespace {

using json = nlohmann::json;
using test::run_sm120check;

/// A CudaApi whose every answer is scripted.
class FakeCudaApi : public CudaApi {
 public:
  int driver = 13000;
  int driver_code = kCudaSuccess;
  int runtime = 13000;
  int count_code = kCudaSuccess;
  std::vector<GpuDevice> devices;
  std::map<int, int> device_codes;  ///< index -> error code for cudaGetDeviceProperties
  int count_calls = 0;

  int driver_version(int& version) override {
    version = driver;
    return driver_code;
  }
  int runtime_version(int& version) override {
    version = runtime;
    return kCudaSuccess;
  }
  int device_count(int& count) override {
    ++count_calls;
    count = count_code == kCudaSuccess ? static_cast<int>(devices.size()) : 0;
    return count_code;
  }
  int device(int index, GpuDevice& device) override {
    auto it = device_codes.find(index);
    if (it != device_codes.end()) return it->second;
    device = devices.at(static_cast<std::size_t>(index));
    return kCudaSuccess;
  }
  std::string error_name(int code) override {
    switch (code) {
      case kCudaErrorStubLibrary:
        return "cudaErrorStubLibrary";
      case kCudaErrorInsufficientDriver:
        return "cudaErrorInsufficientDriver";
      case kCudaErrorNoDevice:
        return "cudaErrorNoDevice";
      case 101:
        return "cudaErrorInvalidDevice";
      default:
        return "cudaErrorUnknown";
    }
  }
  std::string error_string(int code) override {
    switch (code) {
      case kCudaErrorStubLibrary:
        return "CUDA driver is a stub library";
      case kCudaErrorInsufficientDriver:
        return "CUDA driver version is insufficient for CUDA runtime version";
      case kCudaErrorNoDevice:
        return "no CUDA-capable device is detected";
      case 101:
        return "invalid device ordinal";
      default:
        return "unknown error";
    }
  }
};

GpuDevice h200() {
  GpuDevice d;
  d.name = "NVIDIA H200";
  d.pci_bus_id = "0000:00:06.0";
  d.cc = {9, 0};
  d.multiprocessors = 132;
  d.shared_memory_per_block = 49152;
  d.shared_memory_per_block_optin = 232448;
  d.shared_memory_per_multiprocessor = 233472;
  d.reserved_shared_memory_per_block = 1024;
  d.l2_cache_size = 62914560;
  d.global_memory = 150109880320ull;
  return d;
}

GpuDevice rtx_pro_6000() {
  GpuDevice d;
  d.name = "NVIDIA RTX PRO 6000 Blackwell Workstation Edition";
  d.pci_bus_id = "0000:01:00.0";
  d.cc = {12, 0};
  d.multiprocessors = 188;
  d.shared_memory_per_block = 49152;
  d.shared_memory_per_block_optin = 101376;
  d.shared_memory_per_multiprocessor = 102400;
  d.reserved_shared_memory_per_block = 1024;
  d.l2_cache_size = 134217728;
  d.global_memory = 102005473280ull;
  return d;
}

// ---------------------------------------------------------------------------------------------
// Probe logic over a fake runtime

TEST(GpuProbe, DriverMissing) {
  FakeCudaApi api;
  api.driver = 0;  // cudaDriverGetVersion: 0 when no driver is installed
  GpuReport r = probe_gpus(api);
  EXPECT_EQ(r.source, GpuSource::kCudaRuntime);
  EXPECT_EQ(r.state, GpuState::kNoDriver);
  EXPECT_EQ(r.error, "no CUDA driver found");
  EXPECT_TRUE(r.devices.empty());
  EXPECT_EQ(r.driver_version, 0);
  EXPECT_EQ(r.runtime_version, 13000);
  EXPECT_EQ(api.count_calls, 0);  // the device count is not asked without a driver
  EXPECT_EQ(gpu_exit_code(r), 1);
}

TEST(GpuProbe, DriverVersionCallFailsCountsAsMissing) {
  FakeCudaApi api;
  api.driver_code = 999;
  GpuReport r = probe_gpus(api);
  EXPECT_EQ(r.state, GpuState::kNoDriver);
  EXPECT_EQ(r.error, "no CUDA driver found");
}

TEST(GpuProbe, StubDriverIsNoDriver) {
  FakeCudaApi api;
  api.count_code = kCudaErrorStubLibrary;
  GpuReport r = probe_gpus(api);
  EXPECT_EQ(r.state, GpuState::kNoDriver);
  EXPECT_EQ(r.error,
            "no CUDA driver found (only a stub library): cudaErrorStubLibrary (34): CUDA driver is "
            "a stub library");
  EXPECT_EQ(gpu_exit_code(r), 1);
}

TEST(GpuProbe, NoDevice) {
  FakeCudaApi api;
  api.count_code = kCudaErrorNoDevice;
  GpuReport r = probe_gpus(api);
  EXPECT_EQ(r.state, GpuState::kNoDevice);
  EXPECT_EQ(r.error, "cudaErrorNoDevice (100): no CUDA-capable device is detected");
  EXPECT_TRUE(r.devices.empty());
  EXPECT_EQ(r.driver_version, 13000);
  EXPECT_EQ(gpu_exit_code(r), 1);
}

TEST(GpuProbe, ZeroDevicesIsNoDevice) {
  FakeCudaApi api;  // success, count 0
  GpuReport r = probe_gpus(api);
  EXPECT_EQ(r.state, GpuState::kNoDevice);
  EXPECT_EQ(r.error, "no CUDA device found");
}

TEST(GpuProbe, DriverTooOld) {
  FakeCudaApi api;
  api.driver = 12040;
  api.count_code = kCudaErrorInsufficientDriver;
  GpuReport r = probe_gpus(api);
  EXPECT_EQ(r.state, GpuState::kDriverTooOld);
  EXPECT_EQ(r.error,
            "CUDA driver too old: it supports CUDA 12.4, this binary's runtime is CUDA 13.0: "
            "cudaErrorInsufficientDriver (35): CUDA driver version is insufficient for CUDA "
            "runtime version");
  EXPECT_EQ(gpu_exit_code(r), 2);
}

TEST(GpuProbe, OtherCudaErrorNamesItAndItsNumber) {
  FakeCudaApi api;
  api.count_code = 999;
  GpuReport r = probe_gpus(api);
  EXPECT_EQ(r.state, GpuState::kCudaError);
  EXPECT_EQ(r.error, "cudaErrorUnknown (999): unknown error");
  EXPECT_EQ(gpu_exit_code(r), 2);
}

TEST(GpuProbe, OneSm120Device) {
  FakeCudaApi api;
  api.devices = {rtx_pro_6000()};
  GpuReport r = probe_gpus(api);
  EXPECT_EQ(r.state, GpuState::kOk);
  EXPECT_EQ(r.error, "");
  ASSERT_EQ(r.devices.size(), 1u);
  const GpuDevice& d = r.devices[0];
  EXPECT_TRUE(d.probed);
  EXPECT_EQ(d.index, 0);
  EXPECT_EQ(d.cc, (ComputeCapability{12, 0}));
  EXPECT_EQ(d.shared_memory_per_block_optin, 101376u);
  EXPECT_EQ(r.capabilities(), (std::vector<ComputeCapability>{{12, 0}}));
  EXPECT_EQ(gpu_exit_code(r), 0);
}

TEST(GpuProbe, OneHopperDevice) {
  FakeCudaApi api;
  api.devices = {h200()};
  GpuReport r = probe_gpus(api);
  EXPECT_EQ(r.state, GpuState::kOk);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].cc.to_string(), "9.0");
  EXPECT_EQ(r.devices[0].cc.sm_name(), "sm_90");
  EXPECT_EQ(r.devices[0].multiprocessors, 132);
  EXPECT_EQ(r.devices[0].shared_memory_per_block_optin, 232448u);
}

TEST(GpuProbe, SeveralDevicesOfDifferentCapability) {
  FakeCudaApi api;
  api.devices = {h200(), rtx_pro_6000(), h200()};
  GpuReport r = probe_gpus(api);
  EXPECT_EQ(r.state, GpuState::kOk);
  ASSERT_EQ(r.devices.size(), 3u);
  EXPECT_EQ(r.devices[0].index, 0);
  EXPECT_EQ(r.devices[1].index, 1);
  EXPECT_EQ(r.devices[2].index, 2);
  EXPECT_EQ(r.devices[1].name, "NVIDIA RTX PRO 6000 Blackwell Workstation Edition");
  EXPECT_EQ(r.capabilities(), (std::vector<ComputeCapability>{{9, 0}, {12, 0}}));
}

TEST(GpuProbe, FailingDeviceIsLeftOutAndNamed) {
  FakeCudaApi api;
  api.devices = {h200(), rtx_pro_6000()};
  api.device_codes[1] = 101;
  GpuReport r = probe_gpus(api);
  EXPECT_EQ(r.state, GpuState::kOk);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].index, 0);
  EXPECT_EQ(r.error, "device 1: cudaErrorInvalidDevice (101): invalid device ordinal");

  api.device_codes[0] = 101;
  GpuReport none = probe_gpus(api);
  EXPECT_EQ(none.state, GpuState::kCudaError);
  EXPECT_TRUE(none.devices.empty());
  EXPECT_EQ(none.error,
            "device 0: cudaErrorInvalidDevice (101): invalid device ordinal; device 1: "
            "cudaErrorInvalidDevice (101): invalid device ordinal");
}

// ---------------------------------------------------------------------------------------------
// NVML through the fake libnvidia-ml, and the choice of source

/// Sets FAKE_NVML_SCENARIO for the fake NVML's next nvmlInit_v2, and unsets it at the end.
class FakeNvmlScenario {
 public:
  explicit FakeNvmlScenario(const char* name) { setenv("FAKE_NVML_SCENARIO", name, 1); }
  ~FakeNvmlScenario() { unsetenv("FAKE_NVML_SCENARIO"); }
  FakeNvmlScenario(const FakeNvmlScenario&) = delete;
  FakeNvmlScenario& operator=(const FakeNvmlScenario&) = delete;
};

std::unique_ptr<NvmlApi> fake_nvml() {
  std::string error;
  std::unique_ptr<NvmlApi> api = load_nvml(SM120CHECK_FAKE_NVML, error);
  EXPECT_NE(api, nullptr) << error;
  EXPECT_EQ(error, "");
  return api;
}

TEST(GpuNvml, OneSm120Device) {
  FakeNvmlScenario scenario("one-120");
  std::unique_ptr<NvmlApi> api = fake_nvml();
  ASSERT_NE(api, nullptr);
  GpuReport r = probe_gpus_nvml(*api);
  EXPECT_EQ(r.source, GpuSource::kNvml);
  EXPECT_EQ(r.state, GpuState::kOk);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.driver_version, 13000);
  EXPECT_EQ(r.driver_release, "580.65.06");
  EXPECT_EQ(r.fallback, "");
  ASSERT_EQ(r.devices.size(), 1u);
  const GpuDevice& d = r.devices[0];
  EXPECT_TRUE(d.probed);
  EXPECT_EQ(d.index, 0);
  EXPECT_EQ(d.name, "NVIDIA RTX PRO 6000 Blackwell Workstation Edition");
  EXPECT_EQ(d.pci_bus_id, "0000:01:00.0");  // NVML's "00000000:01:00.0", as CUDA writes it
  EXPECT_EQ(d.cc, (ComputeCapability{12, 0}));
  EXPECT_EQ(d.global_memory, 102642565120ull);
  // NVML has no shared-memory query: the table's facts; the other limits stay unknown.
  EXPECT_EQ(d.shared_memory_per_block_optin, 101376u);
  EXPECT_EQ(d.shared_memory_per_multiprocessor, 102400u);
  EXPECT_EQ(d.multiprocessors, 0);
  EXPECT_EQ(d.l2_cache_size, 0u);
  EXPECT_EQ(gpu_exit_code(r), 0);
}

TEST(GpuNvml, TwoDevices120And121) {
  FakeNvmlScenario scenario("two");
  std::unique_ptr<NvmlApi> api = fake_nvml();
  ASSERT_NE(api, nullptr);
  GpuReport r = probe_gpus_nvml(*api);
  EXPECT_EQ(r.state, GpuState::kOk);
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.devices[1].index, 1);
  EXPECT_EQ(r.devices[1].name, "NVIDIA GB10");
  EXPECT_EQ(r.devices[1].pci_bus_id, "000f:01:00.0");
  EXPECT_EQ(r.capabilities(), (std::vector<ComputeCapability>{{12, 0}, {12, 1}}));
  EXPECT_EQ(r.devices[1].shared_memory_per_block_optin, 101376u);
}

TEST(GpuNvml, DriverNotLoadedIsNoDriver) {
  FakeNvmlScenario scenario("driver-not-loaded");
  std::unique_ptr<NvmlApi> api = fake_nvml();
  ASSERT_NE(api, nullptr);
  GpuReport r = probe_gpus_nvml(*api);
  EXPECT_EQ(r.source, GpuSource::kNvml);
  EXPECT_EQ(r.state, GpuState::kNoDriver);
  EXPECT_EQ(r.error, "nvmlInit_v2: Driver Not Loaded (9)");
  EXPECT_TRUE(r.devices.empty());
  EXPECT_EQ(gpu_exit_code(r), 1);
}

TEST(GpuNvml, InitFailureIsAnNvmlError) {
  FakeNvmlScenario scenario("no-permission");
  std::unique_ptr<NvmlApi> api = fake_nvml();
  ASSERT_NE(api, nullptr);
  GpuReport r = probe_gpus_nvml(*api);
  EXPECT_EQ(r.state, GpuState::kNvmlError);
  EXPECT_EQ(r.error, "nvmlInit_v2: Insufficient Permissions (4)");
  EXPECT_EQ(gpu_exit_code(r), 2);
}

TEST(GpuNvml, NoDevice) {
  FakeNvmlScenario scenario("no-device");
  std::unique_ptr<NvmlApi> api = fake_nvml();
  ASSERT_NE(api, nullptr);
  GpuReport r = probe_gpus_nvml(*api);
  EXPECT_EQ(r.state, GpuState::kNoDevice);
  EXPECT_EQ(r.error, "no NVIDIA GPU found (NVML counts 0 devices)");
  EXPECT_EQ(r.driver_release, "580.65.06");
  EXPECT_EQ(gpu_exit_code(r), 1);
}

TEST(GpuNvml, LostDeviceIsLeftOutAndNamed) {
  FakeNvmlScenario scenario("device-error");
  std::unique_ptr<NvmlApi> api = fake_nvml();
  ASSERT_NE(api, nullptr);
  GpuReport r = probe_gpus_nvml(*api);
  EXPECT_EQ(r.state, GpuState::kOk);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].cc, (ComputeCapability{12, 0}));
  EXPECT_EQ(r.error, "device 1: GPU is lost (15)");

  FakeNvmlScenario all("all-fail");
  r = probe_gpus_nvml(*api);
  EXPECT_EQ(r.state, GpuState::kNvmlError);
  EXPECT_TRUE(r.devices.empty());
  EXPECT_EQ(r.error, "device 0: GPU is lost (15)");
}

TEST(GpuNvml, MissingLibraryOrSymbol) {
  std::string error;
  EXPECT_EQ(load_nvml("/nonexistent/libnvidia-ml.so.1", error), nullptr);
  EXPECT_NE(error.find("/nonexistent/libnvidia-ml.so.1"), std::string::npos) << error;
  error.clear();
  EXPECT_EQ(load_nvml(SM120CHECK_FAKE_NVML_WITHOUT_PCI, error), nullptr);
  EXPECT_EQ(error, std::string(SM120CHECK_FAKE_NVML_WITHOUT_PCI) +
                       ": no symbol nvmlDeviceGetPciInfo_v3 (NVML too old?)");
}

TEST(GpuChoice, NvmlAnswersAndTheRuntimeIsNotAsked) {
  FakeNvmlScenario scenario("two");
  std::unique_ptr<NvmlApi> nvml = fake_nvml();
  ASSERT_NE(nvml, nullptr);
  FakeCudaApi cuda;
  cuda.devices = {rtx_pro_6000()};
  GpuReport r = probe_gpus(nvml.get(), "", &cuda, {});
  EXPECT_EQ(r.source, GpuSource::kNvml);
  EXPECT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.fallback, "");
  EXPECT_EQ(cuda.count_calls, 0);
}

TEST(GpuChoice, NoDeviceFromNvmlStands) {
  FakeNvmlScenario scenario("no-device");
  std::unique_ptr<NvmlApi> nvml = fake_nvml();
  ASSERT_NE(nvml, nullptr);
  FakeCudaApi cuda;
  GpuReport r = probe_gpus(nvml.get(), "", &cuda, {});
  EXPECT_EQ(r.source, GpuSource::kNvml);
  EXPECT_EQ(r.state, GpuState::kNoDevice);
  EXPECT_EQ(cuda.count_calls, 0);
}

TEST(GpuChoice, LimitsAndCudaVisibleDevicesAskTheRuntime) {
  FakeCudaApi cuda;
  cuda.devices = {rtx_pro_6000()};
  GpuProbeOptions limits;
  limits.limits = true;
  GpuReport r = probe_gpus(nullptr, "not loaded", &cuda, limits);
  EXPECT_EQ(r.source, GpuSource::kCudaRuntime);
  EXPECT_EQ(r.devices.at(0).multiprocessors, 188);
  EXPECT_EQ(r.fallback, "--limits asked for the CUDA runtime's limits");
  GpuProbeOptions visible;
  visible.cuda_visible_devices = true;
  r = probe_gpus(nullptr, "not loaded", &cuda, visible);
  EXPECT_EQ(r.source, GpuSource::kCudaRuntime);
  EXPECT_EQ(r.fallback,
            "CUDA_VISIBLE_DEVICES is set: the CUDA runtime presents the devices it leaves");
  // Without a runtime, NVML answers both.
  FakeNvmlScenario scenario("one-120");
  std::unique_ptr<NvmlApi> nvml = fake_nvml();
  ASSERT_NE(nvml, nullptr);
  r = probe_gpus(nvml.get(), "", nullptr, limits);
  EXPECT_EQ(r.source, GpuSource::kNvml);
  EXPECT_EQ(r.state, GpuState::kOk);
}

TEST(GpuChoice, TheRuntimeAnswersWhenNvmlCannot) {
  FakeCudaApi cuda;
  cuda.devices = {h200()};
  GpuReport r = probe_gpus(nullptr, "libnvidia-ml.so.1: cannot open shared object file", &cuda, {});
  EXPECT_EQ(r.source, GpuSource::kCudaRuntime);
  EXPECT_EQ(r.state, GpuState::kOk);
  EXPECT_EQ(r.fallback, "NVML: libnvidia-ml.so.1: cannot open shared object file");

  FakeNvmlScenario scenario("driver-not-loaded");
  std::unique_ptr<NvmlApi> nvml = fake_nvml();
  ASSERT_NE(nvml, nullptr);
  cuda.driver = 0;
  r = probe_gpus(nvml.get(), "", &cuda, {});
  EXPECT_EQ(r.source, GpuSource::kCudaRuntime);
  EXPECT_EQ(r.state, GpuState::kNoDriver);
  EXPECT_EQ(r.error, "no CUDA driver found");
  EXPECT_EQ(r.fallback, "NVML: nvmlInit_v2: Driver Not Loaded (9)");

  FakeNvmlScenario all("all-fail");
  cuda.driver = 13000;
  r = probe_gpus(nvml.get(), "", &cuda, {});
  EXPECT_EQ(r.source, GpuSource::kCudaRuntime);
  EXPECT_EQ(r.state, GpuState::kOk);
  EXPECT_EQ(r.fallback, "NVML: device 0: GPU is lost (15)");
}

TEST(GpuChoice, WithoutRuntimeNvmlDecides) {
  GpuReport r =
      probe_gpus(nullptr, "libnvidia-ml.so.1: cannot open shared object file", nullptr, {});
  EXPECT_EQ(r.source, GpuSource::kNone);
  EXPECT_EQ(r.state, GpuState::kBuiltWithoutCuda);
  EXPECT_EQ(r.error,
            "built without CUDA support, and NVML: libnvidia-ml.so.1: cannot open shared object "
            "file");
  EXPECT_EQ(gpu_exit_code(r), 2);

  FakeNvmlScenario scenario("driver-not-loaded");
  std::unique_ptr<NvmlApi> nvml = fake_nvml();
  ASSERT_NE(nvml, nullptr);
  r = probe_gpus(nvml.get(), "", nullptr, {});
  EXPECT_EQ(r.source, GpuSource::kNvml);
  EXPECT_EQ(r.state, GpuState::kNoDriver);
  EXPECT_EQ(gpu_exit_code(r), 1);
}

TEST(GpuNvml, JsonAndText) {
  FakeNvmlScenario scenario("one-120");
  std::unique_ptr<NvmlApi> api = fake_nvml();
  ASSERT_NE(api, nullptr);
  GpuReport r = probe_gpus_nvml(*api);
  r.runtime_version = 13000;
  r.probe_ms = 18.44;
  EXPECT_EQ(json::parse(gpu_to_json(r).dump()), json::parse(R"js({
    "source": "nvml", "state": "ok",
    "devices": [{"index": 0, "name": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
      "pci_bus_id": "0000:01:00.0", "compute_capability": "12.0", "major": 12, "minor": 0,
      "sm": "sm_120", "family": "Blackwell (workstation, GeForce)",
      "multiprocessors": null, "shared_memory_per_block": null,
      "shared_memory_per_block_optin": 101376, "shared_memory_per_multiprocessor": 102400,
      "reserved_shared_memory_per_block": null, "l2_cache_size": null,
      "global_memory": 102642565120, "facts": "table"}],
    "error": null, "driver_version": 13000, "runtime_version": 13000,
    "driver_release": "580.65.06", "fallback": null, "probe_ms": 18.4})js"));
  std::ostringstream text;
  render_gpu_text(text, r, false);
  std::string expected =
      "source: nvml\n"
      "driver: 580.65.06, CUDA 13.0 (13000)\n"
      "probe: 18.4 ms\n\n"
      "device 0: NVIDIA RTX PRO 6000 Blackwell Workstation Edition\n"
      "  pci bus id:                        0000:01:00.0\n"
      "  compute capability:                12.0 (sm_120), Blackwell (workstation, GeForce)\n"
      "  shared memory per block (opt-in):  101376 bytes (table)\n"
      "  shared memory per multiprocessor:  102400 bytes (table)\n"
      "  global memory:                     102642565120 bytes (95.6 GiB)\n\n"
      "(table): CUDA C++ Programming Guide, \"Technical Specifications per Compute Capability\"";
  if (built_with_cuda())
    expected += "; 'sm120check gpu --limits' measures every limit through the CUDA runtime";
  EXPECT_EQ(text.str(), expected + "\n");
  EXPECT_EQ(gpu_summary_lines(r),
            (std::vector<std::string>{"gpu 0: NVIDIA RTX PRO 6000 Blackwell Workstation Edition, "
                                      "compute capability 12.0 (sm_120), through nvml"}));
}

// ---------------------------------------------------------------------------------------------
// The real probe on this host

TEST(GpuProbe, RealProbeGivesAClearStateWithoutAGpu) {
  GpuReport r = probe_local_gpus();
  if (r.state == GpuState::kOk)
    GTEST_SKIP() << "a CUDA device is present (" << r.devices[0].name
                 << "): this test checks the no-GPU path CI runs";
  if (!built_with_cuda()) {
    // NVML missing (kBuiltWithoutCuda), or present without a loaded driver.
    EXPECT_TRUE(r.state == GpuState::kBuiltWithoutCuda || r.state == GpuState::kNoDriver)
        << to_string(r.state) << ": " << r.error;
    if (r.state == GpuState::kBuiltWithoutCuda)
      EXPECT_EQ(r.error.rfind("built without CUDA support, and NVML: ", 0), 0u) << r.error;
    return;
  }
  // NVML could not answer on a host without a GPU, so the runtime did, saying why.
  if (r.source == GpuSource::kNvml) GTEST_SKIP() << "NVML answered: " << r.error;
  EXPECT_EQ(r.source, GpuSource::kCudaRuntime);
  EXPECT_EQ(r.fallback.rfind("NVML: ", 0), 0u) << r.fallback;
  EXPECT_TRUE(r.state == GpuState::kNoDriver || r.state == GpuState::kNoDevice)
      << to_string(r.state) << ": " << r.error;
  EXPECT_FALSE(r.error.empty());
  EXPECT_TRUE(r.devices.empty());
  EXPECT_GT(r.runtime_version, 0);
  EXPECT_EQ(gpu_exit_code(r), 1);
}

// ---------------------------------------------------------------------------------------------
// Compute capabilities and facts

TEST(GpuCapability, ParsesEveryForm) {
  const std::vector<std::pair<std::string, ComputeCapability>> cases = {
      {"12.0", {12, 0}},    {"12", {12, 0}},          {"sm_120", {12, 0}}, {"sm120", {12, 0}},
      {"SM120", {12, 0}},   {"Sm_120a", {12, 0}},     {"sm_90a", {9, 0}},  {"sm_90", {9, 0}},
      {"9.0", {9, 0}},      {"9.0a", {9, 0}},         {"sm_86", {8, 6}},   {"8.9", {8, 9}},
      {"sm_100f", {10, 0}}, {"compute_120", {12, 0}}, {" 12.1 ", {12, 1}}, {"sm_121", {12, 1}},
  };
  for (const auto& [text, cc] : cases) {
    EXPECT_EQ(parse_compute_capability(text), cc) << text;
  }
}

TEST(GpuCapability, RejectsBadValuesWithAClearMessage) {
  for (const std::string bad : {"", "twelve", "12.10", "12.", "sm_", "sm_1", "sm_1200", "0.5",
                                "20.0", "sm_12x", "12.0.1", "-9"}) {
    try {
      parse_compute_capability(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("bad compute capability '" + bad + "': ", 0), 0u)
          << e.what();
    }
  }
}

// Hostile review #15: "--cc 1000.0" said "the major version must be a number".
TEST(GpuCapability, AMajorVersionOfManyDigitsIsOutOfRange) {
  for (const std::string bad : {"1000.0", "100.0", "999.9"}) {
    try {
      parse_compute_capability(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                "bad compute capability '" + bad + "': major version " +
                    bad.substr(0, bad.find('.')) +
                    " out of range 1..19 (expected e.g. 12.0, 9.0, sm_120, sm_90a)");
    }
  }
}

TEST(GpuCapability, Names) {
  EXPECT_EQ((ComputeCapability{12, 0}).to_string(), "12.0");
  EXPECT_EQ((ComputeCapability{12, 0}).sm_name(), "sm_120");
  EXPECT_EQ((ComputeCapability{8, 6}).sm_name(), "sm_86");
  EXPECT_EQ(ComputeCapability::from_sm(121), (ComputeCapability{12, 1}));
  EXPECT_LT((ComputeCapability{9, 0}), (ComputeCapability{12, 0}));
  EXPECT_EQ(cuda_version_string(13000), "13.0");
  EXPECT_EQ(cuda_version_string(12040), "12.4");
  EXPECT_EQ(cuda_version_string(0), "");
}

TEST(GpuFacts, SharedMemoryTable) {
  // CUDA Programming Guide: opt-in per block 101376 on 8.6, 8.9, 12.x; 232448 on 9.0, 10.x;
  // 166912 on 8.0.
  const std::vector<std::pair<ComputeCapability, std::uint64_t>> optin = {
      {{8, 6}, 101376},  {{8, 9}, 101376},  {{12, 0}, 101376}, {{12, 1}, 101376}, {{9, 0}, 232448},
      {{10, 0}, 232448}, {{10, 3}, 232448}, {{8, 0}, 166912},  {{7, 5}, 65536},   {{7, 0}, 98304},
  };
  for (const auto& [cc, bytes] : optin) {
    ASSERT_TRUE(arch_facts(cc)) << cc.to_string();
    EXPECT_EQ(arch_facts(cc)->shared_memory_per_block_optin, bytes) << cc.to_string();
  }
  EXPECT_EQ(arch_facts({12, 0})->shared_memory_per_multiprocessor, 102400u);
  EXPECT_EQ(arch_facts({9, 0})->shared_memory_per_multiprocessor, 233472u);
  EXPECT_EQ(arch_facts({9, 0})->family, "Hopper");
  EXPECT_FALSE(arch_facts({6, 0}));
  EXPECT_FALSE(arch_facts({11, 0}));
}

TEST(GpuOverride, ReportsTheTableFacts) {
  GpuReport r = override_gpu({12, 0});
  EXPECT_EQ(r.source, GpuSource::kOverride);
  EXPECT_EQ(r.state, GpuState::kOk);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_FALSE(r.devices[0].probed);
  EXPECT_EQ(r.devices[0].shared_memory_per_block_optin, 101376u);
  EXPECT_EQ(r.devices[0].multiprocessors, 0);
  EXPECT_EQ(gpu_exit_code(r), 0);

  GpuReport none = unprobed_gpu();
  EXPECT_EQ(none.source, GpuSource::kNone);
  EXPECT_EQ(none.state, GpuState::kNotProbed);
  EXPECT_TRUE(none.devices.empty());
}

// ---------------------------------------------------------------------------------------------
// Rendering

TEST(GpuJson, ProbedDevice) {
  FakeCudaApi api;
  api.devices = {h200()};
  GpuReport r = probe_gpus(api);
  r.probe_ms = 236.04;
  json doc = json::parse(gpu_document(r, 0).dump());
  EXPECT_EQ(doc["schema"], "sm120check.gpu/1");
  EXPECT_EQ(doc["source"], "cuda-runtime");
  EXPECT_EQ(doc["state"], "ok");
  EXPECT_EQ(doc["error"], nullptr);
  EXPECT_EQ(doc["driver_version"], 13000);
  EXPECT_EQ(doc["runtime_version"], 13000);
  EXPECT_EQ(doc["probe_ms"], 236.0);
  EXPECT_EQ(doc["exit_code"], 0);
  ASSERT_EQ(doc["devices"].size(), 1u);
  EXPECT_EQ(doc["devices"][0], json::parse(R"({
    "index": 0, "name": "NVIDIA H200", "pci_bus_id": "0000:00:06.0",
    "compute_capability": "9.0", "major": 9, "minor": 0, "sm": "sm_90", "family": "Hopper",
    "multiprocessors": 132, "shared_memory_per_block": 49152,
    "shared_memory_per_block_optin": 232448, "shared_memory_per_multiprocessor": 233472,
    "reserved_shared_memory_per_block": 1024, "l2_cache_size": 62914560,
    "global_memory": 150109880320, "facts": "cuda-runtime"})"));
}

TEST(GpuJson, OverrideAndNoDriver) {
  json over = json::parse(gpu_to_json(override_gpu({12, 0})).dump());
  EXPECT_EQ(over["source"], "override");
  EXPECT_EQ(over["probe_ms"], nullptr);
  EXPECT_EQ(over["driver_version"], nullptr);
  const json& d = over["devices"][0];
  EXPECT_EQ(d["index"], nullptr);
  EXPECT_EQ(d["name"], nullptr);
  EXPECT_EQ(d["compute_capability"], "12.0");
  EXPECT_EQ(d["major"], 12);
  EXPECT_EQ(d["minor"], 0);
  EXPECT_EQ(d["multiprocessors"], nullptr);
  EXPECT_EQ(d["shared_memory_per_block_optin"], 101376);
  EXPECT_EQ(d["shared_memory_per_multiprocessor"], 102400);
  EXPECT_EQ(d["facts"], "table");

  FakeCudaApi api;
  api.driver = 0;
  json none = json::parse(gpu_to_json(probe_gpus(api)).dump());
  EXPECT_EQ(none["devices"], json::array());
  EXPECT_EQ(none["error"], "no CUDA driver found");
  EXPECT_EQ(none["state"], "no-driver");
}

TEST(GpuText, DeviceAndSummaryLines) {
  FakeCudaApi api;
  api.devices = {h200(), rtx_pro_6000()};
  GpuReport r = probe_gpus(api);
  std::ostringstream out;
  render_gpu_text(out, r, false);
  const std::string text = out.str();
  EXPECT_NE(text.find("device 1: NVIDIA RTX PRO 6000 Blackwell Workstation Edition\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  shared memory per block (opt-in):  232448 bytes\n"), std::string::npos);
  EXPECT_NE(text.find("  compute capability:                12.0 (sm_120), Blackwell"),
            std::string::npos);
  EXPECT_EQ(gpu_summary_lines(r),
            (std::vector<std::string>{
                "gpu 0: NVIDIA H200, compute capability 9.0 (sm_90), 132 SMs, 232448 bytes "
                "opt-in shared memory per block",
                "gpu 1: NVIDIA RTX PRO 6000 Blackwell Workstation Edition, compute capability "
                "12.0 (sm_120), 188 SMs, 101376 bytes opt-in shared memory per block"}));
  EXPECT_EQ(gpu_summary_lines(override_gpu({12, 0})),
            (std::vector<std::string>{"gpu: compute capability 12.0 (sm_120), given with --cc"}));
  EXPECT_EQ(gpu_summary_lines(unprobed_gpu()),
            (std::vector<std::string>{"gpu: not probed (--no-gpu)"}));
  api.driver = 0;
  EXPECT_EQ(gpu_summary_lines(probe_gpus(api)),
            (std::vector<std::string>{"gpu: none (no-driver: no CUDA driver found)"}));
}

// ---------------------------------------------------------------------------------------------
// The gpu command

TEST(GpuCli, ProbeOnThisHostJson) {
  test::RunResult r = run_sm120check({"gpu", "--format", "json"});
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["schema"], "sm120check.gpu/1");
  EXPECT_EQ(doc["exit_code"], r.exit_code);
  if (doc["state"] == "ok") GTEST_SKIP() << "a CUDA device is present";
  EXPECT_EQ(doc["devices"], json::array());
  EXPECT_TRUE(doc["error"].is_string());
  if (built_with_cuda()) {
    EXPECT_EQ(r.exit_code, 1) << r.out;
    if (doc["source"] != "nvml") EXPECT_EQ(doc["source"], "cuda-runtime");
  } else if (doc["source"] != "nvml") {
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(doc["state"], "built-without-cuda");
  }
}

TEST(GpuCli, ThroughFakeNvml) {
  const std::vector<std::string> env{std::string("SM120CHECK_NVML_LIBRARY=") + SM120CHECK_FAKE_NVML,
                                     "FAKE_NVML_SCENARIO=two"};
  test::RunResult r = run_sm120check({"gpu", "--format", "json"}, {}, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["source"], "nvml");
  EXPECT_EQ(doc["state"], "ok");
  EXPECT_EQ(doc["fallback"], nullptr);
  EXPECT_EQ(doc["driver_release"], "580.65.06");
  ASSERT_EQ(doc["devices"].size(), 2u);
  EXPECT_EQ(doc["devices"][0]["compute_capability"], "12.0");
  EXPECT_EQ(doc["devices"][1]["compute_capability"], "12.1");
  EXPECT_EQ(doc["devices"][1]["facts"], "table");
  EXPECT_TRUE(doc["probe_ms"].is_number());

  // --limits asks the runtime (none on this host); without one, NVML answers still.
  r = run_sm120check({"gpu", "--limits", "--format", "json"}, {}, env);
  doc = json::parse(r.out);
  if (built_with_cuda()) {
    EXPECT_EQ(doc["source"], "cuda-runtime");
    EXPECT_EQ(doc["fallback"], "--limits asked for the CUDA runtime's limits");
  } else {
    EXPECT_EQ(doc["source"], "nvml");
  }

  // Missing library and init failure, as the binary reports them.
  r = run_sm120check({"gpu", "--format", "json"}, {},
                     {"SM120CHECK_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1"});
  doc = json::parse(r.out);
  if (built_with_cuda()) {
    EXPECT_EQ(doc["source"], "cuda-runtime");
    EXPECT_EQ(doc["fallback"].get<std::string>().rfind("NVML: /nonexistent/libnvidia-ml.so.1", 0),
              0u)
        << doc["fallback"];
  } else {
    EXPECT_EQ(doc["state"], "built-without-cuda");
    EXPECT_EQ(r.exit_code, 2);
  }
  r = run_sm120check({"gpu"}, {},
                     {std::string("SM120CHECK_NVML_LIBRARY=") + SM120CHECK_FAKE_NVML,
                      "FAKE_NVML_SCENARIO=driver-not-loaded"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("nvmlInit_v2: Driver Not Loaded (9)"), std::string::npos) << r.out;
}

TEST(GpuCli, OverrideText) {
  test::RunResult r = run_sm120check({"gpu", "--cc", "sm_120"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out,
            "source: override\n\n"
            "device given with --cc (facts from the CUDA Programming Guide table)\n"
            "  compute capability:                12.0 (sm_120), Blackwell (workstation, "
            "GeForce)\n"
            "  shared memory per block (opt-in):  101376 bytes\n"
            "  shared memory per multiprocessor:  102400 bytes\n");
}

TEST(GpuCli, BadCcIsAUsageError) {
  test::RunResult r = run_sm120check({"gpu", "--cc", "12.x.y"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("sm120check: error: --cc: bad compute capability '12.x.y'"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(run 'sm120check gpu --help' for usage)"), std::string::npos);
}

// "--cc 13.7" was taken silently: no GPU has that capability. It is still taken (a newer GPU
// than the list, or a typo the user should see): a warning names it, once, on stderr.
TEST(GpuCli, AnUnpublishedCcIsTakenWithAWarning) {
  const std::string warning =
      "sm120check: warning: --cc 13.7: compute capability 13.7 (sm_137) is not one NVIDIA has "
      "published (developer.nvidia.com/cuda-gpus); it is used as given\n";
  test::RunResult r = run_sm120check({"gpu", "--cc", "13.7"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, warning);
  EXPECT_NE(r.out.find("13.7 (sm_137)"), std::string::npos) << r.out;
  r = run_sm120check({"gpu", "-q", "--cc", "13.7"});  // -q: no warnings
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  test::TempDir dir;
  test::write_file(dir.path() / "t" / "a.txt", "a\n");
  test::write_file(dir.path() / "p.patch", "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n");
  r = run_sm120check({"verify", "--cc", "13.7", dir / "p.patch", dir / "t"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, warning);
  r = run_sm120check({"scan", "--cc", "13.7", "--format", "json", dir / "t"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, warning);
  r = run_sm120check({"kernels", "--cc", "12.0", "--cc", "13.7", dir / "t"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, warning);
  // Published ones, in every spelling, say nothing.
  for (const char* cc : {"12.0", "12.1", "10.0", "10.3", "11.0", "9.0", "8.9", "8.6", "8.0",
                         "7.5", "sm_120", "sm_90a", "sm_100f", "SM121", "compute_89", "12"}) {
    r = run_sm120check({"gpu", "--cc", cc});
    EXPECT_EQ(r.exit_code, 0) << cc;
    EXPECT_EQ(r.err, "") << cc;
  }
  for (const char* cc : {"12.3", "9.9", "1.9", "sm_122"}) {
    r = run_sm120check({"gpu", "--cc", cc});
    EXPECT_EQ(r.exit_code, 0) << cc;
    EXPECT_NE(r.err.find("is not one NVIDIA has published"), std::string::npos) << cc;
  }
}

TEST(GpuCli, HelpListsExitCodes) {
  test::RunResult r = run_sm120check({"gpu", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("  1  no CUDA device, or no CUDA driver, on this host\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("--cc"), std::string::npos);
}

}  // namespace
}  // namespace sm120check
