// Subgroup helpers valid at every subgroup size from 4 to 128: ballots are read through all
// four words of the uvec4, never as a 32-bit mask.
#ifndef SUBGROUP_GLSL
#define SUBGROUP_GLSL
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
// [[unroll]] on the per-lane loops over VEC words: their arrays must live in registers (seen
// on NVIDIA 580: without the hint, some dtype variants kept raw[] in local memory at VEC=8
// and ran 2.2x slower).
#extension GL_EXT_control_flow_attributes : require

// Index of the lowest set lane of a ballot, or gl_SubgroupSize when none is set
// (subgroupBallotFindLSB is undefined on an empty ballot).
uint ballot_first(uvec4 b) {
    return subgroupBallotBitCount(b) == 0u ? gl_SubgroupSize : subgroupBallotFindLSB(b);
}

#endif
