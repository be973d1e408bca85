// The binning pass shared by the radix sort, multisplit and the permutation (DESIGN.md,
// principle 1): a stable multisplit of one tile of elements into up to 256 buckets, placed
// after the same buckets of all earlier tiles. Correct at every subgroup size 4 to 128.
//
// A tile (ticket order) is WG * ITEMS elements, subgroup-striped as in scan/tile.glsl:
// subgroup s owns a contiguous segment and in step j its lane l holds element j * S + l of
// it, so the order (s, j, l) is the input order. Ranking is stable:
//   1. In each step, lanes with the same bucket find each other with one ballot per bucket
//      bit (all four words of the ballot: any subgroup size); an element's rank among them is
//      the count of lower lanes, and the lowest lane adds the group's size to the subgroup's
//      count for that bucket (one counter row per subgroup, at most 16 subgroups).
//   2. Per bucket, an exclusive scan over the subgroup rows gives each subgroup's offset in
//      the tile and the tile's histogram.
//   3. Per bucket, decoupled look-back over the previous tiles' histograms (30-bit counts and
//      a 2-bit state in one word, raised only with atomicMax) gives the tile's offset among
//      the elements of that bucket; a tile that stays not ready is recomputed from its
//      elements by the whole workgroup (decoupled fallback).
//   4. Each element goes to bucket base + previous tiles + subgroup offset + rank.
//
// The including kernel provides: KEY and VAL types with VALUE_WORDS; the buffers keys_in,
// keys_out, vals_in, vals_out and state (`coherent`, ticket in word 0); spec constants ITEMS,
// FORCE_FALLBACK_PERIOD, SPIN_LIMIT; push constants pc.n and pc.num_tiles; and
//   uint bucket_of(uint index, KEY key)   the element's bucket, < 256
//   uint bucket_bits()                    bits that distinguish buckets (ballots per step)
//   uint bucket_base(uint b)              where bucket b starts in the output
//   bool pass_is_trivial()                true when every element is in one bucket
#ifndef BINNING_GLSL
#define BINNING_GLSL

const uint MAX_SUBGROUPS = 16;  // the host caps the workgroup at 16 subgroups
const uint STATE_BASE = 4u;
const uint NOT_READY = 0u, AGGREGATE = 1u, INCLUSIVE = 2u;
const uint INVALID = 0xFFFFFFFFu;

shared uint s_counts[MAX_SUBGROUPS * 256];  // per-subgroup bucket counts, then offsets
shared uint s_tile_hist[256];
shared uint s_prev[256];                    // elements of each bucket in earlier tiles
shared uint s_fb[256];                      // fallback: a predecessor's histogram
shared uint s_tile;
shared uint s_flag[2], s_pending[2];      // per look-back round, by parity

KEY key[ITEMS];
uint dig[ITEMS];
uint loc[ITEMS];

uint key_index(uint tile, uint j) {
    return tile * gl_WorkGroupSize.x * ITEMS + gl_SubgroupID * gl_SubgroupSize * ITEMS + j * gl_SubgroupSize
        + gl_SubgroupInvocationID;
}

bool forced(uint tile) {
    return FORCE_FALLBACK_PERIOD >= 2u && tile % FORCE_FALLBACK_PERIOD == FORCE_FALLBACK_PERIOD - 1u;
}

void post(uint tile, uint d, uint st, uint count) {
    atomicMax(state[STATE_BASE + tile * 256u + d], (st << 30) | count);
}

// Decoupled fallback: the bucket histogram of tile `t`, from its keys, into s_fb (whole
// workgroup).
void fallback_histogram(uint t) {
    for (uint d = gl_LocalInvocationIndex; d < 256u; d += gl_WorkGroupSize.x) s_fb[d] = 0u;
    barrier();
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
        uint i = key_index(t, j);
        if (i < pc.n) atomicAdd(s_fb[bucket_of(i, keys_in[i])], 1u);
    }
    barrier();
}

void binning_pass() {
    uint lid = gl_LocalInvocationIndex;
    uint wg = gl_WorkGroupSize.x;
    if (lid == 0u) s_tile = atomicAdd(state[0], 1u);
    barrier();
    uint tile = s_tile;
    if (tile >= pc.num_tiles) return;  // surplus workgroup of a 2-D dispatch

    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
        uint i = key_index(tile, j);
        key[j] = i < pc.n ? keys_in[i] : KEY(0);
        dig[j] = i < pc.n ? bucket_of(i, key[j]) : INVALID;
    }

    // Every element is in the same bucket: the pass is a stable copy.
    if (pass_is_trivial()) {
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
            uint i = key_index(tile, j);
            if (i < pc.n) {
                keys_out[i] = key[j];
#if VALUE_WORDS > 0
                vals_out[i] = vals_in[i];
#endif
            }
        }
        return;
    }

    // 1. Rank within the subgroup, step by step.
    uint sg = gl_SubgroupID;
    for (uint i = lid; i < gl_NumSubgroups * 256u; i += wg) s_counts[i] = 0u;
    barrier();
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
        uint d = dig[j];
        bool valid = d != INVALID;
        uvec4 peers = subgroupBallot(valid);
        for (uint b = 0u; b < bucket_bits(); ++b) {
            bool bit = valid && ((d >> b) & 1u) != 0u;
            uvec4 ones = subgroupBallot(bit);
            peers &= bit ? ones : ~ones;
        }
        uint rank = subgroupBallotExclusiveBitCount(peers);
        uint before = valid ? s_counts[sg * 256u + d] : 0u;
        subgroupBarrier();
        if (valid && rank == 0u) s_counts[sg * 256u + d] = before + subgroupBallotBitCount(peers);
        subgroupBarrier();
        loc[j] = before + rank;
    }
    barrier();

    // 2. Per digit: subgroup offsets within the tile, and the tile's histogram.
    for (uint d = lid; d < 256u; d += wg) {
        uint run = 0u;
        for (uint s = 0u; s < gl_NumSubgroups; ++s) {
            uint c = s_counts[s * 256u + d];
            s_counts[s * 256u + d] = run;
            run += c;
        }
        s_tile_hist[d] = run;
        s_prev[d] = 0u;
        // Publish early: tile 0 is complete at once (a forced tile posts nothing yet).
        if (tile == 0u) post(0u, d, INCLUSIVE, run);
        else if (!forced(tile)) post(tile, d, AGGREGATE, run);
    }

    // 3. Look-back, tile by tile, all 256 digits at once (uniform control flow, so a
    // fallback can use the whole workgroup). A thread keeps its digits' progress in bits.
    uint done = 0u;      // bit k: digit lid + k * wg has reached an inclusive prefix
    uint fallbacks = 0u;
    if (lid == 0u) {
        s_flag[0] = 0u;
        s_pending[0] = 0u;
    }
    if (tile > 0u) {
        uint look = tile - 1u;
        uint spins = 0u;
        for (uint r = 0u;; ++r) {
            uint cur = r & 1u;
            barrier();  // round r-1 is fully read: its buffers may be reused for round r+1
            if (lid == 0u) {
                s_flag[cur ^ 1u] = 0u;
                s_pending[cur ^ 1u] = 0u;
            }
            uint w[4];
            for (uint k = 0u; k < 4u; ++k) {
                uint d = lid + k * wg;
                w[k] = 0u;
                if (d < 256u && (done & (1u << k)) == 0u) {
                    w[k] = atomicLoad(state[STATE_BASE + look * 256u + d], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
                    if ((w[k] >> 30) == NOT_READY || forced(look)) atomicOr(s_flag[cur], 1u);
                }
            }
            barrier();
            if (s_flag[cur] != 0u) {
                // Some digit of tile `look` is not ready: spin, or recompute the tile.
                if (++spins < SPIN_LIMIT && !forced(look)) continue;
                fallback_histogram(look);
                for (uint k = 0u; k < 4u; ++k) {
                    uint d = lid + k * wg;
                    if (d < 256u) {
                        post(look, d, AGGREGATE, s_fb[d]);
                        if ((done & (1u << k)) == 0u) s_prev[d] += s_fb[d];
                    }
                }
                fallbacks += 1u;
                spins = 0u;
                if (look == 0u) break;  // tile 0's aggregate is its inclusive prefix
                look -= 1u;
                continue;
            }
            spins = 0u;
            for (uint k = 0u; k < 4u; ++k) {
                uint d = lid + k * wg;
                if (d < 256u && (done & (1u << k)) == 0u) {
                    s_prev[d] += w[k] & 0x3FFFFFFFu;
                    if ((w[k] >> 30) == INCLUSIVE) done |= 1u << k;
                    else atomicAdd(s_pending[cur], 1u);
                }
            }
            barrier();
            if (s_pending[cur] == 0u || look == 0u) break;
            look -= 1u;
        }
    }
    for (uint d = lid; d < 256u; d += wg) {
        if (tile > 0u) post(tile, d, INCLUSIVE, s_prev[d] + s_tile_hist[d]);
        s_prev[d] += bucket_base(d);  // global start of this tile's elements of bucket d
    }
    if (fallbacks > 0u && lid == 0u) atomicAdd(state[1], fallbacks);
    barrier();

    // 4. Scatter.
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
        uint d = dig[j];
        if (d != INVALID) {
            uint dst = s_prev[d] + s_counts[sg * 256u + d] + loc[j];
            keys_out[dst] = key[j];
#if VALUE_WORDS > 0
            vals_out[dst] = vals_in[key_index(tile, j)];
#endif
        }
    }
}

#endif
