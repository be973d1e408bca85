#version 460
// Upfront histogram of every digit pass at once (OneSweep): G workgroups stride over the keys
// in rounds of 16 (32-bit) or 8 (64-bit) keys per lane, count each pass's digits in shared
// memory, then add their counts into the workgroup's copy of the global counters and raise
// each pass's digit span (sort/hist_span.glsl). CPU twin: src/prims/sort.rs
// (reference_histogram).
#include "common/subgroup.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint KEY_KIND = 0;
layout(constant_id = 2) const uint DESCENDING = 0;
// Digit passes counted: the shared counters hold these only, so more workgroups share an SM
// (H200, 2^28 u32 keys: 0.80 ms with counters for 8 passes, 0.48 with 4).
layout(constant_id = 3) const uint PASSES = 4;
// 1: 16-byte loads, a quarter (64-bit keys: half) of the load instructions (1-8% faster on the
// H200); needs the keys' binding to start at a multiple of 16 bytes (the host checks). 0: one
// load per key.
layout(constant_id = 4) const uint VEC4 = 1;
#include "sort/sort_keys.glsl"
#include "sort/hist_layout.glsl"

// Pass p's digit: bits lo + WIDTH * p up, WIDTH of them (the last pass: last_bits). A
// constant, so that the usual 8 folds into the shifts and masks as before it could vary.
layout(constant_id = 6) const uint WIDTH = 8;
layout(push_constant) uniform Params { uint n; uint lo; uint last_bits; } pc;
layout(set = 0, binding = 0, std430) readonly buffer Keys { KEY keys[]; };
layout(set = 0, binding = 0, std430) readonly buffer Keys4 { uvec4 keys4[]; };
// Counts into this workgroup's copy (sort/hist_layout.glsl).
layout(set = 0, binding = 1, std430) buffer Hist { uint hist[]; };

shared uint s_hist[PASSES * 256u];
#include "sort/hist_span.glsl"

// Loads per lane per round, all issued before any key is counted: enough bytes in flight to
// keep device memory busy (a load-then-count loop left the H200 at a fraction of it).
const uint ROUND_VECS = 4u;
const uint PER_VEC = KEY64 != 0 ? 2u : 4u;
const uint ROUND_KEYS = ROUND_VECS * PER_VEC;

void count_key(KEY k) {
    [[unroll]] for (uint p = 0u; p < PASSES; ++p) {
        uint bits = p + 1u == PASSES ? pc.last_bits : WIDTH;
        atomicAdd(s_hist[p * 256u + digit_of(k, pc.lo + WIDTH * p, bits)], 1u);
    }
}

void count_vec(uvec4 v) {
#if KEY64
    count_key(uint64_t(v.x) | (uint64_t(v.y) << 32));
    count_key(uint64_t(v.z) | (uint64_t(v.w) << 32));
#else
    count_key(v.x); count_key(v.y); count_key(v.z); count_key(v.w);
#endif
}

void main() {
    uint lid = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x;
    for (uint i = lid; i < PASSES * 256u; i += wg) s_hist[i] = 0u;
    span_zero();
    barrier();
    if (VEC4 != 0u) {
        uint vecs = pc.n / PER_VEC, chunk = wg * ROUND_VECS;
        for (uint base = gl_WorkGroupID.x * chunk; base < vecs; base += gl_NumWorkGroups.x * chunk) {
            uvec4 v[ROUND_VECS];
            [[unroll]] for (uint j = 0u; j < ROUND_VECS; ++j) {
                uint i = base + j * wg + lid;
                v[j] = i < vecs ? keys4[i] : uvec4(0u);
            }
            [[unroll]] for (uint j = 0u; j < ROUND_VECS; ++j)
                if (base + j * wg + lid < vecs) count_vec(v[j]);
        }
        // The last n % PER_VEC keys, short of a whole vector.
        uint i = vecs * PER_VEC + lid;
        if (gl_WorkGroupID.x == 0u && i < pc.n) count_key(keys[i]);
    } else {
        uint chunk = wg * ROUND_KEYS;
        for (uint base = gl_WorkGroupID.x * chunk; base < pc.n; base += gl_NumWorkGroups.x * chunk) {
            KEY k[ROUND_KEYS];
            [[unroll]] for (uint j = 0u; j < ROUND_KEYS; ++j) {
                uint i = base + j * wg + lid;
                k[j] = i < pc.n ? keys[i] : KEY(0);
            }
            [[unroll]] for (uint j = 0u; j < ROUND_KEYS; ++j)
                if (base + j * wg + lid < pc.n) count_key(k[j]);
        }
    }
    barrier();
    uint copy = hist_copy(gl_WorkGroupID.x);
    if (SPAN == 0u) {
        for (uint i = lid; i < PASSES * 256u; i += wg) {
            uint c = s_hist[i];
            if (c != 0u) atomicAdd(hist[copy + i], c);
        }
        return;
    }
    [[unroll]] for (uint p = 0u; p < PASSES; ++p) {
        uint hi = 0u, lo = 0u;
        for (uint d = lid; d < 256u; d += wg) {
            uint c = s_hist[p * 256u + d];
            if (c != 0u) {
                atomicAdd(hist[copy + p * 256u + d], c);
                hi = max(hi, d + 1u);
                lo = max(lo, 256u - d);
            }
        }
        span_note(p, hi, lo);
    }
    span_raise(PASSES);
}
