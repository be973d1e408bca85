// The binning pass shared by the radix sort, multisplit and the permutation (DESIGN.md,
// principle 1): a multisplit of one tile of elements into up to 256 buckets, placed after the
// same buckets of all earlier tiles. Correct at every subgroup size 4 to 128.
//
// A tile (ticket order) is WG * ITEMS elements, subgroup-striped as in scan/tile.glsl:
// subgroup s owns a contiguous segment and in step j its lane l holds element j * S + l of
// it, so the order (s, j, l) is the input order.
//   1. Count (stable ranking, EARLY, CUB's early counts): each subgroup counts its
//      elements' buckets into its counter row with shared atomics.
//   2. Per bucket, a scan over the counter rows gives each row's offset and the tile's
//      histogram, which is posted at once; a scan over buckets gives where each bucket
//      starts in the tile, folded into the rows.
//   3. Rank. Stable: step by step, lanes with the same bucket find each other (a shared
//      mask word per bucket, SHARED_MATCH; else, for every step at once, subgroupPartitionNV
//      or one ballot per bucket bit, all four ballot words): an element's rank is the count
//      of lower peers, and the lowest peer takes the group's places with one atomicAdd on
//      its subgroup's row and shuffles the result to its peers, so every element knows its
//      position in the tile sorted by bucket. (EARLY = 0 ranks first, then counts: steps 1
//      and 2 come after.) Atomic (ATOMIC_RANK = 1): one shared counter per bucket, rank =
//      atomicAdd, order within a bucket unspecified, then step 2.
//      The tile's word planes are staged in shared memory in that order (RELOAD, the
//      default: every plane at once, keys read again from cache and values read then, so
//      none is held in registers since its load; else the first plane from registers), then
//      the predecessors are looked back on: per bucket, decoupled look-back over earlier
//      tiles' histograms (30-bit counts and a 2-bit state in one word, raised only with
//      atomicMax); a tile that stays not ready is recomputed from its elements by the whole
//      workgroup (decoupled fallback).
//   4. Scatter from shared memory in tile order (all planes at once, or plane by plane),
//      so consecutive lanes write consecutive addresses of a bucket's run.
//
// The including kernel provides: KEY and VAL types with KEY64 and VALUE_WORDS; the buffers
// vals_in, vals_out, state (`coherent`, ticket in word 0) and offsets (the upfront histogram
// buffer, sort/hist_layout.glsl, included: the pass reads its offsets and trivial flag, or
// with FOLD its counters and span) and, with FOLD, a write-only alias offsets_out (tile 0
// writes the pass's bucket offsets there); spec constants ITEMS,
// FORCE_FALLBACK_PERIOD, SPIN_LIMIT; push constants pc.n and pc.num_tiles;
//   KEY key_in(uint i)                    input key i (keys_in[i], or a narrower load)
//   void key_out(uint i, KEY k)           store output key i (keys_out[i] = k, or narrower)
//   VAL val_at(uint i)                    input value i (vals_in[i], or computed)
//   bool pass_writes_keys()               false: the keys only bucket (not written)
//   uint bucket_of(uint index, KEY key)   the element's bucket, < 256
//   bool bucket_is_key_function()         bucket_of ignores the index and is cheap
//   uint bucket_bits()                    bits that distinguish buckets (ballots per step)
//   uint hist_pass()                      the pass's index in the upfront histogram
// and may define PARTITIONED (GL_NV_shader_subgroup_partitioned ranking), and ONE_PLANE with
//   bool one_plane()                      stage one word per element (RELOAD or STAGE_ALL),
//   const uint ONE_PLANE_ON               1 where one_plane() (sizes s_blk), else 0:
//   uint plane_word(uint first, uint i, KEY k)  element i's word (first: the tile's first index)
//   bool plane_has_key()                  the word holds the key (else a position's bucket
//                                         comes from the bucket starts, s_blk)
//   KEY plane_key(uint w)                 the key in word w
//   void plane_scatter(uint dst, uint first, uint w)  store output dst from word w
// and CLASS_ROUNDS with (atomic ranking in class rounds, rank_tile)
//   bool class_rounds()                   rank in class rounds
//   uint class_start(uint c)              where class c < 256 starts among the input
//                                         indices (class starts ascend; class 0 starts at 0)
#ifndef BINNING_GLSL
#define BINNING_GLSL
#ifdef PARTITIONED
#extension GL_NV_shader_subgroup_partitioned : require
#endif
#ifdef CLOCKS
#extension GL_ARB_shader_clock : require
#endif

// Shared words for the counter rows (256 per subgroup) and, once ranked, the staged tile:
// max(256 * subgroups, WG * ITEMS), set by the host.
layout(constant_id = 7) const uint STAGE_WORDS = 4096;
layout(constant_id = 8) const uint ATOMIC_RANK = 0;
// Timing experiments only (wrong results): bit 0 skips the look-back, bit 1 the scatter's
// global stores, bit 2 the ranking (every element rank 0 of its own bucket run), bit 3 only
// the peer matching (every element its own group), bit 4 only the step counters (bits 2 to
// 4: ballot and partition matching only, not SHARED_MATCH). Bits 5 and 6 are not skips
// (results stay right): bit 5 ranks with uvec4 ballots at every width; bit 6 makes the atomic
// ranking take a tile's steps last to first, so where a device's atomics happen to follow
// input order (lavapipe) equal buckets still leave it, as they do on GPUs.
layout(constant_id = 9) const uint DEBUG_SKIP = 0;
// 1: every word plane of the tile (key words, then value words) is staged at once, plane p at
// s_mem[p * tile_size()], before the look-back; the scatter then needs no per-element arrays
// (fewer registers for 64-bit keys and values, at the cost of shared memory). 0: one plane at
// a time through the same words, unless RELOAD (which stages all planes too).
layout(constant_id = 10) const uint STAGE_ALL = 0;
// 1: stable ranking matches peers through shared memory (CUB's WARP_MATCH_ATOMIC_OR): each
// lane ORs its bit into its bucket's word of a per-subgroup mask row, reads the word back,
// and the leader clears it. The host sets it only where subgroups have at most 32 lanes, and
// then sizes s_mem for the mask rows after the counter rows. 0: ballots (or
// subgroupPartitionNV).
layout(constant_id = 11) const uint SHARED_MATCH = 0;
// 1 (the default; policy flag `xkeep` for 0): no word of an element stays in registers
// between its load and its staging. The load keeps only the per-element word (bucket); once
// positions are known, the key words are read again (from cache: the tile was read moments
// before) and the value words for the first time, straight into every staged plane (as
// STAGE_ALL). Frees ITEMS registers per key and value word where registers bound how many
// workgroups share an SM, at the cost of a cache round trip per tile. (Read right after the
// ranking instead, the loads were hoisted by the H200's driver and cost registers.)
layout(constant_id = 13) const uint RELOAD = 0;
// 1 (the default; policy flag `xlate` for 0): stable ranking counts the tile first (CUB's
// early counts). Each subgroup's bucket counts come from shared atomics (independent, so
// they overlap); the offsets of step 2 then turn the counter rows into where each
// subgroup's run of each bucket starts in the tile, the histogram is posted, and the
// ranking proper yields every element's tile position: step by step, the lowest peer takes
// its group's places with one shared atomicAdd on its row, whose result only the shuffle to
// its peers waits for. 0: rank first, then offsets, then positions (the order of steps 1-2).
layout(constant_id = 14) const uint EARLY = 1;
// 1 (the default with RELOAD for 32-bit keys with 4-byte values; policy flag `xnoseq` for 0):
// the planes go through shared memory one after the other, CUB's order: the keys are staged
// before the look-back and scattered after it; then the values are read, staged in the same
// words and scattered. A tile then needs one plane of shared memory, not two, so it holds
// more elements. Each lane keeps the buckets of the positions it scatters (four to a
// register) and its elements' tile positions (two to a register) for the value round. (The
// positions kept in shared memory instead, or the buckets found again from s_blk, or the
// values read once with the keys to warm the cache, were slower on the H200:
// bench/results/h200/binning/session14.)
layout(constant_id = 16) const uint SEQ_PLANES = 0;
// SEQ: the values are read VAL_CHUNK a lane at a time (0: all at once); each group's loads
// take their index through a word read back from the previous group's staging, so the driver
// cannot issue them sooner and hold more registers where the pass holds the most. The first
// group is read before the key scatter (scatter_planes).
layout(constant_id = 17) const uint VAL_CHUNK = 0;
const uint FIRST_VALS = VAL_CHUNK == 0u || VAL_CHUNK > ITEMS ? ITEMS : VAL_CHUNK;
// 0: a workgroup's tile is its own index in the dispatch (the default on NVIDIA, `xnoticket`).
// 1: tiles are handed out in start order by an atomic ticket (`xticket`, the default
// elsewhere), CUB's way, which costs each tile a global atomic round trip and a barrier before
// its first load. Either order is correct: a look-back that finds a predecessor not ready for
// SPIN_LIMIT rounds counts that tile's keys itself (the fallback), so no tile waits on one that
// has not started; but where workgroups do not start in index order (lavapipe) that costs
// index tiles dearly. H200, 2^26, index tiles: u32 keys 1.447 ms against 1.511-1.515 with
// tickets, pairs 2.023 against 2.065-2.069, the 256-way multisplit of pairs 0.555 against
// 0.564-0.566 (bench/results/h200/binning/session28/3-tick28; BinningPolicy::tickets).
layout(constant_id = 18) const uint TILE_TICKETS = 0;
// Full tiles load (and, planes in sequence, stage) through their own loops without a test an
// element. The permutation of indices only in its stable passes (the reproducible mode): H200,
// 2^28, 7.22 -> 6.41 ms there (6.32 with index tiles), but its default mode, whose passes rank
// with atomics, 6.03 -> 6.62 (its first pass 1.36 -> 1.99; 6.52 with index tiles;
// bench/results/h200/binning/session29/3-perm29).
#ifdef PERM_IDS
const bool FULL_TILE_LOOPS = ATOMIC_RANK == 0u;
#else
const bool FULL_TILE_LOOPS = true;
#endif
// FOLD defined (the `_fold` variants, for passes of few tiles: BinningPolicy::fold_max_tiles):
// tile 0 scans the bucket offsets from the upfront counters (first_tile_bases) while the other
// tiles rank, and its inclusive look-back prefixes carry them to every later tile; a trivial
// pass is found from the digit span. No offsets dispatch is needed before the pass. Else the
// offsets and the trivial flag come from sort/offsets.comp. A variant, not a spec constant:
// the H200's compiler gave the large passes 1-3 more registers (one workgroup an SM) for the
// fold's code even where a spec constant turned it off (session25/1-gated).
#if KEY64 == 0 && VALUE_WORDS == 1
const uint SEQ = SEQ_PLANES;
#else
const uint SEQ = 0u;
#endif

const uint STATE_BASE = 4u;
// After a pass's look-back words: the phase clocks and look-back counts (CLOCKS), then the
// pass's digit totals (TILE_TOTALS); src/prims/binning.rs, state_bytes.
const uint STATE_CLOCK_WORDS = 16u;
const uint NOT_READY = 0u, AGGREGATE = 1u, INCLUSIVE = 2u;
const uint INVALID = 0xFFFFFFFFu;

shared uint s_mem[STAGE_WORDS];  // counter rows, then one word plane of the tile
shared uint s_start[256];        // where each bucket starts in the tile
shared uint s_glob[256];         // global index of the tile's first element of a bucket, minus its tile position
// The fallback's histogram of a predecessor shares s_glob's words (the 1 KiB lets 64-bit keys
// stage 448x13 tiles in 48 KiB): bucket d's word is read and written only by the invocation
// that owns d in look_back, except by the counting between fallback_histogram's barriers, and
// every round rewrites s_glob for every complete bucket before its barrier.
#define s_fb s_glob
shared uint s_sums[32];          // scan of the bucket totals: per-subgroup sums
#include "common/workgroup.glsl"
shared uint s_tile;
shared uint s_stuck[2];  // look-back fallback rounds, by parity: 1 + the newest stuck tile, 0: none
#ifndef ONE_PLANE
const uint ONE_PLANE_ON = 0u;
#endif
// Where a position's key is not staged (one plane without the key; SEQ with a bucket that is
// not a function of the key): the bucket at tile position 32 k, so a position's bucket takes
// a read and a short walk of the bucket starts, not a binary search (eight dependent reads:
// the H200's last permutation pass took 2.37 ms at 2^28 with it, against 1.72 staging the
// keys).
const uint BLK_ON = ONE_PLANE_ON | SEQ;
shared uint s_blk[BLK_ON * (STAGE_WORDS / 32u) + 1u];  // one word where unused

KEY key[ITEMS];
// One word per element, so the tile's per-element state costs ITEMS registers, not 2 ITEMS
// (registers bound how many workgroups share an SM): INVALID past the end of the input; else
// the bucket in bits 16..23 and, once ranked, the position in the tile in bits 0..15 (a tile
// holds at most 65,536 elements: the host caps it). While ranking, bits 0..6 hold the rank
// among the step's peers, 8..14 the peer count - 1 and 24..30 the lowest peer's lane.
uint el[ITEMS];
#if VALUE_WORDS > 0
VAL v[ITEMS];
#endif
// SEQ: from the staging of the keys to that of the values, the elements' tile positions two
// to a register (the rest of el is dead then; 16 bits hold a position).
uint seq_pos[(ITEMS + 1u) / 2u];
// Element j's tile position from seq_pos (a macro: a function made glslang copy the array).
#define SEQ_AT(j) ((seq_pos[(j) / 2u] >> (16u * ((j) % 2u))) & 0xFFFFu)
uint el_bucket(uint e) { return (e >> 16) & 0xFFu; }
uint el_pos(uint e) { return e & 0xFFFFu; }

uint tile_size() { return gl_WorkGroupSize.x * ITEMS; }

// Phase clocks (CLOCKS variants, VK_KHR_shader_clock): invocation 0 adds the subgroup-clock
// time of each phase, in units of 16 cycles, to the word after the look-back words
// (state[STATE_BASE + 256 num_tiles + phase]); the phases end at workgroup barriers, so
// invocation 0's time is the workgroup's, except where a phase ends at no barrier (the
// staging, invocation 0's look-back walks, the scatters): there it is invocation 0's own.
// Phases: 0 load, 1 count and offsets (EARLY; else the ranking), 2 ranking (else offsets
// and positions), 3 staging, 4 look-back walks, 5 the look-back barrier's wait (for every
// walk, and every subgroup's staging), 6 key scatter (with RELOAD every plane), 7 value
// scatter (without RELOAD).
uint clock_at = 0u;
void phase_end(uint k) {
#ifdef CLOCKS
    if (gl_LocalInvocationIndex == 0u) {
        uint now = clock2x32ARB().x;
        if (k != 0xFFFFFFFFu) atomicAdd(state[STATE_BASE + pc.num_tiles * 256u + k], (now - clock_at) >> 4);
        clock_at = now;
    }
#endif
}
#ifdef CLOCKS
// With the clocks, invocation 0's look-back (its buckets' walks) is counted too, into the
// words after the phases (src/prims/binning.rs, LOOKBACK_COUNTS): 8 rounds that took at least
// one earlier tile's word, 9 rounds that found the next word not ready (spins), 10 earlier
// tiles taken, all summed over tiles; 11 the longest look-back of a tile, walks, fallbacks and
// the barrier after them, in 16-cycle units. They tell a walk long for want of inclusive
// prefixes (rounds) from one that waits for predecessors still ranking (spins).
const uint LB_ROUNDS = 8u, LB_SPINS = 9u, LB_TILES = 10u, LB_LONGEST = 11u;
uint lb_count[3] = uint[3](0u, 0u, 0u);
uint lb_start = 0u;
#endif

uint key_index(uint tile, uint j) {
    return tile * tile_size() + gl_SubgroupID * gl_SubgroupSize * ITEMS + j * gl_SubgroupSize + gl_SubgroupInvocationID;
}

// Debug: tiles whose successors take the fallback (tile 0 too, whose recomputation differs).
bool forced(uint tile) {
#ifdef FOLD
    return FORCE_FALLBACK_PERIOD >= 2u && (tile % FORCE_FALLBACK_PERIOD == FORCE_FALLBACK_PERIOD - 1u || tile == 0u);
#else
    return FORCE_FALLBACK_PERIOD >= 2u && tile % FORCE_FALLBACK_PERIOD == FORCE_FALLBACK_PERIOD - 1u;
#endif
}

void post(uint tile, uint d, uint st, uint count) {
    atomicMax(state[STATE_BASE + tile * 256u + d], (st << 30) | count);
}

// Every element is in one bucket: the pass is a stable copy. FOLD: the histogram kernels'
// span of the pass is one bucket (a pass whose counters a caller filled has none: never);
// else the offsets kernel's flag.
bool pass_is_trivial() {
#if defined(TILE_TOTALS)
    return false;  // no upfront histogram, no spans: the pass runs
#elif defined(FOLD)
    uint p = HIST_SPAN + 2u * hist_pass();
    return offsets[p] + offsets[p + 1u] == 257u;
#else
    return offsets[HIST_FLAGS + hist_pass()] != 0u;
#endif
}
// Where bucket b starts in the pass's output (FOLD: only once tile 0 has written it).
uint bucket_base(uint b) { return offsets[hist_pass() * 256u + b]; }

#ifdef TILE_TOTALS
// TILE_TOTALS (with FOLD; a sort whose every pass has a tile per compute unit at most,
// src/prims/sort.rs): no upfront histogram. Each tile adds its bucket counts to the pass's
// total words at once (add_totals), and tile 0 takes the totals from there (tile_totals).
// A total word holds the count in bits 0..23 and the tiles added in bits 24..31, so it is
// complete when they number num_tiles (the host keeps num_tiles <= 255 and n < 2^24); count
// and contributions travel in one word, so relaxed atomics suffice.
uint totals_at() { return STATE_BASE + pc.num_tiles * 256u + STATE_CLOCK_WORDS; }
// This pass's bucket totals into s_glob (whole workgroup; tile 0, or a fallback recomputing
// it): polled until every tile has added its counts; where some have not within the spin
// limit (tiles need not run at once: no forward-progress guarantee; always with forced
// fallbacks), this workgroup counts every key itself. Every invocation takes part in each
// round, so the loop stays uniform.
void tile_totals() {
    uint lid = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x;
    // The flag of the rounds: s_stuck[1], which look_back clears before its first use; the
    // barrier keeps its last rounds' reads before the writes here (a fallback recomputing
    // tile 0 comes here after them).
    barrier();
    bool ready = false;
    for (uint s = 0u; !ready && FORCE_FALLBACK_PERIOD < 2u && s < 4u * SPIN_LIMIT; ++s) {
        if (lid == 0u) s_stuck[1] = 1u;
        barrier();
        for (uint d = lid; d < 256u; d += wg) {
            uint w = atomicLoad(state[totals_at() + d], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
            s_glob[d] = w & 0xFFFFFFu;
            if ((w >> 24) != pc.num_tiles) atomicAnd(s_stuck[1], 0u);
        }
        barrier();
        ready = s_stuck[1] != 0u;
        barrier();
    }
    if (ready) return;
    for (uint d = lid; d < 256u; d += wg) s_glob[d] = 0u;
    barrier();
    for (uint i = lid; i < pc.n; i += wg) atomicAdd(s_glob[bucket_of(i, key_in(i))], 1u);
}
#endif

#ifdef FOLD
// An exclusive scan of s_glob[0..256) in place by the whole workgroup; ends with a barrier.
void scan_glob() {
    uint lid = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x;
    uint per = (256u + wg - 1u) / wg;
    uint first = min(lid * per, 256u), last = min(first + per, 256u);
    uint mine = 0u;
    for (uint d = first; d < last; ++d) mine += s_glob[d];
    uint before = workgroup_exclusive_add(mine);
    for (uint d = first; d < last; ++d) {
        uint c = s_glob[d];
        s_glob[d] = before;
        before += c;
    }
    barrier();
}

// Where each bucket starts in the output: the upfront counts (their copies summed) scanned
// over the buckets, into s_glob (whole workgroup; ends with a barrier). Only tile 0, and a
// fallback that recomputes tile 0, need them: tile 0's inclusive prefixes carry them to every
// later tile through the look-back, so the sort needs no dispatch of its own to scan them.
void upfront_bases() {
#ifdef TILE_TOTALS
    tile_totals();
#else
    for (uint d = gl_LocalInvocationIndex; d < 256u; d += gl_WorkGroupSize.x) {
        // Four loads at a time: all sixteen in flight took the H200's passes 1-7 registers
        // more (one workgroup an SM where they had two); tile 0 has time to spare, as it
        // walks back over nothing.
        uint c = 0u;
        [[dont_unroll]] for (uint k = 0u; k < HIST_COPIES; k += 4u) {
            uint at = hist_copy(k) + hist_pass() * 256u + d, step = hist_copy(1u) - hist_copy(0u);
            c += offsets[at] + offsets[at + step] + offsets[at + 2u * step] + offsets[at + 3u * step];
        }
        s_glob[d] = c;
    }
#endif
    barrier();
    scan_glob();
}

// Tile 0, once its bucket starts are known: its destinations (s_glob, as the look-back leaves
// them for later tiles) and the pass's bucket offsets in the upfront buffer, for the passes
// and copies after this one (the class rounds' classes, the multisplit's offsets). Each
// invocation writes the buckets it owns in post_counts and look_back: no barrier.
void first_tile_bases() {
    upfront_bases();
    for (uint d = gl_LocalInvocationIndex; d < 256u; d += gl_WorkGroupSize.x) {
        uint base = s_glob[d];
        offsets_out[hist_pass() * 256u + d] = base;
        s_glob[d] = base - s_start[d];
    }
}
#endif

// Decoupled fallback: the bucket histogram of tile `t`, from its keys, into s_fb (whole
// workgroup).
void fallback_histogram(uint t) {
    for (uint d = gl_LocalInvocationIndex; d < 256u; d += gl_WorkGroupSize.x) s_fb[d] = 0u;
    barrier();
    // Rolled: the rare path should not add ITEMS loads in flight to the kernel's register peak
    // (H200: u32 pairs at 256x15 80 -> 74 registers, u64 keys 79 -> 73, u64 pairs 79 -> 69).
    [[dont_unroll]] for (uint j = 0u; j < ITEMS; ++j) {
        uint i = key_index(t, j);
        if (i < pc.n) atomicAdd(s_fb[bucket_of(i, key_in(i))], 1u);
    }
    barrier();
}

void step_barrier() {
    controlBarrier(gl_ScopeSubgroup, gl_ScopeSubgroup, gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
}

// Peers of every step (ballots, or subgroupPartitionNV): no shared memory, no barriers, so
// nothing serialises the steps. Element j's word keeps its bucket and gains its rank among
// the step's peers (bits 0..6), their count - 1 (8..14) and the lowest peer's lane (24..30).
// The loop over bucket bits is unrolled (its bound is a push constant): rolled, ballot
// matching took 0.43 ms of a 0.98 ms pass on the H200. Where one ballot word holds the
// subgroup (up to 32 lanes) the masks are scalars; the uvec4 forms measured within 2% of
// them there, but need not elsewhere. Debug bit 5 takes the uvec4 path at any width, so
// tests cover it.
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

// Stable ranking, step by step: the lowest peer takes its group's places with one atomicAdd
// on its subgroup's counter row; the atomics of successive steps are ordered by the step's
// subgroup barrier (input order within a bucket), and only the shuffle waits for their
// results. With EARLY the rows hold where each subgroup's run of each bucket starts in the
// tile, so elements get tile positions; from rank_tile they start at zero.
void rank_steps() {
    uint row = gl_SubgroupID * 256u;
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
void rank_tile() {
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
    rank_steps();  // on rows from zero: positions within the subgroup's run of a bucket
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

// Step 3: the look-back, bucket by bucket: the thread that owns bucket d walks back over the
// earlier tiles' words for d, LB_WINDOW tiles per round (independent loads, one latency),
// adding aggregates until an inclusive prefix, and posts this tile's inclusive count for d at
// once. No barriers while walking. A bucket whose walk meets a tile that stays not ready
// reports it; the workgroup then recomputes the most recent such tile (decoupled fallback,
// which needs the whole workgroup), and the walks go on. Leaves in s_glob[d] the global index
// of this tile's first element of bucket d minus its tile position, and ends with a
// workgroup barrier (one, without fallbacks).
// Earlier tiles read per look-back round (independent loads, one latency): a tile late in a
// wave of concurrent tiles walks back to the last wave's inclusive prefixes.
layout(constant_id = 12) const uint LB_WINDOW = 8;
// TILE_TOTALS passes (a tile per compute unit, all running at once) read their first
// look-back round ahead, before the staging, its latency behind it: H200, 2^20 u32 keys
// 0.0508-0.0509 ms against 0.0513-0.0517. Elsewhere it lost (2^22 pairs 0.1906-0.1914
// against 0.1889-0.1902, 2^26 keys 1.5306-1.5323 against 1.5151-1.5182), and so did reading
// it ahead of the ranking (bench/results/h200/binning/session27).
#ifdef TILE_TOTALS
const bool PREFETCH = true;
#else
const bool PREFETCH = false;
#endif

// The words of bucket d of the LB_WINDOW tiles from `look` back (independent loads).
void load_window(uint d, uint look, out uint w[LB_WINDOW]) {
    [[unroll]] for (uint i = 0u; i < LB_WINDOW; ++i) {
        // Before tile 0: an empty inclusive prefix.
        w[i] = i <= look ? atomicLoad(state[STATE_BASE + (look - i) * 256u + d], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed)
                         : (INCLUSIVE << 30);
    }
}

// Takes a window's words (from tile `look` back) in order, up to the first not-ready tile or
// an inclusive prefix, adding them into `sum`; returns the tiles taken, `found` when an
// inclusive prefix was among them. Unrolled with flags rather than a break, so w[] stays in
// registers.
uint take_window(uint w[LB_WINDOW], uint look, inout uint sum, out bool found) {
    uint i = 0u;
    bool open = true;
    found = false;
    [[unroll]] for (uint k = 0u; k < LB_WINDOW; ++k) {
        uint st = w[k] >> 30;
        if (open && (st == NOT_READY || (k <= look && forced(look - k)))) open = false;
        if (open) {
            sum += w[k] & 0x3FFFFFFFu;
            i += 1u;
            if (st == INCLUSIVE) {
                open = false;
                found = true;
            }
        }
    }
#ifdef CLOCKS
    lb_count[i > 0u ? 0u : 1u] += 1u;
    lb_count[2] += i;
#endif
    return i;
}

// Walks bucket d back from tile `look`, adding into `sum`; true when an inclusive prefix was
// reached, false when tile `look` stayed not ready for SPIN_LIMIT rounds (or is forced).
bool walk(uint d, inout uint look, inout uint sum) {
    uint spins = 0u;
    for (;;) {
        uint w[LB_WINDOW];
        load_window(d, look, w);
        bool found;
        uint i = take_window(w, look, sum, found);
        if (found) return true;
        if (i > 0u) {
            look -= i;
            spins = 0u;
        } else if (++spins >= SPIN_LIMIT || forced(look)) {
            return false;
        }
    }
}

void look_back(uint tile, uint hist[BPT], uint pre[LB_WINDOW]) {
    uint lid = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x;
    if ((DEBUG_SKIP & 1u) != 0u) {
        // (FOLD: each tile writes at its own place, not where the look-back would put it.)
#ifdef FOLD
        if (tile != 0u) for (uint d = lid; d < 256u; d += wg) s_glob[d] = tile * tile_size() - s_start[d];
#else
        for (uint d = lid; d < 256u; d += wg) s_glob[d] = bucket_base(d) - s_start[d];
#endif
        barrier();
        return;
    }
#ifdef CLOCKS
    if (lid == 0u) lb_start = clock2x32ARB().x;
#endif
    uint look[BPT], sum[BPT];
    uint done = 0u;  // bit k: bucket lid + k * wg is complete (or not this thread's)
    [[unroll]] for (uint k = 0u; k < BPT; ++k) {
        uint d = lid + k * wg;
        look[k] = tile - 1u;
        sum[k] = 0u;
        if (d >= 256u || tile == 0u) done |= 1u << k;
    }
    // The window read ahead (PREFETCH) is the first round of bucket lid's walk.
    if (PREFETCH && (done & 1u) == 0u) {
        bool found;
        look[0] -= take_window(pre, look[0], sum[0], found);
        if (found) {
            done |= 1u;
            post(tile, lid, INCLUSIVE, sum[0] + hist[0]);
        }
    }
    uint fallbacks = 0u;  // s_stuck[0] was cleared when the tile was taken
#ifdef FOLD
    uint at_zero = 0u;     // bit k: bucket lid + k * wg was complete at tile 0's recomputation
    bool zero_fb = false;  // tile 0 was recomputed (uniform)
#endif
    for (uint r = 0u;; ++r) {
        uint cur = r & 1u;
        if (lid == 0u) s_stuck[cur ^ 1u] = 0u;
        [[unroll]] for (uint k = 0u; k < BPT; ++k) {
            uint d = lid + k * wg;
            if ((done & (1u << k)) != 0u) continue;
            if (walk(d, look[k], sum[k])) {
                done |= 1u << k;
                post(tile, d, INCLUSIVE, sum[k] + hist[k]);
            } else {
                atomicMax(s_stuck[cur], look[k] + 1u);
            }
        }
        // Complete buckets' destinations before the round's barrier: without a fallback it is
        // the look-back's only barrier (it also orders the staging before the scatter). FOLD:
        // the inclusive prefixes start with the bucket offsets (tile 0's carry them), and tile
        // 0 has its destinations from first_tile_bases.
        [[unroll]] for (uint k = 0u; k < BPT; ++k) {
            uint d = lid + k * wg;
#ifdef FOLD
            if (d < 256u && (done & ~at_zero & (1u << k)) != 0u && tile != 0u) s_glob[d] = sum[k] - s_start[d];
#else
            if (d < 256u && (done & (1u << k)) != 0u) s_glob[d] = sum[k] + bucket_base(d) - s_start[d];
#endif
        }
        phase_end(4u);  // the walks of invocation 0; the barrier's wait is the next phase
        barrier();
        uint stuck = s_stuck[cur];
        if (stuck == 0u) break;
        // Recompute the newest stuck tile; the buckets stuck there take its count and go on.
        // FOLD: tile 0's prefixes include the bucket offsets, so the buckets stuck there are
        // complete but post and take their destinations after the walks (below), and tile
        // 0's recomputed counts are not posted (its words are inclusive: every tile stuck
        // there recomputes them).
        uint t = stuck - 1u;
        fallback_histogram(t);
        [[unroll]] for (uint k = 0u; k < BPT; ++k) {
            uint d = lid + k * wg;
            if (d >= 256u) continue;
#ifdef FOLD
            if (t != 0u) post(t, d, AGGREGATE, s_fb[d]);
#else
            post(t, d, AGGREGATE, s_fb[d]);
#endif
            if ((done & (1u << k)) == 0u && look[k] == t) {
                sum[k] += s_fb[d];
                if (t == 0u) {
                    done |= 1u << k;
#ifdef FOLD
                    at_zero |= 1u << k;
#else
                    post(tile, d, INCLUSIVE, sum[k] + hist[k]);
#endif
                } else {
                    look[k] = t - 1u;
                }
            }
        }
#ifdef FOLD
        zero_fb = zero_fb || t == 0u;
#endif
        fallbacks += 1u;
    }
#ifdef FOLD
    if (zero_fb) {
        // The buckets complete at tile 0's recomputation add the bucket offsets and post;
        // the offsets take s_glob's words, so every destination is written again.
        upfront_bases();
        [[unroll]] for (uint k = 0u; k < BPT; ++k) {
            uint d = lid + k * wg;
            if (d < 256u && (at_zero & (1u << k)) != 0u) {
                sum[k] += s_glob[d];
                post(tile, d, INCLUSIVE, sum[k] + hist[k]);
            }
        }
        barrier();
        [[unroll]] for (uint k = 0u; k < BPT; ++k) {
            uint d = lid + k * wg;
            if (d < 256u) s_glob[d] = sum[k] - s_start[d];
        }
        barrier();
    }
#endif
    if (fallbacks > 0u && lid == 0u) atomicAdd(state[1], fallbacks);
#ifdef CLOCKS
    if (lid == 0u) {
        uint at = STATE_BASE + pc.num_tiles * 256u;
        atomicAdd(state[at + LB_ROUNDS], lb_count[0]);
        atomicAdd(state[at + LB_SPINS], lb_count[1]);
        atomicAdd(state[at + LB_TILES], lb_count[2]);
        atomicMax(state[at + LB_LONGEST], (clock2x32ARB().x - lb_start) >> 4);
    }
#endif
}

// The bucket of tile position i (i < the tile's element count), from the bucket starts.
uint bucket_at(uint i) {
    return starts_through(i) - 1u;  // bucket 0 starts at 0
}

// The bucket of every 32nd tile position, s_blk (the bucket starts are final).
void fill_blk() {
    for (uint k = gl_LocalInvocationIndex; k < (tile_size() + 31u) / 32u; k += gl_WorkGroupSize.x) s_blk[k] = bucket_at(32u * k);
}
// The bucket of tile position i from s_blk and a short walk of the bucket starts.
uint blk_bucket(uint i) {
    uint b = s_blk[i >> 5];
    while (b < 255u && s_start[b + 1u] <= i) ++b;
    return b;
}

// One word plane through shared memory: element j's word w[j] goes to its tile position;
// lane lid then reads positions r * WG + lid. The caller barriers before the next plane.
void stage(uint w[ITEMS]) {
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j)
        if (el[j] != INVALID) s_mem[el_pos(el[j])] = w[j];
}
void unstage(uint count, out uint w[ITEMS]) {
    [[unroll]] for (uint r = 0u; r < ITEMS; ++r) {
        uint i = r * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
        w[r] = i < count ? s_mem[i] : 0u;
    }
}

// STAGE_ALL (and RELOAD): every word plane in shared memory at once, element j's words at
// its tile position of each plane; from registers, or with RELOAD from the buffers.
const uint KEY_WORDS = KEY64 != 0 ? 2u : 1u;
void stage_values(uint tile, uint j, uint at) {
#if VALUE_WORDS > 0
    uint t = tile_size();
    VAL val = RELOAD != 0u ? val_at(key_index(tile, j)) : v[j];
#if VALUE_WORDS == 1
    s_mem[KEY_WORDS * t + at] = val;
#else
    s_mem[KEY_WORDS * t + at] = val.x;
    s_mem[(KEY_WORDS + 1u) * t + at] = val.y;
#endif
#endif
}
void stage_planes(uint tile) {
    uint t = tile_size();
#ifdef ONE_PLANE
    if (one_plane()) {
        // (Read after the look-back's barrier; the bucket starts are final.)
        if (!plane_has_key()) fill_blk();
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
            uint e = el[j];
            if (e == INVALID) continue;
            uint i = key_index(tile, j);
            s_mem[el_pos(e)] = plane_word(tile * t, i, RELOAD != 0u ? key_in(i) : key[j]);
        }
        return;
    }
#endif
    if (SEQ != 0u && !bucket_is_key_function()) fill_blk();
    // A full tile stages without a test an element (planes in sequence, keys read again).
    if (FULL_TILE_LOOPS && SEQ != 0u && RELOAD != 0u && tile * t + t <= pc.n) {
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j) s_mem[el_pos(el[j])] = uint(key_in(key_index(tile, j)));
    } else
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
        uint e = el[j];
        if (e == INVALID) continue;
        uint at = el_pos(e);
        KEY k = RELOAD != 0u ? key_in(key_index(tile, j)) : key[j];
        s_mem[at] = uint(k);
#if KEY64
        s_mem[t + at] = uint(k >> 32);
#endif
        if (SEQ == 0u) stage_values(tile, j, at);
    }
    if (SEQ != 0u) [[unroll]] for (uint q = 0u; q < (ITEMS + 1u) / 2u; ++q)
        seq_pos[q] = el_pos(el[2u * q]) | (2u * q + 1u < ITEMS ? el_pos(el[2u * q + 1u]) << 16 : 0u);
}

// Then each lane takes tile positions r * WG + lid: its key (for the bucket), destination,
// key and value stores, nothing kept across positions. Unrolled: rolled in chunks of 1 to 4
// rounds it took as many registers and 1.2x the time on the H200
// (bench/results/h200/binning/session7/7-scatter-chunk).
void scatter_planes(uint tile, uint count) {
    uint t = tile_size(), wg = gl_WorkGroupSize.x;
#ifdef ONE_PLANE
    if (one_plane()) {
        [[unroll]] for (uint r = 0u; r < ITEMS; ++r) {
            uint i = r * wg + gl_LocalInvocationIndex;
            if (i >= count) continue;
            uint w = s_mem[i];
            uint b = plane_has_key() ? bucket_of(0u, plane_key(w)) : blk_bucket(i);
            uint dst = s_glob[b] + i;
            if ((DEBUG_SKIP & 2u) == 0u) plane_scatter(dst, tile * t, w);
        }
        return;
    }
#endif
#if KEY64 == 0 && VALUE_WORDS == 1
    if (SEQ != 0u) {
        // Keys, keeping each position's bucket (a byte of pd) for the values.
        uint pd[(ITEMS + 3u) / 4u];
        [[unroll]] for (uint q = 0u; q < (ITEMS + 3u) / 4u; ++q) pd[q] = 0u;
        // The values' first group is read now, its latency behind the key scatter, and staged
        // after it (H200, 512x16 pairs at 2^26: 1% faster, the same 63 registers; read before
        // the look-back instead, 69 registers, one workgroup an SM and 1.45x the time:
        // bench/results/h200/binning/session22/5-vearly, 6-vlb). The tile index comes from shared
        // memory, as measured, so the loads wait for the look-back's barrier.
        uint early_tile = s_tile;
        VAL first_vals[FIRST_VALS];
        [[unroll]] for (uint j = 0u; j < FIRST_VALS; ++j) {
            uint i = key_index(early_tile, j);
            first_vals[j] = i < pc.n ? val_at(i) : VAL(0);
        }
        [[unroll]] for (uint r = 0u; r < ITEMS; ++r) {
            uint i = r * wg + gl_LocalInvocationIndex;
            if (i >= count) continue;
            KEY k = s_mem[i];
            uint b = bucket_is_key_function() ? bucket_of(0u, k) : blk_bucket(i);
            pd[r / 4u] |= b << (8u * (r % 4u));
            if ((DEBUG_SKIP & 2u) == 0u && pass_writes_keys()) key_out(s_glob[b] + i, k);
        }
        // Values, read now (first time), staged in the same words. The tile is read from
        // shared memory again, after the barrier, so the driver cannot hoist the loads into
        // the key scatter (where they would hold ITEMS more registers).
        barrier();  // every key read out of s_mem
        uint late_tile = s_tile;
        uint after = 0u;  // a zero the compiler cannot prove: orders a group after the last
        [[unroll]] for (uint j = 0u; j < FIRST_VALS; ++j)
            if (key_index(early_tile, j) < pc.n) s_mem[SEQ_AT(j)] = first_vals[j];
        [[unroll]] for (uint j = FIRST_VALS; j < ITEMS; ++j) {
            if (VAL_CHUNK != 0u && j > 0u && j % VAL_CHUNK == 0u) {
                // The lane's own last staged word, if it staged one (else no later element of
                // the lane is in the input either).
                uint at = SEQ_AT(j - 1u);
                if (key_index(late_tile, j - 1u) < pc.n) after = uint(s_mem[at] == 0xFFFFFFFFu && pc.n == 0u);
            }
            uint i = key_index(late_tile, j) + after;
            if (i < pc.n) s_mem[SEQ_AT(j)] = val_at(i);
        }
        barrier();
        // The value is read before its destination is formed and feeds it through a zero the
        // compiler cannot prove (no tile runs when n is 0), so its shared read issues beside
        // the bucket's, not after the store's bounds check (session 21's SASS: a round waited
        // on two shared reads in turn; H200, 2^26 pairs: 0.5% faster, session24/1-vfirst).
        uint vzero = uint(pc.n == 0u);
        [[unroll]] for (uint r = 0u; r < ITEMS; ++r) {
            uint i = r * wg + gl_LocalInvocationIndex;
            if (i >= count || (DEBUG_SKIP & 2u) != 0u) continue;
            uint b = (pd[r / 4u] >> (8u * (r % 4u))) & 0xFFu;
            uint val = s_mem[i];
            vals_out[s_glob[b] + i + (val & vzero)] = val;
        }
        return;
    }
#endif
    [[unroll]] for (uint r = 0u; r < ITEMS; ++r) {
        uint i = r * wg + gl_LocalInvocationIndex;
        if (i >= count) continue;
#if KEY64
        KEY k = KEY(s_mem[i]) | (KEY(s_mem[t + i]) << 32);
#else
        KEY k = s_mem[i];
#endif
        uint dst = s_glob[bucket_is_key_function() ? bucket_of(0u, k) : bucket_at(i)] + i;
        if ((DEBUG_SKIP & 2u) != 0u) continue;
        if (pass_writes_keys()) key_out(dst, k);
#if VALUE_WORDS == 1
        vals_out[dst] = s_mem[KEY_WORDS * t + i];
#elif VALUE_WORDS == 2
        vals_out[dst] = uvec2(s_mem[KEY_WORDS * t + i], s_mem[(KEY_WORDS + 1u) * t + i]);
#endif
    }
}

#ifdef TILE_TOTALS
// The tile's counts into its pass's totals (tile_totals), one contribution a bucket.
void add_totals(uint hist[BPT]) {
    [[unroll]] for (uint k = 0u; k < BPT; ++k) {
        uint d = gl_LocalInvocationIndex + k * gl_WorkGroupSize.x;
        if (d < 256u) atomicAdd(state[totals_at() + d], (1u << 24) | hist[k]);
    }
}
#endif

// Publish the tile's histogram at once: tile 0 is complete (FOLD: its prefixes inclusive of
// the bucket offsets, first_tile_bases: s_glob + s_start); a forced tile posts nothing yet.
void post_counts(uint tile, uint hist[BPT]) {
    [[unroll]] for (uint k = 0u; k < BPT; ++k) {
        uint d = gl_LocalInvocationIndex + k * gl_WorkGroupSize.x;
        if (d < 256u) {
#ifdef FOLD
            if (tile == 0u) post(0u, d, INCLUSIVE, s_glob[d] + s_start[d] + hist[k]);
#else
            if (tile == 0u) post(0u, d, INCLUSIVE, hist[k]);
#endif
            else if (!forced(tile)) post(tile, d, AGGREGATE, hist[k]);
        }
    }
}

void binning_pass() {
    uint lid = gl_LocalInvocationIndex;
    uint tile;
    // (The permutation of indices' default mode keeps the ticket: src/prims/perm.rs.)
    if (TILE_TICKETS == 0u) {
        tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
        if (lid == 0u) {
            s_tile = tile;  // read after later barriers
            s_stuck[0] = 0u;
        }
    } else {
        if (lid == 0u) {
            s_tile = atomicAdd(state[0], 1u);
            s_stuck[0] = 0u;
        }
        barrier();
        tile = s_tile;
    }
    if (tile >= pc.num_tiles) return;  // surplus workgroup of a 2-D dispatch
    uint count = min(tile_size(), pc.n - tile * tile_size());
    phase_end(0xFFFFFFFFu);  // start the clock

    // A full tile loads without a test an element (as two copies of the loop: the H200's
    // driver then kept no per-element bounds state, 46-57 registers for keys' passes
    // against 60-62 and 60 for pairs against 63; session28/3-tick28).
    if (FULL_TILE_LOOPS && count == tile_size()) {
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
            uint i = key_index(tile, j);
            key[j] = key_in(i);
            el[j] = bucket_of(i, key[j]) << 16;
        }
    } else {
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
            uint i = key_index(tile, j);
            key[j] = i < pc.n ? key_in(i) : KEY(0);
            el[j] = i < pc.n ? bucket_of(i, key[j]) << 16 : INVALID;
        }
    }

    // Every element is in the same bucket: the pass is a stable copy (FOLD: tile 0 writes the
    // offsets: 0 up to that bucket, n after it).
    if (pass_is_trivial()) {
#ifdef FOLD
        if (tile == 0u) {
            uint only = offsets[HIST_SPAN + 2u * hist_pass()] - 1u;
            for (uint d = gl_LocalInvocationIndex; d < 256u; d += gl_WorkGroupSize.x)
                offsets_out[hist_pass() * 256u + d] = d <= only ? 0u : pc.n;
        }
#endif
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
            uint i = key_index(tile, j);
            if (i < pc.n) {
                if (pass_writes_keys()) key_out(i, key[j]);
#if VALUE_WORDS > 0
                vals_out[i] = val_at(i);
#endif
            }
        }
        return;
    }

    phase_end(0u);
    uint hist[BPT];
    uint pre[LB_WINDOW];  // PREFETCH: the first look-back round's words
    [[unroll]] for (uint i = 0u; i < LB_WINDOW; ++i) pre[i] = NOT_READY << 30;
    bool early = EARLY != 0u && ATOMIC_RANK == 0u;
    if (early) {
        count_tile();
        bucket_offsets(hist);
#ifdef TILE_TOTALS
        add_totals(hist);
#endif
#ifdef FOLD
        if (tile == 0u) first_tile_bases();
#endif
        post_counts(tile, hist);
        phase_end(1u);
        rank_steps();
    } else {
        rank_tile();
        phase_end(1u);
    }
#if VALUE_WORDS > 0
    // The values are loaded once ranked (not with the keys: live through the ranking they
    // would cost ITEMS more registers there); their latency hides behind the look-back.
    // RELOAD loads them while staging.
    if (RELOAD == 0u) [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
        uint i = key_index(tile, j);
        v[j] = i < pc.n ? val_at(i) : VAL(0);
    }
#endif
    if (!early) {
        bucket_offsets(hist);
#ifdef TILE_TOTALS
        add_totals(hist);
#endif
#ifdef FOLD
        if (tile == 0u) first_tile_bases();
#endif
        post_counts(tile, hist);
        // Positions in the tile; the counter rows are then dead and s_mem takes the first plane.
        uint sg = ATOMIC_RANK != 0u ? 0u : gl_SubgroupID;
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
            uint e = el[j];
            if (e != INVALID) {
                uint d = el_bucket(e);
                el[j] = (e & 0xFF0000u) | (s_mem[sg * 256u + d] + el_pos(e));
            }
        }
    }
    barrier();
    phase_end(2u);
    if (PREFETCH && tile != 0u && lid < 256u) load_window(lid, tile - 1u, pre);
    uint w[ITEMS], got[ITEMS];
    if (STAGE_ALL != 0u || RELOAD != 0u) {
        stage_planes(tile);
        phase_end(3u);
        look_back(tile, hist, pre);  // ends with a barrier
        phase_end(5u);
        scatter_planes(tile, count);  // keys and values at once
        phase_end(6u);
        return;
    }
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) w[j] = uint(key[j]);
    stage(w);
    phase_end(3u);
    look_back(tile, hist, pre);  // ends with a barrier
    phase_end(5u);

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
            if ((DEBUG_SKIP & 2u) == 0u && pass_writes_keys()) key_out(s_glob[pd[r]] + i, k);
        }
    }
#else
    [[unroll]] for (uint r = 0u; r < ITEMS; ++r) {
        uint i = r * wg + lid;
        if (i < count) {
            pd[r] = bucket_is_key_function() ? bucket_of(0u, got[r]) : bucket_at(i);
            if ((DEBUG_SKIP & 2u) == 0u && pass_writes_keys()) key_out(s_glob[pd[r]] + i, got[r]);
        }
    }
#endif

    phase_end(6u);
#if VALUE_WORDS > 0
    // Values: one plane per word.
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
    phase_end(7u);
}

#endif
