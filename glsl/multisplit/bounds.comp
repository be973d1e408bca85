#version 460
// A split into more than 256 buckets, last step where the offsets are asked for: offset b
// (0..B) is where bucket b starts in the sorted buckets, a binary search for the first
// position whose bucket is >= b (offset B: n). Each offset is written once by its own
// invocation: no histogram, no atomics, no scan (counting 2^26 keys into 4,096 buckets with
// global atomics took 1.9 ms on the H200, two thirds of the split), and no invocation walks a
// run of empty buckets (llvmpipe cuts a loop at 65,535 trips). The permutation of indices
// searches its groups' starts the same way, drawing each probe's group
// (perm/bounds_search.comp).
// CPU twin: src/prims/multisplit.rs (reference).
layout(local_size_x = 256) in;
layout(constant_id = 1) const uint KEY_KIND = 0;  // (constant 0: the workgroup size, fixed at 256)
layout(constant_id = 2) const uint DESCENDING = 0;
layout(constant_id = 3) const uint SORTED_IDS = 0;  // 0: a bit field of the sorted raw keys; 1: sorted bucket ids
#include "sort/sort_keys.glsl"

layout(push_constant) uniform Params { uint n; uint shift; uint bits; uint buckets; } pc;
layout(set = 0, binding = 0, std430) readonly buffer Keys { KEY keys[]; };
layout(set = 0, binding = 0, std430) readonly buffer Ids { uint ids[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Offsets { uint offsets[]; };

uint bucket_at(uint i) {
    return SORTED_IDS != 0u ? ids[i] : uint(keys[i] >> pc.shift) & ((1u << pc.bits) - 1u);
}

void main() {
    uint b = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationIndex;
    if (b > pc.buckets) return;
    uint lo = 0u, hi = pc.n;
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2u;
        if (bucket_at(mid) < b) lo = mid + 1u; else hi = mid;
    }
    offsets[b] = lo;
}
