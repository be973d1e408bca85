#version 460
// StructuredBuffer<float|float2|float4>.Load: a storage buffer of a typed array (std430).
// ELEM picks the element type (a type cannot be a specialization constant).
#include "loads/common.glsl"

#if ELEM == 1
layout(set = 0, binding = 1, std430) readonly buffer Elems { float elems[]; };
#define AS_VEC4(e) vec4(e, 0.0, 0.0, 0.0)
#elif ELEM == 2
layout(set = 0, binding = 1, std430) readonly buffer Elems { vec2 elems[]; };
#define AS_VEC4(e) vec4(e, 0.0, 0.0)
#else
layout(set = 0, binding = 1, std430) readonly buffer Elems { vec4 elems[]; };
#define AS_VEC4(e) (e)
#endif

uint g_start;
vec4 load_k(uint k) { return spread(AS_VEC4(elems[(g_start + k) & pc.mask])); }

void main() {
    g_start = start_1d(gl_LocalInvocationIndex);
    run();
}
