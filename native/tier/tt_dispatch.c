/*
 * Every backend call of the tier goes through here: one scheduling point (TT_YIELD) at
 * each entry, the optional slots' defaults, and the row arrays a group issue passes.
 * The backend may trust what arrives (tt_backend.h lists the guarantees): the callers
 * check their arguments at the API boundary, and nothing here re-checks them.
 */
#include <stdlib.h>

#include "tt_state.h"

int tt_be_mem_info(tt_tier *t, int dev, uint64_t *free_bytes) {
  TT_YIELD("be.mem_info");
  uint64_t total = 0;
  *free_bytes = 0;
  if (t->be.mem_info == NULL) return -1;
  return t->be.mem_info(t->be.ctx, dev, free_bytes, &total);
}

void *tt_be_stage(tt_tier *t, void *ram, int layer, int eid) {
  TT_YIELD("be.stage");
  return t->be.stage(t->be.ctx, ram, layer, eid);
}

void tt_be_unstage(tt_tier *t, void *staging) {
  TT_YIELD("be.unstage");
  t->be.unstage(t->be.ctx, staging);
}

void *tt_be_upload(tt_tier *t, int dev, void *staging, int part, int layer, int eid) {
  TT_YIELD("be.upload");
  return t->be.upload(t->be.ctx, dev, staging, part, layer, eid);
}

void tt_be_free(tt_tier *t, int dev, void *tensor) {
  TT_YIELD("be.free");
  t->be.free(t->be.ctx, dev, tensor);
}

int tt_be_issue(tt_tier *t, int dev, int n, const tt_row *rows, const float *x) {
  void *gate[TT_GROUP_ROWS], *up[TT_GROUP_ROWS], *down[TT_GROUP_ROWS];
  for (int r = 0; r < n; r++) {
    gate[r] = rows[r].tensors[0];
    up[r] = rows[r].tensors[1];
    down[r] = rows[r].tensors[2];
  }
  TT_YIELD("be.issue");
  return t->be.issue(t->be.ctx, dev, n, gate, up, down, x, t->g.cfg.hidden);
}

int tt_be_take(tt_tier *t, int dev, int n, float *y) {
  TT_YIELD("be.take");
  return t->be.take(t->be.ctx, dev, n, y, t->g.cfg.hidden);
}

void *tt_be_dense_upload(tt_tier *t, int dev, int index, const tt_trunk_offer *o) {
  TT_YIELD("be.dense_upload");
  if (t->be.dense_upload == NULL) return NULL;
  return t->be.dense_upload(t->be.ctx, dev, index, o);
}

int tt_be_dense_gemv(tt_tier *t, int dev, void *w, const float *x, float *y) {
  TT_YIELD("be.dense_gemv");
  if (t->be.dense_gemv == NULL) return -1;
  return t->be.dense_gemv(t->be.ctx, dev, w, x, y);
}

void tt_be_shutdown(tt_tier *t) {
  TT_YIELD("be.shutdown");
  if (t->be.shutdown != NULL) t->be.shutdown(t->be.ctx);
}

void *tt_be_host_alloc(tt_tier *t, int what, size_t bytes) {
  TT_YIELD("be.host_alloc");
  if (t->be.host_alloc != NULL) return t->be.host_alloc(t->be.ctx, what, bytes);
  return calloc(1, bytes);
}

void tt_be_host_free(tt_tier *t, int what, void *p) {
  TT_YIELD("be.host_free");
  if (t->be.host_free != NULL)
    t->be.host_free(t->be.ctx, what, p);
  else
    free(p);
}

int tt_be_env_fault(tt_tier *t, int site) {
  if (t->be.env_fault == NULL) return 0;
  return t->be.env_fault(t->be.ctx, site);
}
