// Every kernel defined for __CUDA_ARCH__ < 1000 only: built with code=sm_90 and
// code=compute_120, the sm_90 cubin holds kernOld and the compute_120 PTX no `.entry` at all
// (oldonly_jit.o in manifest.tsv). A 12.0 GPU can only JIT that PTX: nothing to launch.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 1000
__global__ void kernOld(float* x) { x[threadIdx.x] *= 2.0f; }
void launch(float* x) { kernOld<<<1, 32>>>(x); }
#endif
