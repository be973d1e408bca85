#version 460
// Turn each pass's digit histogram into exclusive digit offsets, in place, and flag passes
// where every key has the same digit (the binning pass then only copies). One workgroup per
// pass, 256 invocations, one digit each.
#include "common/subgroup.glsl"
layout(local_size_x = 256) in;
layout(push_constant) uniform Params { uint n; } pc;
// hist[pass * 256 + digit]; trivial flag of pass p at hist[MAX_PASSES * 256 + p]
layout(set = 0, binding = 0, std430) buffer Hist { uint hist[]; };

const uint MAX_PASSES = 8;
shared uint s_tot[256];
shared uint s_trivial;

void main() {
    uint p = gl_WorkGroupID.x;
    uint d = gl_LocalInvocationIndex;
    if (d == 0u) s_trivial = 0u;
    barrier();
    uint c = hist[p * 256u + d];
    if (c == pc.n) atomicOr(s_trivial, 1u);
    // Exclusive scan over 256 digits: in the subgroup, then across subgroup totals.
    uint ex = subgroupExclusiveAdd(c);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) s_tot[gl_SubgroupID] = ex + c;
    barrier();
    uint base = 0u;
    for (uint s = 0u; s < gl_SubgroupID; ++s) base += s_tot[s];
    hist[p * 256u + d] = base + ex;
    if (d == 0u) hist[MAX_PASSES * 256u + p] = s_trivial;
}
