// Philox4x32-10 (Salmon et al., SC'11): counter-based random numbers, so any element's stream
// can be recomputed anywhere. CPU twin: src/prims/perm.rs (philox4x32).
#ifndef PHILOX_GLSL
#define PHILOX_GLSL

uvec4 philox4x32(uvec4 ctr, uvec2 key) {
    for (uint r = 0u; r < 10u; ++r) {
        uint hi0, lo0, hi1, lo1;
        umulExtended(0xD2511F53u, ctr.x, hi0, lo0);
        umulExtended(0xCD9E8D57u, ctr.z, hi1, lo1);
        ctr = uvec4(hi1 ^ ctr.y ^ key.x, lo1, hi0 ^ ctr.w ^ key.y, lo0);
        key += uvec2(0x9E3779B9u, 0xBB67AE85u);
    }
    return ctr;
}

// A uniform integer in [0, range) for range >= 1, exactly (Lemire's method with rejection),
// from `word`, word j of philox4x32(ctr, key) drawn by the caller, so one call serves four
// values; a rejected draw retries with word j of the next counter (ctr.w + 1, ...), so the
// result is still a pure function of (ctr, j). threshold: 2^32 mod range, (0 - range) % range.
uint uniform_below(uint range, uint threshold, uint word, uvec4 ctr, uint j, uvec2 key) {
    for (uint attempt = 1u;; ++attempt) {
        uint hi, lo;
        umulExtended(word, range, hi, lo);
        if (lo >= threshold) return hi;
        word = philox4x32(uvec4(ctr.xyz, ctr.w + attempt), key)[j];
    }
    return 0u;
}

// Element i's group of the permutation (src/prims/perm.rs): uniform below `groups` from word
// i % 4 of Philox(seed, counter (i / 4, 0, 0, 0)); threshold: (0 - groups) % groups.
// (perm/group_ids.comp draws four elements' groups with one call, the same way.)
uint perm_group(uint i, uint groups, uint threshold, uvec2 seed) {
    uvec4 ctr = uvec4(i >> 2, 0u, 0u, 0u);
    uint j = i & 3u;
    return uniform_below(groups, threshold, philox4x32(ctr, seed)[j], ctr, j, seed);
}

#endif
