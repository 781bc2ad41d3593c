/*
 * The C tier's test world: a fake backend, a tier over it, an event log, and one lent RAM
 * copy per expert; plus the checks every test ends with (the ledger is clean: no live
 * tensor, staging copy or host array, no violation) and a hook that lets a test force an
 * order at a backend entry (a step waits for the test's go, never for a clock).
 */
#ifndef TT_FIXTURE_H
#define TT_FIXTURE_H

#include <pthread.h>

#include "../../tests/harness.h"
#include "../fake_backend.h"
#include "../tt.h"

typedef struct tf_world {
  fb_fake *fake;
  tt_tier *tier;
  tt_log log;
  tt_mem_sink mem;
  tt_config cfg;
  void **ram; /* layers x experts lent RAM copies */
  int layers, experts;
} tf_world;

/* A small model: layers x experts of 64 KiB parts (exp_bytes 3 x (72 KiB + 8 KiB) =
 * 240 KiB), budgets of `fit` experts per device, ring 4, swaps each 16 ticks. */
void tf_config(tt_config *cfg, int layers, int experts, int fit_per_device);
/* A world over `devices` fake devices (fill once when reclaims is 0); the tier is DEAD. */
int tf_open(tf_world *w, const tt_config *cfg, int devices, int reclaims);
/* tf_open, or a failed check and return from the (void) test */
#define TF_OPEN(w, cfg, devices, reclaims)                 \
  do {                                                     \
    if (tf_open((w), (cfg), (devices), (reclaims)) != 0) { \
      CHECK(!"the test world could not be built");         \
      return;                                              \
    }                                                      \
  } while (0)
/* Shuts the tier down, checks the ledger is clean, frees everything. */
void tf_close(tf_world *w);
void *tf_ram(tf_world *w, int layer, int eid);
/* Checks: nothing alive on the fake but RAM copies, and no violation. */
void tf_check_clean(tf_world *w, const char *when);
/* Events of `kind` in the log so far. */
int tf_count_events(tf_world *w, int kind);

/* A gate a hook can park a backend call on until the test opens it. */
typedef struct tf_latch {
  pthread_mutex_t mx;
  pthread_cond_t cv;
  int reached, open;
} tf_latch;
void tf_latch_init(tf_latch *l);
void tf_latch_destroy(tf_latch *l);
void tf_latch_arrive_and_wait(tf_latch *l); /* the parked side */
void tf_latch_wait_reached(tf_latch *l); /* the test: until the parked side arrived */
void tf_latch_open(tf_latch *l);

/* A sink that forwards to the world's memory sink and marks its latch reached once `need`
 * events matched (kind, value) from thread `tid` (0: any thread but the test's). The
 * event is recorded under the emitter's lock, before it waits: a test that has seen it
 * knows the emitter is parked (or about to park, which it does before it can be woken). */
typedef struct tf_watch {
  tt_mem_sink *mem;
  tf_latch latch;
  int kind;
  int64_t value;
  int alt_kind; /* -1, or a kind that counts whatever its value (what a defect does instead) */
  uint32_t tid, not_tid;
  int need, seen;
} tf_watch;
/* Replaces the world's log sink with the watch (same memory); before any thread starts. */
void tf_watch_start(tf_world *w, tf_watch *watch, int kind, int64_t value, uint32_t tid, int need);
/* Also count events of alt_kind (before any thread starts). */
void tf_watch_or(tf_watch *watch, int alt_kind);
/* Back to the plain memory sink (no thread may be emitting); destroys the latch. */
void tf_watch_stop(tf_world *w, tf_watch *watch);

#endif
