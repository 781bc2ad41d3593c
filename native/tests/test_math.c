/*
 * The expert and trunk math against independent re-derivations.
 *
 * Why a second implementation: the CPU backend and tl_expert_cpu share expert_math.c,
 * so comparing them proves nothing about MATH.md. Here quant reads the exponent with
 * frexpf, scales in double (exact for powers of two, one rounding back to float), and
 * nibbles decode another way; the results must still be bit-identical (memcmp).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/e4m3.h"
#include "../src/expert_math.h"
#include "expert_gen.h"
#include "harness.h"

static int ref_quant(const float *v, int n, int8_t *q) {
  float amax = 0.0f;
  for (int i = 0; i < n; i++) amax = fabsf(v[i]) > amax ? fabsf(v[i]) : amax;
  if (amax < ldexpf(1.0f, -60)) {
    memset(q, 0, (size_t)n);
    return 0;
  }
  int k;
  (void)frexpf(amax, &k); /* amax = m 2^k, m in [0.5, 1): E = k - 1 */
  const int e = (k - 1) + 1 - 7;
  for (int i = 0; i < n; i++) {
    double r = nearbyint((double)v[i] / ldexp(1.0, e)); /* exact division, half-even */
    q[i] = (int8_t)(r > 127 ? 127 : r < -127 ? -127 : r);
  }
  return e;
}

static int ref_weight(const tg_expert *x, int p, int row, int j) {
  const int cols = tg_cols(x, p);
  if (x->fmt == TL_FMT_I8_ROW) return ((const int8_t *)x->w[p])[(size_t)row * cols + j];
  const uint8_t b = ((const uint8_t *)x->w[p])[((size_t)row * cols + j) / 2];
  const int nib = (j % 2 == 0) ? b % 16 : b / 16;
  return (nib ^ 8) - 8; /* two's complement of 4 bits */
}

/* e4m3 byte b decoded by its fields, in double (exact): another way than the table. */
static double ref_e4m3(unsigned b) {
  const int sign = (b >> 7) & 1, ex = (int)((b >> 3) & 15), man = (int)(b & 7);
  if (ex == 15 && man == 7) return NAN;
  double v = ex == 0 ? ldexp((double)man / 8.0, -6) : ldexp(1.0 + (double)man / 8.0, ex - 7);
  return sign ? -v : v;
}

static float ref_dot(const tg_expert *x, int p, int row, const int8_t *q, int e) {
  const int cols = tg_cols(x, p);
  float out = 0.0f;
  if (x->fmt == TL_FMT_FP8_BLOCK) { /* blocks in order, columns in order inside each */
    const uint8_t *w = (const uint8_t *)x->w[p] + (size_t)row * (size_t)cols;
    const int nb = (cols + 127) / 128;
    for (int b = 0; b < nb; b++) {
      float acc = 0.0f;
      for (int j = 128 * b; j < cols && j < 128 * b + 128; j++) {
        acc = acc + (float)(ref_e4m3(w[j]) * (double)q[j]); /* exact in double and float */
      }
      out = out + acc * x->s[p][(size_t)(row / 128) * (size_t)nb + (size_t)b];
    }
  } else if (x->fmt != TL_FMT_I4_GROUP) {
    int32_t acc = 0;
    for (int j = 0; j < cols; j++) acc += ref_weight(x, p, row, j) * q[j];
    out = (float)acc * x->s[p][row];
  } else {
    const int ng = cols / x->group;
    for (int g = 0; g < ng; g++) {
      int32_t acc = 0;
      for (int j = g * x->group; j < (g + 1) * x->group; j++) {
        acc += ref_weight(x, p, row, j) * q[j];
      }
      float prod = (float)acc * x->s[p][(size_t)row * ng + g];
      out = out + prod;
    }
  }
  return (float)((double)out * ldexp(1.0, e)); /* exact in double, one rounding */
}

static void ref_expert(const tg_expert *x, const float *lut, const float *in, float *y) {
  const int H = x->hidden, F = x->width;
  int8_t *q = malloc((size_t)(H > F ? H : F));
  float *h = malloc((size_t)F * sizeof(float));
  if (q == NULL || h == NULL) {
    free(q);
    free(h);
    CHECK(!"out of memory");
    return;
  }
  int e = ref_quant(in, H, q);
  for (int i = 0; i < F; i++) {
    float g = ref_dot(x, 0, i, q, e), u = ref_dot(x, 1, i, q, e);
    double t = nearbyint((double)g * 32.0);
    int ti = t > 511 ? 511 : t < -512 ? -512 : (int)t;
    h[i] = lut[ti + 512] * u;
  }
  e = ref_quant(h, F, q);
  for (int r = 0; r < H; r++) y[r] = ref_dot(x, 2, r, q, e);
  free(q);
  free(h);
}

static void quant_rules(void) {
  int8_t q[8];
  int e = 99;
  const float a[6] = {127.0f, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f};
  tl_quant_i8(a, 6, q, &e);
  CHECK(e == 0);
  CHECK(q[0] == 127 && q[1] == 0 && q[2] == 2 && q[3] == 2 && q[4] == 0 && q[5] == -2);
  const float b[2] = {128.0f, 3.0f}; /* amax 2^7: e = 1, 3/2 = 1.5 rounds to 2 */
  tl_quant_i8(b, 2, q, &e);
  CHECK(e == 1 && q[0] == 64 && q[1] == 2);
  const float c[2] = {0x1p-61f, -0x1p-62f}; /* below 2^-60: zero */
  tl_quant_i8(c, 2, q, &e);
  CHECK(e == 0 && q[0] == 0 && q[1] == 0);
  const float d[2] = {0x1p-60f, 0.0f};
  tl_quant_i8(d, 2, q, &e);
  CHECK(e == -66 && q[0] == 64);
  const float f[2] = {-255.0f, 1.0f}; /* amax in [128, 256): e = 1; -127.5 -> -128 -> -127 */
  tl_quant_i8(f, 2, q, &e);
  CHECK(e == 1 && q[0] == -127 && q[1] == 0);
}

static void nibble_decoding(void) {
  /* one row of 4 int4 values [-8, 7, -1, 0] packed as bytes 0x78, 0x0f */
  const uint8_t w[2] = {0x78, 0x0f};
  const float s = 1.0f;
  const tl_wref t = {w, &s, TL_FMT_I4_ROW, 1, 4, 0};
  const int8_t q[4] = {1, 10, 100, 5};
  CHECK(tl_dot_deq(&t, 0, q, 0) == (float)(-8 + 70 - 100 + 0));
  CHECK(tl_dot_deq(&t, 0, q, 3) == (float)(-38 * 8));
}

/* Random experts of every format, normal and edge inputs, against ref_expert. */
static void expert_matches_reference(void) {
  char err[ERR_CAP];
  float lut[TL_SILU_LUT_SIZE];
  tg_lut(lut);
  uint64_t rng = 42;
  const int fmts[4] = {TL_FMT_I8_ROW, TL_FMT_I4_ROW, TL_FMT_I4_GROUP, TL_FMT_FP8_BLOCK};
  const int H = 64, F = 96;
  float x[64], y[64], want[64];
  for (int fi = 0; fi < 4; fi++) {
    for (int trial = 0; trial < 8; trial++) {
      tg_expert ex;
      if (tg_expert_make(&ex, &rng, fmts[fi], H, F, 16) != 0) {
        CHECK(!"out of memory");
        return;
      }
      float lo = -1.0f, hi = 1.0f;
      if (trial == 1) lo = hi = 0.0f; /* all zero */
      if (trial == 2) {
        lo = -1e-20f;
        hi = 1e-20f;
      } /* below 2^-60: zero */
      if (trial == 3) {
        lo = -1e30f;
        hi = 1e30f;
      } /* huge: LUT clamps */
      if (trial == 4) {
        lo = -1e-15f;
        hi = 1e-15f;
      } /* tiny but quantized */
      if (trial == 5) { /* subnormal outputs */
        for (size_t i = 0; i < ex.nscales[2]; i++) ex.s[2][i] *= 1e-36f;
      }
      tg_fill(&rng, x, (size_t)H, lo, hi);
      if (trial == 6) { /* amax 127 gives e = 0: every other value is an exact .5 tie */
        for (int i = 0; i < H; i++) x[i] = (float)(i - 32) + 0.5f;
        x[H - 1] = 127.0f;
      }
      CHECK_CODE(tg_expert_cpu(&ex, lut, x, y, err, sizeof err), TL_OK);
      ref_expert(&ex, lut, x, want);
      CHECK(memcmp(y, want, sizeof y) == 0);
      tg_expert_free(&ex);
    }
  }
}

/* Every e4m3 byte: the table against the decode by fields; NaN exactly at 0x7f, 0xff. */
static void e4m3_table(void) {
  int bad = 0;
  for (unsigned b = 0; b < 256; b++) {
    const double want = ref_e4m3(b);
    const float got = tl_e4m3_table[b];
    if (isnan(want) ? !isnan(got) : (double)got != want || !signbit(got) != !signbit(want)) bad++;
  }
  CHECK(bad == 0);
  CHECK(tl_e4m3_table[0x7e] == 448.0f && tl_e4m3_table[0x01] == 0x1p-9f);
  CHECK(tl_e4m3_table[0x08] == 0x1p-6f && tl_e4m3_table[0xb8] == -1.0f);
  const uint8_t w[4] = {0x00, 0x7e, 0xff, 0x7f};
  CHECK(tl_first_fp8_nan(w, 2) == -1 && tl_first_fp8_nan(w, 4) == 2);
}

/* Format 8 across several 128 x 128 blocks, edge blocks partial in both directions. */
static void fp8_blocks(void) {
  char err[ERR_CAP];
  float lut[TL_SILU_LUT_SIZE];
  tg_lut(lut);
  uint64_t rng = 8;
  enum { BH = 200, BF = 300 };
  static float x[BH], y[BH], want[BH];
  for (int trial = 0; trial < 4; trial++) {
    tg_expert ex;
    if (tg_expert_make(&ex, &rng, TL_FMT_FP8_BLOCK, BH, BF, 0) != 0) {
      CHECK(!"out of memory");
      return;
    }
    CHECK(ex.nscales[0] == 3 * 2 && ex.nscales[2] == 2 * 3);
    tg_fill(&rng, x, BH, -2.0f, 2.0f);
    CHECK_CODE(tg_expert_cpu(&ex, lut, x, y, err, sizeof err), TL_OK);
    ref_expert(&ex, lut, x, want);
    CHECK(memcmp(y, want, sizeof y) == 0);
    tg_expert_free(&ex);
  }
}

/* The int8 trunk: quantization by rows with power-of-two scales, and the host GEMV,
 * against frexp and double arithmetic. */
static void dense_trunk(void) {
  char err[ERR_CAP];
  enum { R = 37, C = 53 };
  static float w[R * C], s[R], x[C], y[R];
  static int8_t q[R * C], rq[C];
  uint64_t rng = 5;
  tg_fill(&rng, w, R * C, -0.3f, 0.3f);
  for (int j = 0; j < C; j++) w[3 * C + j] = 0.0f; /* a zero row: scale 1, all zero */
  w[5 * C] = 127.0f; /* amax 127: scale 1 */
  tg_fill(&rng, x, C, -4.0f, 4.0f);
  CHECK_CODE(tl_dense_quantize(w, R, C, q, s, err, sizeof err), TL_OK);
  int bad = 0;
  for (int r = 0; r < R; r++) {
    int e = ref_quant(w + (size_t)r * C, C, rq);
    if (s[r] != ldexpf(1.0f, e) || memcmp(q + (size_t)r * C, rq, C) != 0) bad++;
  }
  CHECK(bad == 0 && s[3] == 1.0f && s[5] == 1.0f);
  CHECK_CODE(tl_dense_cpu(q, s, R, C, x, y, err, sizeof err), TL_OK);
  const int ex = ref_quant(x, C, rq);
  bad = 0;
  for (int r = 0; r < R; r++) {
    double acc = 0;
    for (int j = 0; j < C; j++) acc += (double)q[(size_t)r * C + j] * rq[j];
    if ((double)y[r] != acc * (double)s[r] * ldexp(1.0, ex)) bad++; /* exact both ways */
  }
  CHECK(bad == 0);
  w[7] = NAN;
  CHECK_CODE(tl_dense_quantize(w, R, C, q, s, err, sizeof err), TL_E_ARG);
  CHECK(strstr(err, "w[7] is not finite") != NULL);
  CHECK_CODE(tl_dense_cpu(q, s, R, TL_MAX_HIDDEN + 1, x, y, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_dense_cpu(NULL, s, R, C, x, y, err, sizeof err), TL_E_ARG);
}

static void trunk_functions(void) {
  const float w[6] = {1.0f, 2.0f, 3.0f, -1.0f, 0.5f, 0.25f};
  const float x[3] = {0.1f, 0.2f, 0.3f};
  float y[2];
  tl_matvec_f32(w, x, 2, 3, y);
  CHECK(y[0] == (0.0f + 1.0f * 0.1f) + 2.0f * 0.2f + 3.0f * 0.3f);
  float ss = 0.0f, n[3];
  for (int i = 0; i < 3; i++) ss = ss + x[i] * x[i];
  float r = 1.0f / sqrtf(ss / 3.0f + 1e-5f);
  tl_rmsnorm(x, w, 3, n);
  CHECK(n[2] == (x[2] * r) * w[2]);

  float acc[3] = {1.0f, 1.0f, 1.0f};
  tl_axpy(acc, 0.5f, x, 3);
  CHECK(acc[1] == 1.0f + 0.5f * 0.2f);
  const float ties[5] = {1.0f, 3.0f, 3.0f, NAN, 2.0f};
  CHECK(tl_argmax(ties, 5) == 1);
  CHECK(tl_argmax(ties, 0) == -1 && tl_argmax(NULL, 3) == -1);
  tl_matvec_f32(NULL, x, 2, 3, y); /* must not crash */
  tl_rmsnorm(x, w, 0, n);
}

static void attention_steps(void) {
  /* hidden 4, 2 heads; at pos 0 the output is v itself (one weight, exactly 1) */
  float kc[3 * 4] = {0}, vc[3 * 4] = {0}, o[4];
  const float q0[4] = {1, 0, 0, 1}, k0[4] = {1, 1, 1, 1}, v0[4] = {1, 2, 3, 4};
  tl_attention(q0, k0, v0, kc, vc, 0, 4, 2, o);
  CHECK(memcmp(o, v0, sizeof o) == 0);
  CHECK(memcmp(kc, k0, sizeof k0) == 0 && memcmp(vc, v0, sizeof v0) == 0);
  const float k1[4] = {2, 0, 0, -1}, v1[4] = {-1, 0, 5, 2};
  tl_attention(q0, k1, v1, kc, vc, 1, 4, 2, o);
  /* head 0: s = [1, 2] / sqrt(2); head 1: s = [1, -1] / sqrt(2) */
  const float sc = 1.0f / sqrtf(2.0f);
  float s0 = 1.0f * sc, s1 = 2.0f * sc, m = s1;
  float e0 = expf(s0 - m), e1 = expf(s1 - m), sum = e0 + e1;
  float p0 = e0 / sum, p1 = e1 / sum;
  CHECK(o[0] == (0.0f + p0 * 1.0f) + p1 * -1.0f);
  CHECK(o[1] == (0.0f + p0 * 2.0f) + p1 * 0.0f);
  s0 = 1.0f * sc;
  s1 = -1.0f * sc;
  m = s0;
  e0 = expf(s0 - m);
  e1 = expf(s1 - m);
  sum = e0 + e1;
  p0 = e0 / sum;
  p1 = e1 / sum;
  CHECK(o[3] == (0.0f + p0 * 4.0f) + p1 * 2.0f);
  tl_attention(q0, k1, v1, kc, vc, 0, 4, 3, o); /* heads do not divide hidden: no-op */
}

void suite_math(void) {
  th_run("math: quant exponent, half-even rounding, clamp, zero threshold", quant_rules);
  th_run("math: int4 nibble decoding", nibble_decoding);
  th_run("math: expert bit-identical to an independent derivation (fmt 1, 2, 4, 8)",
         expert_matches_reference);
  th_run("math: the e4m3 table decodes every byte", e4m3_table);
  th_run("math: fp8 over several 128 x 128 blocks, partial edges", fp8_blocks);
  th_run("math: int8 trunk quantization and host GEMV", dense_trunk);
  th_run("math: matvec, rmsnorm, axpy, argmax", trunk_functions);
  th_run("math: attention", attention_steps);
}
