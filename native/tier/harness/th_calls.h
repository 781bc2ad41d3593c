/*
 * The driver's calls into the tier, each framed by a call and a ret engine event
 * (th_calls.c). Invariant: the driver calls the tier only through these, so the record
 * stream shows every call the engine made and what it answered.
 */
#ifndef TH_CALLS_H
#define TH_CALLS_H

#include "th_internal.h"

int th_call_init(th_engine *e);
/* fn: TT_FN_NOTE, TT_FN_NOTE_BLOCK or TT_FN_NOTE_PLANNED */
int th_call_note(th_engine *e, int fn, int layer, int eid, void *ram);
int th_call_plan_fill(th_engine *e, tt_key *out, int cap);
/* evicted_take for up to max (<= TH_MAX_EVICTED_POLL) keys, each logged after its return */
int th_call_evicted_take(th_engine *e, int max);
/* fn: TT_FN_FILL_WAIT, TT_FN_SHUTDOWN or TT_FN_RESIDENT_COUNT */
int th_call_simple(th_engine *e, int fn);
int th_call_release_ram(th_engine *e, int layer, int eid);
int th_call_issue(th_engine *e, int layer, const int *eids, int k, const float *x, uint8_t *mask);
/* y: k x TH_HIDDEN floats, NaN where take did not write */
int th_call_take(th_engine *e, float *y, int k);
int th_call_dense(th_engine *e, int index, const float *x);

#endif
