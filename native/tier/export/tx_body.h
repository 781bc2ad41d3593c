/*
 * The fixed part of a C tier counterexample exported as a standalone regression test:
 * the engine's use of the tier, the fault plan, the checks and main. The exporter
 * (apps/export_c/export_c.ts, `npm run replay -- FILE --export-c OUT.c`) writes this file's
 * text from `#define _GNU_SOURCE` on, with the counterexample's data (its scenario, fault
 * plan, heat file and schedule) in place of the line `TX_DATA`; this comment stays here.
 *
 * Why a driver of its own: the test needs nothing of tierlab but the scheduler's header,
 * so it carries the engine driver (native/tier/harness/th_driver.c) written again without
 * the harness's records. It must make the same tier calls from the same threads in the
 * same order, and the same pthread calls: the schedule is the scheduler's choice at each
 * scheduling point, and the points are exactly the tier's pthread calls, its backend
 * entries (TT_YIELD) and this driver's pthread_create and pthread_join. Change both files
 * together; the catalogue test (test/ctier/export_c.test.ts) fails when they drift.
 *
 * The checks are those of tierlab's level 1 (the boundary only, src/check/replay/
 * boundary.ts) that C can hold by itself, in the order tierlab judges: what a check saw
 * during the run first (the fake backend's ledger: a use after free, a double free, a
 * free under an open group, a stale RAM read; fill_wait's postcondition and progress; the
 * backend shut down with tensors alive), then how the run ended (deadlock, the step
 * bound, a misuse of a mutex or condition variable), then what is left at the end.
 * Invariants: the driver touches its state only between scheduling points (one managed
 * thread runs at a time), so nothing here takes a lock; the first failure is the verdict.
 */
#define _GNU_SOURCE
/* TX_SCHED_ELSEWHERE: the scheduler's implementation is linked from another object (a
 * suite that builds many exported tests compiles it once) */
#ifndef TX_SCHED_ELSEWHERE
#define TL_SCHED_IMPLEMENTATION
#endif
#define TL_SCHED_INTERPOSE
#include "tl_sched.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_backend.h"

#define TX_MAX_TOPK 64
#define TX_MAX_LOADERS 8
#define TX_MAX_EVICTED_POLL 64
#define TX_HIDDEN 3
#define TX_MAX_IDS 65536 /* fake backend allocations a run may make */

enum { TX_PHASE_PLAN, TX_PHASE_WARMSTART, TX_PHASE_FILL, TX_PHASE_DECODE };
enum {
  TX_HAND_OVER_TWICE = 1,
  TX_PLAN_TWICE = 2,
  TX_FILL_WAIT_TWICE = 4,
  TX_RELEASE_UNPLANNED = 8
};
/* fault sites, in the scenario's order */
enum { TX_UPLOAD, TX_ISSUE, TX_TAKE, TX_LOAD, TX_STAGE, TX_ALLOC, TX_SYNC, TX_SPAWN, TX_SITES };

typedef struct tx_route {
  int n;
  int eids[TX_MAX_TOPK];
} tx_route;

typedef struct tx_key_list {
  int n;
  const uint32_t *v;
} tx_key_list;

typedef struct tx_scenario {
  int devices, layers, experts, topk, format, group, ram_capacity;
  uint64_t weight_bytes[3], scale_bytes[3], reserve_bytes;
  int ring_capacity, want_swaps, streaming, reclaims, swap_period, decay_period;
  uint64_t start_tick;
  int warmstart, loaders, tokens, refill_after, runs, init_twice, dense_while_open, careless;
  int shutdown_phase, shutdown_own, shutdown_token, shutdown_layer, shutdown_open;
  int heat_file, sync_uploads, evict_capacity, init_racer, second_shutdown, evicted_poll;
  int64_t budget[TT_MAX_DEVICES], capacity[TT_MAX_DEVICES];
  int fault_free; /* nothing can fail in the warmstart: fill_wait's progress is checked */
} tx_scenario;

/* TX_DATA */

/* ---- the engine's world: RAM copies, faults, inputs ---- */

typedef struct tx_ram {
  void *p;
  int layer, eid, alive;
} tx_ram;

typedef struct tx_engine tx_engine;

typedef struct tx_loader {
  tx_engine *e;
  int index;
  tt_key *keys;
  int n;
} tx_loader;

struct tx_engine {
  fb_fake *fake;
  tt_tier *tier;
  tt_log tlog; /* the fake backend's events, read by the checks */
  int trunk_base, run, has_shutdown_thread;
  pthread_t shutdown_thread;
  uint64_t warmstart_loads;
  void **ram; /* layers x experts: the engine's current copy */
  tx_ram *copies; /* every copy the engine made, with whether it is alive */
  size_t ncopies, capcopies;
  tx_loader loaders[TX_MAX_LOADERS];
  tt_key *planned;
  char heat_path[64];
};

static tx_engine E;

static int faults(int site, uint64_t nth) {
  const tx_key_list *f = &TX_FAULTS[site];
  for (int i = 0; i < f->n; i++)
    if (f->v[i] == nth) return 1;
  return 0;
}

static int fault_hook(void *arg, int site, uint64_t nth, int dev) {
  (void)arg;
  (void)dev;
  switch (site) {
    case FB_UPLOAD:
      return faults(TX_UPLOAD, nth);
    case FB_ISSUE:
      return faults(TX_ISSUE, nth);
    case FB_TAKE:
      return faults(TX_TAKE, nth);
    case FB_STAGE:
      return faults(TX_STAGE, nth);
    case FB_HOST_ALLOC:
      return faults(TX_ALLOC, nth);
    case FB_SYNC_INIT:
      return faults(TX_SYNC, nth);
    case FB_THREAD_START:
      return faults(TX_SPAWN, nth);
    default:
      return 0;
  }
}

static void **slot(tx_engine *e, int layer, int eid) {
  return &e->ram[(size_t)layer * (size_t)TX_SC.experts + (size_t)eid];
}

static void *ram_new(tx_engine *e, int layer, int eid) {
  void *p = fb_ram_new(e->fake, layer, eid);
  if (p == NULL) return NULL;
  if (e->ncopies == e->capcopies) {
    e->capcopies = e->capcopies > 0 ? 2 * e->capcopies : 256;
    e->copies = realloc(e->copies, e->capcopies * sizeof *e->copies);
    if (e->copies == NULL) abort();
  }
  e->copies[e->ncopies++] = (tx_ram){p, layer, eid, 1};
  *slot(e, layer, eid) = p;
  return p;
}

static tx_ram *copy_of(tx_engine *e, const void *p) {
  for (size_t i = e->ncopies; i-- > 0;)
    if (e->copies[i].p == p) return &e->copies[i];
  return NULL;
}

/* why: 1 the warmstart (may fail by the plan), 2 the CPU, 3 streamed */
static void *ram_load(tx_engine *e, int layer, int eid, int why) {
  int failed = why == 1 && faults(TX_LOAD, e->warmstart_loads++);
  return failed ? NULL : ram_new(e, layer, eid);
}

static void ram_free(tx_engine *e, int layer, int eid) {
  void **s = slot(e, layer, eid);
  if (*s == NULL) return;
  tx_ram *c = copy_of(e, *s);
  if (c != NULL) c->alive = 0;
  fb_ram_free(e->fake, *s);
  *s = NULL;
}

static void ram_recycle(tx_engine *e, void *p) {
  tx_ram *c = copy_of(e, p);
  if (c == NULL) return;
  void **s = slot(e, c->layer, c->eid);
  if (*s == p) *s = NULL;
  if (c->alive) fb_ram_free(e->fake, p);
  c->alive = 0;
}

static void input_of(int token, int layer, float *x) {
  x[0] = (float)(1 + token * TX_SC.layers + layer);
  x[1] = 1.0f;
  x[2] = 0.0f;
}

/* ---- the checks ---- */

static struct {
  char first[400]; /* the first failure a check saw during the run ("" none) */
  int fake_violation; /* it was the fake backend's: its ledger has the words */
  uint8_t staged[TX_MAX_IDS], freed[TX_MAX_IDS];
  uint32_t at_fill[TX_MAX_IDS]; /* staging ids alive when a fill_wait was called */
  int n_at_fill, full_device, uploaders, shutdowns, host_live, shutdown_began;
  uint32_t *parts; /* layers x experts x 3: the last uploaded tensor id of each part */
  tt_key planned[4096];
  int n_planned;
} X;

static void failed(const char *fmt, ...) {
  if (X.first[0] != '\0') return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(X.first, sizeof X.first, fmt, ap);
  va_end(ap);
}

static uint32_t id_of(uint64_t id) { return id < TX_MAX_IDS ? (uint32_t)id : 0; }

/* The fake backend's events: what the tier asked of the device, in the order it asked. */
static void on_event(void *ctx, const tt_event *ev) {
  (void)ctx;
  if (ev->id >= TX_MAX_IDS) /* never a silent pass: the test cannot follow this many */
    failed("the run made more than %d fake backend allocations: raise TX_MAX_IDS", TX_MAX_IDS);
  uint32_t id = id_of(ev->id);
  switch (ev->kind) {
    case TT_EV_BE_STAGE:
      X.staged[id] = id != 0;
      break;
    case TT_EV_BE_UNSTAGE:
      X.staged[id] = 0;
      break;
    case TT_EV_BE_FREE:
      X.freed[id] = 1;
      break;
    case TT_EV_BE_UPLOAD:
      if (ev->layer < 0 || ev->layer >= TX_SC.layers || ev->eid < 0 || ev->eid >= TX_SC.experts ||
          ev->part < 0 || ev->part > 2)
        break;
      if (id == 0) X.full_device = 1;
      X.parts[((size_t)ev->layer * (size_t)TX_SC.experts + (size_t)ev->eid) * 3 +
              (size_t)ev->part] = id;
      break;
    case TT_EV_BE_HOST:
      if (id != 0) X.host_live += ev->value2 == 1 ? 1 : -1;
      break;
    case TT_EV_BE_CALL:
      if (ev->value == TT_OP_THREAD_START && ev->value2 == 0) X.uploaders++;
      break;
    case TT_EV_BE_SHUTDOWN:
      X.shutdowns++;
      if (ev->value != 0 || ev->value2 != 0 || X.host_live != 0)
        failed(
            "leak (POST-SHUTDOWN): %lld device tensors, %lld staging copies and %d host arrays "
            "alive "
            "when the backend shut down",
            (long long)ev->value, (long long)ev->value2, X.host_live);
      break;
    case TT_EV_BE_VIOLATION:
      if (X.first[0] == '\0') X.fake_violation = 1;
      failed("the fake backend's ledger");
      break;
    default:
      break;
  }
}

static void fill_wait_called(void) {
  X.n_at_fill = 0;
  for (uint32_t i = 1; i < TX_MAX_IDS; i++)
    if (X.staged[i]) X.at_fill[X.n_at_fill++] = i;
}

static int part_alive(int layer, int eid, int p) {
  uint32_t id = X.parts[((size_t)layer * (size_t)TX_SC.experts + (size_t)eid) * 3 + (size_t)p];
  return id != 0 && !X.freed[id];
}

/* POST-FILL-WAIT and, when nothing can fail, PROG-FILL (boundary.ts, fillWaitReturned) */
static void fill_wait_returned(int rc) {
  int n = X.n_planned;
  X.n_planned = 0;
  if (rc != TT_FILL_DONE) return;
  for (int i = 0; i < X.n_at_fill; i++)
    if (X.staged[X.at_fill[i]]) {
      failed(
          "fill_wait returned (POST-FILL-WAIT) while an upload enqueued before it still copies "
          "from its staging copy #%u",
          X.at_fill[i]);
      return;
    }
  if (!TX_SC.fault_free || X.full_device) return;
  for (int i = 0; i < n; i++) {
    const tt_key *k = &X.planned[i];
    if (!part_alive(k->layer, k->eid, 0) || !part_alive(k->layer, k->eid, 1) ||
        !part_alive(k->layer, k->eid, 2)) {
      failed("fill_wait returned (PROG-FILL) with planned expert L%dE%d not held by the backend",
             k->layer, k->eid);
      return;
    }
  }
}

/* ---- the tier's boundary as the engine crosses it ---- */

static void tier_config(tt_config *cfg) {
  tt_config_defaults(cfg);
  cfg->layers = TX_SC.layers;
  cfg->experts = TX_SC.experts;
  cfg->topk = TX_SC.topk;
  cfg->hidden = TX_HIDDEN;
  cfg->format = TX_SC.format;
  cfg->group = TX_SC.group;
  cfg->ram_capacity = TX_SC.ram_capacity;
  for (int p = 0; p < 3; p++) {
    cfg->weight_bytes[p] = TX_SC.weight_bytes[p];
    cfg->scale_bytes[p] = TX_SC.scale_bytes[p];
  }
  for (int d = 0; d < TT_MAX_DEVICES; d++)
    cfg->budget_bytes[d] = TX_SC.budget[d] < 0 ? TT_BUDGET_AUTO : (uint64_t)TX_SC.budget[d];
  cfg->reserve_bytes = TX_SC.reserve_bytes;
  cfg->ring_capacity = TX_SC.ring_capacity;
  cfg->want_swaps = TX_SC.want_swaps;
  cfg->streaming = TX_SC.streaming;
  cfg->heat_path = TX_SC.heat_file ? E.heat_path : NULL;
  cfg->swap_period = TX_SC.swap_period;
  cfg->decay_period = TX_SC.decay_period;
  cfg->start_tick = TX_SC.start_tick;
  cfg->trunk = TX_NTRUNK > 0 ? TX_TRUNK : NULL;
  cfg->ntrunk = TX_NTRUNK;
  cfg->sync_uploads = TX_SC.sync_uploads;
  cfg->evict_capacity = TX_SC.evict_capacity;
}

static int call_init(tx_engine *e) {
  tt_config cfg;
  tier_config(&cfg);
  tt_init_result r;
  int rc = tt_init(e->tier, &cfg, &r);
  if (rc == TT_INIT_ACTIVE) {
    e->trunk_base = r.trunk_base;
    X.n_planned = 0;
  }
  return rc;
}

static int call_note(tx_engine *e, int fn, int layer, int eid, void *ram) {
  return fn == TT_FN_NOTE      ? tt_note(e->tier, layer, eid, ram)
      : fn == TT_FN_NOTE_BLOCK ? tt_note_block(e->tier, layer, eid, ram)
                               : tt_note_planned(e->tier, layer, eid, ram);
}

static int call_plan_fill(tx_engine *e, tt_key *out, int cap) {
  int n = tt_plan_fill(e->tier, out, cap);
  X.n_planned = 0;
  for (int i = 0; i < n && X.n_planned < (int)(sizeof X.planned / sizeof X.planned[0]); i++)
    X.planned[X.n_planned++] = out[i];
  return n;
}

static int call_fill_wait(tx_engine *e) {
  fill_wait_called();
  int rc = tt_fill_wait(e->tier);
  fill_wait_returned(rc);
  return rc;
}

static int call_shutdown(tx_engine *e) {
  X.shutdown_began = 1;
  int rc = tt_shutdown(e->tier);
  X.n_planned = 0;
  return rc;
}

static void release_and_free(tx_engine *e, int layer, int eid) {
  if (tt_release_ram(e->tier, layer, eid) == 1) ram_free(e, layer, eid);
}

/* ---- the engine driver (th_driver.c, call for call) ---- */

static void *shutdown_main(void *arg) {
  tl_sched_name_thread("shutdown");
  call_shutdown(arg);
  return NULL;
}

static void *init_racer_main(void *arg) {
  tl_sched_name_thread("init-racer");
  call_init(arg);
  return NULL;
}

static void *shutdown2_main(void *arg) {
  tl_sched_name_thread("shutdown2");
  call_shutdown(arg);
  return NULL;
}

static void exit_path(tx_engine *e) {
  int last = e->run == TX_SC.runs - 1;
  pthread_t racer, second;
  int has_racer = last && TX_SC.init_racer && pthread_create(&racer, NULL, init_racer_main, e) == 0;
  int has_second =
      last && TX_SC.second_shutdown && pthread_create(&second, NULL, shutdown2_main, e) == 0;
  call_shutdown(e);
  if (e->has_shutdown_thread) pthread_join(e->shutdown_thread, NULL);
  if (has_racer) pthread_join(racer, NULL);
  if (has_second) pthread_join(second, NULL);
  if (last && TX_SC.init_racer) call_shutdown(e);
}

/* only: -1 any thread, 0 the caller only, 1 a thread of its own only */
static void maybe_shutdown(tx_engine *e, int phase, int at, int layer, int open, int only) {
  if (e->run != 0 || TX_SC.shutdown_phase != phase || (only >= 0 && TX_SC.shutdown_own != only))
    return;
  if (phase == TX_PHASE_DECODE &&
      (TX_SC.shutdown_token != at || TX_SC.shutdown_layer != layer || TX_SC.shutdown_open != open))
    return;
  if (!TX_SC.shutdown_own) {
    call_shutdown(e);
    return;
  }
  if (e->has_shutdown_thread) return;
  if (pthread_create(&e->shutdown_thread, NULL, shutdown_main, e) == 0) e->has_shutdown_thread = 1;
}

static void *loader_main(void *arg) {
  tx_loader *ld = arg;
  char name[16] = "loader0";
  name[6] = (char)('0' + ld->index);
  tl_sched_name_thread(name);
  for (int i = 0; i < ld->n; i++) {
    tt_key k = ld->keys[i];
    call_note(ld->e, TT_FN_NOTE_PLANNED, k.layer, k.eid, ram_load(ld->e, k.layer, k.eid, 1));
  }
  return NULL;
}

static size_t plan_stride(void) { return 2 * (size_t)TX_SC.layers * (size_t)TX_SC.experts + 2; }

static void release_unplanned(tx_engine *e, const tt_key *planned, int n) {
  for (int layer = 0; layer < TX_SC.layers; layer++)
    for (int eid = 0; eid < TX_SC.experts; eid++) {
      int mine = 0;
      for (int i = 0; i < n && !mine; i++)
        mine = planned[i].layer == layer && planned[i].eid == eid;
      if (mine) continue;
      release_and_free(e, layer, eid);
      return;
    }
}

static void spawn_loaders(tx_engine *e, const tt_key *planned, int total, pthread_t *th,
                          int *started, int n) {
  for (int i = 0; i < n; i++) {
    tx_loader *ld = &e->loaders[i];
    *ld = (tx_loader){e, i, e->planned + (size_t)(i + 1) * plan_stride(), 0};
    for (int j = i; j < total; j += n) ld->keys[ld->n++] = planned[j];
    if ((TX_SC.careless & TX_HAND_OVER_TWICE) && ld->n > 0) {
      ld->keys[ld->n] = ld->keys[0];
      ld->n++;
    }
    started[i] = pthread_create(&th[i], NULL, loader_main, ld) == 0;
  }
}

static void warmstart_planned(tx_engine *e) {
  int cap = TX_SC.layers * TX_SC.experts;
  tt_key *planned = e->planned;
  maybe_shutdown(e, TX_PHASE_PLAN, 0, 0, 0, -1);
  int total = call_plan_fill(e, planned, cap);
  if (TX_SC.careless & TX_PLAN_TWICE) total += call_plan_fill(e, planned + total, cap);
  int n = TX_SC.loaders > 0 ? TX_SC.loaders : 1;
  pthread_t th[TX_MAX_LOADERS];
  int started[TX_MAX_LOADERS];
  spawn_loaders(e, planned, total, th, started, n);
  maybe_shutdown(e, TX_PHASE_WARMSTART, 0, 0, 0, -1);
  for (int i = 0; i < n; i++)
    if (started[i]) pthread_join(th[i], NULL);
  maybe_shutdown(e, TX_PHASE_FILL, 0, 0, 0, -1);
  call_fill_wait(e);
  if (TX_SC.careless & TX_FILL_WAIT_TWICE) call_fill_wait(e);
  if (TX_SC.careless & TX_RELEASE_UNPLANNED) release_unplanned(e, planned, total);
  for (int i = 0; i < total; i++) release_and_free(e, planned[i].layer, planned[i].eid);
  tt_resident_count(e->tier);
}

static void warmstart_blocking(tx_engine *e) {
  maybe_shutdown(e, TX_PHASE_PLAN, 0, 0, 0, -1);
  for (int layer = 0; layer < TX_SC.layers; layer++) {
    for (int eid = 0; eid < TX_SC.experts; eid++)
      call_note(e, TT_FN_NOTE_BLOCK, layer, eid, *slot(e, layer, eid));
    if (layer == 0) maybe_shutdown(e, TX_PHASE_WARMSTART, 0, 0, 0, -1);
  }
  maybe_shutdown(e, TX_PHASE_FILL, 0, 0, 0, -1);
  call_fill_wait(e);
}

static void *ram_for_cpu(tx_engine *e, int layer, int eid) {
  if (!TX_SC.streaming && *slot(e, layer, eid) != NULL) return *slot(e, layer, eid);
  return ram_load(e, layer, eid, 2);
}

static void compute_on_cpu(tx_engine *e, int layer, const tx_route *rt, const uint8_t *want) {
  for (int k = 0; k < rt->n; k++) {
    if (!want[k]) continue;
    void *ram = ram_for_cpu(e, layer, rt->eids[k]);
    if (TX_SC.streaming && ram != NULL) ram_recycle(e, ram);
  }
}

static void note_route(tx_engine *e, int layer, const tx_route *rt) {
  for (int k = 0; k < rt->n; k++) {
    int eid = rt->eids[k];
    if (TX_SC.streaming) {
      void *ram = ram_load(e, layer, eid, 3);
      call_note(e, TT_FN_NOTE, layer, eid, ram);
      if (ram != NULL) ram_recycle(e, ram);
    } else {
      call_note(e, TT_FN_NOTE, layer, eid, *slot(e, layer, eid));
    }
  }
}

static void decode_layer(tx_engine *e, int at, int layer, int token) {
  const tx_route *rt = &TX_ROUTES[(size_t)at * (size_t)TX_SC.layers + (size_t)layer];
  maybe_shutdown(e, TX_PHASE_DECODE, at, layer, 0, -1);
  note_route(e, layer, rt);
  float x[TX_HIDDEN], y[TX_MAX_TOPK * TX_HIDDEN], dense[8];
  uint8_t mask[TX_MAX_TOPK] = {0}, want[TX_MAX_TOPK] = {0};
  input_of(token, layer, x);
  tt_issue(e->tier, layer, rt->eids, rt->n, x, mask);
  maybe_shutdown(e, TX_PHASE_DECODE, at, layer, 1, 1);
  if (TX_SC.dense_while_open)
    for (int i = 0; i < TX_NTRUNK; i++) tt_dense_matmul(e->tier, e->trunk_base + i, x, dense);
  for (int k = 0; k < rt->n; k++) want[k] = !mask[k];
  compute_on_cpu(e, layer, rt, want);
  maybe_shutdown(e, TX_PHASE_DECODE, at, layer, 1, 0);
  for (int i = 0; i < rt->n * TX_HIDDEN; i++) y[i] = NAN;
  if (tt_take(e->tier, y, rt->n, TX_HIDDEN) == 1) return;
  /* take reported a lost group: its experts are computed here */
  for (int k = 0; k < rt->n; k++) want[k] = mask[k] && isnan(y[k * TX_HIDDEN]);
  compute_on_cpu(e, layer, rt, want);
}

static void one_run(tx_engine *e, int first_token) {
  e->has_shutdown_thread = 0;
  int started = call_init(e);
  if (TX_SC.init_twice) {
    int again = call_init(e);
    if (started != TT_INIT_ACTIVE) started = again;
  }
  if (started == TT_INIT_ACTIVE) {
    if (TX_SC.warmstart == 1) warmstart_planned(e);
    if (TX_SC.warmstart == 2) warmstart_blocking(e);
    if (TX_SC.warmstart == 0) maybe_shutdown(e, TX_PHASE_PLAN, 0, 0, 0, -1);
  }
  for (int at = 0; at < TX_SC.tokens; at++) {
    for (int layer = 0; layer < TX_SC.layers; layer++) decode_layer(e, at, layer, first_token + at);
    if (at == TX_SC.refill_after) call_fill_wait(e);
    if (TX_SC.evicted_poll > 0) {
      tt_key out[TX_MAX_EVICTED_POLL];
      int max = TX_SC.evicted_poll < TX_MAX_EVICTED_POLL ? TX_SC.evicted_poll : TX_MAX_EVICTED_POLL;
      tt_evicted_take(e->tier, out, max);
    }
  }
  exit_path(e);
}

static void *engine_main(void *arg) {
  tx_engine *e = arg;
  for (int r = 0; r < TX_SC.runs; r++) {
    e->run = r;
    one_run(e, r * TX_SC.tokens);
  }
  return NULL;
}

/* ---- the run ---- */

static void write_heat(void) {
  if (!TX_SC.heat_file) return;
  FILE *f = fopen(E.heat_path, "wb");
  if (f == NULL) return; /* the tier then finds no file */
  if (TX_HEAT_LEN > 0) fwrite(TX_HEAT, 1, TX_HEAT_LEN, f);
  fclose(f);
}

/* The scheduler's reset hook: the world before the run (the fake, the tier, the RAM). */
static void reset(void *arg) {
  tx_engine *e = arg;
  write_heat();
  tt_log_init(&e->tlog, (tt_sink){NULL, on_event});
  fb_config fc = {.devices = TX_SC.devices, .reclaims = TX_SC.reclaims};
  for (int d = 0; d < TT_MAX_DEVICES; d++) fc.capacity[d] = (uint64_t)TX_SC.capacity[d];
  for (int p = 0; p < 3; p++)
    fc.weight_bytes[p] = TX_SC.weight_bytes[p], fc.scale_bytes[p] = TX_SC.scale_bytes[p];
  e->fake = fb_create(&fc, &e->tlog);
  if (e->fake == NULL) abort();
  tt_backend be;
  fb_backend(e->fake, &be);
  fb_set_hook(e->fake, fault_hook, e);
  e->tier = tt_create(&be, NULL); /* the tier logs nothing: the test sees its boundary */
  size_t cells = (size_t)TX_SC.layers * (size_t)TX_SC.experts;
  e->ram = calloc(cells, sizeof *e->ram);
  e->planned = calloc((TX_MAX_LOADERS + 1) * plan_stride(), sizeof *e->planned);
  X.parts = calloc(cells * 3, sizeof *X.parts);
  if (e->tier == NULL || e->ram == NULL || e->planned == NULL || X.parts == NULL) abort();
  for (int l = 0; l < TX_SC.layers && !TX_SC.streaming; l++)
    for (int x = 0; x < TX_SC.experts; x++)
      if (!TX_NO_RAM[(size_t)l * (size_t)TX_SC.experts + (size_t)x]) ram_new(e, l, x);
}

/* What is left when every thread finished: nothing of the tier's on the device or host. */
static void end_checks(const fb_ledger *L) {
  if (X.shutdowns < X.uploaders)
    failed(
        "leak (POST-SHUTDOWN): the tier started %d uploader(s) but shut the backend down %d "
        "time(s)",
        X.uploaders, X.shutdowns);
  if (L->tensors_live != 0 || L->staging_live != 0 || L->host_live != 0)
    failed(
        "leak (POST-SHUTDOWN): %llu device tensors, %llu staging copies and %llu host arrays alive "
        "at the end of the run",
        (unsigned long long)L->tensors_live, (unsigned long long)L->staging_live,
        (unsigned long long)L->host_live);
}

/* The run's ending, as tierlab names it: a deadlock once a shutdown began is LIVE-SHUTDOWN. */
static void outcome_checks(const tl_sched_result *r) {
  const char *d = r->description != NULL ? r->description : "";
  const char *live = X.shutdown_began ? "LIVE-SHUTDOWN" : "LIVE-DEADLOCK";
  if (r->outcome == TL_SCHED_DEADLOCK) failed("deadlock (%s): %s", live, d);
  live = X.shutdown_began ? "LIVE-SHUTDOWN" : "LIVE-STEPS";
  if (r->outcome == TL_SCHED_LIVELOCK)
    failed("livelock (%s): past %u steps: %s", live, r->steps, d);
  if (r->outcome == TL_SCHED_VIOLATION)
    failed("misuse of a mutex or condition variable (SYNC-DISCIPLINE): %s", d);
  if (r->outcome == TL_SCHED_CRASHED) failed("crash (SAFE-NO-CRASH): %s", d);
}

int main(void) {
  snprintf(E.heat_path, sizeof E.heat_path, "tx_heat_%ld.bin", (long)getpid());
  tl_sched_config c;
  memset(&c, 0, sizeof c);
  c.entry = engine_main;
  c.arg = &E;
  c.reset = reset;
  c.reset_arg = &E;
  c.source = tl_sched_source_recorded(TX_SCHEDULE, TX_SCHEDULE_LEN);
  c.limits.max_steps = TX_MAX_STEPS;
  c.limits.max_threads = 16;
  c.limits.max_spurious = TX_SPURIOUS;
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  int rc = tl_sched_run(&c, &r);
  unlink(E.heat_path);
  if (rc != 0) {
    printf("regression test %s: the scheduler could not run it: %s\n", TX_NAME, r.description);
    return 2;
  }
  fb_ledger L;
  fb_ledger_get(E.fake, &L);
  if (X.fake_violation)
    snprintf(X.first, sizeof X.first, "the fake backend's ledger: %s", L.first_violation);
  outcome_checks(&r);
  if (r.outcome == TL_SCHED_COMPLETED) end_checks(&L);
  printf("regression test %s: %u decisions, %u steps, outcome %s\n", TX_NAME, r.decisions, r.steps,
         tl_sched_outcome_name(r.outcome));
  if (X.first[0] != '\0')
    printf("FAIL: %s\n", X.first);
  else
    printf("PASS\n");
  return X.first[0] != '\0' ? 1 : 0;
}
