#version 460
// Single-pass reduce / inclusive scan / exclusive scan: atomic tile tickets, decoupled
// look-back and decoupled fallback (DESIGN.md, principle 2). CPU twin: src/prims/scan.rs.
//
// Tile layout ("subgroup-striped"): a tile is WG * VEC uvec4 words. Subgroup s owns the
// contiguous segment of S * VEC words starting at s * S * VEC; in step j its lane l loads
// word j * S + l, so every load and store is a coalesced uvec4 access, and the scan inside a
// segment needs only subgroup operations (no transpose through shared memory).
//
// Correct at every subgroup size that divides the workgroup (4 to 128): nothing assumes 32.
#include "common/subgroup.glsl"
#include "common/scan_op.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint VEC = 4;                 // uvec4 words per lane per tile
layout(constant_id = 2) const uint KIND = 2;                // 0 reduce, 1 inclusive, 2 exclusive
layout(constant_id = 3) const uint FORCE_FALLBACK_PERIOD = 0; // debug: >= 2 forces fallback
layout(constant_id = 4) const uint SPIN_LIMIT = 32;         // look-back rounds before fallback

layout(push_constant) uniform Params { uint n; uint num_tiles; } pc;

// The same bindings seen as words (partial tiles) and as uvec4 (full tiles).
layout(set = 0, binding = 0, std430) readonly buffer InW { uint in_w[]; };
layout(set = 0, binding = 0, std430) readonly buffer InV { uvec4 in_v[]; };
layout(set = 0, binding = 1, std430) writeonly buffer OutW { uint out_w[]; };
layout(set = 0, binding = 1, std430) writeonly buffer OutV { uvec4 out_v[]; };
// state[0]: tile ticket; state[4 + 2t], state[5 + 2t]: tile t's look-back words.
layout(set = 0, binding = 2, std430) coherent buffer State { uint state[]; };
#define SPINE_WORDS state
#define SPINE_BASE 4u
#include "common/lookback.glsl"

const uint MAX_SUBGROUPS = 256;  // workgroup of up to 1024 at subgroup size 4
shared T s_part[MAX_SUBGROUPS];  // scan path: subgroup totals, then exclusive prefixes
shared T s_det[MAX_SUBGROUPS];   // tile_total(): per-subgroup partials
shared T s_bcast;
shared T s_agg;
shared T s_prefix;
shared uint s_tile;
shared uint s_ctl;
shared int s_look;

uvec4 raw[VEC];
TV loc[VEC];

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

// The tile's reduction from each lane's fold, in one fixed order, so a fallback that
// recomputes a tile posts bit-identical values to its owner even for f32 add.
// Called by the whole workgroup in uniform control flow.
T tile_total(T lane_acc) {
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

// Decoupled fallback: recompute a predecessor's aggregate from the input.
T fallback_total(uint tile) {
    bool full = tile_is_full(tile);
    T acc = IDENTITY;
    for (uint j = 0u; j < VEC; ++j) acc = fold_word(acc, load_word(word_index(tile, j), full));
    return tile_total(acc);
}

bool forced(uint tile) {
    return FORCE_FALLBACK_PERIOD >= 2u && tile % FORCE_FALLBACK_PERIOD == FORCE_FALLBACK_PERIOD - 1u;
}

void main() {
    if (gl_LocalInvocationIndex == 0u) s_tile = atomicAdd(state[0], 1u);
    barrier();
    uint tile = s_tile;
    if (tile >= pc.num_tiles) return;  // surplus workgroup of a 2-D dispatch
    uint lane = gl_SubgroupInvocationID;
    uint sg = gl_SubgroupID;
    bool full = tile_is_full(tile);

    for (uint j = 0u; j < VEC; ++j) raw[j] = load_word(word_index(tile, j), full);

    T agg;
    if (KIND == 0u) {
        T acc = IDENTITY;
        for (uint j = 0u; j < VEC; ++j) acc = fold_word(acc, raw[j]);
        agg = tile_total(acc);
    } else {
#if EXACT_OP == 0
        T acc = IDENTITY;
        for (uint j = 0u; j < VEC; ++j) acc = fold_word(acc, raw[j]);
        agg = tile_total(acc);
#endif
        // Scan of the subgroup's segment: lane-serial within a uvec4, subgroup across lanes,
        // a carry across steps.
        T carry = IDENTITY;
        for (uint j = 0u; j < VEC; ++j) {
            T x0 = to_t(raw[j].x), x1 = to_t(raw[j].y), x2 = to_t(raw[j].z), x3 = to_t(raw[j].w);
            T p1 = OPF(x0, x1);
            T p2 = OPF(p1, x2);
            T p3 = OPF(p2, x3);
            T ex = SG_EXCL(p3);
            T base = OPF(carry, ex);
            if (KIND == 1u) loc[j] = TV(OPF(base, x0), OPF(base, p1), OPF(base, p2), OPF(base, p3));
            else loc[j] = TV(base, OPF(base, x0), OPF(base, p1), OPF(base, p2));
            carry = OPF(carry, subgroupShuffle(OPF(ex, p3), gl_SubgroupSize - 1u));
        }
        if (subgroupElect()) s_part[sg] = carry;
        barrier();
        if (sg == 0u) {
            T run = IDENTITY;
            for (uint b = 0u; b < gl_NumSubgroups; b += gl_SubgroupSize) {
                uint i = b + lane;
                T v = i < gl_NumSubgroups ? s_part[i] : IDENTITY;
                T ex = SG_EXCL(v);
                if (i < gl_NumSubgroups) s_part[i] = OPF(run, ex);
                run = OPF(run, SG_REDUCE(v));
            }
#if EXACT_OP == 1
            if (subgroupElect()) s_agg = run;
#endif
        }
        barrier();
#if EXACT_OP == 1
        agg = s_agg;
#endif
    }

    // Publish early: tile 0 is complete at once; others post their aggregate (a forced
    // tile posts nothing until the end, so its successors must fall back).
    if (gl_LocalInvocationIndex == 0u) {
        if (tile == 0u) lb_post(0u, LB_INCLUSIVE, t_bits(agg));
        else if (!forced(tile)) lb_post(tile, LB_AGGREGATE, t_bits(agg));
    }

    // Look-back. The whole workgroup runs the loop in uniform control flow so that a
    // fallback can use every invocation; subgroup 0 reads a window of gl_SubgroupSize
    // predecessors per round and keeps the running prefix.
    T prefix = IDENTITY;
    if (tile > 0u) {
        int look = int(tile) - 1;
        uint spins = 0u;
        for (;;) {
            if (sg == 0u) {
                int idx = look - int(lane);
                uint st = LB_INCLUSIVE;  // before tile 0: the identity, complete
                uint w = t_bits(IDENTITY);
                if (idx >= 0) {
                    st = lb_read(uint(idx), w);
                    if (forced(uint(idx))) st = LB_NOT_READY;
                }
                uint fi = ballot_first(subgroupBallot(st == LB_INCLUSIVE));
                uint fn = ballot_first(subgroupBallot(st == LB_NOT_READY));
                // Consume lanes up to the first not-ready one, or through the first inclusive.
                uint take = fn < fi ? fn : min(fi + 1u, gl_SubgroupSize);
                prefix = OPF(SG_REDUCE(lane < take ? bits_t(w) : IDENTITY), prefix);
                look -= int(take);
                uint ctl;
                if (fi < fn) {
                    ctl = 0u;  // reached an inclusive prefix: done
                } else if (take > 0u) {
                    spins = 0u;
                    ctl = 1u;
                } else {
                    spins += 1u;
                    ctl = (spins >= SPIN_LIMIT || forced(uint(look))) ? 2u : 1u;
                }
                if (subgroupElect()) {
                    s_ctl = ctl;
                    s_look = look;
                }
            }
            barrier();
            uint ctl = s_ctl;
            int lk = s_look;
            barrier();
            if (ctl == 0u) break;
            if (ctl == 2u) {
                T fb = fallback_total(uint(lk));
                if (sg == 0u) {
                    if (subgroupElect()) lb_post(uint(lk), LB_AGGREGATE, t_bits(fb));
                    prefix = OPF(fb, prefix);
                    look -= 1;
                    spins = 0u;
                }
            }
        }
    }

    if (sg == 0u && subgroupElect()) {
        T incl = OPF(prefix, agg);
        if (tile > 0u) lb_post(tile, LB_INCLUSIVE, t_bits(incl));
        s_prefix = prefix;
        if (KIND == 0u && tile == pc.num_tiles - 1u) out_w[0] = from_t(incl);
    }
    if (KIND == 0u) return;
    barrier();

    T pre = OPF(s_prefix, s_part[sg]);
    for (uint j = 0u; j < VEC; ++j) {
        TV v = loc[j];
        uvec4 o = uvec4(from_t(OPF(pre, v.x)), from_t(OPF(pre, v.y)), from_t(OPF(pre, v.z)),
                        from_t(OPF(pre, v.w)));
        uint wi = word_index(tile, j);
        if (full) {
            out_v[wi] = o;
        } else {
            uint e = wi * 4u;
            if (e < pc.n) out_w[e] = o.x;
            if (e + 1u < pc.n) out_w[e + 1u] = o.y;
            if (e + 2u < pc.n) out_w[e + 2u] = o.z;
            if (e + 3u < pc.n) out_w[e + 3u] = o.w;
        }
    }
}
