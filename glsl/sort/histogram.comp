#version 460
// Upfront histogram of every digit pass at once (OneSweep): G workgroups stride over the keys
// in chunks of WG * HIST_ITEMS,
// count each pass's digits in shared memory, then add their counts to the global histogram.
// CPU twin: src/prims/sort.rs (reference_histogram).
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint KEY_KIND = 0;
layout(constant_id = 2) const uint DESCENDING = 0;
#include "sort/sort_keys.glsl"
#include "sort/hist_layout.glsl"

layout(push_constant) uniform Params { uint n; uint lo; uint passes; uint last_bits; } pc;
layout(set = 0, binding = 0, std430) readonly buffer Keys { KEY keys[]; };
// Counts into this workgroup's copy (sort/hist_layout.glsl).
layout(set = 0, binding = 1, std430) buffer Hist { uint hist[]; };

shared uint s_hist[MAX_PASSES * 256];

// Keys per lane per round, loaded before any is counted: enough loads in flight to keep
// device memory busy (a load-then-count loop left the H200 at a fraction of its bandwidth).
const uint HIST_ITEMS = 16;

void main() {
    uint lid = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x;
    for (uint i = lid; i < pc.passes * 256u; i += wg) s_hist[i] = 0u;
    barrier();
    uint chunk = wg * HIST_ITEMS;
    for (uint base = gl_WorkGroupID.x * chunk; base < pc.n; base += gl_NumWorkGroups.x * chunk) {
        KEY k[HIST_ITEMS];
        [[unroll]] for (uint j = 0u; j < HIST_ITEMS; ++j) {
            uint i = base + j * wg + lid;
            k[j] = i < pc.n ? keys[i] : KEY(0);
        }
        // Unrolled over passes too (bounded by MAX_PASSES), so the digit extractions and the
        // shared atomics of a key are independent instructions, not a loop.
        [[unroll]] for (uint j = 0u; j < HIST_ITEMS; ++j) {
            if (base + j * wg + lid < pc.n) {
                [[unroll]] for (uint p = 0u; p < MAX_PASSES; ++p) {
                    if (p < pc.passes) {
                        uint bits = p + 1u == pc.passes ? pc.last_bits : 8u;
                        atomicAdd(s_hist[p * 256u + digit_of(k[j], pc.lo + 8u * p, bits)], 1u);
                    }
                }
            }
        }
    }
    barrier();
    uint copy = hist_copy(gl_WorkGroupID.x);
    for (uint i = lid; i < pc.passes * 256u; i += wg) {
        uint c = s_hist[i];
        if (c != 0u) atomicAdd(hist[copy + i], c);
    }
}
