#version 460
// Permutation of indices, step 2b: where each group starts among the elements grouped by the
// passes (bounds[g]; bounds[groups] = n), by a binary search per group whose probes draw the
// probed element's group again (perm_group, common/philox.glsl): about log2(n) draws and
// reads per group instead of a pass over n ids (no id array exists on this path).
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x_id = 0) in;  // the host dispatches groups + 1 invocations
#include "common/philox.glsl"
layout(push_constant) uniform Params { uint n; uint groups; uvec2 seed; uint threshold; } pc;
layout(set = 0, binding = 0, std430) readonly buffer Grouped { uint grouped[]; };  // element indices, by group
layout(set = 0, binding = 1, std430) writeonly buffer Bounds { uint bounds[]; };

void main() {
    uint g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (g > pc.groups) return;
    // The first position whose element's group is >= g.
    uint lo = 0u, hi = pc.n;
    if (g == pc.groups) lo = pc.n;
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2u;
        if (perm_group(grouped[mid], pc.groups, pc.threshold, pc.seed) < g) lo = mid + 1u; else hi = mid;
    }
    bounds[g] = lo;
}
