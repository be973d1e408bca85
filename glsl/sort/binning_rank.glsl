// Part of the binning pass (sort/binning.glsl, which alone includes it, after the state and
// helpers these use): counting and ranking a tile's elements by bucket, and the bucket
// offsets within the tile (steps 1 to 3 of the outline there, less the look-back).

void step_barrier() {
    controlBarrier(gl_ScopeSubgroup, gl_ScopeSubgroup, gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
}

// Peers of every step at once (ballots above 32 lanes, or with debug bits 2 to 5, or
// subgroupPartitionNV; ballot_steps below ranks at 32 lanes or fewer): no shared memory, no
// barriers, so nothing serialises the steps. Element j's word keeps its bucket and gains its rank
// among the step's peers (bits 0..6), their count - 1 (8..14) and the lowest peer's lane (24..30).
// The loop over bucket bits is unrolled (its bound is a push constant, or 8 for a sort's byte
// digits): rolled, ballot matching took 0.43 ms of a 0.98 ms pass on the H200. Where one ballot
// word holds the subgroup (up to 32 lanes) the masks are scalars; the uvec4 forms measured within
// 2% of them there, but need not elsewhere. Debug bit 5 takes the uvec4 path at any width, so tests
// cover it. Each step's validity test and `if` stay: without them the H200's driver hoisted every
// step's ballots at once, 128 registers
// (bench/results/h200/binning/session45/7-ballots-nobranch45).
void match_peers() {
    bool narrow = gl_SubgroupSize <= 32u && (DEBUG_SKIP & 32u) == 0u;
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
        bool valid = el[j] != INVALID;
        uint d = valid ? el_bucket(el[j]) : INVALID;
        uint rank, count, leader;
        if (narrow) {
#ifdef PARTITIONED
            uint m = subgroupPartitionNV(d).x;
#else
            uint m = subgroupBallot(valid).x;
            [[unroll]] for (uint b = 0u; b < 8u; ++b) {
                if (b < bucket_bits()) {
                    bool bit = valid && ((d >> b) & 1u) != 0u;
                    uint ones = subgroupBallot(bit).x;
                    m &= bit ? ones : ~ones;
                }
            }
#endif
            if ((DEBUG_SKIP & 8u) != 0u) m = subgroupBallot(valid).x & gl_SubgroupEqMask.x;
            rank = bitCount(m & gl_SubgroupLtMask.x);
            count = bitCount(m);  // >= 1 for a valid element
            leader = uint(findLSB(m));
        } else {
#ifdef PARTITIONED
            uvec4 peers = subgroupPartitionNV(d);
#else
            uvec4 peers = subgroupBallot(valid);
            [[unroll]] for (uint b = 0u; b < 8u; ++b) {
                if (b < bucket_bits()) {
                    bool bit = valid && ((d >> b) & 1u) != 0u;
                    uvec4 ones = subgroupBallot(bit);
                    peers &= bit ? ones : ~ones;
                }
            }
#endif
            if ((DEBUG_SKIP & 8u) != 0u) peers = subgroupBallot(valid) & gl_SubgroupEqMask;
            rank = subgroupBallotExclusiveBitCount(peers);
            count = subgroupBallotBitCount(peers);
            leader = subgroupBallotFindLSB(peers);
        }
        if (valid) el[j] |= (leader << 24) | ((count - 1u) << 8) | rank;
    }
}

// Ballot ranking one step at a time, as CUB's MatchAny ranking does (subgroups of at most 32
// lanes): a step's peers are found by one ballot per bucket bit, and the highest peer takes their
// places with one atomicAdd on its subgroup's row, shuffled to the peers. No bit round tests
// validity: the first ballot leaves lanes past the input's end out of every mask (and such a lane's
// later steps are past the end too); a full tile drops that ballot too (H200, 2^26: pairs 2.04 ms
// against 2.11, keys 1.439 against 1.465: session48/1-hyb48). Each step's bucket takes a zero from
// the step before's positions (they are below 2^16, which the compiler cannot tell), so no step's
// ballots can be issued before the previous step's atomic has returned: with every step's ballots
// free to move, the H200's driver hoisted them all at once and took 128 registers
// (bench/results/h200/binning/session45/7-ballots-nobranch45); chained, 64 (2^26 pairs 2.100 ms
// against 2.413 for every step's ballots at once, keys 1.468 against 1.639: session46/1-chain46).
// ballot_step is one step (element j of each lane); it returns the zero that chains the next step
// to it.
uint ballot_step(uint row, uint j, uint chain, bool full, uint all) {
    uint e = el[j];
    bool valid = full || e != INVALID;
    uint d = el_bucket(e) | chain;
    uint m = full ? all : subgroupBallot(valid).x;
    [[unroll]] for (uint b = 0u; b < 8u; ++b) {
        if (b < bucket_bits()) {
            bool bit = ((d >> b) & 1u) != 0u;
            uint ones = subgroupBallot(bit).x;
            m &= bit ? ones : ~ones;
        }
    }
    // The highest peer leads (CUB's way): its count of peers at or below it is the group's
    // size, so one bitCount serves both.
    uint upto = bitCount(m & gl_SubgroupLeMask.x), leader = valid ? uint(findMSB(m)) : 0u;
    uint base = 0u;
    if (valid && gl_SubgroupInvocationID == leader) base = atomicAdd(s_mem[row + d], upto);
    base = subgroupShuffle(base, leader);
    step_barrier();
    uint pos = valid ? base + upto - 1u : 0u;
    if (valid) el[j] = (d << 16) | pos;
    return pos >> 16;
}
void ballot_steps(uint row, bool full) {
    uint chain = 0u, all = subgroupBallot(true).x;
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) chain = ballot_step(row, j, chain, full, all);
}

// Zeroes the counter rows (one per subgroup, or one for ATOMIC_RANK) and, for the shared
// match, the mask rows after them.
void zero_rows(bool shared_match) {
    uint rows = ATOMIC_RANK != 0u ? 1u : gl_NumSubgroups;
    uint words = rows * 256u * (shared_match ? 2u : 1u);
    for (uint i = gl_LocalInvocationIndex; i < words; i += gl_WorkGroupSize.x) s_mem[i] = 0u;
    barrier();
}

// Step 1 (EARLY): each subgroup's bucket counts, into its counter row.
void count_tile() {
    zero_rows(SHARED_MATCH != 0u);
    uint row = gl_SubgroupID * 256u;
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j)
        if (el[j] != INVALID) atomicAdd(s_mem[row + el_bucket(el[j])], 1u);
    barrier();
}

#ifndef CLASS_STEPS
bool class_steps() { return false; }
bool same_class(KEY a, KEY b) { return false; }
#endif
// Class steps: whether the subgroup's run of the tile (its ITEMS loads, consecutive input
// indices) holds one class, from its first and last keys (the input is in class order), read
// again from the buffer (the cache) right before the ranking, the tile index from shared
// memory so that the driver cannot issue the loads sooner. (Each step's class noted at the
// load took the H200's u32 pass 66 registers, the two keys read before the counting 65: one
// workgroup an SM, bench/results/h200/binning/session33.) Any order among such a run's
// bucket peers keeps LSD order, so it ranks as an atomic pass does (rank_steps).
bool run_of_one_class(uint tile) {
    uint first = tile * tile_size() + gl_SubgroupID * gl_SubgroupSize * ITEMS;
    if (!class_steps() || first >= pc.n) return false;
    uint last = min(first + gl_SubgroupSize * ITEMS, pc.n) - 1u;
    return same_class(key_in(first), key_in(last));
}

// Stable ranking, step by step: the lowest peer takes its group's places with one atomicAdd
// on its subgroup's counter row; the atomics of successive steps are ordered by the step's
// subgroup barrier (input order within a bucket), and only the shuffle waits for their
// results. With EARLY the rows hold where each subgroup's run of each bucket starts in the
// tile, so elements get tile positions; from rank_tile they start at zero. `full`: the tile
// holds tile_size() elements.
void rank_steps(bool one_class, bool full) {
    uint row = gl_SubgroupID * 256u;
    if (class_steps() && one_class) {
        // Steps last to first with debug bit 6, so tests see the order leave input order
        // where a device's atomics keep it (lavapipe).
        [[unroll]] for (uint s = 0u; s < ITEMS; ++s) {
            uint j = (DEBUG_SKIP & 64u) != 0u ? ITEMS - 1u - s : s;
            uint e = el[j];
            if (e != INVALID) el[j] = (e & 0xFF0000u) | atomicAdd(s_mem[row + el_bucket(e)], 1u);
        }
        return;
    }
    if (SHARED_MATCH != 0u) {
        // Three subgroup barriers a step order its ORs before its reads,
        // its reads before the leader's clear, and the clear and the atomicAdd before the
        // next step. (Three mask rows a subgroup, rotating so that one barrier a step would
        // do, took 1.2x the time on the H200: bench/results/h200/binning/session9/1-early.)
        uint masks = gl_NumSubgroups * 256u;
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
            uint e = el[j];
            bool valid = e != INVALID;
            uint d = el_bucket(e);
            uint at = masks + gl_SubgroupID * 256u + d;
            if (valid) atomicOr(s_mem[at], 1u << gl_SubgroupInvocationID);
            step_barrier();
            uint m = valid ? s_mem[at] : 0u;
            step_barrier();
            uint rank = bitCount(m & gl_SubgroupLtMask.x);
            uint base = 0u;
            if (valid && rank == 0u) {
                base = atomicAdd(s_mem[row + d], uint(bitCount(m)));
                s_mem[at] = 0u;
            }
            base = subgroupShuffle(base, valid ? uint(findLSB(m)) : 0u);
            step_barrier();
            if (valid) el[j] = (d << 16) | (base + rank);
        }
        return;
    }
#ifndef PARTITIONED
    if (gl_SubgroupSize <= 32u && (DEBUG_SKIP & 60u) == 0u) {
        // Two copies, each with its tile's kind constant (the form timed).
        if (full) ballot_steps(row, true);
        else ballot_steps(row, false);
        return;
    }
#endif
    match_peers();
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
        uint e = el[j];
        bool valid = e != INVALID;
        uint d = el_bucket(e), rank = e & 0x7Fu, leader = (e >> 24) & 0x7Fu;
        uint base = 0u;
        if (valid && rank == 0u && (DEBUG_SKIP & 20u) == 0u)  // skip: positions collide
            base = atomicAdd(s_mem[row + d], ((e >> 8) & 0x7Fu) + 1u);
        base = subgroupShuffle(base, valid ? leader : 0u);
        step_barrier();
        if ((DEBUG_SKIP & 4u) != 0u) rank = 0u;
        if (valid) el[j] = (d << 16) | (base + rank);
    }
}

#ifndef CLASS_ROUNDS
bool class_rounds() { return false; }
uint class_start(uint c) { return 0u; }
#endif
// How many of the 256 ascending starts in s_start are at most i: a binary search.
uint starts_through(uint i) {
    uint lo = 0u, hi = 256u;
    while (lo < hi) {
        uint mid = (lo + hi) / 2u;
        if (s_start[mid] <= i) lo = mid + 1u; else hi = mid;
    }
    return lo;
}

// The first class start after input index i, or n, from the class starts in s_start (free
// while ranking; read from the buffers with one load per invocation, not a binary search of
// dependent loads, which the H200 ran no slower: bench/results/h200/binning/session17/6-*).
uint class_end(uint i) {
    uint c = starts_through(i);
    return c < 256u ? s_start[c] : pc.n;
}

// Step 1 (EARLY = 0): rank every element among its bucket's peers of the same subgroup (or
// tile); the counter rows end as each subgroup's (the tile's) bucket counts.
void rank_tile(bool full) {
    bool shared_match = SHARED_MATCH != 0u && ATOMIC_RANK == 0u;
    if (ATOMIC_RANK != 0u && class_rounds())
        for (uint c = gl_LocalInvocationIndex; c < 256u; c += gl_WorkGroupSize.x) s_start[c] = class_start(c);
    zero_rows(shared_match);  // its barrier publishes the class starts too
    if (ATOMIC_RANK != 0u) {
        // With class_rounds(), a round per class of the tile's input (the classes are runs
        // of input indices, [lo, class_end(lo))), a barrier apart: within a bucket every
        // element of a class precedes the next class's, in any order inside its class.
        uint lo = 0u, hi = INVALID, last = 0u;
        if (class_rounds()) {
            lo = s_tile * tile_size();
            last = min(lo + tile_size(), pc.n);
        }
        for (;;) {
            if (class_rounds()) hi = class_end(lo);
            [[unroll]] for (uint s = 0u; s < ITEMS; ++s) {
                uint j = (DEBUG_SKIP & 64u) != 0u ? ITEMS - 1u - s : s;
                uint i = key_index(s_tile, j);
                if (el[j] != INVALID && (!class_rounds() || (i >= lo && i < hi))) el[j] |= atomicAdd(s_mem[el_bucket(el[j])], 1u);
            }
            if (!class_rounds() || hi >= last) break;
            barrier();
            lo = hi;
        }
        barrier();
        return;
    }
    rank_steps(run_of_one_class(s_tile), full);  // on rows from zero: positions within the subgroup's run of a bucket
    barrier();
}

// Buckets per invocation in the per-bucket steps (bucket lid + k * WG for k < BPT). A
// constant size and unrolled loops keep the look-back's per-bucket state in registers; a [4]
// indexed in a rolled loop went to local memory on the H200, and the passes ran about 5% slower
// (bench/results/h200/binning/session21). Stable passes take the buckets they own (1 at
// workgroups of 256 or more), and so do atomic passes without values; atomic passes with
// values keep 4, the tail masked at run time: with 1 the H200's compiler gave the atomic pair
// multisplit 65 registers, one workgroup of 512 an SM and 1.33x its time
// (session21/2-atomic-registers). Without values 1 is as fast or faster on the H200: u32 keys
// 5.546 against 5.563 ms at 2^28, u64 keys 7.863 against 7.935 at 2^27, the atomic 256-way
// multisplit of 2^28 keys 1.400 against 1.420 (session32/1-bpt32).
const uint BPT = ATOMIC_RANK != 0u && VALUE_WORDS > 0 ? 4u : (256u + gl_WorkGroupSize.x - 1u) / gl_WorkGroupSize.x;

// Step 2: each row's offset per bucket within the tile (in s_mem, bucket start included), the
// tile's histogram (returned for the buckets lid + k * WG in hist[k]) and the bucket starts
// in the tile (s_start).
void bucket_offsets(out uint hist[BPT]) {
    uint lid = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x;
    uint rows = ATOMIC_RANK != 0u ? 1u : gl_NumSubgroups;
    if (ATOMIC_RANK == 0u && wg >= 256u && rows <= 16u) {
        // A bucket per invocation (at most one) and few rows: the column's offsets are kept in
        // registers while its start, a workgroup exclusive scan of the totals, is found, so
        // each row word is read once and written once (H200, 2^26 u32 pairs: 2.016-2.017 ms
        // against 2.029-2.030 with the column written twice; session30).
        uint c[16];
        uint run = 0u;
        [[unroll]] for (uint s = 0u; s < 16u; ++s) {
            c[s] = run;
            if (s < rows && lid < 256u) run += s_mem[s * 256u + lid];
        }
        hist[0] = lid < 256u ? run : 0u;
        uint before = workgroup_exclusive_add(hist[0]);
        if (lid < 256u) {
            s_start[lid] = before;
            [[unroll]] for (uint s = 0u; s < 16u; ++s)
                if (s < rows) s_mem[s * 256u + lid] = before + c[s];
        }
        barrier();
        return;
    }
    [[unroll]] for (uint k = 0u; k < BPT; ++k) {
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
    if (wg >= 256u) {
        // A bucket per invocation (at most one): its start is a workgroup exclusive scan of
        // the totals, folded into its own column, so two barriers do (five below).
        uint before = workgroup_exclusive_add(hist[0]);
        if (lid < 256u) {
            s_start[lid] = before;
            for (uint s = 0u; s < rows; ++s) s_mem[s * 256u + lid] += before;
        }
        barrier();
        return;
    }
    barrier();
    // Exclusive scan of the 256 totals: thread t scans buckets [t * per, (t + 1) * per).
    uint per = (256u + wg - 1u) / wg;
    uint first = min(lid * per, 256u), last = min(first + per, 256u);
    uint mine = 0u;
    for (uint d = first; d < last; ++d) mine += s_start[d];
    uint before = workgroup_exclusive_add(mine);
    uint tot[8];  // per <= 8 when WG >= 32 (the host guarantees WG >= 64)
    for (uint d = first; d < last; ++d) tot[d - first] = s_start[d];
    barrier();
    for (uint d = first; d < last; ++d) {
        s_start[d] = before;
        before += tot[d - first];
    }
    barrier();
    // Fold the bucket starts into the row offsets (conflict-free, bucket by bucket), so an
    // element's tile position costs one random shared read, not two.
    [[unroll]] for (uint k = 0u; k < BPT; ++k) {
        uint d = lid + k * wg;
        if (d < 256u) {
            uint start = s_start[d];
            for (uint s = 0u; s < rows; ++s) s_mem[s * 256u + d] += start;
        }
    }
    barrier();
}
