/*
 * Random experts for tests and the CUDA self-test: deterministic (seeded), in MATH.md's
 * packing, with the SiLU table the fixture generator would make.
 *
 * Invariants: weights cover the whole int8 / int4 range (format 8: every finite e4m3
 * byte); scales are finite, signed and
 * small (so int8 h stays meaningful); everything is owned by the tg_expert and released
 * by tg_expert_free (safe on a zeroed struct).
 */
#ifndef TIERLAB_EXPERT_GEN_H
#define TIERLAB_EXPERT_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "../include/tierlab.h"

typedef struct tg_expert {
  int fmt, hidden, width, group;
  void *w[3]; /* gate, up, down */
  float *s[3];
  size_t wbytes[3], nscales[3];
} tg_expert;

uint64_t tg_next(uint64_t *state); /* splitmix64 */
float tg_uniform(uint64_t *state, float lo, float hi);

/* 0 on success, -1 when out of memory. group is ignored (0) for formats 1, 2 and 8. */
int tg_expert_make(tg_expert *e, uint64_t *rng, int fmt, int hidden, int width, int group);
void tg_expert_free(tg_expert *e);
/* rows / cols of part p (0 gate, 1 up, 2 down). */
int tg_rows(const tg_expert *e, int p);
int tg_cols(const tg_expert *e, int p);

int tg_expert_upload(tl_engine *eng, int dev, const tg_expert *e, tl_tensor *out[3], char *err,
                     size_t cap);
int tg_expert_cpu(const tg_expert *e, const float *lut, const float *x, float *y, char *err,
                  size_t cap);
/* The expert as a model file would hold it: one buffer with each part's weights, then its
 * scales, at 64-byte aligned offsets, and the tl_part table for it. *buf is malloc'd
 * (free it); 0, or -1 when out of memory. */
int tg_expert_pack(const tg_expert *e, unsigned char **buf, size_t *bytes, tl_part parts[3]);
/* A RAM copy of the expert (tl_ram_load_mem of its packed form). */
int tg_expert_ram(tl_engine *eng, const tg_expert *e, tl_ram **out, char *err, size_t cap);
void tg_lut(float lut[TL_SILU_LUT_SIZE]);
void tg_fill(uint64_t *rng, float *v, size_t n, float lo, float hi);

#endif
