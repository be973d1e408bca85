// Element type and associative operator of a scan variant, chosen by build.rs macros:
//   DTYPE 0 = u32, 1 = i32, 2 = f32;  OP 0 = add, 1 = min, 2 = max.
// Buffers always hold raw 32-bit words; to_t()/from_t() convert at load and store.
// f32 min/max run on the IEEE 754 totalOrder key (an unsigned integer), so they are exact,
// associative and define NaN and -0.0: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.
// Only f32 add is inexact (EXACT_OP == 0); see scan.comp for what that changes.
#ifndef SCAN_OP_GLSL
#define SCAN_OP_GLSL
#include "common/keys.glsl"

#if DTYPE == 2 && OP == 0
  #define T float
  #define EXACT_OP 0
  #define IDENTITY (-0.0)                       // x + -0.0 == x for every x, -0.0 included
  #if SIGNED_ZERO
    // Vulkan lets a driver ignore the sign of zero and assume no inf or NaN in float
    // arithmetic unless the shader asks otherwise: the SignedZeroInfNanPreserve execution
    // mode for 32-bit floats, on devices that support it (src/prims/scan.rs picks this module
    // where shaderSignedZeroInfNanPreserveFloat32 is set).
    #extension GL_EXT_spirv_intrinsics : require
    spirv_execution_mode(capabilities = [4466], 4461, 32);  // SignedZeroInfNanPreserve, width 32
  #endif
  T to_t(uint w) { return uintBitsToFloat(w); }
  uint from_t(T v) { return floatBitsToUint(v); }
#elif DTYPE == 2
  #define T uint
  #define EXACT_OP 1
  T to_t(uint w) { return f32_order_key(w); }
  uint from_t(T v) { return f32_from_order_key(v); }
  #if OP == 1
    #define IDENTITY 0xFFFFFFFFu                // key of +NaN with every mantissa bit set
  #else
    #define IDENTITY 0u                         // key of -NaN with every mantissa bit set
  #endif
#elif DTYPE == 1
  #define T int
  #define EXACT_OP 1
  T to_t(uint w) { return int(w); }
  uint from_t(T v) { return uint(v); }
  #if OP == 0
    #define IDENTITY 0
  #elif OP == 1
    #define IDENTITY 0x7FFFFFFF
  #else
    #define IDENTITY (-0x7FFFFFFF - 1)
  #endif
#else
  #define T uint
  #define EXACT_OP 1
  T to_t(uint w) { return w; }
  uint from_t(T v) { return v; }
  #if OP == 0
    #define IDENTITY 0u
  #elif OP == 1
    #define IDENTITY 0xFFFFFFFFu
  #else
    #define IDENTITY 0u
  #endif
#endif

#if OP == 0 && DTYPE == 2
  #define OPF(a, b) ((a) + (b))
  // A driver's subgroup add may start from +0.0 (lavapipe's does: a sum of -0.0s came out
  // +0.0, even with SignedZeroInfNanPreserve). In IEEE arithmetic a zero sum is -0.0 exactly
  // when every term is -0.0, in any association, so a ballot restores the sign.
  bool neg_zero(float x) { return floatBitsToUint(x) == 0x80000000u; }
  float sg_add(float x) {
      float s = subgroupAdd(x);
      return s == 0.0 && subgroupBallotBitCount(subgroupBallot(!neg_zero(x))) == 0u ? -0.0 : s;
  }
  float sg_exclusive_add(float x) {
      float s = subgroupExclusiveAdd(x);
      return s == 0.0 && subgroupBallotExclusiveBitCount(subgroupBallot(!neg_zero(x))) == 0u ? -0.0 : s;
  }
  #define SG_REDUCE sg_add
  #define SG_EXCL sg_exclusive_add
#elif OP == 0
  #define OPF(a, b) ((a) + (b))
  #define SG_REDUCE subgroupAdd
  #define SG_EXCL subgroupExclusiveAdd
#elif OP == 1
  #define OPF(a, b) min(a, b)
  #define SG_REDUCE subgroupMin
  #define SG_EXCL subgroupExclusiveMin
#else
  #define OPF(a, b) max(a, b)
  #define SG_REDUCE subgroupMax
  #define SG_EXCL subgroupExclusiveMax
#endif

#endif

// The spine stores T's own bits (after to_t), so look-back values round-trip exactly.
#ifndef SCAN_OP_BITS
#define SCAN_OP_BITS
#if DTYPE == 2 && OP == 0
  #define TV vec4
  uint t_bits(T v) { return floatBitsToUint(v); }
  T bits_t(uint w) { return uintBitsToFloat(w); }
#elif DTYPE == 1
  #define TV ivec4
  uint t_bits(T v) { return uint(v); }
  T bits_t(uint w) { return int(w); }
#else
  #define TV uvec4
  uint t_bits(T v) { return v; }
  T bits_t(uint w) { return w; }
#endif
#endif
