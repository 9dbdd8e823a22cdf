// kernB is defined for __CUDA_ARCH__ < 1000 only: the sm_90 cubin holds kernA and kernB, the
// sm_120 cubin kernA alone. A 12.0 GPU loads the sm_120 cubin; kernB<<<>>> fails there.
__global__ void kernA(float* x) { x[threadIdx.x] += 1.0f; }
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 1000
__global__ void kernB(float* x) { x[threadIdx.x] *= 2.0f; }
#endif
#if !defined(__CUDA_ARCH__)
void launch(float* x) {
  kernA<<<1, 32>>>(x);
  kernB<<<1, 32>>>(x);
}
#endif
