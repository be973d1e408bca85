#version 460
// The working-set sweep: pc.count coalesced vec4 loads per invocation, grid-strided over a
// working set of pc.mask + 1 vec4 (a power of two), so each pass covers the set in order and
// the time per byte shows the level of the hierarchy it fits in.
#include "loads/common.glsl"

layout(set = 0, binding = 1, std430) readonly buffer Data { vec4 data[]; };

vec4 load_k(uint k) { return vec4(0.0); }

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint gid = group * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    uint threads = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_WorkGroupSize.x;
    vec4 acc = vec4(0.0);
    for (uint i = 0u; i < pc.count; ++i) acc += data[(gid + i * threads) & pc.mask];
    keep(acc);
}
