/*
 * Engine fixtures (see engine_fixture.h).
 */
#include "engine_fixture.h"

#include <stdio.h>

#include "harness.h"

tl_engine *fx_engine(int ndev, uint64_t capacity_bytes) {
  char err[ERR_CAP];
  int devs[TL_MAX_DEVICES];
  for (int i = 0; i < ndev; i++) devs[i] = i;
  tl_engine *eng = NULL;
  CHECK_CODE(tl_engine_create(devs, ndev, capacity_bytes, &eng, err, sizeof err), TL_OK);
  if (eng == NULL) return NULL;
  float lut[TL_SILU_LUT_SIZE];
  tg_lut(lut);
  CHECK_CODE(tl_engine_set_lut(eng, lut, err, sizeof err), TL_OK);
  return eng;
}

int fx_upload(tl_engine *eng, int dev, const tg_expert *e, tl_tensor *out[3]) {
  char err[ERR_CAP];
  CHECK_CODE(tg_expert_upload(eng, dev, e, out, err, sizeof err), TL_OK);
  return out[0] != NULL ? 0 : -1;
}

void fx_free3(tl_engine *eng, tl_tensor *t[3]) {
  char err[ERR_CAP];
  for (int p = 0; p < 3; p++) {
    if (t[p] != NULL) CHECK_CODE(tl_tensor_free(eng, t[p], err, sizeof err), TL_OK);
    t[p] = NULL;
  }
}

void fx_ledger(tl_engine *eng, uint64_t *count, uint64_t *bytes) {
  char err[ERR_CAP];
  *count = *bytes = 0;
  CHECK_CODE(tl_ledger(eng, count, bytes, err, sizeof err), TL_OK);
}
