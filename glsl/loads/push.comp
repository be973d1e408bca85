#version 460
// Push-constant loads: four vec4 after the lab's header (80 bytes, within the 128 every
// device offers), indexed dynamically.
#define PUSH_EXTRA vec4 pdata[4];
#include "loads/common.glsl"

uint g_start;
vec4 load_k(uint k) { return pc.pdata[(g_start + k) & pc.mask]; }

void main() {
    g_start = start_1d(gl_LocalInvocationIndex);
    run();
}
