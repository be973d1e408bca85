#version 460
// Permutation, step 1: element i goes to group uniform_below(groups, Philox(seed, i)).
// CPU twin: src/prims/perm.rs (reference).
layout(local_size_x = 256) in;
#include "common/philox.glsl"
layout(push_constant) uniform Params { uint n; uint groups; uvec2 seed; } pc;
layout(set = 0, binding = 0, std430) writeonly buffer Ids { uint ids[]; };

void main() {
    uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationIndex;
    if (i < pc.n) ids[i] = uniform_below(pc.groups, uvec4(i, 0u, 0u, 0u), pc.seed);
}
