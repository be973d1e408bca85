#version 460
// Permutation, step 3: after a stable sort by group id, each group is a contiguous run; one
// workgroup per group shuffles it with Fisher-Yates driven by its own Philox stream
// (counter (group, j, 1, attempt)). Groups that fit CAPACITY elements are shuffled in shared
// memory; larger ones (rare, and forced by the tests) in place in global memory. Both do the
// same swaps, so the result does not depend on the path. CPU twin: src/prims/perm.rs.
layout(local_size_x_id = 0) in;                      // 64
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

shared VAL s_vals[CAPACITY];
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

void main() {
    uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (g >= pc.groups) return;
    uint lid = gl_LocalInvocationIndex;
    if (lid < 2u) s_bounds[lid] = lower_bound(g + lid);
    barrier();
    uint start = s_bounds[0], m = s_bounds[1] - s_bounds[0];
    if (m < 2u) return;
    uvec2 key = uvec2(pc.seed.x, pc.seed.y ^ 0x5EED5EEDu);
    if (m <= CAPACITY) {
        for (uint i = lid; i < m; i += gl_WorkGroupSize.x) s_vals[i] = vals[start + i];
        barrier();
        if (lid == 0u) {
            for (uint j = m - 1u; j >= 1u; --j) {
                uint k = uniform_below(j + 1u, uvec4(g, j, 1u, 0u), key);
                VAL t = s_vals[j];
                s_vals[j] = s_vals[k];
                s_vals[k] = t;
            }
        }
        barrier();
        for (uint i = lid; i < m; i += gl_WorkGroupSize.x) vals[start + i] = s_vals[i];
    } else if (lid == 0u) {
        for (uint j = m - 1u; j >= 1u; --j) {
            uint k = uniform_below(j + 1u, uvec4(g, j, 1u, 0u), key);
            VAL t = vals[start + j];
            vals[start + j] = vals[start + k];
            vals[start + k] = t;
        }
    }
}
