#version 460
// One OneSweep digit pass of the radix sort: the shared binning pass (sort/binning.glsl)
// with the key's digit as the bucket. CPU twin: src/prims/sort.rs (reference).
// PERM_IDS (32-bit keys alone): a pass of the permutation of indices (src/prims/perm.rs).
// The keys are element indices (in pass 0 implicit: element i is i), and the bucket is a
// digit of the element's group id: in pass 0 read from the ids, later drawn again from
// Philox as perm/group_ids.comp draws it, so the ids are never moved.
#include "common/subgroup.glsl"
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ITEMS = 8;                 // keys per lane per tile
layout(constant_id = 2) const uint KEY_KIND = 0;
layout(constant_id = 3) const uint DESCENDING = 0;
layout(constant_id = 4) const uint FORCE_FALLBACK_PERIOD = 0; // debug: >= 2 forces fallback
layout(constant_id = 5) const uint SPIN_LIMIT = 64;           // look-back rounds before fallback
#include "sort/sort_keys.glsl"

#ifdef PERM_IDS
#include "common/philox.glsl"
layout(push_constant) uniform Params {
    uint n; uint num_tiles; uint shift; uint bits; uint pass_index;
    uint groups; uvec2 seed; uint threshold;  // threshold: (0 - groups) % groups
} pc;
#else
layout(push_constant) uniform Params { uint n; uint num_tiles; uint shift; uint bits; uint pass_index; } pc;
#endif
layout(set = 0, binding = 0, std430) readonly buffer KeysIn { KEY keys_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer KeysOut { KEY keys_out[]; };
layout(set = 0, binding = 2, std430) readonly buffer ValsIn { VAL vals_in[]; };
layout(set = 0, binding = 3, std430) writeonly buffer ValsOut { VAL vals_out[]; };
// Digit offsets of every pass (offsets.comp), then one "trivial pass" flag per pass
// (sort/hist_layout.glsl).
layout(set = 0, binding = 4, std430) readonly buffer Offsets { uint offsets[]; };
// state[0]: tile ticket; state[1]: fallbacks (debug counter); state[4 + 256 t + d]: tile t's
// look-back word for digit d.
layout(set = 0, binding = 5, std430) coherent buffer State { uint state[]; };

#include "sort/hist_layout.glsl"

#ifdef PERM_IDS
// Pass 0: the keys are implicit (element i is i) and the group ids are read from keys_in
// (perm/group_ids.comp wrote them, at no extra cost: that kernel is bound by its draws);
// later passes draw each key's group again.
KEY key_at(uint i) { return pc.pass_index == 0u ? i : keys_in[i]; }
uint bucket_of(uint index, KEY key) {
    uint id = pc.pass_index == 0u ? keys_in[index] : perm_group(key, pc.groups, pc.threshold, pc.seed);
    return (id >> pc.shift) & ((1u << pc.bits) - 1u);
}
// The scatter finds a position's bucket from the bucket starts rather than drawing again.
bool bucket_is_key_function() { return false; }
bool bucket_is_slow() { return pc.pass_index != 0u; }
#else
KEY key_at(uint i) { return keys_in[i]; }
uint bucket_of(uint index, KEY key) { return digit_of(key, pc.shift, pc.bits); }
bool bucket_is_key_function() { return true; }
bool bucket_is_slow() { return false; }
#endif
uint bucket_bits() { return pc.bits; }
uint bucket_base(uint b) { return offsets[pc.pass_index * 256u + b]; }
bool pass_is_trivial() { return offsets[HIST_FLAGS + pc.pass_index] != 0u; }

#include "sort/binning.glsl"

void main() { binning_pass(); }
