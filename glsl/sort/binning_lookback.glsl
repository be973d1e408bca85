// Part of the binning pass (sort/binning.glsl, which alone includes it, after the state and
// helpers these use): the look-back over earlier tiles' bucket counts, with the decoupled
// fallback (step 3 of the outline there).

// Step 3: the look-back, bucket by bucket: the thread that owns bucket d walks back over the
// earlier tiles' words for d, LB_WINDOW tiles per round (independent loads, one latency),
// adding aggregates until an inclusive prefix, and posts this tile's inclusive count for d at
// once. No barriers while walking. A bucket whose walk meets a tile that stays not ready
// reports it; the workgroup then recomputes the most recent such tile (decoupled fallback,
// which needs the whole workgroup), and the walks go on. Leaves in s_glob[d] the global index
// of this tile's first element of bucket d minus its tile position, and ends with a
// workgroup barrier (one, without fallbacks).
// Inclusive prefixes count from the pass's start, not the bucket's: tile 0 posts each
// bucket's start plus its count (post_counts; FOLD: first_tile_bases), so a walk's sum is the
// destination itself and no tile reads the bucket offsets after its walks (that read's
// latency, just before the barrier every invocation waits at, was on each tile's path).
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
#ifdef TIMELINE
                atomicMax(s_walked, clockRealtime2x32EXT().x);
#endif
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
            if (d < 256u && (done & (1u << k)) != 0u && tile != 0u) s_glob[d] = sum[k] - s_start[d];
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
            uint fb = s_fb[d];
#ifdef FOLD
            if (t != 0u) post(t, d, AGGREGATE, fb);
#else
            // Tile 0's word is only ever inclusive of the bucket's start (post_counts), so no
            // walk passes it; recomputed, it is that again.
            if (t == 0u) fb += bucket_base(d);
            post(t, d, t == 0u ? INCLUSIVE : AGGREGATE, fb);
#endif
            if ((done & (1u << k)) == 0u && look[k] == t) {
                sum[k] += fb;
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
        uint at = clock_words_at();
        atomicAdd(state[at + LB_ROUNDS], lb_count[0]);
        atomicAdd(state[at + LB_SPINS], lb_count[1]);
        atomicAdd(state[at + LB_TILES], lb_count[2]);
        atomicMax(state[at + LB_LONGEST], (clock2x32ARB().x - lb_start) >> 4);
    }
#endif
}
