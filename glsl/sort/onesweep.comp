#version 460
// One OneSweep digit pass of the radix sort: the shared binning pass (sort/binning.glsl)
// with the key's digit as the bucket. CPU twin: src/prims/sort.rs (reference).
// PERM_IDS (32-bit keys, 4-byte values): a pass of the permutation of indices
// (src/prims/perm.rs): the keys are group ids, the values element indices, implicit in the
// first pass (no input array is read); the last pass writes the indices alone. NARROW (with
// PERM_IDS, two passes over ids below 2^16): the first pass writes each id's high byte alone,
// the last pass's digit, and the last pass reads those bytes (a key moves 1 byte, not 4, each
// way).
// SPLIT_PAYLOAD (32-bit keys, 8-byte values): the first pass reads each value from two arrays
// of words, the last writes it to two (role bits 6 and 7, at val_at below).
// PACKED_PAIRS (4-byte keys with 4-byte values, built as 8-byte keys alone): each element one
// 8-byte word, the key low; the first pass packs them (role bit 8, at key_in below).
// UNPACK_PAIRS (4-byte keys with 4-byte values): the last pass of packed pairs, whose keys
// and values are the low and high words of its input words.
#ifdef NARROW
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#endif
#include "common/subgroup.glsl"
#extension GL_KHR_memory_scope_semantics : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ITEMS = 8;                 // keys per lane per tile
layout(constant_id = 2) const uint KEY_KIND = 0;
layout(constant_id = 3) const uint DESCENDING = 0;
layout(constant_id = 4) const uint FORCE_FALLBACK_PERIOD = 0; // debug: >= 2 forces fallback
layout(constant_id = 5) const uint SPIN_LIMIT = 64;           // look-back rounds before fallback
#include "sort/sort_keys.glsl"

// The pass's digit is bits shift.. of the order key, `bits` of them; lo is the sort's lowest
// bit (the first pass's shift).
layout(push_constant) uniform Params { uint n; uint num_tiles; uint shift; uint bits; uint pass_index; uint lo; } pc;
layout(set = 0, binding = 0, std430) readonly buffer KeysIn { KEY keys_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer KeysOut { KEY keys_out[]; };
layout(set = 0, binding = 2, std430) readonly buffer ValsIn { VAL vals_in[]; };
layout(set = 0, binding = 3, std430) writeonly buffer ValsOut { VAL vals_out[]; };
// The upfront histogram buffer (sort/hist_layout.glsl): every pass's digit offsets, spans and
// counters; read-only but for the pass's offsets, which its tile 0 writes (offsets_out).
layout(set = 0, binding = 4, std430) readonly buffer Offsets { uint offsets[]; };
#ifdef FOLD
layout(set = 0, binding = 4, std430) writeonly buffer OffsetsOut { uint offsets_out[]; };
#endif
// state[0]: tile ticket; state[1]: fallbacks (debug counter); state[4 + 256 t + d]: tile t's
// look-back word for digit d.
layout(set = 0, binding = 5, std430) coherent buffer State { uint state[]; };

#include "sort/hist_layout.glsl"

// The pass's role, a pipeline each (run-time branches cost the H200 two registers, and with
// them half its workgroups). Bit 2, class rounds: atomic ranking, class by class, the classes
// being the previous pass's buckets (src/prims/sort.rs sets it only where LSD order needs no
// more: a sort's second pass over keys alone, where equal low digits and equal pass digit
// leave nothing to order that a later pass or the output could show; the permutation's last
// pass after its first, where equal ids are one group, shuffled after).
layout(constant_id = 15) const uint PASS_ROLE = 0;
#define CLASS_ROUNDS
bool class_rounds() { return (PASS_ROLE & 4u) != 0u; }
// Bit 4, byte digits: each pass of the pipeline takes a whole 8-bit digit, so the digit's
// mask is a constant (the H200's compiler otherwise rebuilt (1 << bits) - 1 in every scatter
// round: bench/results/h200/binning/session30). 8-byte keys take the digit from digit_of, whose
// bit count folds to 8 once specialised, with the order key's XOR on the digit alone
// (sort/sort_keys.glsl; session31); 4-byte keys keep the form measured in session 30.
// The digit's bits: a constant for byte digits (so ballot matching's loop over them, too,
// unrolls without a test a bit).
uint bucket_bits() { return (PASS_ROLE & 16u) != 0u ? 8u : pc.bits; }
uint bucket_of(uint index, KEY key) {
#if KEY64
    return digit_of(key, pc.shift, bucket_bits());
#else
    return (PASS_ROLE & 16u) != 0u ? uint(order_key(key) >> pc.shift) & 0xFFu : digit_of(key, pc.shift, pc.bits);
#endif
}
bool bucket_is_key_function() { return true; }
// Where the previous pass's bucket b starts in its output (its digit offsets).
uint class_start(uint b) { return offsets[(pc.pass_index - 1u) * 256u + b]; }
// Bit 5, class steps: stable ranking whose input is in order of the digits below this pass's
// (every earlier pass kept LSD order), where the order of elements equal in those digits and
// this one cannot show (src/prims/sort.rs sets it for keys alone). A subgroup's run of the
// tile (consecutive elements) whose keys all share those lower digits then ranks with one
// shared atomicAdd an element, in any order (sort/binning_rank.glsl, rank_steps); the
// other runs match peers step by step as a stable pass does.
#define CLASS_STEPS
bool class_steps() { return (PASS_ROLE & 32u) != 0u; }
// Whether keys a and b agree in the digits of every earlier pass (their order keys' bits from
// the first pass's shift up to this pass's).
bool same_class(KEY a, KEY b) {
    KEY x = (order_key(a) ^ order_key(b)) & ((KEY(1) << pc.shift) - KEY(1));
    return (x >> pc.lo) == KEY(0);
}
#ifdef PERM_IDS
// Permutation roles: bit 0, the first pass: the values are implicit (element i is i); bit 1,
// the last pass: the keys are not written (the bounds come from a search).
VAL val_at(uint i) { return (PASS_ROLE & 1u) != 0u ? i : vals_in[i]; }
bool pass_writes_keys() { return (PASS_ROLE & 2u) == 0u; }
// Bit 3, one plane: the tile is staged as one word an element, not two, so twice the elements
// fit shared memory (src/prims/binning.rs sizes the tile): the first pass (ids below 2^16)
// packs the id and the element's index in the tile, (id << 16) | (i - first); the last pass
// (bit 1 without bit 0) stages the value alone and finds a position's bucket from the tile's
// bucket starts (sort/binning.glsl, s_blk).
#define ONE_PLANE
const uint ONE_PLANE_ON = (PASS_ROLE >> 3) & 1u;
bool one_plane() { return ONE_PLANE_ON != 0u; }
bool plane_has_key() { return (PASS_ROLE & 1u) != 0u; }
uint plane_word(uint first, uint i, KEY k) { return plane_has_key() ? (k << 16) | (i - first) : vals_in[i]; }
KEY plane_key(uint w) { return w >> 16; }
void key_out(uint i, KEY k);
void plane_scatter(uint dst, uint first, uint w) {
    if (!plane_has_key()) {
        vals_out[dst] = w;
        return;
    }
    if (pass_writes_keys()) key_out(dst, w >> 16);
    vals_out[dst] = first + (w & 0xFFFFu);
}
#elif defined(SPLIT_PAYLOAD)
// SPLIT_PAYLOAD (32-bit keys, 8-byte values: the composed multisplit's sort of (bucket id,
// (key, value)) pairs, src/prims/multisplit.rs): bit 6, the first pass reads a value's two
// words from two arrays, binding 2's and binding 6's (the split's keys and values); bit 7,
// the last pass writes them to binding 3's and binding 7's. No pass packs or unpacks them.
layout(set = 0, binding = 2, std430) readonly buffer ValsInLo { uint vals_in_lo[]; };
layout(set = 0, binding = 6, std430) readonly buffer ValsInHi { uint vals_in_hi[]; };
layout(set = 0, binding = 3, std430) writeonly buffer ValsOutLo { uint vals_out_lo[]; };
layout(set = 0, binding = 7, std430) writeonly buffer ValsOutHi { uint vals_out_hi[]; };
VAL val_at(uint i) { return (PASS_ROLE & 64u) != 0u ? uvec2(vals_in_lo[i], vals_in_hi[i]) : vals_in[i]; }
void val_out(uint i, VAL v) {
    if ((PASS_ROLE & 128u) == 0u) {
        vals_out[i] = v;
        return;
    }
    vals_out_lo[i] = v.x;
    vals_out_hi[i] = v.y;
}
bool pass_writes_keys() { return true; }
#elif defined(PACKED_PAIRS)
// PACKED_PAIRS (KEY64 = 1, VALUE_WORDS = 0: a sort of 4-byte keys with 4-byte values whose
// element is one 8-byte word, the key low and the value high, sort/sort_keys.glsl). A tile's
// run of a bucket is then one stretch of the output, not one of keys and one of values, and
// each element one 8-byte load and store. Bit 8, the first pass: the key and value come from
// two arrays of words (bindings 0 and 2). The last pass is UNPACK_PAIRS's (src/prims/sort.rs).
layout(set = 0, binding = 0, std430) readonly buffer KeysIn32 { uint keys_in32[]; };
VAL val_at(uint i) { return 0u; }
bool pass_writes_keys() { return true; }
#elif defined(UNPACK_PAIRS)
// UNPACK_PAIRS (KEY64 = 0, VALUE_WORDS = 1): packed pairs' last pass, a pass of 4-byte pairs
// (planes in sequence) whose input is the words of PACKED_PAIRS (binding 0): the value is
// read in the value round, from the words the key's read brought into the cache.
layout(set = 0, binding = 0, std430) readonly buffer WordsIn { uvec2 words_in[]; };
VAL val_at(uint i) { return words_in[i].y; }
bool pass_writes_keys() { return true; }
#else
VAL val_at(uint i) { return vals_in[i]; }
bool pass_writes_keys() { return true; }
#endif
#ifndef SPLIT_PAYLOAD
void val_out(uint i, VAL v) { vals_out[i] = v; }
#endif
#ifdef NARROW
// The same bindings as bytes.
layout(set = 0, binding = 0, std430) readonly buffer KeysIn8 { uint8_t keys_in8[]; };
layout(set = 0, binding = 1, std430) writeonly buffer KeysOut8 { uint8_t keys_out8[]; };
// The last pass (not the first) reads the high bytes back in place (its shift is 8).
KEY key_in(uint i) { return (PASS_ROLE & 3u) == 2u ? uint(keys_in8[i]) << 8 : keys_in[i]; }
// The first pass (not the last) writes the high bytes.
void key_out(uint i, KEY k) {
    if ((PASS_ROLE & 3u) == 1u) keys_out8[i] = uint8_t(k >> 8);
    else keys_out[i] = k;
}
#elif defined(PACKED_PAIRS)
KEY key_in(uint i) { return (PASS_ROLE & 256u) != 0u ? KEY(keys_in32[i]) | (KEY(vals_in[i]) << 32) : keys_in[i]; }
void key_out(uint i, KEY k) { keys_out[i] = k; }
#elif defined(UNPACK_PAIRS)
KEY key_in(uint i) { return words_in[i].x; }
void key_out(uint i, KEY k) { keys_out[i] = k; }
#else
KEY key_in(uint i) { return keys_in[i]; }
void key_out(uint i, KEY k) { keys_out[i] = k; }
#endif
uint hist_pass() { return pc.pass_index; }

#include "sort/binning.glsl"

void main() { binning_pass(); }
