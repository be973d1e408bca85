// Session 70: does the store's memory strength cost a binning pass time? The NVIDIA Vulkan
// driver emits every storage-buffer store as `STG.E.STRONG.SM` (FINDINGS, sessions 34-35:
// neither the Vulkan memory model, Nontemporal, `restrict` nor buffer device addresses change
// it), where CUB's onesweep passes store with plain (weak) `STG.E`. No run has measured what
// that difference costs. Two measurements, each with its own weak control:
//
// A. CUB's own pair sort, u32 keys, with 4-byte values of a struct type whose assignment into
//    global memory is inline PTX: `st.global` (weak, as CUB's), `st.relaxed.cta.global`
//    (strong at CTA scope: STG.E.STRONG.SM, what our Vulkan stores get) or
//    `st.relaxed.gpu.global` (STG.E.STRONG.GPU). Only the value stores change (CUB's key
//    type must be arithmetic); the weak-asm row controls for the asm itself (its `memory`
//    clobber orders it against other memory operations). Rows alternate, and every
//    variant's values must equal the plain u32 sort's to the bit (values are the indices, so
//    this also checks stability).
// B. A staged scatter without ranking (session 68's probe pattern: 512x16 tiles, 256 buckets,
//    runs placed by prefixes counted beforehand, two planes in sequence) and a straight copy,
//    each with weak and strong stores.
// Build: nvcc -O3 -arch=sm_90 -o /tmp/strong70 strong70.cu   Run: /tmp/strong70
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include <algorithm>

#define CK(x) do { cudaError_t ck_err = (x); if (ck_err != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(ck_err)); exit(1); } } while (0)

// Store modes: 0 plain C++ (the compiler's STG.E), 1 `st.global` (weak, asm), 2
// `st.relaxed.cta.global`, 3 `st.relaxed.gpu.global`.
template <int MODE> __device__ __forceinline__ void store_u32(uint32_t* p, uint32_t v) {
  if (MODE == 0) { *p = v; return; }
  size_t g = __cvta_generic_to_global(p);
  if (MODE == 1) asm volatile("st.global.u32 [%0], %1;" :: "l"(g), "r"(v) : "memory");
  if (MODE == 2) asm volatile("st.relaxed.cta.global.u32 [%0], %1;" :: "l"(g), "r"(v) : "memory");
  if (MODE == 3) asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"(g), "r"(v) : "memory");
}

// A 4-byte value whose assignment into global memory uses store mode MODE; into shared or
// local memory (CUB's staging and registers) it is a plain copy.
template <int MODE> struct Val {
  uint32_t v;
  __host__ __device__ Val& operator=(const Val& o) {
#ifdef __CUDA_ARCH__
    if (MODE != 0 && __isGlobal(this)) store_u32<MODE>(&v, o.v); else v = o.v;
#else
    v = o.v;
#endif
    return *this;
  }
};

__device__ __forceinline__ uint32_t mix(uint32_t x) {
  x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
  return x;
}
__global__ void fill(uint32_t* p, size_t n, uint32_t seed) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) p[i] = mix((uint32_t)i ^ seed);
}
__global__ void iota(uint32_t* p, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) p[i] = (uint32_t)i;
}
__global__ void mismatches(const uint32_t* a, const uint32_t* b, size_t n, unsigned long long* out) {
  unsigned long long c = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) c += a[i] != b[i];
  atomicAdd(out, c);
}

template <class F> float median_ms(F f, int reps) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < reps + 2; ++r) {
    CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b));
    if (r >= 2) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// ---- B: the staged scatter (session 68's pass_kernel, two planes, no alignment) ----
constexpr int WG = 512, ITEMS = 16, TILE = WG * ITEMS, BUCKETS = 256;
__device__ __forceinline__ uint32_t digit_of(uint32_t i) { return mix(i * 0x9E3779B9u + 12345u) & 255u; }
__global__ void __launch_bounds__(WG) count_kernel(uint32_t* counts, uint32_t tiles) {
  __shared__ uint32_t c[BUCKETS];
  if (threadIdx.x < BUCKETS) c[threadIdx.x] = 0;
  __syncthreads();
  uint32_t base = blockIdx.x * TILE;
  for (int j = 0; j < ITEMS; ++j) atomicAdd(&c[digit_of(base + j * WG + threadIdx.x)], 1u);
  __syncthreads();
  if (threadIdx.x < BUCKETS) counts[threadIdx.x * tiles + blockIdx.x] = c[threadIdx.x];
}
__global__ void transpose(const uint32_t* prefix, uint32_t* pt, uint32_t tiles) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < (size_t)tiles * BUCKETS) pt[i] = prefix[(i % BUCKETS) * tiles + i / BUCKETS];
}
template <int MODE, bool SCATTER>
__global__ void __launch_bounds__(WG, 2) pass_kernel(const uint32_t* in0, uint32_t* out0, const uint32_t* in1, uint32_t* out1, const uint32_t* pt) {
  __shared__ uint32_t s[TILE];
  __shared__ uint8_t sb[TILE];
  __shared__ uint32_t cnt[BUCKETS], start[BUCKETS], gbase[BUCKETS], wsum[BUCKETS / 32];
  const uint32_t tid = threadIdx.x, tile = blockIdx.x, base = tile * TILE;
  if (tid < BUCKETS) cnt[tid] = 0;
  __syncthreads();
  uint32_t d[ITEMS], rk[ITEMS];
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) { d[j] = digit_of(base + j * WG + tid); rk[j] = atomicAdd(&cnt[d[j]], 1u); }
  __syncthreads();
  uint32_t lane = tid & 31u, warp = tid >> 5, x = 0, incl = 0, g = 0;
  if (tid < BUCKETS) {
    x = cnt[tid]; g = SCATTER ? pt[tile * BUCKETS + tid] : base; incl = x;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) { uint32_t y = __shfl_up_sync(0xffffffffu, incl, o); if (lane >= (uint32_t)o) incl += y; }
    if (lane == 31u) wsum[warp] = incl;
  }
  __syncthreads();
  if (tid < BUCKETS) {
    uint32_t off = 0;
    for (uint32_t w = 0; w < warp; ++w) off += wsum[w];
    uint32_t st = off + incl - x;
    start[tid] = st; gbase[tid] = SCATTER ? g - st : base;
  }
  __syncthreads();
#pragma unroll
  for (int p = 0; p < 2; ++p) {
    const uint32_t* in = p == 0 ? in0 : in1;
    uint32_t* out = p == 0 ? out0 : out1;
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
      store_u32<MODE>(&out[gbase[sb[slot]] + slot], s[slot]);
    }
    __syncthreads();
  }
}
template <int MODE> __global__ void copy_kernel(const uint32_t* in, uint32_t* out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) store_u32<MODE>(&out[i], in[i]);
}

static const char* MODE_NAME[4] = {"plain (C++ store)", "st.global (weak, asm)", "st.relaxed.cta (strong SM)", "st.relaxed.gpu (strong GPU)"};

int main() {
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  int sms = prop.multiProcessorCount;
  printf("device: %s, %d SMs\n", prop.name, sms);
  const size_t N = size_t(1) << 28;
  uint32_t *k_in, *k_out, *v_in, *v_out, *v_ref; unsigned long long* dcount;
  CK(cudaMalloc(&k_in, N * 4)); CK(cudaMalloc(&k_out, N * 4)); CK(cudaMalloc(&v_in, N * 4));
  CK(cudaMalloc(&v_out, N * 4)); CK(cudaMalloc(&v_ref, N * 4)); CK(cudaMalloc(&dcount, 8));
  fill<<<(unsigned)((N + 255) / 256), 256>>>(k_in, N, 7u);
  iota<<<(unsigned)((N + 255) / 256), 256>>>(v_in, N);
  CK(cudaDeviceSynchronize());
  bool ok = true;

  // ---- A ----
  for (int lg : {26, 28}) {
    size_t n = size_t(1) << lg;
    size_t tb = 0, t1 = 0;
    CK(cub::DeviceRadixSort::SortPairs(nullptr, tb, k_in, k_out, v_in, v_out, (int)n));
    CK(cub::DeviceRadixSort::SortPairs(nullptr, t1, k_in, k_out, (Val<2>*)v_in, (Val<2>*)v_out, (int)n));
    tb = std::max(tb, t1);
    void* tmp; CK(cudaMalloc(&tmp, tb));
    auto sort_u32 = [&] { size_t t = tb; CK(cub::DeviceRadixSort::SortPairs(tmp, t, k_in, k_out, v_in, v_out, (int)n)); };
    auto sort_m = [&](auto tag) {
      using V = decltype(tag);
      size_t t = tb; CK(cub::DeviceRadixSort::SortPairs(tmp, t, k_in, k_out, (const V*)v_in, (V*)v_out, (int)n));
    };
    // Reference values: the plain sort's.
    sort_u32(); CK(cudaDeviceSynchronize()); CK(cudaMemcpy(v_ref, v_out, n * 4, cudaMemcpyDeviceToDevice));
    auto check = [&](const char* what) {
      CK(cudaMemset(dcount, 0, 8)); mismatches<<<4 * sms, 256>>>(v_ref, v_out, n, dcount);
      unsigned long long h; CK(cudaMemcpy(&h, dcount, 8, cudaMemcpyDeviceToHost));
      if (h) { printf("  %s: %llu values differ from the plain sort's\n", what, h); ok = false; }
    };
    const int ROUNDS = 3, REPS = 9;
    std::vector<std::vector<float>> t(5);
    const char* names[5] = {"u32 values", "Val<0> plain", "Val<1> st.global (weak)", "Val<2> st.relaxed.cta (strong SM)", "Val<3> st.relaxed.gpu (strong GPU)"};
    for (int r = 0; r < ROUNDS; ++r) {
      t[0].push_back(median_ms(sort_u32, REPS));
      CK(cudaMemset(v_out, 0xFF, n * 4)); t[1].push_back(median_ms([&] { sort_m(Val<0>{}); }, REPS)); check(names[1]);
      CK(cudaMemset(v_out, 0xFF, n * 4)); t[2].push_back(median_ms([&] { sort_m(Val<1>{}); }, REPS)); check(names[2]);
      CK(cudaMemset(v_out, 0xFF, n * 4)); t[3].push_back(median_ms([&] { sort_m(Val<2>{}); }, REPS)); check(names[3]);
      CK(cudaMemset(v_out, 0xFF, n * 4)); t[4].push_back(median_ms([&] { sort_m(Val<3>{}); }, REPS)); check(names[4]);
    }
    printf("\nA. CUB SortPairs, u32 keys, 2^%d, ms (median of %d) in rounds 1..%d, and against the weak-asm row\n", lg, REPS, ROUNDS);
    for (int v = 0; v < 5; ++v) {
      printf("%-38s", names[v]);
      for (float x : t[v]) printf(" %8.4f", x);
      float med = t[v][ROUNDS / 2]; std::vector<float> s = t[v]; std::sort(s.begin(), s.end()); med = s[ROUNDS / 2];
      std::vector<float> w = t[2]; std::sort(w.begin(), w.end());
      printf("   %.4fx\n", med / w[ROUNDS / 2]);
    }
    CK(cudaFree(tmp));
  }

  // ---- B ----
  const uint32_t tiles = (uint32_t)(N / TILE);
  uint32_t *counts, *prefix, *pt;
  CK(cudaMalloc(&counts, (size_t)tiles * BUCKETS * 4)); CK(cudaMalloc(&prefix, (size_t)tiles * BUCKETS * 4)); CK(cudaMalloc(&pt, (size_t)tiles * BUCKETS * 4));
  count_kernel<<<tiles, WG>>>(counts, tiles);
  size_t sb = 0; CK(cub::DeviceScan::ExclusiveSum(nullptr, sb, counts, prefix, tiles * BUCKETS));
  void* stmp; CK(cudaMalloc(&stmp, sb)); CK(cub::DeviceScan::ExclusiveSum(stmp, sb, counts, prefix, tiles * BUCKETS));
  transpose<<<(tiles * BUCKETS + 255) / 256, 256>>>(prefix, pt, tiles);
  CK(cudaDeviceSynchronize());
  printf("\nB. store patterns at 2^28, ms (median of 11) in rounds 1..3\n");
  auto rowb = [&](const char* what, auto f) {
    printf("%-62s", what);
    for (int r = 0; r < 3; ++r) printf(" %8.4f", median_ms(f, 11));
    printf("\n");
  };
  uint32_t* out1 = v_ref;  // the second plane's output (A is done with it)
  rowb("copy 4 B/element, plain", [&] { copy_kernel<0><<<sms * 8, 512>>>(k_in, k_out, N); });
  rowb("copy 4 B/element, st.relaxed.cta", [&] { copy_kernel<2><<<sms * 8, 512>>>(k_in, k_out, N); });
  rowb("two planes staged, contiguous, plain", [&] { pass_kernel<0, false><<<tiles, WG>>>(k_in, k_out, v_in, out1, pt); });
  rowb("two planes staged, contiguous, st.relaxed.cta", [&] { pass_kernel<2, false><<<tiles, WG>>>(k_in, k_out, v_in, out1, pt); });
  rowb("two planes staged, scatter, plain", [&] { pass_kernel<0, true><<<tiles, WG>>>(k_in, k_out, v_in, out1, pt); });
  rowb("two planes staged, scatter, st.global (weak asm)", [&] { pass_kernel<1, true><<<tiles, WG>>>(k_in, k_out, v_in, out1, pt); });
  rowb("two planes staged, scatter, st.relaxed.cta", [&] { pass_kernel<2, true><<<tiles, WG>>>(k_in, k_out, v_in, out1, pt); });
  rowb("two planes staged, scatter, st.relaxed.gpu", [&] { pass_kernel<3, true><<<tiles, WG>>>(k_in, k_out, v_in, out1, pt); });
  CK(cudaDeviceSynchronize());
  (void)MODE_NAME;
  printf("\nvalues of every variant equal the plain sort's: %s\n", ok ? "yes" : "NO");
  return ok ? 0 : 1;
}
