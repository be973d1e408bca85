#version 460
// Permutation, step 3: after a sort by group id each group is a contiguous run, and one
// workgroup shuffles it (CPU twin: src/prims/perm.rs, `shuffle_group`). One round of
// Rao-Sandelius, so the work spreads over the workgroup instead of one serial Fisher-Yates:
//   1. element p of group g draws a label in [0, SUB) from Philox counter (g, p, 2, .);
//   2. a stable counting sort by label (thread t counts and places a contiguous chunk of
//      positions, so the order is a pure function of the labels; in shared memory the labels
//      are kept between counting and placing, else drawn again);
//   3. sub-bucket s is Fisher-Yates shuffled by thread s with counters (g, j, 3 + s, .)
//      (in shared memory the draws are made first by all threads, then the swaps).
// Uniform: iid labels make every assignment of elements to sub-buckets of the drawn sizes
// equally likely, and each sub-bucket's order is then uniform. Groups of at most CAPACITY
// elements are rearranged in shared memory; larger ones (rare, forced by the tests) through
// the scratch buffer `tmp` in global memory, with the same draws, so the paths agree.
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x_id = 0) in;                      // at most WG_MAX
layout(constant_id = 1) const uint CAPACITY = 2048;
#include "common/philox.glsl"
#if VALUE_WORDS == 2
#define VAL uvec2
#else
#define VAL uint
#endif
layout(push_constant) uniform Params { uint n; uint groups; uvec2 seed; } pc;
layout(set = 0, binding = 0, std430) readonly buffer Ids { uint ids[]; };  // sorted
layout(set = 0, binding = 1, std430) buffer Vals { VAL vals[]; };
// coherent: one invocation reads what another wrote in the same dispatch (the overflow path).
layout(set = 0, binding = 2, std430) coherent buffer Tmp { VAL tmp[]; };   // overflow scratch

const uint SUB = 32u;     // sub-buckets per group
const uint WG_MAX = 64u;  // counter columns
shared VAL s_vals[CAPACITY];
shared uint s_count[SUB * WG_MAX];  // [label][thread]: counts, then next free position; then draws
shared uint s_start[SUB + 1u];
shared uint s_labels[(CAPACITY + 3u) / 4u];  // in shared memory: the labels, 8 bits each, drawn once
shared uint s_bounds[2];

// First index whose (sorted) group id is >= g.
uint lower_bound(uint g) {
    uint lo = 0u, hi = pc.n;
    while (lo < hi) {
        uint mid = (lo + hi) / 2u;
        if (ids[mid] < g) lo = mid + 1u; else hi = mid;
    }
    return lo;
}

void put(bool local, uint start, uint p, VAL v) {
    if (local) s_vals[p] = v; else tmp[start + p] = v;
}
VAL get(bool local, uint start, uint p) {
    return local ? s_vals[p] : tmp[start + p];
}

void main() {
    uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (g >= pc.groups) return;
    uint t = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x;
    if (t < 2u) s_bounds[t] = lower_bound(g + t);
    barrier();
    uint start = s_bounds[0], m = s_bounds[1] - s_bounds[0];
    if (m < 2u) return;
    bool local = m <= CAPACITY;
    uvec2 key = uvec2(pc.seed.x, pc.seed.y ^ 0x5EED5EEDu);
    // Chunks of a multiple of 4 positions, so each label word has one writer. (The placement
    // is the stable order by (label, position) whatever the chunks.)
    uint chunk = ((m + wg - 1u) / wg + 3u) & ~3u;
    uint first = min(t * chunk, m), last = min(first + chunk, m);

    // 1-2. Count the labels of this thread's chunk, scan (label-major, then thread), place.
    for (uint s = 0u; s < SUB; ++s) s_count[s * WG_MAX + t] = 0u;
    uint packed = 0u;
    for (uint p = first; p < last; ++p) {
        uint l = uniform_below(SUB, uvec4(g, p, 2u, 0u), key);
        s_count[l * WG_MAX + t] += 1u;
        packed |= l << ((p & 3u) * 8u);
        if (local && ((p & 3u) == 3u || p + 1u == last)) {
            s_labels[p >> 2u] = packed;
            packed = 0u;
        }
    }
    barrier();
    if (t < SUB) {
        uint run = 0u;
        for (uint c = 0u; c < wg; ++c) {
            uint k = s_count[t * WG_MAX + c];
            s_count[t * WG_MAX + c] = run;
            run += k;
        }
        s_start[t + 1u] = run;  // the label's total, for now
    }
    barrier();
    if (t == 0u) {
        s_start[0] = 0u;
        for (uint s = 1u; s <= SUB; ++s) s_start[s] += s_start[s - 1u];
    }
    barrier();
    for (uint p = first; p < last; ++p) {
        uint l = local ? (s_labels[p >> 2u] >> ((p & 3u) * 8u)) & 0xFFu : uniform_below(SUB, uvec4(g, p, 2u, 0u), key);
        uint pos = s_start[l] + s_count[l * WG_MAX + t];
        s_count[l * WG_MAX + t] += 1u;
        put(local, start, pos, vals[start + p]);
    }
    memoryBarrierBuffer();
    barrier();

    // 3. Fisher-Yates within each sub-bucket. Its draws depend only on (g, j, label), not on
    // the data: in shared memory every thread first draws for its positions, two 16-bit draws
    // per word of the counters (dead by now), so the serial swaps only move elements (one
    // thread per sub-bucket would otherwise run a chain of Philox calls).
    bool predraw = local && CAPACITY <= 2u * SUB * WG_MAX;
    if (predraw) {
        for (uint w = t; 2u * w < m; w += wg) {
            uint word = 0u;
            for (uint h = 0u; h < 2u; ++h) {
                uint q = 2u * w + h;
                if (q >= m) break;
                uint sub = 0u;  // the sub-bucket holding position q: the last one starting at or before it
                for (uint c = 1u; c < SUB; ++c) sub = s_start[c] <= q ? c : sub;
                uint j = q - s_start[sub];
                word |= (j >= 1u ? uniform_below(j + 1u, uvec4(g, j, 3u + sub, 0u), key) : 0u) << (16u * h);
            }
            s_count[w] = word;
        }
        barrier();
    }
    if (t < SUB) {
        uint base = s_start[t], size = s_start[t + 1u] - s_start[t];
        for (uint j = size - 1u; j >= 1u && j < size; --j) {
            uint q = base + j;
            uint k = predraw ? (s_count[q >> 1u] >> (16u * (q & 1u))) & 0xFFFFu : uniform_below(j + 1u, uvec4(g, j, 3u + t, 0u), key);
            VAL a = get(local, start, base + j);
            put(local, start, base + j, get(local, start, base + k));
            put(local, start, base + k, a);
        }
    }
    memoryBarrierBuffer();
    barrier();
    for (uint p = t; p < m; p += wg) vals[start + p] = get(local, start, p);
}
