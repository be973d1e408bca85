#version 460
// The digit offsets of one pass from its counter copies (sort/offsets_scan.glsl), for a caller
// that counted the digits itself (SortPlan::record_passes); workgroup p scans pass p. No
// subgroup operations, so any width works.
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x_id = 0) in;  // 64
layout(push_constant) uniform Params { uint n; } pc;
layout(set = 0, binding = 0, std430) buffer Hist { uint hist[]; };
shared uint s_hist[256];
#include "sort/offsets_scan.glsl"

void main() { scan_digit_offsets(gl_WorkGroupID.x, 1u, pc.n); }
