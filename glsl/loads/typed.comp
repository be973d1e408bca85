#version 460
// Buffer<fmt>.Load: a uniform texel buffer read with texelFetch; with STORAGE, a storage
// texel buffer (RWBuffer<fmt> in HLSL terms) read with imageLoad, whose format qualifier
// FMT makes it one variant per format.
#include "loads/common.glsl"

#if STORAGE
layout(set = 0, binding = 1, FMT) uniform readonly imageBuffer src;
#define FETCH(i) imageLoad(src, int(i))
#else
layout(set = 0, binding = 1) uniform samplerBuffer src;
#define FETCH(i) texelFetch(src, int(i))
#endif

uint g_start;
vec4 load_k(uint k) { return spread(FETCH((g_start + k) & pc.mask)); }

void main() {
    g_start = start_1d(gl_LocalInvocationIndex);
    run();
}
