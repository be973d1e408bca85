// Workgroup-wide helpers.
#ifndef WORKGROUP_GLSL
#define WORKGROUP_GLSL
#include "common/subgroup.glsl"

// The workgroup's exclusive sum of one value per invocation, in subgroup order (subgroup s's
// invocations after those of subgroups 0..s-1). The including shader declares
// `shared uint s_sums[]` with a word per subgroup. One barrier inside and none after, so a
// caller that writes s_sums again, or calls this again, needs a barrier first.
uint workgroup_exclusive_add(uint v) {
    uint before = subgroupExclusiveAdd(v);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) s_sums[gl_SubgroupID] = before + v;
    barrier();
    for (uint s = 0u; s < gl_SubgroupID; ++s) before += s_sums[s];
    return before;
}

#endif
