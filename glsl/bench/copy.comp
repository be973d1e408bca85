#version 460
// Copy shader: the memory-bound reference the benchmarks divide by. Same tile geometry and
// uvec4 accesses as scan.comp, so "fraction of copy" compares like with like.
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint VEC = 4;

layout(push_constant) uniform Params { uint n; uint num_tiles; } pc;
layout(set = 0, binding = 0, std430) readonly buffer InW { uint in_w[]; };
layout(set = 0, binding = 0, std430) readonly buffer InV { uvec4 in_v[]; };
layout(set = 0, binding = 1, std430) writeonly buffer OutW { uint out_w[]; };
layout(set = 0, binding = 1, std430) writeonly buffer OutV { uvec4 out_v[]; };

void main() {
    uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (tile >= pc.num_tiles) return;
    uint words = gl_WorkGroupSize.x * VEC;
    bool full = (tile + 1u) * words * 4u <= pc.n;
    [[unroll]] for (uint j = 0u; j < VEC; ++j) {
        uint wi = tile * words + j * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
        if (full) {
            out_v[wi] = in_v[wi];
        } else {
            for (uint c = 0u; c < 4u; ++c) {
                uint e = wi * 4u + c;
                if (e < pc.n) out_w[e] = in_w[e];
            }
        }
    }
}
