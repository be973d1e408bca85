#version 460
// A split into more than 256 buckets by bucket ids or splitters, step 1: the sort payload.
// PAYLOAD 1: idx[i] = i (the element's input index, moved by the radix sort of the ids, which
// then gathers the elements); 2 (32-bit keys with 4-byte values): packed[i] = (key, value),
// moved by the sort as an 8-byte payload and split again by multisplit/gather.comp, so no
// element is read at a random index; 0 (keys alone): nothing, the keys move themselves. With
// splitters (SOURCE 2) ids[i] = the element's bucket (multisplit/buckets.glsl); with bucket
// ids (SOURCE 1) the caller's ids are sorted directly and `ids` is not written.
// CPU twin: src/prims/multisplit.rs (reference).
layout(local_size_x = 256) in;
layout(constant_id = 1) const uint KEY_KIND = 0;  // (constant 0: the workgroup size, fixed at 256)
layout(constant_id = 2) const uint DESCENDING = 0;
layout(constant_id = 3) const uint SOURCE = 2;
layout(constant_id = 4) const uint PAYLOAD = 1;
#include "sort/sort_keys.glsl"

layout(push_constant) uniform Params { uint n; uint shift; uint bits; uint buckets; } pc;
layout(set = 0, binding = 0, std430) readonly buffer Keys { KEY keys[]; };
layout(set = 0, binding = 1, std430) readonly buffer AuxIds { uint aux_ids[]; };
layout(set = 0, binding = 1, std430) readonly buffer AuxSplit { KEY aux_splitters[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Ids { uint ids[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Idx { uint idx[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Packed { uvec2 packed[]; };
layout(set = 0, binding = 4, std430) readonly buffer Vals { uint vals[]; };
#include "multisplit/buckets.glsl"

void main() {
    uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationIndex;
    if (i >= pc.n) return;
    KEY k = keys[i];
    if (PAYLOAD == 1u) idx[i] = i;
#if !KEY64
    if (PAYLOAD == 2u) packed[i] = uvec2(k, vals[i]);
#endif
    if (SOURCE == 2u) ids[i] = bucket_from(i, k);
}
