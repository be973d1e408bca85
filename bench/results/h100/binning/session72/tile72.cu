// Session 72: CUB's u32 pair sort at other onesweep tiles, ours among them. Our pair pass is
// 512x16 (8,192 elements) at 64 registers; CUB's sm90 pass is 384x23 (8,832) at 77, and
// larger pair tiles do not fit our registers (sessions 30, 54). If CUB at 512x16 loses what
// we lose to it (0.95x at 2^28), the pair gap is the tile the registers allow.
//
// A custom policy hub (the legacy tuning API that DispatchRadixSort takes) with every policy
// but the onesweep pass's copied from Policy500's; the onesweep pass is CUB's sm90 form
// (RADIX_RANK_MATCH_EARLY_COUNTS_ANY, 8-bit digits) at THREADS x ITEMS. The row 384x23 is the
// control: it must time as the default SortPairs does. Every row's keys and values must equal
// the default sort's to the bit (values are the input index, so stability is checked too).
// Build: nvcc -O3 -arch=sm_90 [-DHUB_LAST] [-DORDER_BOOL] [-DSCAN=...] -o /tmp/tile72 tile72.cu
// (HUB_LAST: the hub after the decomposer in DispatchRadixSort's parameters; ORDER_BOOL: a
// bool IS_DESCENDING in place of SortOrder; the command tries each form, as CUB versions differ.)
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <functional>

#define CK(x) do { cudaError_t ck_err = (x); if (ck_err != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(ck_err)); exit(1); } } while (0)
#ifndef SCAN
#define SCAN cub::BLOCK_SCAN_RAKING_MEMOIZE
#endif

template <int THREADS, int ITEMS, typename KeyT, typename OffsetT> struct tile_hub {
  using DominantT = KeyT;
  struct MaxPolicy : cub::ChainedPolicy<500, MaxPolicy, MaxPolicy> {
    static constexpr int PRIMARY_RADIX_BITS = 7;
    static constexpr int SINGLE_TILE_RADIX_BITS = 6;
    static constexpr int SEGMENTED_RADIX_BITS = 6;
    static constexpr bool ONESWEEP = true;
    static constexpr int ONESWEEP_RADIX_BITS = 8;
    using HistogramPolicy = cub::AgentRadixSortHistogramPolicy<128, 16, 1, KeyT, ONESWEEP_RADIX_BITS>;
    using ExclusiveSumPolicy = cub::AgentRadixSortExclusiveSumPolicy<256, ONESWEEP_RADIX_BITS>;
    using OnesweepPolicy = cub::AgentRadixSortOnesweepPolicy<THREADS, ITEMS, DominantT, 1,
        cub::RADIX_RANK_MATCH_EARLY_COUNTS_ANY, SCAN, cub::RADIX_SORT_STORE_DIRECT, ONESWEEP_RADIX_BITS>;
    using ScanPolicy = cub::AgentScanPolicy<512, 23, OffsetT, cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::LOAD_DEFAULT,
        cub::BLOCK_STORE_WARP_TRANSPOSE, cub::BLOCK_SCAN_RAKING_MEMOIZE>;
    using DownsweepPolicy = cub::AgentRadixSortDownsweepPolicy<160, 39, DominantT, cub::BLOCK_LOAD_WARP_TRANSPOSE,
        cub::LOAD_DEFAULT, cub::RADIX_RANK_BASIC, cub::BLOCK_SCAN_WARP_SCANS, PRIMARY_RADIX_BITS>;
    using AltDownsweepPolicy = cub::AgentRadixSortDownsweepPolicy<256, 16, DominantT, cub::BLOCK_LOAD_DIRECT,
        cub::LOAD_LDG, cub::RADIX_RANK_MEMOIZE, cub::BLOCK_SCAN_RAKING_MEMOIZE, PRIMARY_RADIX_BITS - 1>;
    using UpsweepPolicy = DownsweepPolicy;
    using AltUpsweepPolicy = AltDownsweepPolicy;
    using SingleTilePolicy = cub::AgentRadixSortDownsweepPolicy<256, 19, DominantT, cub::BLOCK_LOAD_DIRECT,
        cub::LOAD_LDG, cub::RADIX_RANK_MEMOIZE, cub::BLOCK_SCAN_WARP_SCANS, SINGLE_TILE_RADIX_BITS>;
    using SegmentedPolicy = cub::AgentRadixSortDownsweepPolicy<192, 31, DominantT, cub::BLOCK_LOAD_WARP_TRANSPOSE,
        cub::LOAD_DEFAULT, cub::RADIX_RANK_MEMOIZE, cub::BLOCK_SCAN_WARP_SCANS, SEGMENTED_RADIX_BITS>;
    using AltSegmentedPolicy = cub::AgentRadixSortDownsweepPolicy<256, 11, DominantT, cub::BLOCK_LOAD_WARP_TRANSPOSE,
        cub::LOAD_DEFAULT, cub::RADIX_RANK_MEMOIZE, cub::BLOCK_SCAN_WARP_SCANS, SEGMENTED_RADIX_BITS - 1>;
  };
};

#ifdef ORDER_BOOL
#define ASC false
#else
#define ASC cub::SortOrder::Ascending
#endif
template <class T> struct tag { using type = T; };
template <int T, int I> using hub_t = tile_hub<T, I, uint32_t, unsigned>;
#ifdef HUB_LAST
template <int T, int I> using dispatch_t =
    cub::DispatchRadixSort<ASC, uint32_t, uint32_t, unsigned, cub::detail::identity_decomposer_t, hub_t<T, I>>;
#else
template <int T, int I> using dispatch_t = cub::DispatchRadixSort<ASC, uint32_t, uint32_t, unsigned, hub_t<T, I>>;
#endif

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
  printf("device: %s, %d SMs, CUB %d\n", prop.name, sms, CUB_VERSION);
  const size_t N = size_t(1) << 28;
  uint32_t *k_in, *k_out, *v_in, *v_out, *k_ref, *v_ref; unsigned long long* dcount;
  CK(cudaMalloc(&k_in, N * 4)); CK(cudaMalloc(&k_out, N * 4)); CK(cudaMalloc(&v_in, N * 4));
  CK(cudaMalloc(&v_out, N * 4)); CK(cudaMalloc(&k_ref, N * 4)); CK(cudaMalloc(&v_ref, N * 4));
  CK(cudaMalloc(&dcount, 8));
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
    // Every hub's temporary storage, so one allocation serves all rows.
    auto custom = [&](auto tg, void* tmp, size_t& bytes) {
      using D = typename decltype(tg)::type;
      cub::DoubleBuffer<uint32_t> dk(k_in, k_out), dv(v_in, v_out);
      CK(D::Dispatch(tmp, bytes, dk, dv, (unsigned)n, 0, 32, false, 0));
    };
    std::vector<const char*> names;
    std::vector<std::function<void(void*, size_t&)>> fns;
    auto add_hub = [&](const char* name, auto tg) {
      names.push_back(name);
      fns.push_back([=](void* tmp, size_t& bytes) { custom(tg, tmp, bytes); });
    };
    add_hub("custom 384x23 (control)", tag<dispatch_t<384, 23>>{});
    add_hub("custom 512x16 (ours)", tag<dispatch_t<512, 16>>{});
    add_hub("custom 384x16", tag<dispatch_t<384, 16>>{});
    add_hub("custom 384x21", tag<dispatch_t<384, 21>>{});
    add_hub("custom 448x18", tag<dispatch_t<448, 18>>{});
    add_hub("custom 512x18", tag<dispatch_t<512, 18>>{});
    for (auto& f : fns) { size_t b = 0; f(nullptr, b); tb = std::max(tb, b); }
    void* tmp; CK(cudaMalloc(&tmp, tb));
    auto sort_pairs = [&] { size_t t = tb; CK(cub::DeviceRadixSort::SortPairs(tmp, t, k_in, k_out, v_in, v_out, (int)n)); };
    auto sort_keys = [&] { size_t t = tb; CK(cub::DeviceRadixSort::SortKeys(tmp, t, k_in, k_out, (int)n)); };
    sort_pairs(); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(k_ref, k_out, n * 4, cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(v_ref, v_out, n * 4, cudaMemcpyDeviceToDevice));
    auto differ = [&](const uint32_t* a, const uint32_t* b) {
      CK(cudaMemset(dcount, 0, 8)); mismatches<<<4 * sms, 256>>>(a, b, n, dcount);
      unsigned long long h; CK(cudaMemcpy(&h, dcount, 8, cudaMemcpyDeviceToHost));
      return h;
    };
    // The custom rows' output, checked once: key and value mismatches against the default.
    for (size_t h = 0; h < fns.size(); ++h) {
      CK(cudaMemset(k_out, 0xFF, n * 4)); CK(cudaMemset(v_out, 0xFF, n * 4));
      size_t t = tb; fns[h](tmp, t); CK(cudaDeviceSynchronize());
      unsigned long long dk = differ(k_ref, k_out), dv = differ(v_ref, v_out);
      if (dk || dv) { printf("  2^%d %s: %llu keys, %llu values differ from SortPairs'\n", lg, names[h], dk, dv); ok = false; }
    }
    const int ROUNDS = 3, REPS = 9;
    std::vector<std::vector<float>> t(fns.size() + 2);
    for (int r = 0; r < ROUNDS; ++r) {
      t[0].push_back(median_ms(sort_pairs, REPS));
      t[1].push_back(median_ms(sort_keys, REPS));
      for (size_t h = 0; h < fns.size(); ++h)
        t[h + 2].push_back(median_ms([&] { size_t b = tb; fns[h](tmp, b); }, REPS));
    }
    printf("\n2^%d, ms (median of %d) in rounds 1..%d, the rounds' median, and its time over SortPairs'\n", lg, REPS, ROUNDS);
    std::vector<float> base = t[0]; std::sort(base.begin(), base.end());
    for (size_t v = 0; v < t.size(); ++v) {
      const char* name = v == 0 ? "CUB SortPairs (default)" : v == 1 ? "CUB SortKeys" : names[v - 2];
      std::vector<float> s = t[v]; std::sort(s.begin(), s.end());
      printf("%-28s", name);
      for (float x : t[v]) printf(" %8.4f", x);
      printf("   %8.4f  %6.4fx\n", s[ROUNDS / 2], s[ROUNDS / 2] / base[ROUNDS / 2]);
    }
    CK(cudaFree(tmp));
  }
  printf("\nkeys and values of every custom tile equal SortPairs': %s\n", ok ? "yes" : "NO");
  return ok ? 0 : 1;
}
