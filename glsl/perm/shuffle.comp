#version 460
// Permutation, step 3: after a sort by group id each group is a contiguous run, and one
// workgroup shuffles it (CPU twin: src/prims/perm.rs, `shuffle_group`). One round of
// Rao-Sandelius into about as many sub-buckets as the group has elements, so almost nothing
// is serial:
//   1. element p of group g draws a label, the top LABEL_BITS bits of Philox counter
//      (g, p, 2, 0);
//   2. the elements are counted per label, the counts scanned, and each element placed in its
//      label's run at a slot from a shared atomic (any order);
//   3. one thread per label puts its run (about one element) in the order of the elements'
//      positions in the group, so the result does not depend on the atomics' order, then
//      Fisher-Yates shuffles it with counters (g, j, 3 + label, 0).
// Uniform: iid labels make every assignment of elements to sub-buckets of the drawn sizes
// equally likely, and each sub-bucket's order is then uniform. Groups of at most CAPACITY
// elements are rearranged in shared memory; larger ones (rare, forced by the tests) through
// the scratch buffers `tmp` and `tmp_pos` in global memory, with the same draws, so the paths
// agree. Nothing here depends on the subgroup size.
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint CAPACITY = 2048;    // at most 65,536 (16-bit positions)
layout(constant_id = 2) const uint LABEL_BITS = 10;  // 1 to 12
#include "common/philox.glsl"
#if VALUE_WORDS == 2
#define VAL uvec2
#else
#define VAL uint
#endif
layout(push_constant) uniform Params { uint n; uint groups; uvec2 seed; } pc;
layout(set = 0, binding = 0, std430) readonly buffer Ids { uint ids[]; };  // sorted
layout(set = 0, binding = 1, std430) buffer Vals { VAL vals[]; };
// Overflow scratch (coherent: one invocation reads what another wrote in the same dispatch):
// the elements, and their positions in the group.
layout(set = 0, binding = 2, std430) coherent buffer Tmp { VAL tmp[]; };
layout(set = 0, binding = 3, std430) coherent buffer TmpPos { uint tmp_pos[]; };
// Where each group starts (glsl/perm/bounds.comp); not read when there is one group.
layout(set = 0, binding = 4, std430) readonly buffer Bounds { uint bounds[]; };

const uint LABELS = 1u << LABEL_BITS;
// Elements per thread of a group that fits in shared memory.
const uint ITEMS = (CAPACITY + gl_WorkGroupSize.x - 1u) / gl_WorkGroupSize.x;
shared VAL s_vals[CAPACITY];
shared uint s_pos[(CAPACITY + 1u) / 2u];  // each placed element's position in the group, 16 bits
shared uint s_start[LABELS];      // counts, then run starts, then (after placing) run ends
shared uint s_sums[64];           // the scan's per-subgroup sums (WG <= 256, width >= 4)

bool local_group;
uint group_start;
VAL get_v(uint q) { return local_group ? s_vals[q] : tmp[group_start + q]; }
uint get_p(uint q) { return local_group ? (s_pos[q >> 1u] >> (16u * (q & 1u))) & 0xFFFFu : tmp_pos[group_start + q]; }
void set_v(uint q, VAL v) {
    if (local_group) s_vals[q] = v; else tmp[group_start + q] = v;
}
// In shared memory two positions share a word, and neighbouring runs belong to different
// threads: a position is replaced with atomics on its half (placing only sets bits of a
// zeroed word).
void set_p(uint q, uint p, bool placing) {
    if (!local_group) {
        tmp_pos[group_start + q] = p;
        return;
    }
    uint shift = 16u * (q & 1u);
    if (!placing) atomicAnd(s_pos[q >> 1u], ~(0xFFFFu << shift));
    atomicOr(s_pos[q >> 1u], p << shift);
}

uint label_of(uint g, uint p, uvec2 key) {
    return philox4x32(uvec4(g, p, 2u, 0u), key).x >> (32u - LABEL_BITS);
}

void main() {
    uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (g >= pc.groups) return;
    uint t = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x;
    uint start = pc.groups == 1u ? 0u : bounds[g];
    uint m = (pc.groups == 1u ? pc.n : bounds[g + 1u]) - start;
    if (m < 2u) return;
    group_start = start;
    local_group = m <= CAPACITY;
    for (uint l = t; l < LABELS; l += wg) s_start[l] = 0u;
    if (local_group)
        for (uint i = t; 2u * i < m; i += wg) s_pos[i] = 0u;
    barrier();
    uvec2 key = uvec2(pc.seed.x, pc.seed.y ^ 0x5EED5EEDu);

    // 1. Labels and their counts; in shared memory the elements and labels stay in
    // registers (one round: m <= WG * ITEMS), else both are fetched again to place.
    VAL v[ITEMS];
    uint lab[ITEMS];
    for (uint r = 0u; r < m; r += wg * ITEMS) {
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
            uint p = r + j * wg + t;
            if (p < m) {
                if (local_group) v[j] = vals[start + p];
                lab[j] = label_of(g, p, key);
                atomicAdd(s_start[lab[j]], 1u);
            }
        }
    }
    barrier();
    // 2. Exclusive scan of the counts: thread t takes a contiguous range of labels.
    uint per = (LABELS + wg - 1u) / wg;
    uint first = min(t * per, LABELS), last = min(first + per, LABELS);
    uint mine = 0u;
    for (uint l = first; l < last; ++l) mine += s_start[l];
    uint before = subgroupExclusiveAdd(mine);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) s_sums[gl_SubgroupID] = before + mine;
    barrier();
    for (uint s = 0u; s < gl_SubgroupID; ++s) before += s_sums[s];
    for (uint l = first; l < last; ++l) {
        uint c = s_start[l];
        s_start[l] = before;
        before += c;
    }
    barrier();
    // Place: a slot in the label's run (s_start[l] ends as the run's end).
    for (uint r = 0u; r < m; r += wg * ITEMS) {
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
            uint p = r + j * wg + t;
            if (p < m) {
                if (!local_group) {
                    v[j] = vals[start + p];
                    lab[j] = label_of(g, p, key);
                }
                uint q = atomicAdd(s_start[lab[j]], 1u);
                set_v(q, v[j]);
                set_p(q, p, true);
            }
        }
    }
    memoryBarrierBuffer();
    barrier();

    // 3. Each run: into the order of positions (insertion sort: a run holds about
    // m / LABELS elements), then Fisher-Yates.
    for (uint l = t; l < LABELS; l += wg) {
        uint base = l == 0u ? 0u : s_start[l - 1u], k = s_start[l] - base;
        for (uint i = 1u; i < k; ++i) {
            VAL x = get_v(base + i);
            uint p = get_p(base + i), j = i;
            for (; j > 0u; --j) {
                uint pj = get_p(base + j - 1u);
                if (pj < p) break;
                set_v(base + j, get_v(base + j - 1u));
                set_p(base + j, pj, false);
            }
            set_v(base + j, x);
            set_p(base + j, p, false);
        }
        for (uint j = k - 1u; j >= 1u && j < k; --j) {
            uint d = uniform_below(j + 1u, uvec4(g, j, 3u + l, 0u), key);
            VAL x = get_v(base + j);
            set_v(base + j, get_v(base + d));
            set_v(base + d, x);
        }
    }
    memoryBarrierBuffer();
    barrier();
    for (uint p = t; p < m; p += wg) vals[start + p] = get_v(p);
}
