#version 460
// Stable multisplit into at most 256 buckets: the shared binning pass (sort/binning.glsl)
// with the bucket from a bit field, a bucket-id array or splitters (multisplit/buckets.glsl).
// CPU twin: src/prims/multisplit.rs (reference).
#include "common/subgroup.glsl"
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ITEMS = 8;
layout(constant_id = 2) const uint KEY_KIND = 0;
layout(constant_id = 3) const uint DESCENDING = 0;
layout(constant_id = 4) const uint FORCE_FALLBACK_PERIOD = 0;
layout(constant_id = 5) const uint SPIN_LIMIT = 64;
layout(constant_id = 6) const uint SOURCE = 0;
#include "sort/sort_keys.glsl"

layout(push_constant) uniform Params { uint n; uint num_tiles; uint shift; uint bits; uint buckets; } pc;
layout(set = 0, binding = 0, std430) readonly buffer KeysIn { KEY keys_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer KeysOut { KEY keys_out[]; };
layout(set = 0, binding = 2, std430) readonly buffer ValsIn { VAL vals_in[]; };
layout(set = 0, binding = 3, std430) writeonly buffer ValsOut { VAL vals_out[]; };
// The upfront histogram buffer (sort/hist_layout.glsl, pass 0): the bucket offsets, span and
// counters; read-only but for the offsets, which tile 0 writes (offsets_out).
layout(set = 0, binding = 4, std430) readonly buffer Offsets { uint offsets[]; };
#ifdef FOLD
layout(set = 0, binding = 4, std430) writeonly buffer OffsetsOut { uint offsets_out[]; };
#endif
layout(set = 0, binding = 5, std430) coherent buffer State { uint state[]; };
layout(set = 0, binding = 6, std430) readonly buffer AuxIds { uint aux_ids[]; };
layout(set = 0, binding = 6, std430) readonly buffer AuxSplit { KEY aux_splitters[]; };
#include "multisplit/buckets.glsl"

#include "sort/hist_layout.glsl"

uint bucket_of(uint index, KEY key) { return bucket_from(index, key); }
bool bucket_is_key_function() { return SOURCE == 0u; }
KEY key_in(uint i) { return keys_in[i]; }
void key_out(uint i, KEY k) { keys_out[i] = k; }
VAL val_at(uint i) { return vals_in[i]; }
void val_out(uint i, VAL v) { vals_out[i] = v; }
bool pass_writes_keys() { return true; }
// Bits that tell the buckets apart: ceil(log2(buckets)).
uint bucket_bits() { return pc.buckets <= 1u ? 0u : uint(findMSB(pc.buckets - 1u)) + 1u; }
uint hist_pass() { return 0u; }

#include "sort/binning.glsl"

void main() { binning_pass(); }
