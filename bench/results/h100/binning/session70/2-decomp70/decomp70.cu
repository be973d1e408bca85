// Session 70: where CUB's pair pass spends its value round, to set beside ours (session 63's
// skip bits: a vkprims pair pass at 2^28 on an H100 took 2.23-2.27 ms, 1.64-1.65 without its
// value stores, 1.39-1.41 without the value round).
//
// CUB's pair sort (u32 keys) with a 4-byte value type whose copies from or into global memory
// do what the variant says; copies within shared memory and registers stay plain:
//   u32 / Val<0>: plain values (the baseline, and the wrapper alone);
//   Val<4>: its stores into global memory do nothing (no value stores: our skip bit 9);
//   with -DCTOR (a second binary, as a user copy constructor may not build with every CUB):
//   Val<5>: its copies out of global memory yield 0 (no value reads; the stores remain);
//   Val<6>: both (no value reads, no value stores: what is left of the value round is its
//           shared-memory staging and the barriers);
//   Val<7> / Val<8>: loads through `ld.global.nc` (LDG.E.CONSTANT, as our read-only
//           bindings get) / weak `ld.global` (CUB's LDG.E), both asm.
// CUB's keys-only sort runs too. Rows alternate in rounds; the variants that move every
// value must equal the plain sort's values to the bit.
// Build: nvcc -O3 -arch=sm_90 [-DCTOR] -o /tmp/decomp70 decomp70.cu
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>

#define CK(x) do { cudaError_t ck_err = (x); if (ck_err != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(ck_err)); exit(1); } } while (0)

template <int MODE> struct Val {
  uint32_t v;
#ifdef CTOR
  Val() = default;
  __host__ __device__ Val(const Val& o) {
#ifdef __CUDA_ARCH__
    if ((MODE >= 5 && MODE <= 8) && __isGlobal(&o)) {
      if (MODE == 5 || MODE == 6) { v = 0u; return; }
      size_t g = __cvta_generic_to_global(&o.v);
      uint32_t x;
      if (MODE == 7) asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(x) : "l"(g));
      else asm volatile("ld.global.u32 %0, [%1];" : "=r"(x) : "l"(g));
      v = x;
      return;
    }
#endif
    v = o.v;
  }
#endif
  __host__ __device__ Val& operator=(const Val& o) {
#ifdef __CUDA_ARCH__
    if ((MODE == 4 || MODE == 6) && __isGlobal(this)) return *this;
#endif
    v = o.v;
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

int main() {
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  printf("device: %s, %d SMs%s\n", prop.name, sms,
#ifdef CTOR
         ", with copy-constructor variants"
#else
         ""
#endif
  );
  const size_t N = size_t(1) << 28;
  uint32_t *k_in, *k_out, *v_in, *v_out, *v_ref; unsigned long long* dcount;
  CK(cudaMalloc(&k_in, N * 4)); CK(cudaMalloc(&k_out, N * 4)); CK(cudaMalloc(&v_in, N * 4));
  CK(cudaMalloc(&v_out, N * 4)); CK(cudaMalloc(&v_ref, N * 4)); CK(cudaMalloc(&dcount, 8));
  fill<<<(unsigned)((N + 255) / 256), 256>>>(k_in, N, 7u);
  iota<<<(unsigned)((N + 255) / 256), 256>>>(v_in, N);
  CK(cudaDeviceSynchronize());
  bool ok = true;
  for (int lg : {26, 28}) {
    const size_t n = size_t(1) << lg;
    size_t tb = 0, t1 = 0;
    CK(cub::DeviceRadixSort::SortPairs(nullptr, tb, k_in, k_out, v_in, v_out, (int)n));
    CK(cub::DeviceRadixSort::SortKeys(nullptr, t1, k_in, k_out, (int)n));
    tb = std::max(tb, t1);
    void* tmp; CK(cudaMalloc(&tmp, tb));
    auto sort_u32 = [&] { size_t t = tb; CK(cub::DeviceRadixSort::SortPairs(tmp, t, k_in, k_out, v_in, v_out, (int)n)); };
    auto sort_keys = [&] { size_t t = tb; CK(cub::DeviceRadixSort::SortKeys(tmp, t, k_in, k_out, (int)n)); };
    auto sort_m = [&](auto tag) {
      using V = decltype(tag);
      size_t t = tb; CK(cub::DeviceRadixSort::SortPairs(tmp, t, k_in, k_out, (const V*)v_in, (V*)v_out, (int)n));
    };
    sort_u32(); CK(cudaDeviceSynchronize()); CK(cudaMemcpy(v_ref, v_out, n * 4, cudaMemcpyDeviceToDevice));
    auto check = [&](const char* what) {
      CK(cudaMemset(dcount, 0, 8)); mismatches<<<4 * sms, 256>>>(v_ref, v_out, n, dcount);
      unsigned long long h; CK(cudaMemcpy(&h, dcount, 8, cudaMemcpyDeviceToHost));
      if (h) { printf("  %s: %llu values differ from the plain sort's\n", what, h); ok = false; }
    };
    std::vector<const char*> names;
    std::vector<std::vector<float>> t;
    const int ROUNDS = 3, REPS = 9;
    for (int r = 0; r < ROUNDS; ++r) {
      int row = 0;
      auto add = [&](const char* name, float ms) {
        if (r == 0) { names.push_back(name); t.emplace_back(); }
        t[row++].push_back(ms);
      };
      add("CUB SortPairs, u32 values", median_ms(sort_u32, REPS));
      add("CUB SortKeys", median_ms(sort_keys, REPS));
      CK(cudaMemset(v_out, 0xFF, n * 4));
      add("Val<0> plain", median_ms([&] { sort_m(Val<0>{}); }, REPS)); check("Val<0>");
      add("Val<4> no value stores", median_ms([&] { sort_m(Val<4>{}); }, REPS));
#ifdef CTOR
      add("Val<5> no value reads", median_ms([&] { sort_m(Val<5>{}); }, REPS));
      add("Val<6> no value reads or stores", median_ms([&] { sort_m(Val<6>{}); }, REPS));
      CK(cudaMemset(v_out, 0xFF, n * 4));
      add("Val<7> value loads ld.global.nc (asm)", median_ms([&] { sort_m(Val<7>{}); }, REPS)); check("Val<7>");
      CK(cudaMemset(v_out, 0xFF, n * 4));
      add("Val<8> value loads ld.global (asm)", median_ms([&] { sort_m(Val<8>{}); }, REPS)); check("Val<8>");
#endif
    }
    printf("\n2^%d, ms (median of %d) in rounds 1..%d, the rounds' median, and less the plain u32 sort's\n", lg, REPS, ROUNDS);
    std::vector<float> base = t[0]; std::sort(base.begin(), base.end());
    for (size_t v = 0; v < names.size(); ++v) {
      std::vector<float> s = t[v]; std::sort(s.begin(), s.end());
      printf("%-40s", names[v]);
      for (float x : t[v]) printf(" %8.4f", x);
      printf("   %8.4f  %+8.4f\n", s[ROUNDS / 2], s[ROUNDS / 2] - base[ROUNDS / 2]);
    }
    CK(cudaFree(tmp));
  }
  printf("\nvalues of every variant that moves them equal the plain sort's: %s\n", ok ? "yes" : "NO");
  return ok ? 0 : 1;
}
