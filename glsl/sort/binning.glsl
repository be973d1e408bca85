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
// state (`coherent`, ticket in word 0) and offsets (the upfront histogram
// buffer, sort/hist_layout.glsl, included: the pass reads its offsets and trivial flag, or
// with FOLD its counters and span) and, with FOLD, a write-only alias offsets_out (tile 0
// writes the pass's bucket offsets there); spec constants ITEMS,
// FORCE_FALLBACK_PERIOD, SPIN_LIMIT; push constants pc.n and pc.num_tiles;
//   KEY key_in(uint i)                    input key i (keys_in[i], or a narrower load)
//   void key_out(uint i, KEY k)           store output key i (keys_out[i] = k, or narrower)
//   VAL val_at(uint i)                    input value i (vals_in[i], or computed)
//   void val_out(uint i, VAL v)           store output value i (vals_out[i] = v, or split)
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
// and CLASS_STEPS with (stable ranking in class steps, rank_steps)
//   bool class_steps()                    a subgroup's run of one class ranks with atomics
//                                         (the input is in class order)
//   bool same_class(KEY a, KEY b)         whether keys a and b are of one class
#ifndef BINNING_GLSL
#define BINNING_GLSL
#ifdef PARTITIONED
#extension GL_NV_shader_subgroup_partitioned : require
#endif
#if defined(CLOCKS) || defined(TIMELINE)
#extension GL_ARB_shader_clock : require
#endif
#ifdef TIMELINE
#extension GL_EXT_shader_realtime_clock : require
#extension GL_NV_shader_sm_builtins : require
#endif

// Shared words for the counter rows (256 per subgroup) and, once ranked, the staged tile:
// max(256 * subgroups, WG * ITEMS), set by the host.
layout(constant_id = 7) const uint STAGE_WORDS = 4096;
layout(constant_id = 8) const uint ATOMIC_RANK = 0;
// Timing experiments only (wrong results): bit 0 skips the look-back, bit 1 the scatter's global
// stores, bit 2 the ranking (every element rank 0 of its own bucket run), bit 3 only the peer
// matching (every element its own group), bit 4 only the step counters (bits 2 to 4: ballot and
// partition matching only, not SHARED_MATCH; they take ballots through the matching of every step
// at once, match_peers). Bits 5 and 6 are not skips (results stay right): bit 5 ranks with
// uvec4 ballots at every width; bit 6 makes the atomic ranking take a tile's steps last to first,
// so where a device's atomics happen to follow input order (lavapipe) equal buckets still leave it,
// as they do on GPUs. Bit 8 (results stay right; see stagger below) holds some tiles of the first
// wave back once their counts are posted. Bits 9 and 10 act on the value round of planes in
// sequence only (4-byte pairs, and packed pairs' last pass), so keys still flow right through
// a sort's passes: bit 9 skips its global stores, bit 10 the whole round (the first group's
// early reads then fall away too).
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
// ranking instead, the loads were hoisted by the H200's driver and cost registers.) 0 with
// SEQ: the keys stay in registers until staged, the values are read in the value round.
layout(constant_id = 13) const uint RELOAD = 0;
// 1 (the default but in the large passes of a sort of keys alone; `xlate` for 0
// everywhere, `xearly` for 1: BinningPolicy::late_counts): stable ranking counts the tile
// first (CUB's early counts). Each subgroup's bucket counts come from shared atomics
// (independent, so they overlap); the offsets of step 2 then turn the counter rows into where each
// subgroup's run of each bucket starts in the tile, the histogram is posted, and the
// ranking proper yields every element's tile position: step by step, the lowest peer takes
// its group's places with one shared atomicAdd on its row, whose result only the shuffle to
// its peers waits for. 0: rank first, then offsets, then positions (the order of steps 1-2).
layout(constant_id = 14) const uint EARLY = 1;
// 1 (the default for 32-bit keys with 4-byte values; policy flag `xnoseq` for 0): the
// planes go through shared memory one after the other, CUB's order: the keys are staged
// before the look-back (read again with RELOAD; without it, `xkeep`, held in registers from
// their load, as CUB holds them) and scattered after it; then the values are read, staged in
// the same words and scattered. A tile then needs one plane of shared memory, not two, so it holds
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
// After a pass's look-back words (pc.num_tiles tiles): the phase clocks and look-back counts
// (CLOCKS), the pass's digit totals (256 words: TILE_TOTALS), then the tile timelines
// (TIMELINE); src/prims/binning.rs, state_bytes.
const uint STATE_CLOCK_WORDS = 16u;
uint clock_words_at() { return STATE_BASE + pc.num_tiles * 256u; }
uint totals_at() { return clock_words_at() + STATE_CLOCK_WORDS; }
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
// walk, and every subgroup's staging), 6 key scatter (with RELOAD or SEQ every plane), 7
// value scatter (without either).
uint clock_at = 0u;
void phase_end(uint k) {
#ifdef CLOCKS
    if (gl_LocalInvocationIndex == 0u) {
        uint now = clock2x32ARB().x;
        if (k != 0xFFFFFFFFu) atomicAdd(state[clock_words_at() + k], (now - clock_at) >> 4);
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

// TIMELINE variants (xtimeline; VK_KHR_shader_clock's device clock, VK_NV_shader_sm_builtins):
// invocation 0 of each tile writes its SM and, at each of TIMELINE_STAMPS points, the low words
// of the device clock and of the SM clock (TIMELINE_WORDS words of its own after the pass's
// totals: src/prims/binning.rs, timeline_at), so a run shows which phases of which tiles
// overlapped in time, GPU-wide and on each SM (src/bench/timeline.rs). The last word: the
// device clock when the tile's last bucket walk ended (s_walked; look_back), which splits
// the look-back phase into the walks and the wait at its barrier.
const uint TIMELINE_STAMPS = 9u, TIMELINE_WORDS = 20u;
#ifdef TIMELINE
shared uint s_walked;  // the latest walk end's device-clock low word (atomicMax; 0: none yet)
#endif
void stamp(uint tile, uint k) {
#ifdef TIMELINE
    if (gl_LocalInvocationIndex == 0u) {
        uint at = totals_at() + 256u + tile * TIMELINE_WORDS;
        if (k == 0u) {
            state[at] = gl_SMIDNV;
            s_walked = 0u;  // read after the look-back's barrier, many barriers later
        }
        state[at + 1u + k] = clockRealtime2x32EXT().x;
        state[at + 1u + TIMELINE_STAMPS + k] = clock2x32ARB().x;
        if (k == 5u) state[at + 1u + 2u * TIMELINE_STAMPS] = s_walked;
    }
#endif
}

// Debug bit 8 (timing only; results stay right): whether co-resident tiles move their values at
// the same time. Some tiles of the first wave wait, once their counts are posted (so no
// successor's look-back waits on them), 256 * (bits 16..23) rounds of dependent arithmetic in
// one invocation while the rest of the workgroup sits at a barrier (so they take no issue slots
// from the other workgroup of the SM). Bits 24..31 give S (the device's SMs); the tiles held
// back are S to 2S - 1, or with bit 12 the odd tiles below 2S. TIMELINE only: with bit 13 the
// second workgroup to start on each SM, and with bit 14 that workgroup waits (instead of the
// rounds) until the first one of its SM has looked back, so that it ranks while the other
// scatters.
#ifdef TIMELINE
uint sm_arrival = 0xFFFFFFFFu;
// Per SM, in the totals' words (unused by these passes): arrivals in bits 0..15, bit 16 once
// its first tile has looked back.
uint sm_word() { return totals_at() + (gl_SMIDNV & 255u); }
#endif
void stagger(uint tile) {
    if ((DEBUG_SKIP & 256u) == 0u) return;
    uint sms = DEBUG_SKIP >> 24;
    bool late = (DEBUG_SKIP & 4096u) != 0u ? tile < 2u * sms && (tile & 1u) != 0u : tile >= sms && tile < 2u * sms;
#ifdef TIMELINE
    if ((DEBUG_SKIP & (8192u | 16384u)) != 0u) {
        if (gl_LocalInvocationIndex == 0u) s_stuck[1] = atomicAdd(state[sm_word()], 1u) & 0xFFFFu;
        barrier();
        sm_arrival = s_stuck[1];
        late = sm_arrival == 1u;
        barrier();
        if ((DEBUG_SKIP & 16384u) != 0u) {
            // Bounded: no workgroup waits on another without a limit (the first tile's look-back
            // needs nothing of this one's but its posted counts).
            if (late && gl_LocalInvocationIndex == 0u) {
                [[dont_unroll]] for (uint k = 0u; k < 16384u; ++k)
                    if ((atomicLoad(state[sm_word()], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed) & 0x10000u) != 0u) break;
            }
            barrier();
            return;
        }
    }
#endif
    if (!late) return;
    if (gl_LocalInvocationIndex == 0u) {
        uint x = tile;
        [[dont_unroll]] for (uint k = 0u; k < 256u * ((DEBUG_SKIP >> 16) & 0xFFu); ++k) x = x * 1664525u + 1013904223u;
        if (x == 0x9E3779B9u && pc.n == 0u) s_stuck[1] = x;  // keeps the loop
    }
    barrier();
}
// Bit 14: the first tile of its SM has looked back (stagger).
void stagger_release() {
#ifdef TIMELINE
    if ((DEBUG_SKIP & (256u | 16384u)) == (256u | 16384u) && sm_arrival == 0u && gl_LocalInvocationIndex == 0u)
        atomicOr(state[sm_word()], 0x10000u);
#endif
}

uint key_index(uint tile, uint j) {
    return tile * tile_size() + gl_SubgroupID * gl_SubgroupSize * ITEMS + j * gl_SubgroupSize + gl_SubgroupInvocationID;
}

// Debug: tiles whose successors take the fallback (tile 0 too, whose recomputation differs:
// its prefixes include the bucket starts).
bool forced(uint tile) {
    return FORCE_FALLBACK_PERIOD >= 2u && (tile % FORCE_FALLBACK_PERIOD == FORCE_FALLBACK_PERIOD - 1u || tile == 0u);
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

#include "sort/binning_rank.glsl"
#include "sort/binning_lookback.glsl"
#include "sort/binning_scatter.glsl"

#ifdef TILE_TOTALS
// The tile's counts into its pass's totals (tile_totals), one contribution a bucket.
void add_totals(uint hist[BPT]) {
    [[unroll]] for (uint k = 0u; k < BPT; ++k) {
        uint d = gl_LocalInvocationIndex + k * gl_WorkGroupSize.x;
        if (d < 256u) atomicAdd(state[totals_at() + d], (1u << 24) | hist[k]);
    }
}
#endif

// Publish the tile's histogram at once: tile 0 is complete, its prefixes inclusive of the
// bucket offsets (FOLD: from first_tile_bases, s_glob + s_start); a forced tile posts nothing
// yet.
void post_counts(uint tile, uint hist[BPT]) {
    [[unroll]] for (uint k = 0u; k < BPT; ++k) {
        uint d = gl_LocalInvocationIndex + k * gl_WorkGroupSize.x;
        if (d < 256u) {
#ifdef FOLD
            if (tile == 0u) post(0u, d, INCLUSIVE, s_glob[d] + s_start[d] + hist[k]);
#else
            if (tile == 0u) {
                // Tile 0's destinations too (s_glob, as the look-back leaves them for later
                // tiles: it writes none for tile 0).
                uint base = bucket_base(d);
                post(0u, d, INCLUSIVE, base + hist[k]);
                s_glob[d] = base - s_start[d];
            }
#endif
            else if (!forced(tile)) post(tile, d, AGGREGATE, hist[k]);
        }
    }
}

// Once the tile's counts are in s_mem: its histogram (hist), its share of the pass totals,
// tile 0's bases, and the counts posted for the look-back (early or late counts alike).
void publish_counts(uint tile, out uint hist[BPT]) {
    bucket_offsets(hist);
#ifdef TILE_TOTALS
    add_totals(hist);
#endif
#ifdef FOLD
    if (tile == 0u) first_tile_bases();
#endif
    post_counts(tile, hist);
}

void binning_pass() {
    uint lid = gl_LocalInvocationIndex;
    uint tile;
    // (The permutation of indices' default mode keeps the ticket: src/prims/perm.rs.)
    if (TILE_TICKETS == 0u) {
        tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
#if VALUE_WORDS > 0
        // Debug bit 7 (timing only; the values land unpermuted): the host dispatches twice the
        // tiles; odd workgroups copy a tile of values in input order (a pass's value traffic,
        // moved by other workgroups than the keys'), even ones rank and scatter the keys of
        // tile id / 2 with no value round (planes in sequence only).
        if ((DEBUG_SKIP & 128u) != 0u) {
            if ((tile & 1u) != 0u) {
                [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
                    uint i = key_index(tile >> 1, j);
                    if (i < pc.n) val_out(i, val_at(i));
                }
                return;
            }
            tile >>= 1;
        }
#endif
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
    stamp(tile, 0u);

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
                val_out(i, val_at(i));
#endif
            }
        }
        return;
    }

    phase_end(0u);
    stamp(tile, 1u);
    uint hist[BPT];
    uint pre[LB_WINDOW];  // PREFETCH: the first look-back round's words
    [[unroll]] for (uint i = 0u; i < LB_WINDOW; ++i) pre[i] = NOT_READY << 30;
    bool early = EARLY != 0u && ATOMIC_RANK == 0u;
    if (early) {
        count_tile();
        publish_counts(tile, hist);
        phase_end(1u);
        stamp(tile, 2u);
        stagger(tile);
        rank_steps(run_of_one_class(s_tile), count == tile_size());
    } else {
        rank_tile(count == tile_size());
        phase_end(1u);
        stamp(tile, 2u);
    }
#if VALUE_WORDS > 0
    // The values are loaded once ranked (not with the keys: live through the ranking they
    // would cost ITEMS more registers there); their latency hides behind the look-back.
    // RELOAD loads them while staging; planes in sequence, in the value round.
    if (RELOAD == 0u && SEQ == 0u) [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
        uint i = key_index(tile, j);
        v[j] = i < pc.n ? val_at(i) : VAL(0);
    }
#endif
    if (!early) {
        publish_counts(tile, hist);
        stagger(tile);
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
    stamp(tile, 3u);
    if (PREFETCH && tile != 0u && lid < 256u) load_window(lid, tile - 1u, pre);
    uint w[ITEMS], got[ITEMS];
    if (STAGE_ALL != 0u || RELOAD != 0u || SEQ != 0u) {
        stage_planes(tile);
        phase_end(3u);
        stamp(tile, 4u);
        look_back(tile, hist, pre);  // ends with a barrier
        phase_end(5u);
        stamp(tile, 5u);
        stagger_release();
        scatter_planes(tile, count);  // keys and values at once
        phase_end(6u);
        stamp(tile, 8u);
        return;
    }
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) w[j] = uint(key[j]);
    stage(w);
    phase_end(3u);
    stamp(tile, 4u);
    look_back(tile, hist, pre);  // ends with a barrier
    phase_end(5u);
    stamp(tile, 5u);
    stagger_release();

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
    stamp(tile, 6u);
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
            val_out(s_glob[pd[r]] + i, uvec2(got[r], vhi[r]));
#else
            val_out(s_glob[pd[r]] + i, got[r]);
#endif
        }
    }
#endif
    phase_end(7u);
    stamp(tile, 8u);
}

#endif
