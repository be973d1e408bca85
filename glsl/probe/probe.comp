#version 460
// Subgroup probe: each invocation records what the subgroup operations the kernels rely on
// return, so the host can check them against the subgroup size the device reports.
// CPU twin: src/selftest.rs (probe_expected).
#include "common/subgroup.glsl"

layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0, std430) writeonly buffer Out { uint o[]; };

const uint FIELDS = 12;

void main() {
    uint lane = gl_SubgroupInvocationID;
    uint S = gl_SubgroupSize;
    uvec4 all_lanes = subgroupBallot(true);
    uvec4 odd = subgroupBallot((lane & 1u) == 1u);
    uint b = gl_LocalInvocationIndex * FIELDS;
    o[b + 0u] = S;
    o[b + 1u] = lane;
    o[b + 2u] = subgroupBallotBitCount(all_lanes);
    o[b + 3u] = subgroupBallotBitCount(odd);
    o[b + 4u] = subgroupBallotInclusiveBitCount(all_lanes);
    o[b + 5u] = subgroupBallotExclusiveBitCount(odd);
    o[b + 6u] = subgroupBallotFindMSB(all_lanes);
    o[b + 7u] = subgroupBallotBitExtract(odd, lane) ? 1u : 0u;
    o[b + 8u] = subgroupAdd(1u);
    o[b + 9u] = subgroupInclusiveAdd(lane);
    o[b + 10u] = subgroupMax(lane);
    o[b + 11u] = subgroupShuffle(lane, (lane + 1u) % S);
}
