/*
 * Engines and experts for the engine tests: create an engine over simulated devices
 * 0..ndev-1 with the SiLU table set, and upload random experts onto it.
 * Failures are recorded as failed checks and reported as NULL / nonzero.
 */
#ifndef TIERLAB_ENGINE_FIXTURE_H
#define TIERLAB_ENGINE_FIXTURE_H

#include "expert_gen.h"

tl_engine *fx_engine(int ndev, uint64_t capacity_bytes);
/* Uploads e to dev; 0 on success (parts in out), else a failed check and -1. */
int fx_upload(tl_engine *eng, int dev, const tg_expert *e, tl_tensor *out[3]);
void fx_free3(tl_engine *eng, tl_tensor *t[3]);
/* Ledger count and bytes in one call (both 0 on failure, with a failed check). */
void fx_ledger(tl_engine *eng, uint64_t *count, uint64_t *bytes);

#endif
