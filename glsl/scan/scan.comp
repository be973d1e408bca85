#version 460
// Single-pass inclusive / exclusive scan: atomic tile tickets, decoupled look-back and
// decoupled fallback (DESIGN.md, principle 2). CPU twin: src/prims/scan.rs.
// Tile layout and loads: scan/tile.glsl. Correct at every subgroup size from 4 to 128.
#include "common/subgroup.glsl"
#include "common/scan_op.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint VEC = 4;                 // uvec4 words per lane per tile
layout(constant_id = 2) const uint KIND = 2;                // 1 inclusive, 2 exclusive
layout(constant_id = 3) const uint FORCE_FALLBACK_PERIOD = 0; // debug: >= 2 forces fallback
layout(constant_id = 4) const uint SPIN_LIMIT = 32;         // look-back rounds before fallback
#include "scan/tile.glsl"

// state[0]: tile ticket; state[1]: fallbacks taken; state[2]: look-back rounds (debug
// counters for the benchmarks); state[4 + 2t], state[5 + 2t]: tile t's look-back words.
#define SPINE_WORDS state
#define SPINE_BASE STATE_BASE
#include "common/lookback.glsl"

shared T s_part[MAX_SUBGROUPS];  // subgroup totals, then exclusive prefixes
shared T s_prefix;
shared uint s_tile;
shared uint s_ctl;
shared int s_look;

uvec4 raw[VEC];  // the tile's words; after the local scan, the scanned values as T bits

// Decoupled fallback: recompute a predecessor's aggregate from the input.
T fallback_total(uint tile) { return workgroup_total(fold_tile(IDENTITY, tile)); }

bool forced(uint tile) {
    return FORCE_FALLBACK_PERIOD >= 2u && tile % FORCE_FALLBACK_PERIOD == FORCE_FALLBACK_PERIOD - 1u;
}

// Look-back by subgroup 0 from tile `look` down: read a window of gl_SubgroupSize
// predecessors per round, fold them into `prefix`, and spin (alone, no workgroup barriers)
// until an inclusive prefix is reached (returns 0) or tile `look` stays not ready for
// SPIN_LIMIT rounds (returns 2: the workgroup must recompute it).
uint look_back(inout int look, inout T prefix, inout uint rounds) {
    uint lane = gl_SubgroupInvocationID;
    uint spins = 0u;
    for (;;) {
        rounds += 1u;
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
        if (fi < fn) return 0u;
        if (take > 0u) {
            spins = 0u;
        } else if (++spins >= SPIN_LIMIT || forced(uint(look))) {
            return 2u;
        }
    }
    return 0u;
}

void main() {
    if (gl_LocalInvocationIndex == 0u) s_tile = atomicAdd(state[0], 1u);
    barrier();
    uint tile = s_tile;
    if (tile >= pc.num_tiles) return;  // surplus workgroup of a 2-D dispatch
    uint lane = gl_SubgroupInvocationID;
    uint sg = gl_SubgroupID;
    bool full = tile_is_full(tile);

    [[unroll]] for (uint j = 0u; j < VEC; ++j) raw[j] = load_word(word_index(tile, j), full);

    T agg = IDENTITY;  // the tile's aggregate, as posted (valid in subgroup 0)
#if EXACT_OP == 0
    {
        // f32 add: the posted aggregate must be the bits a fallback would recompute.
        T acc = IDENTITY;
        [[unroll]] for (uint j = 0u; j < VEC; ++j) acc = fold_word(acc, raw[j]);
        agg = workgroup_total(acc);
    }
#endif
    // Scan of the subgroup's segment: lane-serial within a uvec4, subgroup across lanes, a
    // carry across steps. Results replace raw[] (as T bits).
    T carry = IDENTITY;
    [[unroll]] for (uint j = 0u; j < VEC; ++j) {
        T x0 = to_t(raw[j].x), x1 = to_t(raw[j].y), x2 = to_t(raw[j].z), x3 = to_t(raw[j].w);
        T p1 = OPF(x0, x1);
        T p2 = OPF(p1, x2);
        T p3 = OPF(p2, x3);
        T ex = SG_EXCL(p3);
        T base = OPF(carry, ex);
        TV v = KIND == 1u ? TV(OPF(base, x0), OPF(base, p1), OPF(base, p2), OPF(base, p3))
                          : TV(base, OPF(base, x0), OPF(base, p1), OPF(base, p2));
        raw[j] = uvec4(t_bits(v.x), t_bits(v.y), t_bits(v.z), t_bits(v.w));
        carry = OPF(carry, subgroupShuffle(OPF(ex, p3), gl_SubgroupSize - 1u));
    }
    if (subgroupElect()) s_part[sg] = carry;
    barrier();

    // Subgroup 0: exclusive prefixes of the subgroup totals, publish the aggregate, look
    // back. The other subgroups go straight to the barrier below and wait for the prefix.
    T prefix = IDENTITY;
    int look = int(tile) - 1;
    uint rounds = 0u, fallbacks = 0u;  // debug counters, kept by subgroup 0
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
        agg = run;
#endif
        uint ctl = 0u;
        if (subgroupElect()) {
            // Tile 0 is complete at once; others post their aggregate early (a forced tile
            // posts nothing until the end, so its successors must fall back).
            if (tile == 0u) lb_post(0u, LB_INCLUSIVE, t_bits(agg));
            else if (!forced(tile)) lb_post(tile, LB_AGGREGATE, t_bits(agg));
        }
        if (tile > 0u) ctl = look_back(look, prefix, rounds);
        if (subgroupElect()) {
            s_ctl = ctl;
            s_look = look;
        }
    }
    // Decoupled fallback, rare: the whole workgroup recomputes the tile subgroup 0 gave up
    // on, then subgroup 0 carries on looking back past it.
    for (;;) {
        barrier();
        if (s_ctl == 0u) break;
        uint lk = uint(s_look);
        barrier();  // everyone has read s_ctl / s_look before they change
        T fb = fallback_total(lk);
        if (sg == 0u) {
            if (subgroupElect()) lb_post(lk, LB_AGGREGATE, t_bits(fb));
            prefix = OPF(fb, prefix);
            fallbacks += 1u;
            look -= 1;
            uint ctl = look_back(look, prefix, rounds);
            if (subgroupElect()) {
                s_ctl = ctl;
                s_look = look;
            }
        }
    }
    // Here s_ctl == 0 for everyone; subgroup 0 holds the tile's exclusive prefix.
    if (sg == 0u && subgroupElect()) {
        if (tile > 0u) lb_post(tile, LB_INCLUSIVE, t_bits(OPF(prefix, agg)));
        s_prefix = prefix;
        if (rounds > 0u) atomicAdd(state[2], rounds);
        if (fallbacks > 0u) atomicAdd(state[1], fallbacks);
    }
    barrier();

    T pre = OPF(s_prefix, s_part[sg]);
    [[unroll]] for (uint j = 0u; j < VEC; ++j) {
        uvec4 v = raw[j];
        uvec4 o = uvec4(from_t(OPF(pre, bits_t(v.x))), from_t(OPF(pre, bits_t(v.y))),
                        from_t(OPF(pre, bits_t(v.z))), from_t(OPF(pre, bits_t(v.w))));
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
