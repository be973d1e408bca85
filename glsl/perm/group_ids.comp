#version 460
// Permutation, step 1: element i goes to group uniform_below(groups), from word i % 4 of
// Philox(seed, counter (i / 4, 0, 0, 0)); a rejected draw takes word i % 4 of counter
// (i / 4, 0, 0, 1), then 2, ... Each invocation draws four consecutive elements with one
// Philox call (the kernel is compute-bound) and stores them with one 16-byte store. It also
// counts the ids' digits for the sort by group id, as the sort's upfront histogram would
// (sort/hist_layout.glsl), so the sort need not read the ids back to count them. CPU twin:
// src/prims/perm.rs (reference).
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x_id = 0) in;  // 256; the workgroups stride over the ids
layout(constant_id = 1) const uint PASSES = 2;  // the sort's digit passes, 1 to 4
#include "common/philox.glsl"
#include "sort/hist_layout.glsl"
layout(push_constant) uniform Params { uint n; uint groups; uvec2 seed; uint last_bits; } pc;
layout(set = 0, binding = 0, std430) writeonly buffer Ids { uint ids[]; };
layout(set = 0, binding = 0, std430) writeonly buffer Ids4 { uvec4 ids4[]; };  // bound at offset 0: aligned
// The sort's histogram buffer: counts into this workgroup's copy.
layout(set = 0, binding = 1, std430) buffer Hist { uint hist[]; };

shared uint s_hist[PASSES * 256u];

void count_id(uint id) {
    [[unroll]] for (uint p = 0u; p < PASSES; ++p) {
        uint bits = p + 1u == PASSES ? pc.last_bits : 8u;
        atomicAdd(s_hist[p * 256u + ((id >> (8u * p)) & ((1u << bits) - 1u))], 1u);
    }
}

void main() {
    uint lid = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x;
    for (uint i = lid; i < PASSES * 256u; i += wg) s_hist[i] = 0u;
    barrier();
    uint threshold = (0u - pc.groups) % pc.groups;
    uint quads = (pc.n + 3u) / 4u;
    for (uint q = gl_WorkGroupID.x * wg + lid; q < quads; q += gl_NumWorkGroups.x * wg) {
        uint i0 = 4u * q;
        uvec4 ctr = uvec4(q, 0u, 0u, 0u);
        uvec4 r = philox4x32(ctr, pc.seed);
        uvec4 v;
        for (uint j = 0u; j < 4u; ++j) v[j] = uniform_below(pc.groups, threshold, r[j], ctr, j, pc.seed);
        // The whole quad where it lies inside the ids, else the tail one id at a time.
        if (i0 + 4u <= pc.n) {
            ids4[q] = v;
            count_id(v.x); count_id(v.y); count_id(v.z); count_id(v.w);
        } else {
            for (uint j = 0u; i0 + j < pc.n; ++j) {
                ids[i0 + j] = v[j];
                count_id(v[j]);
            }
        }
    }
    barrier();
    uint copy = hist_copy(gl_WorkGroupID.x);
    for (uint i = lid; i < PASSES * 256u; i += wg) {
        uint c = s_hist[i];
        if (c != 0u) atomicAdd(hist[copy + i], c);
    }
}
