/*
 * tl_expert_cpu_ram: one expert on the host, read in place from a RAM copy whose parts
 * 0, 1, 2 are gate, up, down, with the engine's SiLU table.
 *
 * Invariants: the same math as tl_expert_cpu (expert_math.c), so the output is the same
 * bit for bit; the RAM copy is counted while the expert runs, so a tl_ram_free from
 * another thread meanwhile cannot take the bytes away; the table is copied under the
 * engine's lock (set_lut may not run while a group is open, but it may run between).
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "expert_math.h"
#include "shape.h"

/* Parts 0..2 form one expert (gate [F][H], up [F][H], down [H][F], one format). */
static int check_expert(const char *fn, const tl_ram *ram, char *err, size_t cap) {
  if (ram->nparts < 3) {
    return tl_fail(err, cap, TL_E_ARG, "%s: the RAM copy has %d parts; an expert needs 3", fn,
                   ram->nparts);
  }
  const tl_ram_part *g = &ram->parts[0], *u = &ram->parts[1], *d = &ram->parts[2];
  const int F = g->rows, H = g->cols;
  if (H > TL_MAX_HIDDEN || F > TL_MAX_WIDTH) {
    return tl_fail(err, cap, TL_E_ARG, "%s: expert of hidden %d, width %d (limits %d, %d)", fn, H,
                   F, TL_MAX_HIDDEN, TL_MAX_WIDTH);
  }
  if (u->rows != F || u->cols != H || d->rows != H || d->cols != F) {
    return tl_fail(err, cap, TL_E_ARG,
                   "%s: parts are %dx%d, %dx%d, %dx%d; an expert is FxH, FxH, HxF", fn, F, H,
                   u->rows, u->cols, d->rows, d->cols);
  }
  if (u->fmt != g->fmt || d->fmt != g->fmt || u->group != g->group || d->group != g->group) {
    return tl_fail(err, cap, TL_E_ARG, "%s: the three parts mix formats or groups", fn);
  }
  return TL_OK;
}

static tl_wref wref(const tl_ram *ram, int p) {
  const tl_ram_part *t = &ram->parts[p];
  return (tl_wref){ram->slot + t->data_at,
                   (const float *)(ram->slot + t->scales_at),
                   t->fmt,
                   t->rows,
                   t->cols,
                   t->group};
}

static int expert_ram(tl_engine *eng, tl_ram *ram, const float *x, float *y, char *err,
                      size_t cap) {
  static const char *const FN = "tl_expert_cpu_ram";
  if (x == NULL || y == NULL) {
    return tl_fail(err, cap, TL_E_ARG, "%s: %s is NULL", FN, x == NULL ? "x" : "y");
  }
  float lut[TL_SILU_LUT_SIZE];
  pthread_mutex_lock(&eng->mu);
  int rc = TL_OK;
  if (ram == NULL || !tl_ptrset_has(&eng->rams, ram)) {
    rc = tl_fail(err, cap, TL_E_ARG,
                 "%s: ram is not a live RAM copy of this engine (NULL, freed, or from "
                 "another engine)",
                 FN);
  } else if (!eng->lut_set) {
    rc = tl_fail(err, cap, TL_E_STATE, "%s: no SiLU table yet (tl_engine_set_lut first)", FN);
  } else if ((rc = check_expert(FN, ram, err, cap)) == TL_OK) {
    tl_ram_ref_locked(ram); /* a free meanwhile must not take the bytes away */
    memcpy(lut, eng->lut, sizeof lut);
  }
  pthread_mutex_unlock(&eng->mu);
  if (rc != TL_OK) return rc;
  const int H = ram->parts[0].cols, F = ram->parts[0].rows;
  long bad = tl_first_nonfinite(x, (size_t)H);
  int8_t *q = malloc((size_t)(H > F ? H : F));
  float *h = malloc((size_t)F * sizeof(float));
  if (bad >= 0) {
    rc = tl_fail(err, cap, TL_E_ARG, "%s: x[%ld] is not finite", FN, bad);
  } else if (q == NULL || h == NULL) {
    rc = tl_fail(err, cap, TL_E_OOM, "%s: host out of memory for scratch", FN);
  } else {
    tl_expert_ref ex = {
        .gate = wref(ram, 0), .up = wref(ram, 1), .down = wref(ram, 2), .hidden = H, .width = F};
    tl_expert_run(&ex, lut, x, y, q, h);
  }
  free(q);
  free(h);
  pthread_mutex_lock(&eng->mu);
  tl_ram_unref_locked(eng, ram);
  pthread_mutex_unlock(&eng->mu);
  return rc;
}

TL_API int tl_expert_cpu_ram(tl_engine *eng, tl_ram *ram, const float *x, float *y, char *err,
                             size_t err_cap) {
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, "tl_expert_cpu_ram", err, err_cap);
  if (rc != TL_OK) return rc;
  rc = expert_ram(eng, ram, x, y, err, err_cap);
  tl_engine_leave(eng);
  return rc;
}
