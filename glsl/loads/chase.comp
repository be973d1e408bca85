#version 460
// Pointer chase: one invocation follows pc.count dependent loads through a random cycle of
// cache lines (each line's first word holds the word index of the next line), so the time
// per hop is the load latency of the level the working set fits in. Each dispatch starts
// where the previous one stopped (a cursor in out_word[1]), so successive trials walk on
// along the cycle and the footprint is the whole working set, not the first hops of it
// again and again; pc.offset = 1 starts at word 0 instead (verification). pc.mask keeps a
// stale cursor on a line start inside the working set.
// CLOCK (loads_chase_clock, VK_KHR_shader_clock): also stores the subgroup-clock cycles of
// the loop as a 64-bit count in out_word[2] (low) and [3] (high). The clock reads need not
// wait for the last load; that fixed offset cancels in the host's 2H - H difference.
#ifdef CLOCK
#extension GL_ARB_shader_clock : require
#endif
layout(local_size_x_id = 0) in;   // one invocation: the spec constant is 1
layout(push_constant) uniform Push { uint mask; uint write_index; uint offset; uint count; } pc;
layout(set = 0, binding = 0, std430) buffer Out { uint out_word[]; };  // [0] end, [1] cursor
// readonly restrict: nothing aliases the chain, so the driver may cache it in L1.
layout(set = 0, binding = 1, std430) readonly restrict buffer Next { uint next[]; };

void main() {
    uint p = pc.offset != 0u ? 0u : out_word[1] & pc.mask;
#ifdef CLOCK
    uvec2 t0 = clock2x32ARB();
#endif
    for (uint i = 0u; i < pc.count; ++i) p = next[p];
#ifdef CLOCK
    uvec2 t1 = clock2x32ARB();
    uint borrow;
    uint lo = usubBorrow(t1.x, t0.x, borrow);
    out_word[2] = lo;
    out_word[3] = t1.y - t0.y - borrow;
#endif
    out_word[1] = p;
    // The end of the chain is stored only when asked, but the compiler cannot know that.
    if (pc.write_index != 0xffffffffu) out_word[0] = p;
}
