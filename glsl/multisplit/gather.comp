#version 460
// A split into more than 256 buckets by bucket ids or splitters, last step: output element
// p is input element idx[p] (the input indices, sorted by bucket id). CPU twin:
// src/prims/multisplit.rs (reference).
layout(local_size_x = 256) in;
layout(constant_id = 1) const uint KEY_KIND = 0;  // (constant 0: the workgroup size, fixed at 256)
layout(constant_id = 2) const uint DESCENDING = 0;
#include "sort/sort_keys.glsl"

layout(push_constant) uniform Params { uint n; } pc;
layout(set = 0, binding = 0, std430) readonly buffer KeysIn { KEY keys_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer KeysOut { KEY keys_out[]; };
layout(set = 0, binding = 2, std430) readonly buffer ValsIn { VAL vals_in[]; };
layout(set = 0, binding = 3, std430) writeonly buffer ValsOut { VAL vals_out[]; };
layout(set = 0, binding = 4, std430) readonly buffer Idx { uint idx[]; };

void main() {
    uint p = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationIndex;
    if (p >= pc.n) return;
    uint i = idx[p];
    keys_out[p] = keys_in[i];
#if VALUE_WORDS > 0
    vals_out[p] = vals_in[i];
#endif
}
