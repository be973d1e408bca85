#version 460
// Pointer chase: one invocation follows pc.count dependent loads through a random cycle of
// cache lines (each line's first word holds the word index of the next line), so the time
// per hop is the load latency of the level the working set fits in.
layout(local_size_x_id = 0) in;   // one invocation: the spec constant is 1
layout(push_constant) uniform Push { uint mask; uint write_index; uint offset; uint count; } pc;
layout(set = 0, binding = 0, std430) writeonly buffer Out { uint out_word[]; };
layout(set = 0, binding = 1, std430) readonly buffer Next { uint next[]; };

void main() {
    uint p = 0u;
    for (uint i = 0u; i < pc.count; ++i) p = next[p];
    // The end of the chain is stored only when asked, but the compiler cannot know that.
    if (pc.write_index != 0xffffffffu) out_word[0] = p;
}
