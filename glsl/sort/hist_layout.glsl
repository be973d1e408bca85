// The upfront histogram buffer of the sort and the one-pass multisplit (CPU side:
// prims::binning::UPFRONT_HIST_BYTES): at the front each pass's 256 digit offsets (from
// offsets.comp, or the pass's tile 0: sort/binning.glsl, FOLD), then a "trivial pass" flag per
// pass (offsets.comp), each pass's digit span (two words, sort/hist_span.glsl), then
// HIST_COPIES copies of every pass's 256 counters, each copy in its own cache lines. Histogram workgroup g adds into copy
// g % HIST_COPIES: atomics on one cache line from thousands of workgroups serialise in the
// L2 (2048 workgroups on one copy took 75 us at 2^22 keys on the H200, for 16 MB read).
#ifndef HIST_LAYOUT_GLSL
#define HIST_LAYOUT_GLSL
const uint MAX_PASSES = 8;
const uint HIST_COPIES = 16;
// Pass p's span: HIST_SPAN + 2p holds 1 + its largest digit, HIST_SPAN + 2p + 1 holds 256 -
// its smallest (0 where nothing was counted, as a caller that counts the copies itself leaves
// them: such passes are never trivial).
const uint HIST_FLAGS = MAX_PASSES * 256u;         // flag of pass p at HIST_FLAGS + p
const uint HIST_SPAN = HIST_FLAGS + MAX_PASSES;
const uint HIST_COPY_BASE = MAX_PASSES * 256u + 32u;  // copy k, pass p: + (k * MAX_PASSES + p) * 256
uint hist_copy(uint group) { return HIST_COPY_BASE + (group % HIST_COPIES) * MAX_PASSES * 256u; }
#endif
