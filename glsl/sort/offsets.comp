#version 460
// Sum the copies of each pass's digit histogram into exclusive digit offsets at the front
// of the buffer, and flag passes where every key has the same digit (the binning pass then
// only copies); layout: sort/hist_layout.glsl. One workgroup of 64 invocations per pass,
// four digits each; no subgroup operations, so any width works.
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x_id = 0) in;  // 64
layout(push_constant) uniform Params { uint n; } pc;
layout(set = 0, binding = 0, std430) buffer Hist { uint hist[]; };
#include "sort/hist_layout.glsl"

shared uint s_part[64];
shared uint s_trivial;

void main() {
    uint p = gl_WorkGroupID.x;
    uint t = gl_LocalInvocationIndex;
    uint d = 4u * t;
    if (t == 0u) s_trivial = 0u;
    uvec4 c = uvec4(0u);
    [[unroll]] for (uint k = 0u; k < HIST_COPIES; ++k) {
        uint at = hist_copy(k) + p * 256u + d;
        c += uvec4(hist[at], hist[at + 1u], hist[at + 2u], hist[at + 3u]);
    }
    s_part[t] = c.x + c.y + c.z + c.w;
    barrier();
    if (any(equal(c, uvec4(pc.n)))) atomicOr(s_trivial, 1u);
    if (t == 0u) {
        uint run = 0u;
        for (uint i = 0u; i < 64u; ++i) {
            uint v = s_part[i];
            s_part[i] = run;
            run += v;
        }
    }
    barrier();
    uint base = s_part[t];
    hist[p * 256u + d] = base;
    hist[p * 256u + d + 1u] = base + c.x;
    hist[p * 256u + d + 2u] = base + c.x + c.y;
    hist[p * 256u + d + 3u] = base + c.x + c.y + c.z;
    if (t == 0u) hist[HIST_FLAGS + p] = s_trivial;
}
