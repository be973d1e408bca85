// Keys of a radix-sort variant, chosen by build.rs macros: KEY64 (0: 32-bit keys, 1: 64-bit)
// and VALUE_WORDS (0: keys only, 1 or 2: a 4- or 8-byte payload moved with each key).
// Keys are moved raw; digits come from the order key: the key mapped to an unsigned integer
// whose order is the sort order (KEY_KIND: 0 unsigned, 1 signed, 2 IEEE 754 totalOrder;
// DESCENDING inverts it, which keeps equal keys in input order, so both directions are stable).
// Requires spec constants KEY_KIND and DESCENDING.
#ifndef SORT_KEYS_GLSL
#define SORT_KEYS_GLSL
#include "common/keys.glsl"

#if KEY64
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define KEY uint64_t
#ifdef PACKED_PAIRS
// A 4-byte key (KEY_KIND of u32, i32 or f32) in the low word, its 4-byte value in the high
// word (onesweep.comp): the order key is the low word's, order_key32 the twin of the 32-bit
// order_key below (one function for both changed every 32-bit kernel's SPIR-V, measured as
// it is).
uint order_key32(uint k) {
    if (KEY_KIND == 1u) k ^= 0x80000000u;
    if (KEY_KIND == 2u) k = f32_order_key(k);
    return DESCENDING != 0u ? ~k : k;
}
KEY order_key(KEY k) { return KEY(order_key32(uint(k))); }
uint digit_of(KEY k, uint shift, uint bits) { return (order_key32(uint(k)) >> shift) & ((1u << bits) - 1u); }
#else
KEY order_key(KEY k) {
    if (KEY_KIND == 1u) k ^= 0x8000000000000000ul;
    if (KEY_KIND == 2u) k = (k & 0x8000000000000000ul) != 0ul ? ~k : (k | 0x8000000000000000ul);
    return DESCENDING != 0u ? ~k : k;
}
// Unsigned and signed keys differ from their order key by a constant XOR (order_key(0)), so
// the digit takes it as a 32-bit XOR by a uniform, not the key as a 64-bit one: the H200's
// compiler gave i64 keys' passes up to 74 registers otherwise, one workgroup an SM
// (bench/results/h200/binning/session31).
uint digit_of(KEY k, uint shift, uint bits) {
    uint d = KEY_KIND == 2u ? uint(order_key(k) >> shift) : uint(k >> shift) ^ uint(order_key(KEY(0)) >> shift);
    return d & ((1u << bits) - 1u);
}
#endif
#else
#define KEY uint
KEY order_key(KEY k) {
    if (KEY_KIND == 1u) k ^= 0x80000000u;
    if (KEY_KIND == 2u) k = f32_order_key(k);
    return DESCENDING != 0u ? ~k : k;
}
uint digit_of(KEY k, uint shift, uint bits) { return (order_key(k) >> shift) & ((1u << bits) - 1u); }
#endif

#if VALUE_WORDS == 2
#define VAL uvec2
#else
#define VAL uint
#endif

#endif
