#version 460
// The working-set sweep: pc.count coalesced vec4 loads per invocation over a working set of
// pc.mask + 1 vec4 (a power of two), load i of invocation gid at (gid + i * pc.step) & mask,
// so the time per byte shows the level of the hierarchy the set fits in. The host picks the
// step (src/loads/model.rs, sweep_step): the invocation count where no invocation wraps (each
// pass covers the set in order), else an odd step, so that no invocation reads an element
// again before it has read the whole set; with the invocation count there, a set smaller
// than count x invocations read each lane's few elements over and over from L1.
#define PUSH_EXTRA uint step;
#include "loads/common.glsl"

layout(set = 0, binding = 1, std430) readonly buffer Data { vec4 data[]; };

vec4 load_k(uint k) { return vec4(0.0); }

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint gid = group * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    vec4 acc = vec4(0.0);
    for (uint i = 0u; i < pc.count; ++i) acc += data[(gid + i * pc.step) & pc.mask];
    keep(acc);
}
