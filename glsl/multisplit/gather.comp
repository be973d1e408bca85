#version 460
// A split into more than 256 buckets by bucket ids or splitters, last step. UNPACK 0: output
// element p is input element idx[p] (the input indices, sorted by bucket id). UNPACK 1 (32-bit
// keys with 4-byte values): output element p is the sorted (key, value) payload packed[p],
// split into the two arrays (multisplit/ids.comp packed it). CPU twin: src/prims/multisplit.rs
// (reference).
layout(local_size_x = 256) in;
layout(constant_id = 1) const uint KEY_KIND = 0;  // (constant 0: the workgroup size, fixed at 256)
layout(constant_id = 2) const uint DESCENDING = 0;
layout(constant_id = 3) const uint UNPACK = 0;
#include "sort/sort_keys.glsl"

layout(push_constant) uniform Params { uint n; } pc;
layout(set = 0, binding = 0, std430) readonly buffer KeysIn { KEY keys_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer KeysOut { KEY keys_out[]; };
layout(set = 0, binding = 2, std430) readonly buffer ValsIn { VAL vals_in[]; };
layout(set = 0, binding = 3, std430) writeonly buffer ValsOut { VAL vals_out[]; };
layout(set = 0, binding = 4, std430) readonly buffer Idx { uint idx[]; };
layout(set = 0, binding = 4, std430) readonly buffer Packed { uvec2 packed[]; };

void main() {
    uint p = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationIndex;
    if (p >= pc.n) return;
#if !KEY64 && VALUE_WORDS == 1
    if (UNPACK != 0u) {
        uvec2 w = packed[p];
        keys_out[p] = w.x;
        vals_out[p] = w.y;
        return;
    }
#endif
    uint i = idx[p];
    keys_out[p] = keys_in[i];
#if VALUE_WORDS > 0
    vals_out[p] = vals_in[i];
#endif
}
