// Shared declarations of the expert shaders (included by quant, gateup and down).
//
// Bit-exactness rules (native/MATH.md): integer accumulation in int32; every float
// result that must round like the CPU is `precise` (SPIR-V NoContraction: no fused
// multiply-add, no reassociation); rint is roundEven; scales by 2^e are exact.
// Weights are read as 32-bit words and unpacked with shifts, so no 8-bit storage
// extension is needed. Each group row binds its own descriptor set over disjoint
// ranges, so every array below is indexed from 0 for the current row.

#extension GL_GOOGLE_include_directive : enable

layout(local_size_x = 64) in;

// vk_push in vk_internal.h: set 1 tensor (a) and set 2 tensor (b), and a length.
layout(push_constant) uniform Push {
  int fmt_a, rows_a, cols_a, group_a;
  int fmt_b, rows_b, cols_b, group_b;
  int n;
} pc;

// Element k (= row * cols + j) of an int8 tensor, from its 32-bit word.
int elem_i8(uint word, int k) { return int(word << uint(24 - 8 * (k & 3))) >> 24; }
// Element k of a packed int4 tensor: element 2i is the low nibble of byte i.
int elem_i4(uint word, int k) { return int(word << uint(28 - 4 * (k & 7))) >> 28; }
// Byte k of a format-8 tensor (an e4m3 code), from its 32-bit word.
uint elem_u8(uint word, int k) { return (word >> uint(8 * (k & 3))) & 0xffu; }

// The value of e4m3 code b: native/src/e4m3.c's table, which the backend copies into
// the LUT buffer after the SiLU table. Each shader that reads format 8 defines it over
// that buffer; the others never call it.
float e4m3(uint b);

// rint (round half to even), then clamp to [lo, hi]; NaN goes to lo. Written exactly
// like rint_clamp in native/src/expert_math.c so both sides agree on every input.
int rint_clamp(float v, float lo, float hi) {
  float r = roundEven(v);
  if (!(r >= lo)) r = lo;
  if (r > hi) r = hi;
  return int(r);
}

// DEFINE_DOT(NAME, W, S, Q) defines `float NAME(int fmt, int row, int cols, int gs, int e)`:
// MATH.md's dequantized dot of tensor row `row` (words W, scales S) with the int8
// activations Q (stored as int), scaled by 2^e. Formats 1 and 2: one int32 sum, one
// float multiply. Format 4: groups of gs in order, sum = sum + float(acc_g) * s.
// Format 8: 128 x 128 blocks; per block the exact products e4m3 * q summed in column
// order, times the block's scale, added to the row's sum block by block.
#define DEFINE_DOT(NAME, W, S, Q)                                                   \
  int NAME##_acc(int fmt, int base, int j0, int j1) {                                \
    int acc = 0;                                                                     \
    if (fmt == 1) {                                                                  \
      for (int j = j0; j < j1; j++) {                                                \
        int k = base + j;                                                            \
        acc += elem_i8(W[k >> 2], k) * Q[j];                                         \
      }                                                                              \
    } else {                                                                         \
      for (int j = j0; j < j1; j++) {                                                \
        int k = base + j;                                                            \
        acc += elem_i4(W[k >> 3], k) * Q[j];                                         \
      }                                                                              \
    }                                                                                \
    return acc;                                                                      \
  }                                                                                  \
  float NAME(int fmt, int row, int cols, int gs, int e) {                            \
    int base = row * cols;                                                           \
    precise float sum;                                                               \
    if (fmt == 8) {                                                                  \
      int nb = (cols + 127) / 128;                                                   \
      int srow = (row / 128) * nb;                                                   \
      sum = 0.0;                                                                     \
      for (int b = 0; b < nb; b++) {                                                 \
        precise float acc = 0.0;                                                     \
        int j1 = min(cols, b * 128 + 128);                                           \
        for (int j = b * 128; j < j1; j++) {                                         \
          int k = base + j;                                                          \
          precise float p = e4m3(elem_u8(W[k >> 2], k)) * float(Q[j]);               \
          acc = acc + p;                                                             \
        }                                                                            \
        precise float part = acc * S[srow + b];                                      \
        sum = sum + part;                                                            \
      }                                                                              \
    } else if (fmt != 4) {                                                           \
      sum = float(NAME##_acc(fmt, base, 0, cols)) * S[row];                          \
    } else {                                                                         \
      int ng = cols / gs;                                                            \
      sum = 0.0;                                                                     \
      for (int g = 0; g < ng; g++) {                                                 \
        precise float part = float(NAME##_acc(fmt, base, g * gs, g * gs + gs)) *    \
                             S[row * ng + g];                                        \
        sum = sum + part;                                                            \
      }                                                                              \
    }                                                                                \
    precise float scaled = ldexp(sum, e);                                            \
    return scaled;                                                                   \
  }
