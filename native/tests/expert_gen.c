/*
 * Random experts (see expert_gen.h).
 */
#include "expert_gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t tg_next(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

float tg_uniform(uint64_t *state, float lo, float hi) {
  double u = (double)(tg_next(state) >> 11) * 0x1p-53;
  return (float)(lo + (hi - lo) * u);
}

void tg_fill(uint64_t *rng, float *v, size_t n, float lo, float hi) {
  for (size_t i = 0; i < n; i++) v[i] = tg_uniform(rng, lo, hi);
}

int tg_rows(const tg_expert *e, int p) { return p == 2 ? e->hidden : e->width; }
int tg_cols(const tg_expert *e, int p) { return p == 2 ? e->width : e->hidden; }

int tg_expert_make(tg_expert *e, uint64_t *rng, int fmt, int hidden, int width, int group) {
  *e = (tg_expert){
      .fmt = fmt, .hidden = hidden, .width = width, .group = fmt == TL_FMT_I4_GROUP ? group : 0};
  for (int p = 0; p < 3; p++) {
    size_t rows = (size_t)tg_rows(e, p), cols = (size_t)tg_cols(e, p);
    const size_t blocks =
        ((rows + TL_FP8_BLOCK - 1) / TL_FP8_BLOCK) * ((cols + TL_FP8_BLOCK - 1) / TL_FP8_BLOCK);
    e->wbytes[p] = fmt == TL_FMT_I8_ROW || fmt == TL_FMT_FP8_BLOCK ? rows * cols : rows * cols / 2;
    e->nscales[p] = fmt == TL_FMT_I4_GROUP ? rows * (cols / (size_t)group)
        : fmt == TL_FMT_FP8_BLOCK          ? blocks
                                           : rows;
    e->w[p] = malloc(e->wbytes[p]);
    e->s[p] = malloc(e->nscales[p] * sizeof(float));
    if (e->w[p] == NULL || e->s[p] == NULL) {
      tg_expert_free(e);
      return -1;
    }
    unsigned char *w = e->w[p];
    for (size_t i = 0; i < e->wbytes[p]; i++) w[i] = (unsigned char)tg_next(rng);
    if (fmt == TL_FMT_FP8_BLOCK) { /* every byte but the NaN encodings 0x7f and 0xff */
      for (size_t i = 0; i < e->wbytes[p]; i++) {
        if ((w[i] & 0x7f) == 0x7f) w[i] ^= 1;
      }
    }
    /* int4 values are small, so give them larger scales to keep outputs comparable;
     * random e4m3 bytes reach 448, so theirs are far smaller */
    float mag = fmt == TL_FMT_I8_ROW ? 0.002f : fmt == TL_FMT_FP8_BLOCK ? 4e-5f : 0.03f;
    for (size_t i = 0; i < e->nscales[p]; i++) {
      float s = tg_uniform(rng, 0.25f * mag, mag);
      e->s[p][i] = (tg_next(rng) & 1) ? s : -s;
    }
  }
  return 0;
}

void tg_expert_free(tg_expert *e) {
  for (int p = 0; p < 3; p++) {
    free(e->w[p]);
    free(e->s[p]);
    e->w[p] = NULL;
    e->s[p] = NULL;
  }
}

int tg_expert_upload(tl_engine *eng, int dev, const tg_expert *e, tl_tensor *out[3], char *err,
                     size_t cap) {
  for (int p = 0; p < 3; p++) out[p] = NULL;
  for (int p = 0; p < 3; p++) {
    int rc = tl_tensor_upload(eng, dev, e->fmt, tg_rows(e, p), tg_cols(e, p), e->group, e->w[p],
                              e->wbytes[p], e->s[p], e->nscales[p], &out[p], err, cap);
    if (rc != TL_OK) {
      for (int q = 0; q < p; q++) {
        tl_tensor_free(eng, out[q], NULL, 0);
        out[q] = NULL;
      }
      return rc;
    }
  }
  return TL_OK;
}

int tg_expert_cpu(const tg_expert *e, const float *lut, const float *x, float *y, char *err,
                  size_t cap) {
  return tl_expert_cpu(e->fmt, e->hidden, e->width, e->group, e->w[0], e->s[0], e->w[1], e->s[1],
                       e->w[2], e->s[2], lut, x, y, err, cap);
}

int tg_expert_pack(const tg_expert *e, unsigned char **buf, size_t *bytes, tl_part parts[3]) {
  size_t at = 0;
  for (int p = 0; p < 3; p++) {
    parts[p] = (tl_part){.fmt = e->fmt,
                         .rows = tg_rows(e, p),
                         .cols = tg_cols(e, p),
                         .group = e->group,
                         .data_at = at};
    at = (at + e->wbytes[p] + 63) / 64 * 64;
    parts[p].scales_at = at;
    at = (at + e->nscales[p] * sizeof(float) + 63) / 64 * 64;
  }
  *buf = calloc(1, at);
  if (*buf == NULL) return -1;
  for (int p = 0; p < 3; p++) {
    memcpy(*buf + parts[p].data_at, e->w[p], e->wbytes[p]);
    memcpy(*buf + parts[p].scales_at, e->s[p], e->nscales[p] * sizeof(float));
  }
  *bytes = at;
  return 0;
}

int tg_expert_ram(tl_engine *eng, const tg_expert *e, tl_ram **out, char *err, size_t cap) {
  unsigned char *buf;
  size_t bytes;
  tl_part parts[3];
  *out = NULL;
  if (tg_expert_pack(e, &buf, &bytes, parts) != 0) {
    if (err != NULL && cap > 0) snprintf(err, cap, "tg_expert_ram: out of memory");
    return TL_E_OOM;
  }
  int rc = tl_ram_load_mem(eng, buf, bytes, parts, 3, out, err, cap);
  free(buf);
  return rc;
}

void tg_lut(float lut[TL_SILU_LUT_SIZE]) {
  for (int k = 0; k < TL_SILU_LUT_SIZE; k++) {
    double v = (k - 512) / 32.0;
    lut[k] = (float)(v / (1.0 + exp(-v)));
  }
}
