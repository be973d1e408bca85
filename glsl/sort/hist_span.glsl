// The histogram kernels' part of each pass's digit span (sort/hist_layout.glsl, HIST_SPAN):
// every workgroup notes the largest and smallest digit it counted per pass, one subgroup
// atomic each into shared words, and raises the global span words with one atomicMax per word
// (not per counter: the words are shared by every workgroup). A pass whose span is one digit
// is trivial: the binning pass copies (sort/binning.glsl, pass_is_trivial).
// Needs common/subgroup.glsl, hist_layout.glsl and the buffer `hist`; the includer leaves
// constant_id 5 free.
#ifndef HIST_SPAN_GLSL
#define HIST_SPAN_GLSL
// 1: raise the spans (some pass folds, BinningPolicy::fold_max_tiles). 0: the kernel adds its
// counts only, as before the spans (the offsets kernel flags trivial passes; H200, u64 keys at
// 2^22: 0.8% faster than with the spans, session25/2-fold-variants).
layout(constant_id = 5) const uint SPAN = 0;
shared uint s_span[2u * MAX_PASSES];

// Before the kernel's first barrier.
void span_zero() {
    if (SPAN != 0u) for (uint i = gl_LocalInvocationIndex; i < 2u * MAX_PASSES; i += gl_WorkGroupSize.x) s_span[i] = 0u;
}
// This invocation's digits of pass p: hi = 1 + the largest counted, lo = 256 - the smallest
// (0: none); every invocation calls it (subgroup operations).
void span_note(uint p, uint hi, uint lo) {
    hi = subgroupMax(hi);
    lo = subgroupMax(lo);
    if (subgroupElect()) {
        if (hi != 0u) atomicMax(s_span[2u * p], hi);
        if (lo != 0u) atomicMax(s_span[2u * p + 1u], lo);
    }
}
// After every span_note: the workgroup's span into the global words.
void span_raise(uint passes) {
    barrier();
    uint i = gl_LocalInvocationIndex;
    if (i < 2u * passes && s_span[i] != 0u) atomicMax(hist[HIST_SPAN + i], s_span[i]);
}
#endif
