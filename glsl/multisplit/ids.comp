#version 460
// A split into more than 256 buckets by bucket ids or splitters, step 1: the sort payload.
// With WRITE_IDX idx[i] = i (the element's input index, moved by the radix sort of the ids;
// keys alone move themselves instead), and with splitters (SOURCE 2) ids[i] = the element's
// bucket (multisplit/buckets.glsl). With bucket ids (SOURCE 1) the caller's ids are sorted
// directly and `ids` is not written.
// CPU twin: src/prims/multisplit.rs (reference).
layout(local_size_x = 256) in;
layout(constant_id = 1) const uint KEY_KIND = 0;  // (constant 0: the workgroup size, fixed at 256)
layout(constant_id = 2) const uint DESCENDING = 0;
layout(constant_id = 3) const uint SOURCE = 2;
layout(constant_id = 4) const uint WRITE_IDX = 1;
#include "sort/sort_keys.glsl"

layout(push_constant) uniform Params { uint n; uint shift; uint bits; uint buckets; } pc;
layout(set = 0, binding = 0, std430) readonly buffer Keys { KEY keys[]; };
layout(set = 0, binding = 1, std430) readonly buffer AuxIds { uint aux_ids[]; };
layout(set = 0, binding = 1, std430) readonly buffer AuxSplit { KEY aux_splitters[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Ids { uint ids[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Idx { uint idx[]; };
#include "multisplit/buckets.glsl"

void main() {
    uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationIndex;
    if (i >= pc.n) return;
    if (WRITE_IDX != 0u) idx[i] = i;
    if (SOURCE == 2u) ids[i] = bucket_from(i, keys[i]);
}
