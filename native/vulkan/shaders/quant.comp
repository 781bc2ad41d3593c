// quant(v) of MATH.md for one group row: int8 values with a power-of-two scale 2^e.
// QUANT_SRC 0: x -> (qx, ex), the expert input; 1: h -> (qh, eh), the hidden vector.
// One workgroup; the max of |v| is exact in any order, so a tree reduction is fine.
// Everything that decides the result works on float bits: |v| is the bits with the
// sign cleared, amax < 2^-60 is a compare of bits, E is the exponent field.
#version 450
#include "common.glsl"

layout(constant_id = 0) const int QUANT_SRC = 0;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer QX { int qx[]; };
layout(set = 0, binding = 2, std430) writeonly buffer EX { int ex[]; };
layout(set = 0, binding = 3, std430) readonly buffer H { float h[]; };
layout(set = 0, binding = 4, std430) writeonly buffer QH { int qh[]; };
layout(set = 0, binding = 5, std430) writeonly buffer EH { int eh[]; };

shared uint smax[64];

float src(int i) { return QUANT_SRC == 0 ? x[i] : h[i]; }

void main() {
  uint lid = gl_LocalInvocationID.x;
  int n = pc.n;
  uint m = 0u;
  // non-negative floats order like their bits; NaN (bits above +inf) is ignored by
  // amax, as fabsf(NaN) > amax is false on the CPU
  for (int i = int(lid); i < n; i += 64) {
    uint a = floatBitsToUint(src(i)) & 0x7fffffffu;
    if (a <= 0x7f800000u) m = max(m, a);
  }
  smax[lid] = m;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1) {
    if (lid < s) smax[lid] = max(smax[lid], smax[lid + s]);
    barrier();
  }
  uint abits = smax[0];
  bool zero = abits < 0x21800000u; // 2^-60: exponent field 127 - 60 = 67
  int e = zero ? 0 : int(abits >> 23) - 127 + 1 - 7;
  // 2^-e built from its bits: exact, e in [-66, 122] keeps it normal
  float p = uintBitsToFloat(uint(127 - e) << 23);
  for (int i = int(lid); i < n; i += 64) {
    int q = 0;
    if (!zero) {
      precise float s = src(i) * p;
      q = rint_clamp(s, -127.0, 127.0);
    }
    if (QUANT_SRC == 0) qx[i] = q; else qh[i] = q;
  }
  if (lid == 0u) {
    if (QUANT_SRC == 0) ex[0] = e; else eh[0] = e;
  }
}
