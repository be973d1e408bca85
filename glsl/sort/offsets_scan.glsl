// The digit offsets of counted passes (layout: sort/hist_layout.glsl): each pass's counter
// copies summed, then exclusively scanned into the pass's 256 offsets at the front of the
// histogram buffer, and the pass flagged trivial where one digit holds every key. One
// workgroup does it: offsets.comp (one per pass) for a caller that counted the digits
// itself, else the last workgroup of the kernel that counted them (offsets_if_last), which
// saves the sort, the multisplit and the permutation a dispatch and a barrier.
// The includer declares the histogram buffer `hist` and `shared uint s_hist[]` with at least
// 256 words per pass scanned (overwritten), and enables GL_KHR_memory_scope_semantics.
#ifndef OFFSETS_SCAN_GLSL
#define OFFSETS_SCAN_GLSL
#include "sort/hist_layout.glsl"

shared uint s_chunk[MAX_PASSES * 16u];  // sums of 16 digits' counts
shared bool s_last;

// Passes first .. first + count - 1 of n keys; the whole workgroup calls it.
void scan_digit_offsets(uint first, uint count, uint n) {
    uint lid = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x;
    barrier();  // s_hist is free
    for (uint i = lid; i < count * 256u; i += wg) {
        uint at = first * 256u + i, c = 0u;
        // Atomic loads: the counts were added with device atomics by other workgroups.
        [[unroll]] for (uint k = 0u; k < HIST_COPIES; ++k)
            c += atomicLoad(hist[hist_copy(k) + at], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
        s_hist[i] = c;
        if (c == n) atomicMax(hist[HIST_FLAGS + first + i / 256u], 1u);
    }
    barrier();
    // Two levels, for any workgroup size: 16 chunks of 16 digits a pass.
    for (uint t = lid; t < count * 16u; t += wg) {
        uint s = 0u;
        for (uint d = 0u; d < 16u; ++d) s += s_hist[16u * t + d];
        s_chunk[t] = s;
    }
    barrier();
    for (uint t = lid; t < count * 16u; t += wg) {
        uint run = 0u;
        for (uint c = t & ~15u; c < t; ++c) run += s_chunk[c];
        for (uint d = 0u; d < 16u; ++d) {
            uint i = 16u * t + d, c = s_hist[i];
            hist[first * 256u + i] = run;
            run += c;
        }
    }
}

// Every invocation of every workgroup of the counting kernel, once its counts are added: the
// workgroup that finishes last scans passes 0 .. count - 1.
void offsets_if_last(uint count, uint n) {
    // Release this workgroup's count atomics before its arrival is counted; the last
    // workgroup's acquire then sees every workgroup's counts.
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
    if (gl_LocalInvocationIndex == 0u) {
        uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumWorkGroups.z;
        s_last = atomicAdd(hist[HIST_DONE], 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease) == groups - 1u;
    }
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
    if (s_last) scan_digit_offsets(0u, count, n);
}
#endif
