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

// Tile-major prefixes: pt[t * 256 + b] = prefix[b * tiles + t] (one read a bucket, not a strided one).
__global__ void transpose(const uint32_t* prefix, uint32_t* pt, uint32_t tiles) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < (size_t)tiles * BUCKETS) pt[i] = prefix[(i % BUCKETS) * tiles + i / BUCKETS];
}

// PLANES planes of T, in sequence; SCATTER: to the multisplit's places, else the tile's own.
// ALIGN (scatter only): each bucket's run is staged at a tile slot congruent to its global
// start modulo ALIGN elements, padding the slots between runs, so a warp's 32 consecutive
// slots land on whole sectors (ALIGN = a sector's elements) or lines of each bucket's
// output; the only partial sectors left are a run's two ends. ORDERED: a tile starts its
// scatter only after its predecessor has started its own (as a look-back orders them).
template <typename T, int PLANES, bool SCATTER, int ALIGN, bool ORDERED>
__global__ void __launch_bounds__(WG, 2) pass_kernel(const T* in0, T* out0, const T* in1, T* out1,
                                                     const uint32_t* pt, uint32_t* flags) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr uint32_t SLOTS = TILE + BUCKETS * (ALIGN - 1);
  T* s = (T*)smem;
  uint16_t* sb = (uint16_t*)(s + SLOTS);
  __shared__ uint32_t cnt[BUCKETS], start[BUCKETS], gbase[BUCKETS], wsum[BUCKETS / 32], s_total;
  const uint32_t tid = threadIdx.x, tile = blockIdx.x, base = tile * TILE;
  if (tid < BUCKETS) cnt[tid] = 0;
  if (ALIGN > 1) for (uint32_t i = tid; i < SLOTS; i += WG) sb[i] = 0xFFFFu;
  __syncthreads();
  uint32_t d[ITEMS], rk[ITEMS];
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    d[j] = digit_of(base + j * WG + tid);
    rk[j] = atomicAdd(&cnt[d[j]], 1u);  // unstable within a bucket: the runs are the same
  }
  __syncthreads();
  // Exclusive scan of the (padded) counts: a warp scan each 32, then the 8 warp totals.
  uint32_t lane = tid & 31u, warp = tid >> 5;
  uint32_t x = 0, incl = 0, g = 0;
  if (tid < BUCKETS) {
    uint32_t c = cnt[tid];
    g = SCATTER ? pt[tile * BUCKETS + tid] : base;
    x = c;
    if (ALIGN > 1 && tid + 1 < BUCKETS) x = c + ((pt[tile * BUCKETS + tid + 1] - g - c) & (ALIGN - 1));
    incl = x;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) { uint32_t y = __shfl_up_sync(0xffffffffu, incl, o); if (lane >= (uint32_t)o) incl += y; }
    if (lane == 31u) wsum[warp] = incl;
  }
  __syncthreads();
  if (tid < BUCKETS) {
    uint32_t off = ALIGN > 1 ? pt[tile * BUCKETS] & (ALIGN - 1) : 0u;
    for (uint32_t w = 0; w < warp; ++w) off += wsum[w];
    uint32_t st = off + incl - x;
    start[tid] = st;
    gbase[tid] = SCATTER ? g - st : base;
    if (tid == BUCKETS - 1) s_total = st + cnt[tid];
  }
  if (ORDERED && tid == 0) {
    if (tile > 0) while (atomicAdd(&flags[tile - 1], 0u) == 0u) {}
    __threadfence();
    atomicExch(&flags[tile], 1u);
  }
  __syncthreads();
  const uint32_t total = ALIGN > 1 ? s_total : (uint32_t)TILE;
#pragma unroll
  for (int p = 0; p < PLANES; ++p) {
    const T* in = p == 0 ? in0 : in1;
    T* out = p == 0 ? out0 : out1;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      uint32_t pos = start[d[j]] + rk[j];
      s[pos] = in[base + j * WG + tid];
      if (p == 0) sb[pos] = (uint16_t)d[j];
    }
    __syncthreads();
#pragma unroll 4
    for (uint32_t slot = tid; slot < total; slot += WG) {
      uint32_t b = sb[slot];
      if (ALIGN > 1 && b == 0xFFFFu) continue;
      out[gbase[b] + slot] = s[slot];
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

  uint32_t* pt; CK(cudaMalloc(&pt, (size_t)tiles * BUCKETS * 4));
  uint32_t* flags; CK(cudaMalloc(&flags, (size_t)tiles * 4));
  transpose<<<(tiles * BUCKETS + 255) / 256, 256>>>(prefix, pt, tiles);
  CK(cudaDeviceSynchronize());
  printf("n = 2^28, tiles of %dx%d, %d buckets; ms median of %d (GB/s counts the bytes read and written)\n", WG, ITEMS, BUCKETS, reps);
  auto row = [&](const char* what, double bytes, float ms) { printf("%-52s %8.4f ms %8.1f GB/s\n", what, ms, bytes / ms / 1e6); };
  const uint64_t* a8 = (const uint64_t*)a; uint64_t* b8 = (uint64_t*)b;
  bool ok = true;
  // One variant: timed, then its outputs' checksums against its inputs'.
  auto run = [&](auto kernel, auto* in0, auto* out0, auto* in1, auto* out1, size_t elem, int planes, int align, bool ordered, const char* what) {
    size_t sh = (TILE + (size_t)BUCKETS * (align - 1)) * (elem + 2);
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh));
    float ms = median_ms([&] {
      if (ordered) CK(cudaMemsetAsync(flags, 0, (size_t)tiles * 4));
      kernel<<<tiles, WG, sh>>>(in0, out0, in1, out1, pt, flags);
      CK(cudaGetLastError());
    }, reps);
    row(what, (double)elem * 2 * planes * n, ms);
    bool same = sum_of(in0, n, dsum) == sum_of(out0, n, dsum) && (planes == 1 || sum_of(in1, n, dsum) == sum_of(out1, n, dsum));
    if (!same) { printf("  ^ checksums differ\n"); ok = false; }
  };
  const uint32_t* n4 = nullptr; uint32_t* m4 = nullptr; const uint64_t* n8 = nullptr; uint64_t* m8 = nullptr;
  float ms = median_ms([&] { CK(cudaMemcpyAsync(b, a, n * 4, cudaMemcpyDeviceToDevice)); }, reps); row("copy 4 B/element (cudaMemcpy)", 8.0 * n, ms);
  run(pass_kernel<uint32_t, 1, false, 1, false>, a, b, n4, m4, 4, 1, 1, false, "4 B, one plane, contiguous");
  run(pass_kernel<uint32_t, 1, true, 1, false>, a, b, n4, m4, 4, 1, 1, false, "4 B, one plane, scatter");
  run(pass_kernel<uint32_t, 1, true, 8, false>, a, b, n4, m4, 4, 1, 8, false, "4 B, one plane, scatter, sector-aligned");
  run(pass_kernel<uint32_t, 1, true, 32, false>, a, b, n4, m4, 4, 1, 32, false, "4 B, one plane, scatter, line-aligned");
  run(pass_kernel<uint32_t, 1, true, 1, true>, a, b, n4, m4, 4, 1, 1, true, "4 B, one plane, scatter, ordered");
  run(pass_kernel<uint32_t, 2, false, 1, false>, a, b, c, e, 4, 2, 1, false, "4 B, two planes in sequence, contiguous");
  run(pass_kernel<uint32_t, 2, true, 1, false>, a, b, c, e, 4, 2, 1, false, "4 B, two planes in sequence, scatter");
  run(pass_kernel<uint32_t, 2, true, 8, false>, a, b, c, e, 4, 2, 8, false, "4 B, two planes, scatter, sector-aligned");
  run(pass_kernel<uint32_t, 2, true, 32, false>, a, b, c, e, 4, 2, 32, false, "4 B, two planes, scatter, line-aligned");
  run(pass_kernel<uint32_t, 2, true, 1, true>, a, b, c, e, 4, 2, 1, true, "4 B, two planes, scatter, ordered");
  run(pass_kernel<uint32_t, 2, true, 8, true>, a, b, c, e, 4, 2, 8, true, "4 B, two planes, scatter, sector-aligned, ordered");
  run(pass_kernel<uint64_t, 1, false, 1, false>, a8, b8, n8, m8, 8, 1, 1, false, "8 B, one plane, contiguous");
  run(pass_kernel<uint64_t, 1, true, 1, false>, a8, b8, n8, m8, 8, 1, 1, false, "8 B, one plane, scatter");
  run(pass_kernel<uint64_t, 1, true, 4, false>, a8, b8, n8, m8, 8, 1, 4, false, "8 B, one plane, scatter, sector-aligned");
  run(pass_kernel<uint64_t, 1, true, 16, false>, a8, b8, n8, m8, 8, 1, 16, false, "8 B, one plane, scatter, line-aligned");
  printf("checksums (a scatter that lost or doubled an element would differ): %s\n", ok ? "equal" : "DIFFER");

  // CUB's pair sort, for ncu's view of its onesweep passes' device-memory bytes.
  size_t ts = 0; cub::DeviceRadixSort::SortPairs(nullptr, ts, a, b, c, e, (int)n);
  void* tmp2; CK(cudaMalloc(&tmp2, ts));
  ms = median_ms([&] { size_t t = ts; cub::DeviceRadixSort::SortPairs(tmp2, t, a, b, c, e, (int)n); }, reps); row("CUB SortPairs u32/u32 (4 passes + histogram)", 68.0 * n, ms);
  CK(cudaDeviceSynchronize());
  return ok ? 0 : 1;
}
