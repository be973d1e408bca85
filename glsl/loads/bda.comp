#version 460
// Buffer-device-address loads of vec4 through a pointer from push constants. ALIGN is the
// alignment the pointer promises (buffer_reference_align): 16, or 4 with the pointer 4 bytes
// past a 16-byte boundary (the raw "unaligned" Load4 of perftest, through a pointer).
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#define PUSH_EXTRA uvec2 address;
#include "loads/common.glsl"

layout(buffer_reference, std430, buffer_reference_align = ALIGN) readonly buffer Vec4s { vec4 v[]; };

uint g_start;
vec4 load_k(uint k) { return Vec4s(pc.address).v[(g_start + k) & pc.mask]; }

void main() {
    g_start = start_1d(gl_LocalInvocationIndex);
    run();
}
