/*
 * tl_route: the K largest router logits, largest first, ties to the lower expert id,
 * then softmax weights over those K logits in route order (MATH.md "route").
 *
 * Invariants: the order (value descending, id ascending) is a strict total order on
 * finite logits, so the selection needs no scratch memory: each pick is the best
 * candidate strictly after the previous pick in that order. O(K * E).
 */
#include <math.h>

#include "backend.h"
#include "shape.h"

/* 1 when expert a comes before expert b in route order. */
static int before(const float *l, int a, int b) { return l[a] > l[b] || (l[a] == l[b] && a < b); }

TL_API int tl_route(const float *logits, int experts, int k, int *ids, float *weights, char *err,
                    size_t err_cap) {
  if (err != NULL && err_cap > 0) err[0] = '\0';
  if (logits == NULL) return tl_fail(err, err_cap, TL_E_ARG, "tl_route: logits is NULL");
  if (ids == NULL) return tl_fail(err, err_cap, TL_E_ARG, "tl_route: ids is NULL");
  if (weights == NULL) return tl_fail(err, err_cap, TL_E_ARG, "tl_route: weights is NULL");
  if (experts < 1) {
    return tl_fail(err, err_cap, TL_E_ARG, "tl_route: experts must be >= 1 (got %d)", experts);
  }
  if (k < 1 || k > experts) {
    return tl_fail(err, err_cap, TL_E_ARG, "tl_route: k must be in 1..%d (got %d)", experts, k);
  }
  long bad = tl_first_nonfinite(logits, (size_t)experts);
  if (bad >= 0) {
    return tl_fail(err, err_cap, TL_E_ARG, "tl_route: logits[%ld] is not finite", bad);
  }
  for (int r = 0; r < k; r++) {
    int best = -1;
    for (int c = 0; c < experts; c++) {
      if (r > 0 && !before(logits, ids[r - 1], c)) continue; /* already picked */
      if (best < 0 || before(logits, c, best)) best = c;
    }
    ids[r] = best; /* exists: k <= experts */
  }
  const float m = logits[ids[0]]; /* the largest: max-subtracted softmax */
  float sum = 0.0f;
  for (int r = 0; r < k; r++) {
    weights[r] = expf(logits[ids[r]] - m);
    sum = sum + weights[r];
  }
  for (int r = 0; r < k; r++) weights[r] = weights[r] / sum;
  return TL_OK;
}
