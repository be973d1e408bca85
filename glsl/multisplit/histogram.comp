#version 460
// Bucket histogram of a one-pass multisplit (up to 256 buckets): workgroups stride over the
// elements, count in shared memory, then add into the workgroup's copy of the counters
// (sort/hist_layout.glsl) and raise the bucket span (sort/hist_span.glsl). A composed split
// takes its offsets from the sorted buckets instead (multisplit/bounds.comp).
// CPU twin: src/prims/multisplit.rs (reference).
#include "common/subgroup.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint KEY_KIND = 0;
layout(constant_id = 2) const uint DESCENDING = 0;
layout(constant_id = 3) const uint SOURCE = 0;
// (constant 4: unused)
#include "sort/sort_keys.glsl"
#include "sort/hist_layout.glsl"

layout(push_constant) uniform Params { uint n; uint shift; uint bits; uint buckets; } pc;
layout(set = 0, binding = 0, std430) readonly buffer Keys { KEY keys[]; };
layout(set = 0, binding = 1, std430) buffer Hist { uint hist[]; };
layout(set = 0, binding = 2, std430) readonly buffer AuxIds { uint aux_ids[]; };
layout(set = 0, binding = 2, std430) readonly buffer AuxSplit { KEY aux_splitters[]; };
#include "multisplit/buckets.glsl"

shared uint s_hist[256];
#include "sort/hist_span.glsl"

// Elements per lane per round, loaded before any is counted (memory-level parallelism, as in
// sort/histogram.comp).
const uint HIST_ITEMS = 16;

void main() {
    uint lid = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x;
    for (uint i = lid; i < 256u; i += wg) s_hist[i] = 0u;
    span_zero();
    barrier();
    uint chunk = wg * HIST_ITEMS;
    for (uint base = gl_WorkGroupID.x * chunk; base < pc.n; base += gl_NumWorkGroups.x * chunk) {
        uint b[HIST_ITEMS];
        [[unroll]] for (uint j = 0u; j < HIST_ITEMS; ++j) {
            uint i = base + j * wg + lid;
            b[j] = i < pc.n ? bucket_from(i, keys[i]) : 0u;
        }
        [[unroll]] for (uint j = 0u; j < HIST_ITEMS; ++j)
            if (base + j * wg + lid < pc.n) atomicAdd(s_hist[b[j]], 1u);
    }
    barrier();
    uint copy = hist_copy(gl_WorkGroupID.x);
    if (SPAN == 0u) {
        for (uint i = lid; i < pc.buckets; i += wg) {
            uint c = s_hist[i];
            if (c != 0u) atomicAdd(hist[copy + i], c);
        }
        return;
    }
    uint hi = 0u, lo = 0u;
    for (uint i = lid; i < pc.buckets; i += wg) {
        uint c = s_hist[i];
        if (c != 0u) {
            atomicAdd(hist[copy + i], c);
            hi = max(hi, i + 1u);
            lo = max(lo, 256u - i);
        }
    }
    span_note(0u, hi, lo);
    span_raise(1u);
}
