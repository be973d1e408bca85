// Part of the binning pass (sort/binning.glsl, which alone includes it, after the state and
// helpers these use): the look-back over earlier tiles' bucket counts, with the decoupled
// fallback (step 3 of the outline there).

// Step 3: the look-back, bucket by bucket: the thread that owns bucket d walks back over the
// earlier tiles' words for d, LB_WINDOW words per round (independent loads, one latency),
// adding aggregates and spans (below) until an inclusive prefix, and posts this tile's inclusive count for d at
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

// Spans (on by default; policy flag `xnospan` off, spec constant LB_SPANS). At two tiles an SM
// a walk met about 35 tiles not yet inclusive (H100, u32 pairs at 2^26: the newest tile done
// looking back was a median 35 before a tile's own look-back began), so it took 4-5 rounds of
// one load latency each, 3.3 us of a 17.8 us tile. A walk whose contiguous round takes the
// counts of LB_WINDOW tiles p, p - 1, ... raises tile p's word from AGGREGATE to SPAN: p's own
// count in bits 0..13 and the sum of the other LB_WINDOW - 1 in bits 14..29 (where it fits 16
// bits; tiles under 16,384 elements). Any walk may post it (every walk that reads those words
// computes the same span), so the tiles far behind the walks' starts, which many walks have
// read, have spans. A walk that meets a span takes its LB_WINDOW tiles at once and reads its
// next round's words LB_WINDOW tiles apart, so a round covers up to LB_WINDOW^2 tiles while
// the spans last; at an aggregate it goes back to one tile a word.
layout(constant_id = 19) const uint LB_SPANS = 1;
bool spans_on() { return LB_SPANS != 0u && LB_WINDOW >= 2u && tile_size() < 16384u; }
uint span_max() { return (DEBUG_SKIP & 1024u) != 0u ? 1023u : 0xFFFFu; }

// The words of bucket d of LB_WINDOW tiles from `look` back, `stride` tiles apart
// (independent loads).
void load_window(uint d, uint look, uint stride, out uint w[LB_WINDOW]) {
    [[unroll]] for (uint i = 0u; i < LB_WINDOW; ++i) {
        // Before tile 0: an empty inclusive prefix (no walk takes it: tile 0's word is inclusive).
        uint back = i * stride;
        w[i] = back <= look ? atomicLoad(state[STATE_BASE + (look - back) * 256u + d], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed)
                            : (INCLUSIVE << 30);
    }
}

// Takes a window's words in order (read from tile `look` back, one tile apart, or LB_WINDOW
// where `strided`), adding their counts into `sum` and moving `look` to the next tile to take,
// up to a not-ready (or forced) tile, an inclusive prefix (`found`) or a word that ends the
// window's stride: an aggregate in a strided window, a span (taken whole) in a contiguous
// one. Returns the words taken; `strided` becomes the next round's stride (the last word
// taken was a span). Unrolled with flags rather than a break, so w[] stays in registers.
uint take_window(uint w[LB_WINDOW], inout uint look, inout uint sum, inout bool strided, out bool found) {
    uint i = 0u;
    bool open = true, next = strided;
    found = false;
    [[unroll]] for (uint k = 0u; k < LB_WINDOW; ++k) {
        uint st = w[k] >> 30;
        if (open && (st == NOT_READY || forced(look))) open = false;
        if (open) {
            i += 1u;
            if (st == INCLUSIVE) {
                sum += w[k] & 0x3FFFFFFFu;
                open = false;
                found = true;
            } else if (spans_on() && st == SPAN) {
                sum += (w[k] & 0x3FFFu) + ((w[k] >> 14) & 0xFFFFu);
                look -= LB_WINDOW;
                open = strided;
                next = true;
            } else {
                sum += w[k] & 0x3FFFFFFFu;
                look -= 1u;
                open = !strided;
                next = false;
            }
        }
    }
    strided = next;
#ifdef CLOCKS
    lb_count[i > 0u ? 0u : 1u] += 1u;
    lb_count[2] += i;
#endif
    return i;
}

// Walks bucket d back from tile `look`, adding into `sum`; true when an inclusive prefix was
// reached, false when tile `look` stayed not ready for SPIN_LIMIT rounds (or is forced). A
// contiguous round of LB_WINDOW aggregates posts the span of its first tile.
bool walk(uint d, inout uint look, inout uint sum, inout bool strided) {
    uint spins = 0u;
    for (;;) {
        uint w[LB_WINDOW];
        uint before = sum;
        bool contiguous = !strided;
        load_window(d, look, strided ? LB_WINDOW : 1u, w);
        bool found;
        uint i = take_window(w, look, sum, strided, found);
        if (found) return true;
        // All aggregates: the round ended at no span (else `strided`) and took them all, so
        // the round began at tile look + LB_WINDOW.
        if (spans_on() && contiguous && !strided && i == LB_WINDOW) {
            uint own = w[0] & 0x3FFFu, rest = sum - before - own;
            if (rest <= span_max()) post(look + LB_WINDOW, d, SPAN, (rest << 14) | own);
        }
        if (i > 0u) {
            spins = 0u;
        } else if (++spins >= SPIN_LIMIT || forced(look)) {
            return false;
        }
    }
}

// A tile's inclusive prefix of bucket d (debug bit 9: tile 0's alone, so walks go to tile 0).
void post_inclusive(uint tile, uint d, uint prefix) {
    if ((DEBUG_SKIP & 512u) == 0u || tile == 0u) post(tile, d, INCLUSIVE, prefix);
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
    uint done = 0u;     // bit k: bucket lid + k * wg is complete (or not this thread's)
    uint strided = 0u;  // bit k: bucket lid + k * wg's next round reads spans (take_window)
    [[unroll]] for (uint k = 0u; k < BPT; ++k) {
        uint d = lid + k * wg;
        look[k] = tile - 1u;
        sum[k] = 0u;
        if (d >= 256u || tile == 0u) done |= 1u << k;
    }
    // The window read ahead (PREFETCH) is the first round of bucket lid's walk.
    // (It posts no span: such passes have a tile an SM at most, so their walks are short.)
    if (PREFETCH && (done & 1u) == 0u) {
        bool found, str = false;
        take_window(pre, look[0], sum[0], str, found);
        if (str) strided |= 1u;
        if (found) {
            done |= 1u;
            post_inclusive(tile, lid, sum[0] + hist[0]);
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
            bool str = spans_on() && (strided & (1u << k)) != 0u;
            bool complete = walk(d, look[k], sum[k], str);
            strided = str ? strided | (1u << k) : strided & ~(1u << k);
            if (complete) {
                done |= 1u << k;
                post_inclusive(tile, d, sum[k] + hist[k]);
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
                    post_inclusive(tile, d, sum[k] + hist[k]);
#endif
                } else {
                    look[k] = t - 1u;
                    strided &= ~(1u << k);  // an aggregate taken: one tile a word next
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
                post_inclusive(tile, d, sum[k] + hist[k]);
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
