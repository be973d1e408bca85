#version 460
// Bucket histogram of a multisplit: workgroups stride over the elements and count in shared
// memory (up to 256 buckets), or straight into the global counts (GLOBAL_COUNTS, for the up
// to 65,536 buckets of a composed split). CPU twin: src/prims/multisplit.rs (reference).
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint KEY_KIND = 0;
layout(constant_id = 2) const uint DESCENDING = 0;
layout(constant_id = 3) const uint SOURCE = 0;
layout(constant_id = 4) const uint GLOBAL_COUNTS = 0;
#include "sort/sort_keys.glsl"

layout(push_constant) uniform Params { uint n; uint shift; uint bits; uint buckets; } pc;
layout(set = 0, binding = 0, std430) readonly buffer Keys { KEY keys[]; };
layout(set = 0, binding = 1, std430) buffer Hist { uint hist[]; };
layout(set = 0, binding = 2, std430) readonly buffer AuxIds { uint aux_ids[]; };
layout(set = 0, binding = 2, std430) readonly buffer AuxSplit { KEY aux_splitters[]; };
#include "multisplit/buckets.glsl"

shared uint s_hist[256];

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (GLOBAL_COUNTS != 0u) {
        for (uint i = gl_WorkGroupID.x * gl_WorkGroupSize.x + lid; i < pc.n; i += stride)
            atomicAdd(hist[bucket_from(i, keys[i])], 1u);
        return;
    }
    for (uint i = lid; i < 256u; i += gl_WorkGroupSize.x) s_hist[i] = 0u;
    barrier();
    for (uint i = gl_WorkGroupID.x * gl_WorkGroupSize.x + lid; i < pc.n; i += stride)
        atomicAdd(s_hist[bucket_from(i, keys[i])], 1u);
    barrier();
    for (uint i = lid; i < pc.buckets; i += gl_WorkGroupSize.x) {
        uint c = s_hist[i];
        if (c != 0u) atomicAdd(hist[i], c);
    }
}
