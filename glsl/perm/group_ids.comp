#version 460
// Permutation, step 1: element i goes to group uniform_below(groups), from word i % 4 of
// Philox(seed, counter (i / 4, 0, 0, 0)); a rejected draw takes word i % 4 of counter
// (i / 4, 0, 0, 1), then 2, ... Each invocation draws four consecutive elements with one
// Philox call (the kernel is compute-bound) and stores them with one 16-byte store. CPU twin:
// src/prims/perm.rs (reference).
layout(local_size_x_id = 0) in;  // 256: the host dispatches n / 1024 workgroups
#include "common/philox.glsl"
layout(push_constant) uniform Params { uint n; uint groups; uvec2 seed; } pc;
layout(set = 0, binding = 0, std430) writeonly buffer Ids { uint ids[]; };
layout(set = 0, binding = 0, std430) writeonly buffer Ids4 { uvec4 ids4[]; };  // bound at offset 0: aligned

void main() {
    uint q = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    uint i0 = 4u * q;
    if (i0 >= pc.n) return;
    uvec4 ctr = uvec4(q, 0u, 0u, 0u);
    uvec4 r = philox4x32(ctr, pc.seed);
    uint threshold = (0u - pc.groups) % pc.groups;
    uvec4 v;
    for (uint j = 0u; j < 4u; ++j) v[j] = uniform_below(pc.groups, threshold, r[j], ctr, j, pc.seed);
    // The whole quad where it lies inside the ids, else the tail one id at a time.
    if (i0 + 4u <= pc.n) {
        ids4[q] = v;
    } else {
        for (uint j = 0u; i0 + j < pc.n; ++j) ids[i0 + j] = v[j];
    }
}
