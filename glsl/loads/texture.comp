#version 460
// 2-D image loads over a 32 x 32 texture, 16 x 16 texels per invocation from its start:
// MODE 0 Texture2D.Load (a sampled image, texelFetch without a sampler), MODE 1
// Texture2D.Sample (a combined image sampler, textureLod at level 0; CORNER 0 samples texel
// centres, CORNER 1 the corner where four texels meet, so bilinear filtering averages them),
// MODE 2 RWTexture2D.Load (a storage image with format qualifier FMT, imageLoad).
#include "loads/common.glsl"

layout(constant_id = 5) const uint CORNER = 0;

#if MODE == 0
#extension GL_EXT_samplerless_texture_functions : require
layout(set = 0, binding = 1) uniform texture2D tex;
#define FETCH(c) texelFetch(tex, ivec2(c), 0)
#elif MODE == 1
layout(set = 0, binding = 1) uniform sampler2D tex;
#define FETCH(c) textureLod(tex, (vec2(c) + (CORNER != 0u ? 1.0 : 0.5)) * (1.0 / float(TEX_DIM)), 0.0)
#else
layout(set = 0, binding = 1, FMT) uniform readonly image2D tex;
#define FETCH(c) imageLoad(tex, ivec2(c))
#endif

uvec2 g_start;
vec4 load_k(uint k) { return spread(FETCH((g_start + step_2d(k)) & pc.mask)); }

void main() {
    g_start = start_2d(gl_LocalInvocationIndex);
    run();
}
