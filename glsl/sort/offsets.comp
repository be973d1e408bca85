#version 460
// Turn each pass's digit histogram into exclusive digit offsets, in place, and flag passes
// where every key has the same digit (the binning pass then only copies). One workgroup of
// 64 invocations per pass, four digits each; no subgroup operations, so any width works.
layout(local_size_x_id = 0) in;  // 64
layout(push_constant) uniform Params { uint n; } pc;
// hist[pass * 256 + digit]; trivial flag of pass p at hist[MAX_PASSES * 256 + p]
layout(set = 0, binding = 0, std430) buffer Hist { uint hist[]; };

const uint MAX_PASSES = 8;
shared uint s_part[64];
shared uint s_trivial;

void main() {
    uint p = gl_WorkGroupID.x;
    uint t = gl_LocalInvocationIndex;
    uint d = 4u * t;
    if (t == 0u) s_trivial = 0u;
    uvec4 c = uvec4(hist[p * 256u + d], hist[p * 256u + d + 1u], hist[p * 256u + d + 2u], hist[p * 256u + d + 3u]);
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
    if (t == 0u) hist[MAX_PASSES * 256u + p] = s_trivial;
}
