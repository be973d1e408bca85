// The binning pass shared by the radix sort, multisplit and the permutation (DESIGN.md,
// principle 1): a multisplit of one tile of elements into up to 256 buckets, placed after the
// same buckets of all earlier tiles. Correct at every subgroup size 4 to 128.
//
// A tile (ticket order) is WG * ITEMS elements, subgroup-striped as in scan/tile.glsl:
// subgroup s owns a contiguous segment and in step j its lane l holds element j * S + l of
// it, so the order (s, j, l) is the input order.
//   1. Rank. Stable (ATOMIC_RANK = 0): in each step, lanes with the same bucket find each
//      other (subgroupPartitionNV where the device has it, else one ballot per bucket bit,
//      all four ballot words), an element's rank is the count of lower peers, and the lowest
//      peer adds the group's size to its subgroup's counter row. Atomic (ATOMIC_RANK = 1):
//      one shared counter per bucket, rank = atomicAdd; order within a bucket unspecified.
//   2. Per bucket, a scan over the counter rows gives each row's offset and the tile's
//      histogram; a scan over buckets gives where each bucket starts in the tile, so every
//      element knows its position in the tile sorted by bucket.
//   3. The tile's histogram is posted; the first word plane is staged in shared memory in
//      that order while the predecessors are looked back on: per bucket, decoupled look-back
//      over earlier tiles' histograms (30-bit counts and a 2-bit state in one word, raised
//      only with atomicMax); a tile that stays not ready is recomputed from its elements by
//      the whole workgroup (decoupled fallback).
//   4. Scatter plane by plane (key words, then value words) from shared memory in tile
//      order, so consecutive lanes write consecutive addresses of a bucket's run.
//
// The including kernel provides: KEY and VAL types with KEY64 and VALUE_WORDS; the buffers
// keys_in, keys_out, vals_in, vals_out and state (`coherent`, ticket in word 0); spec
// constants ITEMS, FORCE_FALLBACK_PERIOD, SPIN_LIMIT; push constants pc.n and pc.num_tiles;
//   uint bucket_of(uint index, KEY key)   the element's bucket, < 256
//   bool bucket_is_key_function()         bucket_of ignores the index and is cheap
//   uint bucket_bits()                    bits that distinguish buckets (ballots per step)
//   uint bucket_base(uint b)              where bucket b starts in the output
//   bool pass_is_trivial()                true when every element is in one bucket
// and may define PARTITIONED (GL_NV_shader_subgroup_partitioned ranking).
#ifndef BINNING_GLSL
#define BINNING_GLSL
#ifdef PARTITIONED
#extension GL_NV_shader_subgroup_partitioned : require
#endif

// Shared words for the counter rows (256 per subgroup) and, once ranked, the staged tile:
// max(256 * subgroups, WG * ITEMS), set by the host.
layout(constant_id = 7) const uint STAGE_WORDS = 4096;
layout(constant_id = 8) const uint ATOMIC_RANK = 0;

const uint STATE_BASE = 4u;
const uint NOT_READY = 0u, AGGREGATE = 1u, INCLUSIVE = 2u;
const uint INVALID = 0xFFFFFFFFu;

shared uint s_mem[STAGE_WORDS];  // counter rows, then one word plane of the tile
shared uint s_start[256];        // where each bucket starts in the tile
shared uint s_glob[256];         // earlier tiles' elements, then global minus tile start
shared uint s_fb[256];           // fallback: a predecessor's histogram
shared uint s_sums[32];          // scan of the bucket totals: per-subgroup sums
shared uint s_tile;
shared uint s_flag[2], s_pending[2];  // per look-back round, by parity

KEY key[ITEMS];
uint dig[ITEMS];
uint loc[ITEMS];  // rank in the step, then position in the tile

uint tile_size() { return gl_WorkGroupSize.x * ITEMS; }

uint key_index(uint tile, uint j) {
    return tile * tile_size() + gl_SubgroupID * gl_SubgroupSize * ITEMS + j * gl_SubgroupSize + gl_SubgroupInvocationID;
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

// Step 1: rank every element among its bucket's peers of the same subgroup (or tile).
void rank_tile() {
    uint lid = gl_LocalInvocationIndex, sg = gl_SubgroupID;
    uint rows = ATOMIC_RANK != 0u ? 1u : gl_NumSubgroups;
    for (uint i = lid; i < rows * 256u; i += gl_WorkGroupSize.x) s_mem[i] = 0u;
    barrier();
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
        uint d = dig[j];
        bool valid = d != INVALID;
        if (ATOMIC_RANK != 0u) {
            loc[j] = valid ? atomicAdd(s_mem[d], 1u) : 0u;
            continue;
        }
#ifdef PARTITIONED
        uvec4 peers = subgroupPartitionNV(d);
#else
        uvec4 peers = subgroupBallot(valid);
        for (uint b = 0u; b < bucket_bits(); ++b) {
            bool bit = valid && ((d >> b) & 1u) != 0u;
            uvec4 ones = subgroupBallot(bit);
            peers &= bit ? ones : ~ones;
        }
#endif
        uint rank = subgroupBallotExclusiveBitCount(peers);
        uint before = valid ? s_mem[sg * 256u + d] : 0u;
        subgroupBarrier();
        if (valid && rank == 0u) s_mem[sg * 256u + d] = before + subgroupBallotBitCount(peers);
        subgroupBarrier();
        loc[j] = before + rank;
    }
    barrier();
}

// Step 2: row offsets per bucket (in s_mem), the tile's histogram (returned for the buckets
// lid + k * WG in hist[k]) and the bucket starts in the tile (s_start).
void bucket_offsets(out uint hist[4]) {
    uint lid = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x;
    uint rows = ATOMIC_RANK != 0u ? 1u : gl_NumSubgroups;
    for (uint k = 0u; k < 4u; ++k) {
        uint d = lid + k * wg;
        hist[k] = 0u;
        if (d < 256u) {
            uint run = 0u;
            for (uint s = 0u; s < rows; ++s) {
                uint c = s_mem[s * 256u + d];
                s_mem[s * 256u + d] = run;
                run += c;
            }
            hist[k] = run;
            s_start[d] = run;
        }
    }
    barrier();
    // Exclusive scan of the 256 totals: thread t scans buckets [t * per, (t + 1) * per).
    uint per = (256u + wg - 1u) / wg;
    uint first = min(lid * per, 256u), last = min(first + per, 256u);
    uint mine = 0u;
    for (uint d = first; d < last; ++d) mine += s_start[d];
    uint before = subgroupExclusiveAdd(mine);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) s_sums[gl_SubgroupID] = before + mine;
    barrier();
    for (uint s = 0u; s < gl_SubgroupID; ++s) before += s_sums[s];
    uint tot[8];  // per <= 8 when WG >= 32 (the host guarantees WG >= 64)
    for (uint d = first; d < last; ++d) tot[d - first] = s_start[d];
    barrier();
    for (uint d = first; d < last; ++d) {
        s_start[d] = before;
        before += tot[d - first];
    }
    barrier();
}

// Step 3: the look-back. Leaves in s_glob[d] the elements of bucket d in earlier tiles and
// posts this tile's inclusive counts. All 256 buckets advance together (uniform control
// flow, so a fallback can use the whole workgroup); a thread keeps its buckets' progress in
// bits.
void look_back(uint tile, uint hist[4]) {
    uint lid = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x;
    uint done = 0u;  // bit k: bucket lid + k * wg has reached an inclusive prefix
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
                // Some bucket of tile `look` is not ready: spin, or recompute the tile.
                if (++spins < SPIN_LIMIT && !forced(look)) continue;
                fallback_histogram(look);
                for (uint k = 0u; k < 4u; ++k) {
                    uint d = lid + k * wg;
                    if (d < 256u) {
                        post(look, d, AGGREGATE, s_fb[d]);
                        if ((done & (1u << k)) == 0u) s_glob[d] += s_fb[d];
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
                    s_glob[d] += w[k] & 0x3FFFFFFFu;
                    if ((w[k] >> 30) == INCLUSIVE) done |= 1u << k;
                    else atomicAdd(s_pending[cur], 1u);
                }
            }
            barrier();
            if (s_pending[cur] == 0u || look == 0u) break;
            look -= 1u;
        }
    }
    for (uint k = 0u; k < 4u; ++k) {
        uint d = lid + k * wg;
        if (d < 256u) {
            if (tile > 0u) post(tile, d, INCLUSIVE, s_glob[d] + hist[k]);
            s_glob[d] += bucket_base(d) - s_start[d];  // global index = s_glob[d] + tile position
        }
    }
    if (fallbacks > 0u && lid == 0u) atomicAdd(state[1], fallbacks);
}

// The bucket of tile position i (i < the tile's element count), from the bucket starts.
uint bucket_at(uint i) {
    uint lo = 0u, hi = 256u;  // first bucket whose start is > i, minus one
    while (lo < hi) {
        uint mid = (lo + hi) / 2u;
        if (s_start[mid] <= i) lo = mid + 1u; else hi = mid;
    }
    return lo - 1u;
}

// One word plane through shared memory: element j's word w[j] goes to its tile position;
// lane lid then reads positions r * WG + lid. The caller barriers before the next plane.
void stage(uint w[ITEMS]) {
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j)
        if (dig[j] != INVALID) s_mem[loc[j]] = w[j];
}
void unstage(uint count, out uint w[ITEMS]) {
    [[unroll]] for (uint r = 0u; r < ITEMS; ++r) {
        uint i = r * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
        w[r] = i < count ? s_mem[i] : 0u;
    }
}

void binning_pass() {
    uint lid = gl_LocalInvocationIndex;
    if (lid == 0u) s_tile = atomicAdd(state[0], 1u);
    barrier();
    uint tile = s_tile;
    if (tile >= pc.num_tiles) return;  // surplus workgroup of a 2-D dispatch
    uint count = min(tile_size(), pc.n - tile * tile_size());

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

    rank_tile();
    uint hist[4];
    bucket_offsets(hist);
    // Publish early: tile 0 is complete at once (a forced tile posts nothing yet).
    for (uint k = 0u; k < 4u; ++k) {
        uint d = lid + k * gl_WorkGroupSize.x;
        if (d < 256u) {
            s_glob[d] = 0u;
            if (tile == 0u) post(0u, d, INCLUSIVE, hist[k]);
            else if (!forced(tile)) post(tile, d, AGGREGATE, hist[k]);
        }
    }
    // Positions in the tile; the counter rows are then dead and s_mem takes the first plane.
    uint sg = ATOMIC_RANK != 0u ? 0u : gl_SubgroupID;
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
        uint d = dig[j];
        if (d != INVALID) loc[j] = s_start[d] + s_mem[sg * 256u + d] + loc[j];
    }
    barrier();
    uint w[ITEMS], got[ITEMS];
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) w[j] = uint(key[j]);
    stage(w);
    look_back(tile, hist);
    barrier();

    // Keys: the low words are staged; 64-bit keys bring their high words in a second round.
    unstage(count, got);
    uint pd[ITEMS];  // bucket of each position this lane writes
    uint wg = gl_WorkGroupSize.x;
#if KEY64
    barrier();
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) w[j] = uint(key[j] >> 32);
    stage(w);
    barrier();
    uint hi[ITEMS];
    unstage(count, hi);
    [[unroll]] for (uint r = 0u; r < ITEMS; ++r) {
        uint i = r * wg + lid;
        if (i < count) {
            KEY k = KEY(got[r]) | (KEY(hi[r]) << 32);
            pd[r] = bucket_is_key_function() ? bucket_of(0u, k) : bucket_at(i);
            keys_out[s_glob[pd[r]] + i] = k;
        }
    }
#else
    [[unroll]] for (uint r = 0u; r < ITEMS; ++r) {
        uint i = r * wg + lid;
        if (i < count) {
            pd[r] = bucket_is_key_function() ? bucket_of(0u, got[r]) : bucket_at(i);
            keys_out[s_glob[pd[r]] + i] = got[r];
        }
    }
#endif

#if VALUE_WORDS > 0
    // Values: one plane per word.
    VAL v[ITEMS];
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
        uint i = key_index(tile, j);
        v[j] = i < pc.n ? vals_in[i] : VAL(0);
    }
    barrier();
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) w[j] = v[j].x;
    stage(w);
    barrier();
    unstage(count, got);
#if VALUE_WORDS == 2
    barrier();
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) w[j] = v[j].y;
    stage(w);
    barrier();
    uint vhi[ITEMS];
    unstage(count, vhi);
#endif
    [[unroll]] for (uint r = 0u; r < ITEMS; ++r) {
        uint i = r * wg + lid;
        if (i < count) {
#if VALUE_WORDS == 2
            vals_out[s_glob[pd[r]] + i] = uvec2(got[r], vhi[r]);
#else
            vals_out[s_glob[pd[r]] + i] = got[r];
#endif
        }
    }
#endif
}

#endif
