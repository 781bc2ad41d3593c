/*
 * tl_route: the K largest logits, largest first, ties to the lower id; softmax weights
 * in route order; bad arguments are refused with a message.
 */
#include <math.h>

#include "harness.h"

static void route_ties(void) {
  char err[ERR_CAP];
  const float l[6] = {1.0f, 3.0f, 3.0f, 2.0f, 3.0f, -1.0f};
  int ids[4];
  float w[4];
  CHECK_CODE(tl_route(l, 6, 4, ids, w, err, sizeof err), TL_OK);
  CHECK(ids[0] == 1 && ids[1] == 2 && ids[2] == 4 && ids[3] == 3);
  CHECK(w[0] == w[1] && w[1] == w[2]); /* equal logits, equal weights */
  CHECK(w[3] < w[0]);
  float sum = w[0] + w[1] + w[2] + w[3];
  CHECK(fabsf(sum - 1.0f) < 1e-6f);
}

static void route_all_equal(void) {
  char err[ERR_CAP];
  const float l[5] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
  int ids[5];
  float w[5];
  CHECK_CODE(tl_route(l, 5, 5, ids, w, err, sizeof err), TL_OK);
  for (int i = 0; i < 5; i++) CHECK(ids[i] == i);
  CHECK(w[0] == 0.2f);
  /* negative zero and zero tie too: the lower id wins */
  const float z[3] = {0.0f, -0.0f, -1.0f};
  CHECK_CODE(tl_route(z, 3, 2, ids, w, err, sizeof err), TL_OK);
  CHECK(ids[0] == 0 && ids[1] == 1);
}

static void route_order_and_weights(void) {
  char err[ERR_CAP];
  const float l[4] = {-2.0f, 5.0f, 0.0f, 4.0f};
  int ids[2];
  float w[2];
  CHECK_CODE(tl_route(l, 4, 2, ids, w, err, sizeof err), TL_OK);
  CHECK(ids[0] == 1 && ids[1] == 3);
  const float e1 = expf(4.0f - 5.0f), sum = 1.0f + e1;
  CHECK(w[0] == 1.0f / sum && w[1] == e1 / sum);
}

static void route_bad_args(void) {
  char err[ERR_CAP];
  const float l[3] = {1.0f, 2.0f, 3.0f};
  const float bad[3] = {1.0f, NAN, 3.0f};
  int ids[3];
  float w[3];
  CHECK_CODE(tl_route(NULL, 3, 1, ids, w, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_route(l, 3, 1, NULL, w, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_route(l, 3, 1, ids, NULL, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_route(l, 0, 1, ids, w, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_route(l, 3, 0, ids, w, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_route(l, 3, 4, ids, w, err, sizeof err), TL_E_ARG);
  CHECK_CODE(tl_route(bad, 3, 1, ids, w, err, sizeof err), TL_E_ARG);
  CHECK(tl_route(l, 3, 9, ids, w, NULL, 0) == TL_E_ARG); /* no buffer: still no crash */
}

void suite_route(void) {
  th_run("route: ties go to the lower id", route_ties);
  th_run("route: all equal, signed zeros", route_all_equal);
  th_run("route: order and softmax weights", route_order_and_weights);
  th_run("route: bad arguments", route_bad_args);
}
