// Per-kernel times of CUB's onesweep sort on the H200, for `ncu --clock-control none
// --cache-control none --metrics gpu__time_duration.sum --kernel-name regex:DeviceRadixSort`:
// u32 keys and u32/u32 pairs at 2^28 and u64 keys at 2^27, random keys, three sorts each
// (the first warms up). Session 19: is the gap to CUB in the upfront histogram or the passes?
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdint>
#include <vector>

template <typename K> void fill(K* d, size_t n, uint64_t seed) {
    std::vector<K> h(n);
    uint64_t x = seed;
    for (size_t i = 0; i < n; ++i) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        h[i] = (K)x;
    }
    cudaMemcpy(d, h.data(), n * sizeof(K), cudaMemcpyHostToDevice);
}

int main() {
    const size_t n32 = size_t(1) << 28, n64 = size_t(1) << 27;
    uint32_t *k0, *k1, *v0, *v1; uint64_t *q0, *q1;
    cudaMalloc(&k0, n32 * 4); cudaMalloc(&k1, n32 * 4); cudaMalloc(&v0, n32 * 4); cudaMalloc(&v1, n32 * 4);
    cudaMalloc(&q0, n64 * 8); cudaMalloc(&q1, n64 * 8);
    fill(k0, n32, 0x9E3779B97F4A7C15ull); fill(v0, n32, 7); fill(q0, n64, 0xD1B54A32D192ED03ull);
    size_t a = 0, b = 0, c = 0;
    cub::DeviceRadixSort::SortKeys(nullptr, a, k0, k1, (int)n32);
    cub::DeviceRadixSort::SortPairs(nullptr, b, k0, k1, v0, v1, (int)n32);
    cub::DeviceRadixSort::SortKeys(nullptr, c, q0, q1, (int)n64);
    size_t t = std::max(a, std::max(b, c));
    void* tmp; cudaMalloc(&tmp, t);
    for (int r = 0; r < 3; ++r) { size_t s = t; cub::DeviceRadixSort::SortKeys(tmp, s, k0, k1, (int)n32); }
    for (int r = 0; r < 3; ++r) { size_t s = t; cub::DeviceRadixSort::SortPairs(tmp, s, k0, k1, v0, v1, (int)n32); }
    for (int r = 0; r < 3; ++r) { size_t s = t; cub::DeviceRadixSort::SortKeys(tmp, s, q0, q1, (int)n64); }
    cudaDeviceSynchronize();
    printf("done: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
