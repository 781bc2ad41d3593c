/*
 * The dispatcher, part 3: expert groups (issue and take).
 *
 * Invariants: at most one group per device, moving CLOSED -> ISSUING -> OPEN ->
 * TAKING -> CLOSED; every tensor a group references counts one group_use from issue
 * until the group closes (so it cannot be freed under the device); a failed or faulted
 * issue opens nothing; a take always closes the group, and on failure leaves y
 * untouched (a faulted take lets the device finish into the engine's discard buffer);
 * a tensor whose asynchronous upload failed is refused; one still uploading is fine
 * (the backend orders the group after the copy). With a tag, the backend reports the
 * finished group through tl_group_done (dispatch_async.c) into the completion queue.
 */
#include <stdlib.h>

#include "engine.h"
#include "shape.h"

static const char *const ISSUE = "tl_group_issue";
static const char *const TAKE = "tl_group_take";

/* With eng->mu held: one tensor of row r is live, on dev, with the shape it must have. */
static int check_part(tl_engine *eng, const char *what, int r, tl_tensor *t, int dev, int rows,
                      int cols, char *err, size_t cap) {
  if (t == NULL) return tl_fail(err, cap, TL_E_ARG, "%s: %s[%d] is NULL", ISSUE, what, r);
  if (!tl_ptrset_has(&eng->tensors, t)) {
    return tl_fail(err, cap, TL_E_ARG,
                   "%s: %s[%d] is not a live tensor of this engine (freed, or from another "
                   "engine)",
                   ISSUE, what, r);
  }
  if (t->dev != dev) {
    return tl_fail(err, cap, TL_E_ARG, "%s: %s[%d] lives on device %d, not device %d", ISSUE, what,
                   r, t->dev, dev);
  }
  if (t->rows != rows || t->cols != cols) {
    return tl_fail(err, cap, TL_E_ARG, "%s: %s[%d] is %d x %d but must be %d x %d", ISSUE, what, r,
                   t->rows, t->cols, rows, cols);
  }
  if (t->upload == TL_UPLOAD_FAILED) {
    return tl_fail(err, cap, TL_E_DEVICE,
                   "%s: %s[%d]'s upload failed (its completion said why); free it", ISSUE, what, r);
  }
  return TL_OK;
}

/* With eng->mu held: row r's three tensors form one expert of this hidden size. */
static int check_row(tl_engine *eng, int r, tl_tensor *g, tl_tensor *u, tl_tensor *d, int dev,
                     int hidden, char *err, size_t cap) {
  if (g == NULL) return tl_fail(err, cap, TL_E_ARG, "%s: gate[%d] is NULL", ISSUE, r);
  if (!tl_ptrset_has(&eng->tensors, g)) {
    return tl_fail(err, cap, TL_E_ARG,
                   "%s: gate[%d] is not a live tensor of this engine (freed, or from "
                   "another engine)",
                   ISSUE, r);
  }
  const int width = g->rows; /* F, from the gate tensor; up and down must agree */
  if (width > TL_MAX_WIDTH) {
    return tl_fail(err, cap, TL_E_ARG, "%s: gate[%d] has %d rows; expert width is at most %d",
                   ISSUE, r, width, TL_MAX_WIDTH);
  }
  int rc = check_part(eng, "gate", r, g, dev, width, hidden, err, cap);
  if (rc == TL_OK) rc = check_part(eng, "up", r, u, dev, width, hidden, err, cap);
  if (rc == TL_OK) rc = check_part(eng, "down", r, d, dev, hidden, width, err, cap);
  if (rc != TL_OK) return rc;
  if (u->fmt != g->fmt || d->fmt != g->fmt || u->group != g->group || d->group != g->group) {
    return tl_fail(err, cap, TL_E_ARG,
                   "%s: row %d mixes formats (gate %d/%d, up %d/%d, down %d/%d as "
                   "format/group)",
                   ISSUE, r, g->fmt, g->group, u->fmt, u->group, d->fmt, d->group);
  }
  return TL_OK;
}

/* With eng->mu held: state, tensors, fault; on success the group is ISSUING. */
static int open_group(tl_engine *eng, int dev, int n, tl_tensor *const *gate, tl_tensor *const *up,
                      tl_tensor *const *down, int hidden, char *err, size_t cap) {
  if (!eng->lut_set) {
    return tl_fail(err, cap, TL_E_STATE,
                   "%s: no SiLU table yet; call tl_engine_set_lut before the first issue", ISSUE);
  }
  tl_group_state *g = &eng->group[dev];
  if (g->phase != TL_GROUP_CLOSED) {
    return tl_fail(err, cap, TL_E_STATE, "%s: device %d already has an open group; take it first",
                   ISSUE, dev);
  }
  for (int r = 0; r < n; r++) {
    int rc = check_row(eng, r, gate[r], up[r], down[r], dev, hidden, err, cap);
    if (rc != TL_OK) return rc;
  }
  if (tl_fault_fires(eng, TL_OP_ISSUE, dev)) {
    return tl_fail(err, cap, TL_E_FAULT, "%s: injected fault (issue on device %d)", ISSUE, dev);
  }
  g->phase = TL_GROUP_ISSUING;
  g->n = n;
  g->hidden = hidden;
  g->nused = 0;
  g->met_uploads = 0;
  for (int r = 0; r < n; r++) {
    tl_tensor *parts[3] = {gate[r], up[r], down[r]};
    for (int p = 0; p < 3; p++) {
      parts[p]->group_uses++;
      g->used[g->nused++] = parts[p];
      if (parts[p]->upload == TL_UPLOAD_PENDING) g->met_uploads = 1;
    }
  }
  return TL_OK;
}

static int check_issue_args(tl_engine *eng, int dev, int n, tl_tensor *const *gate,
                            tl_tensor *const *up, tl_tensor *const *down, const float *x,
                            int hidden, char *err, size_t cap) {
  int rc = tl_check_dev(eng, ISSUE, dev, err, cap);
  if (rc != TL_OK) return rc;
  if (n < 1 || n > TL_MAX_GROUP_ROWS) {
    return tl_fail(err, cap, TL_E_ARG, "%s: n must be in 1..%d (got %d)", ISSUE, TL_MAX_GROUP_ROWS,
                   n);
  }
  if (hidden < 1 || hidden > TL_MAX_HIDDEN) {
    return tl_fail(err, cap, TL_E_ARG, "%s: hidden must be in 1..%d (got %d)", ISSUE, TL_MAX_HIDDEN,
                   hidden);
  }
  if (gate == NULL || up == NULL || down == NULL || x == NULL) {
    return tl_fail(err, cap, TL_E_ARG, "%s: %s is NULL", ISSUE,
                   gate == NULL       ? "gate"
                       : up == NULL   ? "up"
                       : down == NULL ? "down"
                                      : "x");
  }
  long bad = tl_first_nonfinite(x, (size_t)n * (size_t)hidden);
  if (bad >= 0) {
    return tl_fail(err, cap, TL_E_ARG, "%s: x[%ld] (row %ld) is not finite", ISSUE, bad,
                   bad / hidden);
  }
  return TL_OK;
}

TL_API int tl_group_issue(tl_engine *eng, int dev, int n, tl_tensor *const *gate,
                          tl_tensor *const *up, tl_tensor *const *down, const float *x, int hidden,
                          uint64_t tag, char *err, size_t err_cap) {
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, ISSUE, err, err_cap);
  if (rc != TL_OK) return rc;
  rc = check_issue_args(eng, dev, n, gate, up, down, x, hidden, err, err_cap);
  if (rc == TL_OK) {
    pthread_mutex_lock(&eng->mu);
    rc = open_group(eng, dev, n, gate, up, down, hidden, err, err_cap);
    pthread_mutex_unlock(&eng->mu);
  }
  if (rc == TL_OK) {
    rc = eng->ops->group_issue(eng->be, dev, n, gate, up, down, x, hidden, tag, err, err_cap);
    pthread_mutex_lock(&eng->mu);
    if (rc == TL_OK) {
      eng->group[dev].phase = TL_GROUP_OPEN;
      eng->groups_issued++;
      eng->groups_met_uploads += (uint64_t)eng->group[dev].met_uploads;
    } else {
      tl_group_close(&eng->group[dev]);
    }
    pthread_mutex_unlock(&eng->mu);
  }
  tl_engine_leave(eng);
  return rc;
}

TL_API int tl_group_stats(tl_engine *eng, uint64_t *issued, uint64_t *met_uploads, char *err,
                          size_t err_cap) {
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, "tl_group_stats", err, err_cap);
  if (rc != TL_OK) return rc;
  if (issued == NULL || met_uploads == NULL) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "tl_group_stats: %s is NULL",
                 issued == NULL ? "issued" : "met_uploads");
  } else {
    pthread_mutex_lock(&eng->mu);
    *issued = eng->groups_issued;
    *met_uploads = eng->groups_met_uploads;
    pthread_mutex_unlock(&eng->mu);
  }
  tl_engine_leave(eng);
  return rc;
}

/* With eng->mu held: the group is OPEN with this n and hidden; on success it is TAKING
 * and *faulted says whether this take must fail. */
static int start_take(tl_engine *eng, int dev, int n, int hidden, int *faulted, char *err,
                      size_t cap) {
  tl_group_state *g = &eng->group[dev];
  if (g->phase == TL_GROUP_CLOSED) {
    return tl_fail(err, cap, TL_E_STATE,
                   "%s: no open group on device %d (take only after a successful issue)", TAKE,
                   dev);
  }
  if (g->phase != TL_GROUP_OPEN) {
    return tl_fail(err, cap, TL_E_STATE,
                   "%s: the group on device %d is being issued or taken by another thread", TAKE,
                   dev);
  }
  if (n != g->n || hidden != g->hidden) {
    return tl_fail(err, cap, TL_E_ARG,
                   "%s: asked for n %d, hidden %d but the open group on device %d has n %d, "
                   "hidden %d",
                   TAKE, n, hidden, dev, g->n, g->hidden);
  }
  *faulted = tl_fault_fires(eng, TL_OP_TAKE, dev);
  g->phase = TL_GROUP_TAKING;
  return TL_OK;
}

TL_API int tl_group_take(tl_engine *eng, int dev, float *y, int n, int hidden, char *err,
                         size_t err_cap) {
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, TAKE, err, err_cap);
  if (rc != TL_OK) return rc;
  int faulted = 0;
  if ((rc = tl_check_dev(eng, TAKE, dev, err, err_cap)) != TL_OK) {
    /* message written */
  } else if (y == NULL) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: y is NULL", TAKE);
  } else {
    pthread_mutex_lock(&eng->mu);
    rc = start_take(eng, dev, n, hidden, &faulted, err, err_cap);
    pthread_mutex_unlock(&eng->mu);
  }
  if (rc == TL_OK) {
    if (faulted) {
      pthread_mutex_lock(&eng->discard_mu);
      (void)eng->ops->group_take(eng->be, dev, eng->discard, n, hidden, NULL, 0);
      pthread_mutex_unlock(&eng->discard_mu);
      rc = tl_fail(err, err_cap, TL_E_FAULT, "%s: injected fault (take on device %d)", TAKE, dev);
    } else {
      rc = eng->ops->group_take(eng->be, dev, y, n, hidden, err, err_cap);
    }
    pthread_mutex_lock(&eng->mu);
    tl_group_close(&eng->group[dev]);
    pthread_mutex_unlock(&eng->mu);
  }
  tl_engine_leave(eng);
  return rc;
}
