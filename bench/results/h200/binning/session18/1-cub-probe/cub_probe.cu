// Probe: CUB's radix sorts at a few sizes, a few runs each, for a kernel profiler.
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdint>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)
__global__ void fill(uint32_t* p, size_t n, uint32_t s) { size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; if (i < n) { uint32_t x = (uint32_t)i * 0x9E3779B9u ^ s; x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16; p[i] = x; } }
int main() {
  size_t n = (size_t)1 << 28;
  uint32_t *k0, *k1, *v0, *v1; void* tmp; size_t tb = 0, t = 0;
  CK(cudaMalloc(&k0, n * 4)); CK(cudaMalloc(&k1, n * 4)); CK(cudaMalloc(&v0, n * 4)); CK(cudaMalloc(&v1, n * 4));
  fill<<<(n + 255) / 256, 256>>>(k0, n, 1); fill<<<(n + 255) / 256, 256>>>(v0, n, 2);
  cub::DeviceRadixSort::SortPairs(nullptr, tb, k0, k1, v0, v1, (int)n);
  cub::DeviceRadixSort::SortKeys(nullptr, t, (uint64_t*)k0, (uint64_t*)k1, (int)(n / 2)); tb = std::max(tb, t);
  CK(cudaMalloc(&tmp, tb));
  for (int lg : {20, 28}) {
    int m = 1 << lg;
    for (int r = 0; r < 5; ++r) { t = tb; CK(cub::DeviceRadixSort::SortKeys(tmp, t, k0, k1, m)); }
    for (int r = 0; r < 5; ++r) { t = tb; CK(cub::DeviceRadixSort::SortPairs(tmp, t, k0, k1, v0, v1, m)); }
    for (int r = 0; r < 5; ++r) { t = tb; CK(cub::DeviceRadixSort::SortKeys(tmp, t, (uint64_t*)k0, (uint64_t*)k1, m / 2)); }
  }
  CK(cudaDeviceSynchronize());
  printf("ok\n");
}
