// Kernels whose PTX the reading's tests read (test_ptx_footprint.cpp): compiled to PTX only, never run. Each is a
// shape a real program has: NVIDIA's overlap sample's kernel, a guarded elementwise kernel, a grid-stride loop, a
// struct of pointers, a pointer read from memory, a block reduction with an atomic, a loop with a data-dependent end.

extern "C" __global__ void overlap(float* a, int offset) {
  const int i = offset + threadIdx.x + blockIdx.x * blockDim.x;
  const float x = static_cast<float>(i);
  const float s = sinf(x), c = cosf(x);
  a[i] = a[i] + sqrtf(s * s + c * c);
}

extern "C" __global__ void guarded_axpy(const float* x, float* y, float alpha, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + y[i];
}

extern "C" __global__ void grid_stride(float* out, const float* in, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<size_t>(blockDim.x) * gridDim.x)
    out[i] = in[i] * 2;
}

struct Pair {
  float* written;
  const float* read;
};
extern "C" __global__ void through_struct(Pair p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p.written[i] = p.read[i] + 1;
}

extern "C" __global__ void pointer_from_memory(float** table, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) table[0][i] = 1;
}

extern "C" __global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float partial[256];
  float v = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) v += in[i];
  partial[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0;
    for (unsigned k = 0; k < blockDim.x; ++k) total += partial[k];
    atomicAdd(out, total);
  }
}

extern "C" __global__ void until_zero(int* a) {
  for (int i = threadIdx.x; a[i] != 0; i += 1) a[i] = 0;
}
