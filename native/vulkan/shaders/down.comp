// Down of one expert row (MATH.md "expert"): invocation r computes
//   y_r = dequantized dot of down row r with (qh, eh); down is tensor a (set 1), [H][F].
#version 450
#include "common.glsl"

layout(set = 0, binding = 4, std430) readonly buffer QH { int qh[]; };
layout(set = 0, binding = 5, std430) readonly buffer EH { int eh[]; };
layout(set = 0, binding = 6, std430) writeonly buffer Y { float y[]; };
layout(set = 0, binding = 7, std430) readonly buffer LUT { float lut[]; };
layout(set = 1, binding = 0, std430) readonly buffer WD { uint wd[]; };
layout(set = 1, binding = 1, std430) readonly buffer SD { float sd[]; };

float e4m3(uint b) { return lut[1024 + int(b)]; }

DEFINE_DOT(dot_down, wd, sd, qh)

void main() {
  int r = int(gl_GlobalInvocationID.x);
  if (r >= pc.rows_a) return;
  y[r] = dot_down(pc.fmt_a, r, pc.cols_a, pc.group_a, eh[0]);
}
