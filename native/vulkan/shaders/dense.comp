// The dense GEMV (MATH.md "The int8 trunk"): invocation r computes
//   y_r = dequantized dot of row r of the format-1 tensor a (set 1) with (qx, e),
// e passed in the push constant n. Its set 0 points at the dense path's own buffers,
// never at a group's (vk_dense.c).
#version 450
#include "common.glsl"

layout(set = 0, binding = 1, std430) readonly buffer QX { int qx[]; };
layout(set = 0, binding = 6, std430) writeonly buffer Y { float y[]; };
layout(set = 1, binding = 0, std430) readonly buffer WA { uint wa[]; };
layout(set = 1, binding = 1, std430) readonly buffer SA { float sa[]; };

float e4m3(uint b) { return 0.0; } // dense tensors are format 1: never called

DEFINE_DOT(dot_dense, wa, sa, qx)

void main() {
  int r = int(gl_GlobalInvocationID.x);
  if (r >= pc.rows_a) return;
  y[r] = dot_dense(pc.fmt_a, r, pc.cols_a, pc.group_a, pc.n);
}
