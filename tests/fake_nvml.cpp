// A fake NVML for the tests: a shared library exporting the nvml* entry points the probe loads
// (src/gpu/nvml.cpp), with the signatures of the NVML API Reference. The environment variable
// FAKE_NVML_SCENARIO, read by every nvmlInit_v2, picks the host it pretends to be:
//   one-120        one RTX PRO 6000 Blackwell (12.0)
//   two            an RTX PRO 6000 (12.0) and a GB10 (12.1)
//   hopper         one H200 (9.0)
//   no-device      a driver and no GPU
//   driver-not-loaded, no-permission   nvmlInit_v2 fails (NVML_ERROR_DRIVER_NOT_LOADED 9,
//                                      NVML_ERROR_NO_PERMISSION 4)
//   device-error   two devices, the second lost (NVML_ERROR_GPU_IS_LOST 15)
//   all-fail       one device whose compute capability query fails (15)
// Built twice: FAKE_NVML_WITHOUT_PCI leaves nvmlDeviceGetPciInfo_v3 out (an NVML too old).
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

struct FakeDevice {
  const char* name;
  const char* bus_id;  // as NVML writes it
  int major;
  int minor;
  unsigned long long memory;
  int error;  // returned by nvmlDeviceGetHandleByIndex_v2 (0: none)
  int cc_error;
};

struct Scenario {
  int init_error = 0;
  unsigned count = 0;
  FakeDevice devices[2] = {};
};

const FakeDevice kRtxPro6000 = {"NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
                                "00000000:01:00.0",
                                12,
                                0,
                                102642565120ull,
                                0,
                                0};
const FakeDevice kGb10 = {"NVIDIA GB10", "0000000F:01:00.0", 12, 1, 128524955648ull, 0, 0};
const FakeDevice kH200 = {"NVIDIA H200", "00000000:3B:00.0", 9, 0, 150754820096ull, 0, 0};

Scenario g_scenario;

Scenario scenario_from_env() {
  const char* env = std::getenv("FAKE_NVML_SCENARIO");
  const std::string name = env != nullptr ? env : "one-120";
  Scenario s;
  if (name == "two") {
    s.count = 2;
    s.devices[0] = kRtxPro6000;
    s.devices[1] = kGb10;
  } else if (name == "hopper") {
    s.count = 1;
    s.devices[0] = kH200;
  } else if (name == "no-device") {
    s.count = 0;
  } else if (name == "driver-not-loaded") {
    s.init_error = 9;
  } else if (name == "no-permission") {
    s.init_error = 4;
  } else if (name == "device-error") {
    s.count = 2;
    s.devices[0] = kRtxPro6000;
    s.devices[1] = kGb10;
    s.devices[1].error = 15;
  } else if (name == "all-fail") {
    s.count = 1;
    s.devices[0] = kRtxPro6000;
    s.devices[0].cc_error = 15;
  } else {
    s.count = 1;
    s.devices[0] = kRtxPro6000;
  }
  return s;
}

void copy(char* out, unsigned length, const char* text) {
  if (length == 0) return;
  std::strncpy(out, text, length - 1);
  out[length - 1] = '\0';
}

}  // namespace

extern "C" {

struct nvmlDevice_st;
typedef nvmlDevice_st* nvmlDevice_t;

struct nvmlPciInfo_t {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};

struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

__attribute__((visibility("default"))) int nvmlInit_v2() {
  g_scenario = scenario_from_env();
  return g_scenario.init_error;
}

__attribute__((visibility("default"))) int nvmlShutdown() { return 0; }

__attribute__((visibility("default"))) const char* nvmlErrorString(int code) {
  switch (code) {
    case 0:
      return "Success";
    case 4:
      return "Insufficient Permissions";
    case 9:
      return "Driver Not Loaded";
    case 15:
      return "GPU is lost";
    default:
      return "Unknown Error";
  }
}

__attribute__((visibility("default"))) int nvmlSystemGetCudaDriverVersion(int* version) {
  *version = 13000;
  return 0;
}

__attribute__((visibility("default"))) int nvmlSystemGetDriverVersion(char* out,
                                                                      unsigned int length) {
  copy(out, length, "580.65.06");
  return 0;
}

__attribute__((visibility("default"))) int nvmlDeviceGetCount_v2(unsigned int* count) {
  *count = g_scenario.count;
  return 0;
}

__attribute__((visibility("default"))) int nvmlDeviceGetHandleByIndex_v2(unsigned int index,
                                                                         nvmlDevice_t* device) {
  if (index >= g_scenario.count) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  if (g_scenario.devices[index].error != 0) return g_scenario.devices[index].error;
  *device = reinterpret_cast<nvmlDevice_t>(&g_scenario.devices[index]);
  return 0;
}

__attribute__((visibility("default"))) int nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device,
                                                                              int* major,
                                                                              int* minor) {
  const auto* d = reinterpret_cast<const FakeDevice*>(device);
  if (d->cc_error != 0) return d->cc_error;
  *major = d->major;
  *minor = d->minor;
  return 0;
}

__attribute__((visibility("default"))) int nvmlDeviceGetName(nvmlDevice_t device, char* name,
                                                             unsigned int length) {
  copy(name, length, reinterpret_cast<const FakeDevice*>(device)->name);
  return 0;
}

#ifndef FAKE_NVML_WITHOUT_PCI
__attribute__((visibility("default"))) int nvmlDeviceGetPciInfo_v3(nvmlDevice_t device,
                                                                   nvmlPciInfo_t* pci) {
  std::memset(pci, 0, sizeof(*pci));
  copy(pci->busId, sizeof(pci->busId), reinterpret_cast<const FakeDevice*>(device)->bus_id);
  return 0;
}
#endif

__attribute__((visibility("default"))) int nvmlDeviceGetMemoryInfo(nvmlDevice_t device,
                                                                   nvmlMemory_t* memory) {
  memory->total = reinterpret_cast<const FakeDevice*>(device)->memory;
  memory->free = memory->total;
  memory->used = 0;
  return 0;
}

}  // extern "C"
