// Host code only, no kernel: the module nvcc still emits for it holds a cubin without functions
// and, with code=compute_XY, PTX without an entry (hostonly.o in manifest.tsv).
#include <cuda_runtime.h>
extern "C" int device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : -1;
}
