// The upfront histogram buffer of the sort and the one-pass multisplit (CPU side:
// prims::binning::UPFRONT_HIST_BYTES): at the front each pass's 256 digit offsets
// (offsets.comp), then a "trivial pass" flag per pass, then HIST_COPIES copies of every
// pass's 256 counters, each copy in its own cache lines. Histogram workgroup g adds into copy
// g % HIST_COPIES: atomics on one cache line from thousands of workgroups serialise in the
// L2 (2048 workgroups on one copy took 75 us at 2^22 keys on the H200, for 16 MB read).
#ifndef HIST_LAYOUT_GLSL
#define HIST_LAYOUT_GLSL
const uint MAX_PASSES = 8;
const uint HIST_COPIES = 16;
const uint HIST_FLAGS = MAX_PASSES * 256u;         // flag of pass p at HIST_FLAGS + p
const uint HIST_COPY_BASE = MAX_PASSES * 256u + 32u;  // copy k, pass p: + (k * MAX_PASSES + p) * 256
uint hist_copy(uint group) { return HIST_COPY_BASE + (group % HIST_COPIES) * MAX_PASSES * 256u; }
#endif
