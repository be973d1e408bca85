#version 460
// Permutation, step 3: after a sort by group id each group is a contiguous run, and one
// workgroup shuffles it from `src` into `dst` (CPU twin: src/prims/perm.rs, `shuffle_group`).
// Element p of group g (m elements, m4 = ceil(m / 4)) takes the 64-bit random key (w0, w1):
// w0 is word p / m4 of Philox(counter (g, p % m4, 2, 0)), so one draw serves elements k,
// k + m4, k + 2 m4 and k + 3 m4 (stores without bank conflicts), and w1 is word 0 of
// Philox(counter (g, p, 3, 0)), drawn only where two w0 tie. The group's output is its
// elements in order of (w0, w1), ties broken by position, so the result is a pure function
// of the group's input order (reproducible) and, as the keys are iid, a uniform order of the
// group up to ties of 64 random bits (total variation below k^2 2^-65 for a group of k, far
// below what Philox itself can be told apart by).
//   1. Counting sort by label, the top LABEL_BITS bits of w0 (about one label per expected
//      element): labels are counted, the counts scanned, and each element takes a slot in its
//      label's run from a shared atomic (any order), where it stores the next 16 bits of w0
//      and its position.
//   2. Each slot's place in its run is how many of the run's slots (one or two) have a
//      smaller key: compared by the stored 16 bits, the full draws recomputed only when those
//      tie. Invocations take consecutive slots, so most of a subgroup's runs are shared or
//      adjacent (reads broadcast or without bank conflicts), and compare the first WINDOW
//      slots of the run unrolled (a loop only for the rare longer runs). Nothing is serial,
//      and each element costs a quarter of a Philox draw (half, two draws an element, cost
//      0.24 ms more at 2^28 on the H200: session12/).
//   3. The elements are read (all of a thread's loads in flight at once), staged in shared
//      memory in output order and stored coalesced.
// What an element carries between steps (its tag, then its output position) lives in shared
// memory, and its value is read only once its place is known: the kernel is bound by latency
// and its registers decide how many groups share an SM (H200, 2^28, 512 invocations: 58
// registers and two workgroups per SM, 3.05 ms; the values read first and held, 66 and one,
// 4.10 ms; bench/results/h200/binning/session8/). Ranking each element by a walk of its run
// (a random run per invocation: bank conflicts, and a loop as long as the subgroup's longest
// run) took 1.28 of those 3.05 ms (session12/). It was 2.55 ms, 62 registers; without its
// rarely taken tie path it ran 2.31 (wrong on ties), yet drawing the tie keys through one
// rolled Philox call site took 72 registers and 3.82 ms, and ranking the tied slots after
// this loop, behind a barrier, 2.58; counting ties (le) rather than testing each slot for one
// took it to 2.48 (session12/7-tie-path, 8-rolled-ties; session13/1-drawn-ids, 6-tie-count).
// Groups of at most CAPACITY elements are shuffled in shared memory; larger ones (rare,
// forced by the tests) through the scratch buffer `tmp_pos` and the sorted ids' own words,
// with the same keys, so the paths agree. Nothing here depends on the subgroup size.
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint CAPACITY = 2048;  // at most 65,536 (16-bit positions)
layout(constant_id = 2) const uint LABEL_BITS = 10;  // 1 to 16
// Debug (tests): 1 stores no key bits in a slot's word, so every comparison in a run takes
// the tie path (both draws recomputed); the output is the same.
layout(constant_id = 3) const uint FULL_COMPARE = 0;
#include "common/philox.glsl"
#if VALUE_WORDS == 2
#define VAL uvec2
#else
#define VAL uint
#endif
layout(push_constant) uniform Params { uint n; uint groups; uvec2 seed; } pc;
// Sorted group ids; once the bounds are known, the overflow path's per-slot w0.
layout(set = 0, binding = 0, std430) coherent buffer Ids { uint ids[]; };
// The elements grouped (the sort's output), and where the shuffled groups go.
layout(set = 0, binding = 1, std430) readonly restrict buffer Src { VAL src[]; };
layout(set = 0, binding = 2, std430) writeonly restrict buffer Dst { VAL dst[]; };
// Overflow scratch (coherent: one invocation reads what another wrote in the same dispatch):
// each slot's position in the group.
layout(set = 0, binding = 3, std430) coherent buffer TmpPos { uint tmp_pos[]; };
// Where each group starts (glsl/perm/bounds.comp); not read when there is one group.
layout(set = 0, binding = 4, std430) readonly buffer Bounds { uint bounds[]; };

const uint LABELS = 1u << LABEL_BITS;
const uint ITEMS = (CAPACITY + gl_WorkGroupSize.x - 1u) / gl_WorkGroupSize.x;
// Slots of a run compared unrolled: runs hold one or two on average (at most 2048 labels for
// groups of about 4096), and more than four about one in 20 (six: one in 200, no faster).
const uint WINDOW = 4;
// Slot q's word while ranking: 16 key bits, then the position. Then the elements in output
// order (8-byte elements: their first words; the second in s_tag).
shared uint s_slot[CAPACITY];
// Element p's (label, 16 key bits), then its output position.
shared uint s_tag[CAPACITY];
shared uint s_start[LABELS];  // counts, then run starts, then (after placing) run ends
shared uint s_sums[256];      // the scan's per-subgroup sums (WG <= 1024, width >= 4)
#include "common/workgroup.glsl"

// The draw serving elements k, k + m4, k + 2 m4 and k + 3 m4.
uvec4 draw_quad(uint g, uint k, uvec2 key) { return philox4x32(uvec4(g, k, 2u, 0u), key); }
uint draw_w0(uint g, uint p, uint m4, uvec2 key) { return draw_quad(g, p % m4, key)[p / m4]; }
uint draw_w1(uint g, uint p, uvec2 key) { return philox4x32(uvec4(g, p, 3u, 0u), key).x; }
// Element p's key words (w0, w1).
uvec2 draw(uint g, uint p, uint m4, uvec2 key) { return uvec2(draw_w0(g, p, m4, key), draw_w1(g, p, key)); }
uint label_of(uint w0) { return w0 >> (32u - LABEL_BITS); }
// The 16 bits of w0 below the label, kept beside the position while ranking.
uint tag_bits(uint w0) { return FULL_COMPARE != 0u ? 0u : (w0 << LABEL_BITS) >> 16; }
// Element po (key wo) goes before element p (key w) of the same label's run.
bool precedes(uvec2 wo, uint po, uvec2 w, uint p) {
    if (wo.x != w.x) return wo.x < w.x;
    if (wo.y != w.y) return wo.y < w.y;
    return po < p;
}
uint run_start(uint l) { return l == 0u ? 0u : s_start[l - 1u]; }

void main() {
    uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (g >= pc.groups) return;
    uint t = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x;
    uint start = pc.groups == 1u ? 0u : bounds[g];
    uint m = (pc.groups == 1u ? pc.n : bounds[g + 1u]) - start;
    if (m < 2u) {
        if (m == 1u && t == 0u) dst[start] = src[start];
        return;
    }
    bool local_group = m <= CAPACITY;
    for (uint l = t; l < LABELS; l += wg) s_start[l] = 0u;
    barrier();
    uvec2 key = uvec2(pc.seed.x, pc.seed.y ^ 0x5EED5EEDu);

    // 1. Labels and their counts (one draw for four elements); in shared memory each
    // element's (label, 16 key bits) are kept, else they are drawn again.
    uint m4 = (m + 3u) / 4u;
    for (uint k = t; k < m4; k += wg) {
        uvec4 d = draw_quad(g, k, key);
        [[unroll]] for (uint h = 0u; h < 4u; ++h) {
            uint p = k + h * m4;
            uint w = d[h];
            if (p < m) {
                atomicAdd(s_start[label_of(w)], 1u);
                if (local_group) s_tag[p] = (label_of(w) << 16) | tag_bits(w);
            }
        }
    }
    barrier();
    // Exclusive scan of the counts: thread t takes a contiguous range of labels.
    uint per = (LABELS + wg - 1u) / wg;
    uint first = min(t * per, LABELS), last = min(first + per, LABELS);
    uint mine = 0u;
    for (uint l = first; l < last; ++l) mine += s_start[l];
    uint before = workgroup_exclusive_add(mine);
    for (uint l = first; l < last; ++l) {
        uint c = s_start[l];
        s_start[l] = before;
        before += c;
    }
    barrier();

    if (local_group) {
        // Place: a slot in the label's run (s_start[l] ends as the run's end).
        for (uint p = t; p < m; p += wg) {
            uint tag = s_tag[p];
            s_slot[atomicAdd(s_start[tag >> 16], 1u)] = (tag << 16) | p;
        }
        barrier();
        // 2. Rank each slot within its run: its element's output position replaces its tag. A
        // tie of the 16 stored bits (rare) compares the full keys in a second walk of the run.
        for (uint q = t; q < m; q += wg) {
            uint w = s_slot[q], p = w & 0xFFFFu, h = w >> 16;
            uint l = s_tag[p] >> 16, b = run_start(l), e = s_start[l];
            // Slots of the run below (rank) and at most (le, itself included) its 16 bits: a
            // tie when le counts another.
            uint rank = 0u, le = 0u;
            [[unroll]] for (uint d = 0u; d < WINDOW; ++d) {
                uint qo = b + d, ho = s_slot[min(qo, CAPACITY - 1u)] >> 16;
                rank += qo < e && ho < h ? 1u : 0u;
                le += qo < e && ho <= h ? 1u : 0u;
            }
            for (uint qo = b + WINDOW; qo < e; ++qo) {
                uint ho = s_slot[qo] >> 16;
                rank += ho < h ? 1u : 0u;
                le += ho <= h ? 1u : 0u;
            }
            if (le > rank + 1u) {
                uvec2 mine = draw(g, p, m4, key);
                rank = 0u;
                for (uint qo = b; qo < e; ++qo) {
                    uint wo = s_slot[qo], po = wo & 0xFFFFu, ho = wo >> 16;
                    if (ho < h || (ho == h && qo != q && precedes(draw(g, po, m4, key), po, mine, p))) rank += 1u;
                }
            }
            s_tag[p] = b + rank;
        }
        barrier();
        // 3. The elements staged in output order, then stored coalesced.
        VAL v[ITEMS];
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j)
            if (j * wg + t < m) v[j] = src[start + j * wg + t];
#if VALUE_WORDS == 2
        uint at[ITEMS];  // s_tag is overwritten by the second words: read the positions first
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j) at[j] = j * wg + t < m ? s_tag[j * wg + t] : 0u;
        barrier();
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j) {
            if (j * wg + t < m) {
                s_slot[at[j]] = v[j].x;
                s_tag[at[j]] = v[j].y;
            }
        }
        barrier();
        for (uint q = t; q < m; q += wg) dst[start + q] = uvec2(s_slot[q], s_tag[q]);
#else
        [[unroll]] for (uint j = 0u; j < ITEMS; ++j)
            if (j * wg + t < m) s_slot[s_tag[j * wg + t]] = v[j];
        barrier();
        for (uint q = t; q < m; q += wg) dst[start + q] = s_slot[q];
#endif
        return;
    }

    // Overflow: slot q of the group holds its position in tmp_pos and its w0 in the ids' word
    // (the ids are dead once the bounds are known).
    for (uint p = t; p < m; p += wg) {
        uint w0 = draw_w0(g, p, m4, key);
        uint q = atomicAdd(s_start[label_of(w0)], 1u);
        tmp_pos[start + q] = p;
        ids[start + q] = FULL_COMPARE != 0u ? 0u : w0;
    }
    memoryBarrierBuffer();
    barrier();
    for (uint q = t; q < m; q += wg) {
        uint p = tmp_pos[start + q];
        uint w0 = draw_w0(g, p, m4, key);
        uint l = label_of(w0), b = run_start(l), e = s_start[l];
        uint rank = 0u, y = FULL_COMPARE != 0u ? 0u : w0;
        for (uint qo = b; qo < e; ++qo) {
            uint yo = ids[start + qo];
            if (yo < y) {
                rank += 1u;
            } else if (yo == y && qo != q) {
                uint po = tmp_pos[start + qo];
                if (precedes(draw(g, po, m4, key), po, uvec2(w0, draw_w1(g, p, key)), p)) rank += 1u;
            }
        }
        dst[start + b + rank] = src[start + p];
    }
}
