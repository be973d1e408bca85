// The load-pattern lab's shared frame (src/loads/model.rs is its CPU twin): every kernel
// defines `vec4 load_k(uint k)`, the k-th of LOADS loads of this invocation, already spread
// to four lanes as perftest does (.xxxx, .xyxy, .xyzx, .xyzw), and calls run().
//
// What keeps the loads honest, as in sebbbi's perftest:
// - the address mask and the write index come from push constants the compiler cannot see,
//   so it can neither prove that loads repeat nor merge neighbouring narrow loads;
// - each invocation's sum goes to shared memory and is stored only when write_index is not
//   ~0u: never in timed runs, always under --verify (write_index 0: each slot its own value).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint LOADS = 256;     // loads per invocation
layout(constant_id = 2) const uint PATTERN = 0;     // 0 uniform, 1 linear, 2 random
layout(constant_id = 3) const uint BROADCAST = 0;   // 1: one load per subgroup lane, then shuffles
layout(constant_id = 4) const uint WIDTH = 4;       // channels (or 32-bit words) per load

#define TEX_DIM 32u

layout(set = 0, binding = 0, std430) writeonly buffer Out { float out_values[]; };

#ifndef PUSH_EXTRA
#define PUSH_EXTRA
#endif
layout(push_constant) uniform Push {
    uint mask;          // address mask (elements - 1; texels per axis - 1 for images)
    uint write_index;   // ~0u: never store
    uint offset;        // extra start offset in 32-bit words (raw "unaligned" loads)
    uint count;         // loop count of the sweep and the pointer chase
    PUSH_EXTRA
} pc;

// perftest's hash (a Weyl step), so random start offsets match it row for row.
uint weyl_hash(uint c) { return c * 0x3504f333u; }

// Where an invocation's walk starts: uniform 0, linear the local index, random hash & 15.
uint start_1d(uint lid) {
    return PATTERN == 0u ? 0u : PATTERN == 1u ? lid : (weyl_hash(lid) & 15u);
}
// Images: the local index as 16 x 16, each axis as above.
uvec2 start_2d(uint lid) {
    uvec2 l = uvec2(lid & 15u, lid >> 4u);
    return PATTERN == 0u ? uvec2(0u) : PATTERN == 1u ? l : uvec2(weyl_hash(l.x) & 15u, weyl_hash(l.y) & 15u);
}
// Load k of an image walk: 16 texels along x, then the next row.
uvec2 step_2d(uint k) { return uvec2(k & 15u, k >> 4u); }

vec4 spread(vec4 v) {
    return WIDTH == 1u ? v.xxxx : WIDTH == 2u ? v.xyxy : WIDTH == 3u ? v.xyzx : v;
}

vec4 load_k(uint k);

shared float s_keep[gl_WorkGroupSize.x];

void keep(vec4 acc) {
    uint lid = gl_LocalInvocationIndex;
    s_keep[lid] = acc.x + acc.y + acc.z + acc.w;
    barrier();
    if (pc.write_index != 0xffffffffu) {
        uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
        out_values[group * gl_WorkGroupSize.x + lid] = s_keep[(lid + pc.write_index) % gl_WorkGroupSize.x];
    }
}

void run() {
    vec4 acc = vec4(0.0);
    if (BROADCAST != 0u) {
        // sebbbi's trick for uniform addresses: each lane loads a different one of the next
        // gl_SubgroupSize loads, then every lane takes them all from the others in order, so
        // the sum (and its rounding) is the plain loop's.
        for (uint k0 = 0u; k0 < LOADS; k0 += gl_SubgroupSize) {
            vec4 mine = load_k(k0 + gl_SubgroupInvocationID);
            for (uint j = 0u; j < gl_SubgroupSize; ++j) acc += subgroupShuffle(mine, j);
        }
    } else {
        for (uint k = 0u; k < LOADS; ++k) acc += load_k(k);
    }
    keep(acc);
}
