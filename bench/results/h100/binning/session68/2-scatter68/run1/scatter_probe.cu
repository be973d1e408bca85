// Session 68: is a binning pass's scattered store pattern costly in itself, and does it make
// device memory read or write more than the bytes asked for? (FINDINGS has guessed since
// session 59 that partial 32-byte sectors at the seams between neighbouring tiles' runs are
// merged with device memory; no counter could say, as ncu does not see Vulkan passes.)
//
// A CUDA kernel with a multisplit pass's memory pattern and none of its ranking: tiles of
// 512x16 elements, 256 buckets by a hash of the element index, each tile's runs placed by
// prefixes counted beforehand (so tile t's run of bucket b ends where tile t+1's begins, as
// in a stable multisplit), staged in shared memory by bucket and stored lane-strided, as the
// Vulkan pass does. Variants: 4-byte elements in one plane; 4-byte elements in two planes in
// sequence (a pair pass's keys then values); 8-byte elements in one plane (packed pairs); each
// scattered ("scatter") and, as a control with the same kernel, stored to the tile's own
// range ("contiguous"). Timed with CUDA events (median of 11); then, with `ncu`, device
// memory bytes read and written by each kernel, and by CUB's onesweep pair passes.
// Build: nvcc -O3 -arch=sm_90 -o /tmp/scatter_probe scatter_probe.cu
// Run: /tmp/scatter_probe [once]   (once: each kernel a single time, for ncu)
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include <algorithm>

#define CK(x) do { cudaError_t ck_err = (x); if (ck_err != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(ck_err)); exit(1); } } while (0)

constexpr int WG = 512, ITEMS = 16, TILE = WG * ITEMS, BUCKETS = 256;

__device__ __forceinline__ uint32_t mix(uint32_t x) {
  x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
  return x;
}
__device__ __forceinline__ uint32_t digit_of(uint32_t i) { return mix(i * 0x9E3779B9u + 12345u) & 255u; }

__global__ void fill(uint32_t* p, size_t words, uint32_t seed) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < words) p[i] = mix((uint32_t)i ^ seed);
}

// counts[b * tiles + t]: tile t's elements in bucket b (bucket-major, so one exclusive sum
// gives every tile's run start).
__global__ void __launch_bounds__(WG) count_kernel(uint32_t* counts, uint32_t tiles) {
  __shared__ uint32_t c[BUCKETS];
  if (threadIdx.x < BUCKETS) c[threadIdx.x] = 0;
  __syncthreads();
  uint32_t base = blockIdx.x * TILE;
  for (int j = 0; j < ITEMS; ++j) atomicAdd(&c[digit_of(base + j * WG + threadIdx.x)], 1u);
  __syncthreads();
  if (threadIdx.x < BUCKETS) counts[threadIdx.x * tiles + blockIdx.x] = c[threadIdx.x];
}

// PLANES planes of T, in sequence; SCATTER: to the multisplit's places, else the tile's own.
template <typename T, int PLANES, bool SCATTER>
__global__ void __launch_bounds__(WG, 2) pass_kernel(const T* in0, T* out0, const T* in1, T* out1,
                                                  const uint32_t* prefix, uint32_t tiles) {
  extern __shared__ __align__(16) unsigned char smem[];
  T* s = (T*)smem;
  uint8_t* sb = (uint8_t*)(s + TILE);
  __shared__ uint32_t cnt[BUCKETS], start[BUCKETS], gbase[BUCKETS], wsum[BUCKETS / 32];
  const uint32_t tid = threadIdx.x, tile = blockIdx.x, base = tile * TILE;
  if (tid < BUCKETS) cnt[tid] = 0;
  __syncthreads();
  uint32_t d[ITEMS], rk[ITEMS];
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    d[j] = digit_of(base + j * WG + tid);
    rk[j] = atomicAdd(&cnt[d[j]], 1u);  // unstable within a bucket: the runs are the same
  }
  __syncthreads();
  // Exclusive scan of the 256 counts: a warp scan each 32, then the 8 warp totals.
  uint32_t lane = tid & 31u, warp = tid >> 5;
  uint32_t x = 0, incl = 0;
  if (tid < BUCKETS) {
    x = cnt[tid]; incl = x;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) { uint32_t y = __shfl_up_sync(0xffffffffu, incl, o); if (lane >= (uint32_t)o) incl += y; }
    if (lane == 31u) wsum[warp] = incl;
  }
  __syncthreads();
  if (tid < BUCKETS) {
    uint32_t off = 0;
    for (uint32_t w = 0; w < warp; ++w) off += wsum[w];
    start[tid] = off + incl - x;
    gbase[tid] = SCATTER ? prefix[tid * tiles + tile] - (off + incl - x) : base;
  }
  __syncthreads();
#pragma unroll
  for (int p = 0; p < PLANES; ++p) {
    const T* in = p == 0 ? in0 : in1;
    T* out = p == 0 ? out0 : out1;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      uint32_t pos = start[d[j]] + rk[j];
      s[pos] = in[base + j * WG + tid];
      if (p == 0) sb[pos] = (uint8_t)d[j];
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
      uint32_t slot = r * WG + tid;
      out[gbase[sb[slot]] + slot] = s[slot];
    }
    __syncthreads();
  }
}

template <typename T>
__global__ void checksum(const T* p, size_t n, unsigned long long* sum) {
  unsigned long long a = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) a += (unsigned long long)p[i];
  atomicAdd(sum, a);
}

template <class F> float median_ms(F f, int reps) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<float> t;
  const int warm = reps > 1 ? 2 : 0;  // once (for ncu): no warm-up launches
  for (int r = 0; r < reps + warm; ++r) {
    CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b));
    if (r >= warm) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <typename T> unsigned long long sum_of(const T* p, size_t n, unsigned long long* d) {
  CK(cudaMemset(d, 0, 8)); checksum<T><<<1024, 256>>>(p, n, d); unsigned long long h; CK(cudaMemcpy(&h, d, 8, cudaMemcpyDeviceToHost)); return h;
}

int main(int argc, char** argv) {
  const bool once = argc > 1 && !strcmp(argv[1], "once");
  const int reps = once ? 1 : 11;
  const size_t n = size_t(1) << 28;
  const uint32_t tiles = (uint32_t)(n / TILE);
  uint32_t *a, *b, *c, *e, *counts, *prefix; unsigned long long* dsum;
  CK(cudaMalloc(&a, n * 8)); CK(cudaMalloc(&b, n * 8)); CK(cudaMalloc(&c, n * 4)); CK(cudaMalloc(&e, n * 4));
  CK(cudaMalloc(&counts, (size_t)tiles * BUCKETS * 4)); CK(cudaMalloc(&prefix, (size_t)tiles * BUCKETS * 4)); CK(cudaMalloc(&dsum, 8));
  fill<<<(unsigned)((2 * n + 255) / 256), 256>>>(a, 2 * n, 1u);
  fill<<<(unsigned)((n + 255) / 256), 256>>>(c, n, 2u);
  count_kernel<<<tiles, WG>>>(counts, tiles);
  size_t tb = 0; cub::DeviceScan::ExclusiveSum(nullptr, tb, counts, prefix, tiles * BUCKETS);
  void* tmp; CK(cudaMalloc(&tmp, tb));
  cub::DeviceScan::ExclusiveSum(tmp, tb, counts, prefix, tiles * BUCKETS);
  CK(cudaDeviceSynchronize());

  const size_t sh4 = TILE * 4 + TILE, sh8 = TILE * 8 + TILE;
  CK(cudaFuncSetAttribute(pass_kernel<uint32_t, 1, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh4));
  CK(cudaFuncSetAttribute(pass_kernel<uint32_t, 1, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh4));
  CK(cudaFuncSetAttribute(pass_kernel<uint32_t, 2, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh4));
  CK(cudaFuncSetAttribute(pass_kernel<uint32_t, 2, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh4));
  CK(cudaFuncSetAttribute(pass_kernel<uint64_t, 1, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh8));
  CK(cudaFuncSetAttribute(pass_kernel<uint64_t, 1, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh8));

  printf("n = 2^28, tiles of %dx%d, %d buckets; ms median of %d (GB/s counts the bytes read and written)\n", WG, ITEMS, BUCKETS, reps);
  auto row = [&](const char* what, double bytes, float ms) { printf("%-44s %8.4f ms %8.1f GB/s\n", what, ms, bytes / ms / 1e6); };
  const uint64_t* a8 = (const uint64_t*)a; uint64_t* b8 = (uint64_t*)b;
  float ms;
  ms = median_ms([&] { CK(cudaMemcpyAsync(b, a, n * 4, cudaMemcpyDeviceToDevice)); }, reps); row("copy 4 B/element (cudaMemcpy)", 8.0 * n, ms);
  ms = median_ms([&] { pass_kernel<uint32_t, 1, false><<<tiles, WG, sh4>>>(a, b, nullptr, nullptr, prefix, tiles); }, reps); row("4 B, one plane, contiguous", 8.0 * n, ms);
  ms = median_ms([&] { pass_kernel<uint32_t, 1, true><<<tiles, WG, sh4>>>(a, b, nullptr, nullptr, prefix, tiles); }, reps); row("4 B, one plane, scatter", 8.0 * n, ms);
  unsigned long long s_in = sum_of(a, n, dsum), s_out = sum_of(b, n, dsum);
  ms = median_ms([&] { pass_kernel<uint32_t, 2, false><<<tiles, WG, sh4>>>(a, b, c, e, prefix, tiles); }, reps); row("4 B, two planes in sequence, contiguous", 16.0 * n, ms);
  ms = median_ms([&] { pass_kernel<uint32_t, 2, true><<<tiles, WG, sh4>>>(a, b, c, e, prefix, tiles); }, reps); row("4 B, two planes in sequence, scatter", 16.0 * n, ms);
  unsigned long long s_in2 = sum_of(c, n, dsum), s_out2 = sum_of(e, n, dsum);
  ms = median_ms([&] { pass_kernel<uint64_t, 1, false><<<tiles, WG, sh8>>>(a8, b8, nullptr, nullptr, prefix, tiles); }, reps); row("8 B, one plane, contiguous", 16.0 * n, ms);
  ms = median_ms([&] { pass_kernel<uint64_t, 1, true><<<tiles, WG, sh8>>>(a8, b8, nullptr, nullptr, prefix, tiles); }, reps); row("8 B, one plane, scatter", 16.0 * n, ms);
  unsigned long long s_in8 = sum_of(a8, n, dsum), s_out8 = sum_of((const uint64_t*)b8, n, dsum);
  bool ok = s_in == s_out && s_in2 == s_out2 && s_in8 == s_out8;
  printf("checksums (a scatter that lost or doubled an element would differ): %s\n", ok ? "equal" : "DIFFER");

  // CUB's pair sort, for ncu's view of its onesweep passes' device-memory bytes.
  size_t ts = 0; cub::DeviceRadixSort::SortPairs(nullptr, ts, a, b, c, e, (int)n);
  void* tmp2; CK(cudaMalloc(&tmp2, ts));
  ms = median_ms([&] { size_t t = ts; cub::DeviceRadixSort::SortPairs(tmp2, t, a, b, c, e, (int)n); }, reps); row("CUB SortPairs u32/u32 (4 passes + histogram)", 68.0 * n, ms);
  CK(cudaDeviceSynchronize());
  return ok ? 0 : 1;
}
