#version 460
// ByteAddressBuffer.Load/Load2/Load3/Load4: WIDTH consecutive 32-bit words of a storage
// buffer, each its own scalar load, from a word address that includes a push-constant offset
// (0 aligned, 1 "unaligned"): the compiler knows only 4-byte alignment, as a D3D raw load.
#include "loads/common.glsl"

layout(set = 0, binding = 1, std430) readonly buffer Raw { uint words[]; };

uint g_start;
vec4 load_k(uint k) {
    uint w = ((g_start + k) * WIDTH + pc.offset) & pc.mask;
    uvec4 v = uvec4(words[w], 0u, 0u, 0u);
    if (WIDTH > 1u) v.y = words[w + 1u];
    if (WIDTH > 2u) v.z = words[w + 2u];
    if (WIDTH > 3u) v.w = words[w + 3u];
    return spread(vec4(v));
}

void main() {
    g_start = start_1d(gl_LocalInvocationIndex);
    run();
}
