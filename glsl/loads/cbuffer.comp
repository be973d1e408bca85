#version 460
// cbuffer{float4} load: a uniform buffer of 1024 vec4 (16 KiB, the smallest
// maxUniformBufferRange Vulkan allows), indexed dynamically.
#include "loads/common.glsl"

layout(set = 0, binding = 1, std140) uniform Constants { vec4 cdata[1024]; };

uint g_start;
vec4 load_k(uint k) { return cdata[(g_start + k) & pc.mask]; }

void main() {
    g_start = start_1d(gl_LocalInvocationIndex);
    run();
}
