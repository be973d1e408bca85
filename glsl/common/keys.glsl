// Order-preserving key transforms shared by scan (f32 min/max) and, later, the radix sort.
#ifndef KEYS_GLSL
#define KEYS_GLSL

// IEEE 754 totalOrder as an unsigned integer: flip every bit of negatives, the sign of the rest.
uint f32_order_key(uint bits) {
    return (bits & 0x80000000u) != 0u ? ~bits : (bits | 0x80000000u);
}
uint f32_from_order_key(uint key) {
    return (key & 0x80000000u) != 0u ? (key & 0x7FFFFFFFu) : ~key;
}

#endif
