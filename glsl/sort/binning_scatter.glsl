// Part of the binning pass (sort/binning.glsl, which alone includes it, after the state and
// helpers these use): staging the tile's word planes in shared memory and scattering them
// (steps 3 and 4 of the outline there).

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
// Element j's key for staging: read again (RELOAD) or kept in registers since its load.
KEY staged_key(uint tile, uint j) { return RELOAD != 0u ? key_in(key_index(tile, j)) : key[j]; }
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
            s_mem[el_pos(e)] = plane_word(tile * t, i, staged_key(tile, j));
        }
        return;
    }
#endif
    if (SEQ != 0u && !bucket_is_key_function()) fill_blk();
    // A full tile stages without a test an element (planes in sequence).
    if (FULL_TILE_LOOPS && SEQ != 0u && tile * t + t <= pc.n) {
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j) s_mem[el_pos(el[j])] = uint(staged_key(tile, j));
    } else
    [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
        uint e = el[j];
        if (e == INVALID) continue;
        uint at = el_pos(e);
        KEY k = staged_key(tile, j);
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
            first_vals[j] = i < pc.n && (DEBUG_SKIP & 128u) == 0u ? val_at(i) : VAL(0);
        }
        [[unroll]] for (uint r = 0u; r < ITEMS; ++r) {
            uint i = r * wg + gl_LocalInvocationIndex;
            if (i >= count) continue;
            KEY k = s_mem[i];
            uint b = bucket_is_key_function() ? bucket_of(0u, k) : blk_bucket(i);
            pd[r / 4u] |= b << (8u * (r % 4u));
            if ((DEBUG_SKIP & 2u) == 0u && pass_writes_keys()) key_out(s_glob[b] + i, k);
        }
        stamp(tile, 6u);
        if ((DEBUG_SKIP & (128u | 1024u)) != 0u) return;  // 128: the values move in other workgroups
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
        stamp(tile, 7u);
        // The value is read before its destination is formed and feeds it through a zero the
        // compiler cannot prove (no tile runs when n is 0), so its shared read issues beside
        // the bucket's, not after the store's bounds check (session 21's SASS: a round waited
        // on two shared reads in turn; H200, 2^26 pairs: 0.5% faster, session24/1-vfirst).
        uint vzero = uint(pc.n == 0u);
        [[unroll]] for (uint r = 0u; r < ITEMS; ++r) {
            uint i = r * wg + gl_LocalInvocationIndex;
            if (i >= count || (DEBUG_SKIP & (2u | 512u)) != 0u) continue;
            uint b = (pd[r / 4u] >> (8u * (r % 4u))) & 0xFFu;
            uint val = s_mem[i];
            val_out(s_glob[b] + i + (val & vzero), val);
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
        val_out(dst, s_mem[KEY_WORDS * t + i]);
#elif VALUE_WORDS == 2
        val_out(dst, uvec2(s_mem[KEY_WORDS * t + i], s_mem[(KEY_WORDS + 1u) * t + i]));
#endif
    }
}
