// Kernels carried as data (bin2c / xxd -i arrays: TensorRT-LLM's cubin/*.cubin.cpp pattern),
// loaded by the library itself with cuModuleLoadData / cuModuleLoadFatBinary: an sm_90 cubin
// and an sm_90 fat binary of saxpy.cu. No .nv_fatbin section. make_fixtures.sh makes cubin.h and
// fatbin.h (xxd -i) and compiles this with the host compiler into embedded.o.
#include "cubin.h"
#include "fatbin.h"
extern "C" const unsigned char* embedded_cubin() { return kCubinSm90; }
extern "C" const unsigned char* embedded_fatbin() { return kFatbinSm90; }
