// Tile geometry, loads and the deterministic workgroup reduction shared by scan.comp and
// reduce.comp. Expects scan_op.glsl and subgroup.glsl included, and the spec constant VEC.
//
// Tile layout ("subgroup-striped"): a tile is WG * VEC uvec4 words. Subgroup s owns the
// contiguous segment of S * VEC words starting at s * S * VEC; in step j its lane l touches
// word j * S + l, so every load and store is a coalesced uvec4 access, and a scan inside a
// segment needs only subgroup operations (no transpose through shared memory). Correct at
// every subgroup size that divides the workgroup (4 to 128).
#ifndef TILE_GLSL
#define TILE_GLSL

layout(push_constant) uniform Params { uint n; uint num_tiles; } pc;

// The same bindings seen as words (partial tiles) and as uvec4 (full tiles).
layout(set = 0, binding = 0, std430) readonly buffer InW { uint in_w[]; };
layout(set = 0, binding = 0, std430) readonly buffer InV { uvec4 in_v[]; };
layout(set = 0, binding = 1, std430) writeonly buffer OutW { uint out_w[]; };
layout(set = 0, binding = 1, std430) writeonly buffer OutV { uvec4 out_v[]; };
// Per-kernel scratch (ticket/counter in word 0, debug counters in 1..3, data from word 4).
layout(set = 0, binding = 2, std430) coherent buffer State { uint state[]; };

const uint STATE_BASE = 4u;
const uint MAX_SUBGROUPS = 256;  // a workgroup of up to 1024 at subgroup size 4
shared T s_det[MAX_SUBGROUPS];
shared T s_bcast;

uint tile_words() { return gl_WorkGroupSize.x * VEC; }

uint word_index(uint tile, uint j) {
    return tile * tile_words() + gl_SubgroupID * gl_SubgroupSize * VEC + j * gl_SubgroupSize
        + gl_SubgroupInvocationID;
}

bool tile_is_full(uint tile) { return (tile + 1u) * tile_words() * 4u <= pc.n; }

uvec4 load_word(uint wi, bool full) {
    if (full) return in_v[wi];
    uvec4 r = uvec4(from_t(IDENTITY));
    uint e = wi * 4u;
    if (e < pc.n) r.x = in_w[e];
    if (e + 1u < pc.n) r.y = in_w[e + 1u];
    if (e + 2u < pc.n) r.z = in_w[e + 2u];
    if (e + 3u < pc.n) r.w = in_w[e + 3u];
    return r;
}

T fold_word(T acc, uvec4 r) {
    acc = OPF(acc, to_t(r.x));
    acc = OPF(acc, to_t(r.y));
    acc = OPF(acc, to_t(r.z));
    return OPF(acc, to_t(r.w));
}

// Lane fold of one tile, always in the same order.
T fold_tile(T acc, uint tile) {
    bool full = tile_is_full(tile);
    [[unroll]] for (uint j = 0u; j < VEC; ++j) acc = fold_word(acc, load_word(word_index(tile, j), full));
    return acc;
}

// The workgroup's reduction of each lane's fold, in one fixed order (so a fallback that
// recomputes a tile posts bit-identical values to its owner, even for f32 add).
// Called by the whole workgroup in uniform control flow.
T workgroup_total(T lane_acc) {
    T s = SG_REDUCE(lane_acc);
    if (subgroupElect()) s_det[gl_SubgroupID] = s;
    barrier();
    if (gl_SubgroupID == 0u) {
        T carry = IDENTITY;
        for (uint b = 0u; b < gl_NumSubgroups; b += gl_SubgroupSize) {
            uint i = b + gl_SubgroupInvocationID;
            carry = OPF(carry, SG_REDUCE(i < gl_NumSubgroups ? s_det[i] : IDENTITY));
        }
        if (subgroupElect()) s_bcast = carry;
    }
    barrier();
    T r = s_bcast;
    barrier();
    return r;
}

#endif
