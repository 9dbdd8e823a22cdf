// A second kernel, for the fixtures that link two translation units (make_fixtures.sh).
extern "C" __global__ void scale(int n, float a, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= a;
}
