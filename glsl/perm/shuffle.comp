#version 460
// Permutation, step 3: after a sort by group id each group is a contiguous run, and one
// workgroup shuffles it (CPU twin: src/prims/perm.rs, `shuffle_group`). Element p of group g
// draws r = Philox(counter (g, p, 2, 0)); the group's output is its elements in order of the
// random key (top LABEL_BITS bits of r.x, r.y, r.z), ties broken by position, so the result
// is a pure function of the group's input order (reproducible) and, as the keys are iid,
// a uniform order of the group up to ties of 64 random bits within a label's run (total
// variation below k^2 2^-65 for a run of k, far below what Philox itself can be told apart by).
//   1. Counting sort by label (about one label per expected element): labels are counted,
//      the counts scanned, and each element takes a slot in its label's run from a shared
//      atomic (any order), where it stores r.y's top 16 bits and its position.
//   2. Each element's place in its run is how many of the run's elements (about one) have a
//      smaller key: compared by the stored 16 bits, the full draws recomputed only when
//      those tie. Nothing is serial, and each element costs one Philox draw.
// Groups of at most CAPACITY elements are shuffled in shared memory; larger ones (rare,
// forced by the tests) through the scratch buffers `tmp`, `tmp_pos` and the sorted ids' own
// words, with the same keys, so the paths agree. Nothing here depends on the subgroup size.
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint CAPACITY = 2048;  // at most 65,536 (16-bit positions)
layout(constant_id = 2) const uint LABEL_BITS = 10;  // 1 to 16
// Debug (tests): 1 stores no key bits in a slot's word, so every comparison in a run takes
// the tie path (both draws recomputed); the output is the same.
layout(constant_id = 3) const uint FULL_COMPARE = 0;
#include "common/philox.glsl"
#if VALUE_WORDS == 2
#define VAL uvec2
#else
#define VAL uint
#endif
layout(push_constant) uniform Params { uint n; uint groups; uvec2 seed; } pc;
// Sorted group ids; once the bounds are known, the overflow path's per-slot r.y.
layout(set = 0, binding = 0, std430) coherent buffer Ids { uint ids[]; };
layout(set = 0, binding = 1, std430) buffer Vals { VAL vals[]; };
// Overflow scratch, per slot (coherent: one invocation reads what another wrote in the same
// dispatch): the element and its position in the group.
layout(set = 0, binding = 2, std430) coherent buffer Tmp { VAL tmp[]; };
layout(set = 0, binding = 3, std430) coherent buffer TmpPos { uint tmp_pos[]; };
// Where each group starts (glsl/perm/bounds.comp); not read when there is one group.
layout(set = 0, binding = 4, std430) readonly buffer Bounds { uint bounds[]; };

const uint LABELS = 1u << LABEL_BITS;
const uint VW = VALUE_WORDS;
// Elements per thread of a group that fits in shared memory.
const uint ITEMS = (CAPACITY + gl_WorkGroupSize.x - 1u) / gl_WorkGroupSize.x;
// While ranking, slot q's word: r.y's top 16 bits, then the position. Then the group in its
// output order, VW words per element.
shared uint s_mem[CAPACITY * VW];
shared uint s_start[LABELS];  // counts, then run starts, then (after placing) run ends
shared uint s_sums[128];      // the scan's per-subgroup sums (WG <= 512, width >= 4)

uvec4 draw(uint g, uint p, uvec2 key) { return philox4x32(uvec4(g, p, 2u, 0u), key); }
uint label_of(uvec4 r) { return r.x >> (32u - LABEL_BITS); }
// Element po (draw ro) goes before element p (draw r) of the same label's run.
bool precedes(uvec4 ro, uint po, uvec4 r, uint p) {
    if (ro.y != r.y) return ro.y < r.y;
    if (ro.z != r.z) return ro.z < r.z;
    return po < p;
}
uint run_start(uint l) { return l == 0u ? 0u : s_start[l - 1u]; }

void main() {
    uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (g >= pc.groups) return;
    uint t = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x;
    uint start = pc.groups == 1u ? 0u : bounds[g];
    uint m = (pc.groups == 1u ? pc.n : bounds[g + 1u]) - start;
    if (m < 2u) return;
    bool local_group = m <= CAPACITY;
    for (uint l = t; l < LABELS; l += wg) s_start[l] = 0u;
    barrier();
    uvec2 key = uvec2(pc.seed.x, pc.seed.y ^ 0x5EED5EEDu);

    // 1. Labels and their counts; in shared memory the elements and their (label, r.y top
    // 16 bits) stay in registers (one round: m <= WG * ITEMS), else they are drawn again.
    VAL v[ITEMS];
    uint tag[ITEMS];
    for (uint r = 0u; r < m; r += wg * ITEMS) {
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
            uint p = r + j * wg + t;
            if (p < m) {
                uvec4 d = draw(g, p, key);
                if (local_group) {
                    v[j] = vals[start + p];
                    tag[j] = (label_of(d) << 16) | (FULL_COMPARE != 0u ? 0u : d.y >> 16);
                }
                atomicAdd(s_start[label_of(d)], 1u);
            }
        }
    }
    barrier();
    // Exclusive scan of the counts: thread t takes a contiguous range of labels.
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

    if (local_group) {
        // Place: a slot in the label's run (s_start[l] ends as the run's end).
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
            uint p = j * wg + t;
            if (p < m) s_mem[atomicAdd(s_start[tag[j] >> 16], 1u)] = (tag[j] << 16) | p;
        }
        barrier();
        // 2. Rank within the run, then the group through shared memory in output order.
        uint dst[ITEMS];
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
            uint p = j * wg + t;
            if (p >= m) continue;
            uint l = tag[j] >> 16, h = tag[j] & 0xFFFFu, b = run_start(l), e = s_start[l];
            uint rank = 0u;
            for (uint q = b; q < e; ++q) {
                uint w = s_mem[q], po = w & 0xFFFFu, ho = w >> 16;
                if (ho < h || (ho == h && po != p && precedes(draw(g, po, key), po, draw(g, p, key), p))) rank += 1u;
            }
            dst[j] = b + rank;
        }
        barrier();
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
            if (j * wg + t < m) {
#if VALUE_WORDS == 2
                s_mem[2u * dst[j]] = v[j].x;
                s_mem[2u * dst[j] + 1u] = v[j].y;
#else
                s_mem[dst[j]] = v[j];
#endif
            }
        }
        barrier();
        for (uint p = t; p < m; p += wg) {
#if VALUE_WORDS == 2
            vals[start + p] = uvec2(s_mem[2u * p], s_mem[2u * p + 1u]);
#else
            vals[start + p] = s_mem[p];
#endif
        }
        return;
    }

    // Overflow: slot q of the group holds its element in tmp, its position in tmp_pos and its
    // r.y in the ids' word (the ids are dead once the bounds are known).
    for (uint p = t; p < m; p += wg) {
        uvec4 d = draw(g, p, key);
        uint q = atomicAdd(s_start[label_of(d)], 1u);
        tmp[start + q] = vals[start + p];
        tmp_pos[start + q] = p;
        ids[start + q] = FULL_COMPARE != 0u ? 0u : d.y;
    }
    memoryBarrierBuffer();
    barrier();
    for (uint q = t; q < m; q += wg) {
        uint p = tmp_pos[start + q];
        uvec4 d = draw(g, p, key);
        uint l = label_of(d), b = run_start(l), e = s_start[l];
        uint rank = 0u, y = FULL_COMPARE != 0u ? 0u : d.y;
        for (uint qo = b; qo < e; ++qo) {
            uint yo = ids[start + qo];
            if (yo < y) {
                rank += 1u;
            } else if (yo == y && qo != q) {
                uint po = tmp_pos[start + qo];
                if (precedes(draw(g, po, key), po, d, p)) rank += 1u;
            }
        }
        vals[start + b + rank] = tmp[start + q];
    }
}
