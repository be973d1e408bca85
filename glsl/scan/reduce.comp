#version 460
// Single-pass reduce. CPU twin: src/prims/scan.rs (reference with ScanKind::Reduce).
//
// A reduction needs no look-back: G workgroups each fold a fixed, strided set of tiles
// (tile = group + k * G) in registers, reduce once, and post their partial; the last group
// to finish (an atomic counter) reduces the G partials in a fixed order and writes the
// result. Nothing waits on another workgroup, so no forward-progress guarantee is needed,
// and for a given G and subgroup size the f32 sum is deterministic.
#include "common/subgroup.glsl"
#include "common/scan_op.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint VEC = 4;  // uvec4 words per lane per tile
#include "scan/tile.glsl"

shared bool s_last;

void main() {
    uint groups = gl_NumWorkGroups.x;
    uint g = gl_WorkGroupID.x;
    T acc = IDENTITY;
    for (uint tile = g; tile < pc.num_tiles; tile += groups) acc = fold_tile(acc, tile);
    T total = workgroup_total(acc);
    if (gl_LocalInvocationIndex == 0u) {
        // Partials travel through atomics, ordered before the counter by the fences:
        // fence-atomic synchronisation, well defined without the Vulkan memory model.
        atomicExchange(state[STATE_BASE + g], t_bits(total));
        memoryBarrierBuffer();
        s_last = atomicAdd(state[0], 1u) == groups - 1u;
        memoryBarrierBuffer();
    }
    barrier();
    if (!s_last) return;
    acc = IDENTITY;
    for (uint i = gl_LocalInvocationIndex; i < groups; i += gl_WorkGroupSize.x)
        acc = OPF(acc, bits_t(atomicOr(state[STATE_BASE + i], 0u)));
    total = workgroup_total(acc);
    if (gl_LocalInvocationIndex == 0u) out_w[0] = from_t(total);
}
