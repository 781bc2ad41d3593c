/*
 * The expert math (see expert_math.h and native/MATH.md).
 *
 * Why these exact steps: bit-identical results on every backend. Powers of two are
 * built from exponent bits (exact), int32 sums are exact, and every float operation is
 * a single correctly rounded IEEE operation written out in MATH.md's order.
 */
#include "expert_math.h"

#include <math.h>
#include <string.h>

#include "../include/tierlab.h"
#include "e4m3.h"

/* 2^k for k in [-126, 127], exact. */
static float pow2f(int k) {
  uint32_t bits = (uint32_t)(k + 127) << 23;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* rint, then clamp to [lo, hi]; NaN goes to lo (written the same way in the kernels). */
static int rint_clamp(float v, float lo, float hi) {
  float r = rintf(v);
  if (!(r >= lo)) r = lo;
  if (r > hi) r = hi;
  return (int)r;
}

void tl_quant_i8(const float *v, int n, int8_t *q, int *e) {
  float amax = 0.0f;
  for (int i = 0; i < n; i++) {
    float a = fabsf(v[i]);
    if (a > amax) amax = a;
  }
  if (!(amax >= 0x1p-60f)) { /* treat as zero: keeps every scale a normal number */
    memset(q, 0, (size_t)n);
    *e = 0;
    return;
  }
  uint32_t bits;
  memcpy(&bits, &amax, sizeof bits);
  int big_e = (int)((bits >> 23) & 0xffu) - 127; /* amax in [2^E, 2^(E+1)) */
  int ee = big_e + 1 - 7; /* |v| * 2^-e < 128 */
  float inv = pow2f(-ee); /* -e in [-122, 66]: normal, exact */
  for (int i = 0; i < n; i++) q[i] = (int8_t)rint_clamp(v[i] * inv, -127.0f, 127.0f);
  *e = ee;
}

/* Two's-complement nibble j of a packed int4 row: element 2i low, 2i+1 high. */
static int nibble(const uint8_t *row, int j) {
  int b = row[j >> 1];
  int v = (j & 1) ? (b >> 4) : (b & 15);
  return v >= 8 ? v - 16 : v;
}

float tl_dot_deq(const tl_wref *t, int row, const int8_t *q, int e) {
  const int cols = t->cols;
  float out;
  if (t->fmt == TL_FMT_I8_ROW) {
    const int8_t *w = (const int8_t *)t->w + (size_t)row * (size_t)cols;
    int32_t acc = 0;
    for (int j = 0; j < cols; j++) acc += (int32_t)w[j] * (int32_t)q[j];
    out = (float)acc * t->s[row];
  } else if (t->fmt == TL_FMT_I4_ROW) {
    const uint8_t *w = (const uint8_t *)t->w + (size_t)row * (size_t)(cols / 2);
    int32_t acc = 0;
    for (int j = 0; j < cols; j++) acc += (int32_t)nibble(w, j) * (int32_t)q[j];
    out = (float)acc * t->s[row];
  } else if (t->fmt == TL_FMT_FP8_BLOCK) {
    /* block by block in order: exact products (4 x 7 significant bits) summed in float
     * in column order, then the block's scale, then added to the row's sum */
    const uint8_t *w = (const uint8_t *)t->w + (size_t)row * (size_t)cols;
    const int nb = (cols + TL_FP8_BLOCK - 1) / TL_FP8_BLOCK;
    const float *s = t->s + (size_t)(row / TL_FP8_BLOCK) * (size_t)nb;
    out = 0.0f;
    for (int b = 0; b < nb; b++) {
      const int j1 = (b + 1) * TL_FP8_BLOCK < cols ? (b + 1) * TL_FP8_BLOCK : cols;
      float acc = 0.0f;
      for (int j = b * TL_FP8_BLOCK; j < j1; j++) {
        float prod = tl_e4m3_table[w[j]] * (float)q[j]; /* exact */
        acc = acc + prod;
      }
      float scaled = acc * s[b];
      out = out + scaled;
    }
  } else { /* TL_FMT_I4_GROUP: per-group int32 sums, float accumulation in group order */
    const uint8_t *w = (const uint8_t *)t->w + (size_t)row * (size_t)(cols / 2);
    const int g_size = t->group, ng = cols / g_size;
    const float *s = t->s + (size_t)row * (size_t)ng;
    out = 0.0f;
    for (int g = 0; g < ng; g++) {
      int32_t acc = 0;
      for (int j = g * g_size; j < (g + 1) * g_size; j++) {
        acc += (int32_t)nibble(w, j) * (int32_t)q[j];
      }
      float prod = (float)acc * s[g]; /* two roundings: the product, then the sum */
      out = out + prod;
    }
  }
  return ldexpf(out, e); /* e in [-66, 122]: exact scaling, one rounding if subnormal */
}

void tl_expert_run(const tl_expert_ref *ex, const float *lut, const float *x, float *y, int8_t *q,
                   float *h) {
  const int H = ex->hidden, F = ex->width;
  int e_x, e_h;
  tl_quant_i8(x, H, q, &e_x);
  for (int i = 0; i < F; i++) {
    float g = tl_dot_deq(&ex->gate, i, q, e_x);
    float u = tl_dot_deq(&ex->up, i, q, e_x);
    int t = rint_clamp(g * 32.0f, -512.0f, 511.0f); /* times 32: exact */
    h[i] = lut[t + 512] * u;
  }
  /* x is no longer read past this point, so y may alias it */
  tl_quant_i8(h, F, q, &e_h);
  for (int r = 0; r < H; r++) y[r] = tl_dot_deq(&ex->down, r, q, e_h);
}
