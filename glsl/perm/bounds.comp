#version 460
// Permutation, step 2b: where each group starts in the ids sorted by group (bounds[g], and
// bounds[groups] = n), so the shuffle reads its range instead of searching for it. The first
// element of each run of equal ids writes the starts of its group and of the empty groups
// before it; the last element writes the ends after it.
layout(local_size_x_id = 0) in;  // 256: the host dispatches n / 256 workgroups
layout(push_constant) uniform Params { uint n; uint groups; } pc;
layout(set = 0, binding = 0, std430) readonly buffer Ids { uint ids[]; };  // sorted
layout(set = 0, binding = 1, std430) writeonly buffer Bounds { uint bounds[]; };

void main() {
    uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (i >= pc.n) return;
    uint cur = ids[i];
    uint from = i == 0u ? 0u : ids[i - 1u] + 1u;
    for (uint g = from; g <= cur; ++g) bounds[g] = i;
    if (i + 1u == pc.n)
        for (uint g = cur + 1u; g <= pc.groups; ++g) bounds[g] = pc.n;
}
