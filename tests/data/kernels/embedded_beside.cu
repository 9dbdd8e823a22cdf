// A shared library with a registered sm_120 kernel (.nv_fatbin) and, as a const array in
// .rodata (xxd -i, as bin2c makes it), an sm_90-only fat binary of saxpy.cu that it would load
// itself with cuModuleLoadData (TensorRT-LLM ships both kinds). make_fixtures.sh makes fatbin.h.
#include "fatbin.h"
__global__ void scale120(float* x) { x[0] *= 2; }
extern "C" const unsigned char* embedded_fatbin() { return kFatbinSm90; }
