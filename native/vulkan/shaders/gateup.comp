// Gate and up of one expert row, then h (MATH.md "expert"): invocation i computes
//   g_i, u_i = dequantized dots of gate row i and up row i with (qx, ex)
//   t = clamp(rint(g_i * 32), -512, 511);  h_i = SILU_LUT[t + 512] * u_i
// gate is tensor a (set 1), up is tensor b (set 2); both are [F][H].
#version 450
#include "common.glsl"

layout(set = 0, binding = 1, std430) readonly buffer QX { int qx[]; };
layout(set = 0, binding = 2, std430) readonly buffer EX { int ex[]; };
layout(set = 0, binding = 3, std430) writeonly buffer H { float h[]; };
layout(set = 0, binding = 7, std430) readonly buffer LUT { float lut[]; };
layout(set = 1, binding = 0, std430) readonly buffer WG { uint wg[]; };
layout(set = 1, binding = 1, std430) readonly buffer SG { float sg[]; };
layout(set = 2, binding = 0, std430) readonly buffer WU { uint wu[]; };
layout(set = 2, binding = 1, std430) readonly buffer SU { float su[]; };

float e4m3(uint b) { return lut[1024 + int(b)]; }

DEFINE_DOT(dot_gate, wg, sg, qx)
DEFINE_DOT(dot_up, wu, su, qx)

void main() {
  int i = int(gl_GlobalInvocationID.x);
  if (i >= pc.rows_a) return;
  int e = ex[0];
  float g = dot_gate(pc.fmt_a, i, pc.cols_a, pc.group_a, e);
  float u = dot_up(pc.fmt_b, i, pc.cols_b, pc.group_b, e);
  precise float g32 = g * 32.0; // exact: a power of two
  int t = rint_clamp(g32, -512.0, 511.0);
  precise float hv = lut[t + 512] * u;
  h[i] = hv;
}
