/*
 * The engine's use of the tier, in C: init, the warmstart (planned with loader threads, or
 * blocking), the decode loop, the early and final shutdowns. It is tierlab's engine
 * driver (src/engine/driver.ts) written again for C threads, decision for decision, so a
 * scenario means the same run in both worlds: the same calls in the same order from the
 * same threads, the same careless habits, the same places to shut down (from the caller,
 * or from a thread of its own that then races everything else).
 *
 * Why in C: a schedule runs whole inside one native call, every managed thread on one OS
 * thread's user-level contexts, and JavaScript cannot run on those stacks; the choices
 * still come from TypeScript (a recorded list, a seed), and the checks read the records.
 * Invariants kept (and checked by the replay): the CPU computes exactly the experts whose
 * mask bit is clear, and after take exactly those of a group take reported lost; a RAM
 * copy is freed only after the tier said the expert is resident; fill_wait is called with
 * no group open.
 */
#include <stdlib.h>
#include <string.h>

#include "../../sched/tl_sched.h"
#include "th_calls.h"
#include "th_internal.h"

static void *shutdown_main(void *arg) {
  th_engine *e = arg;
  tl_sched_name_thread("shutdown");
  th_call_simple(e, TT_FN_SHUTDOWN);
  return NULL;
}

static void *init_racer_main(void *arg) {
  th_engine *e = arg;
  tl_sched_name_thread("init-racer");
  th_call_init(e);
  return NULL;
}

static void *shutdown2_main(void *arg) {
  th_engine *e = arg;
  tl_sched_name_thread("shutdown2");
  th_call_simple(e, TT_FN_SHUTDOWN);
  return NULL;
}

/* The exit path (src/engine/driver.ts, exitPath): on the last run an init may race the
 * shutdown from a thread of its own (whose generation, if it won, is shut down once
 * more), and a second shutdown may run beside it. */
static void exit_path(th_engine *e) {
  const th_scenario *s = e->sc;
  int last = e->run == s->runs - 1;
  pthread_t racer, second;
  int has_racer = last && s->init_racer && pthread_create(&racer, NULL, init_racer_main, e) == 0;
  int has_second =
      last && s->second_shutdown && pthread_create(&second, NULL, shutdown2_main, e) == 0;
  th_call_simple(e, TT_FN_SHUTDOWN);
  if (e->has_shutdown_thread) pthread_join(e->shutdown_thread, NULL);
  if (has_racer) pthread_join(racer, NULL);
  if (has_second) pthread_join(second, NULL);
  if (last && s->init_racer) th_call_simple(e, TT_FN_SHUTDOWN);
}

/* only: -1 any thread, 0 the caller only, 1 a thread of its own only */
static void maybe_shutdown(th_engine *e, int phase, int at, int layer, int open, int only) {
  const th_scenario *s = e->sc;
  if (e->run != 0 || s->shutdown_phase != phase || (only >= 0 && s->shutdown_own != only)) return;
  if (phase == TH_PHASE_DECODE &&
      (s->shutdown_token != at || s->shutdown_layer != layer || s->shutdown_open != open))
    return;
  if (!s->shutdown_own) {
    th_call_simple(e, TT_FN_SHUTDOWN);
    return;
  }
  if (e->has_shutdown_thread) return;
  if (pthread_create(&e->shutdown_thread, NULL, shutdown_main, e) == 0) e->has_shutdown_thread = 1;
}

static void *loader_main(void *arg) {
  th_loader *ld = arg;
  char name[16] = "loader0";
  name[6] = (char)('0' + ld->index);
  tl_sched_name_thread(name);
  for (int i = 0; i < ld->n; i++) {
    tt_key k = ld->keys[i];
    void *ram = th_ram_load(ld->e, k.layer, k.eid, 1);
    th_call_note(ld->e, TT_FN_NOTE_PLANNED, k.layer, k.eid, ram);
  }
  return NULL;
}

/* A careless engine hands back the RAM of the first expert it never planned. */
static void release_unplanned(th_engine *e, const tt_key *planned, int n) {
  for (int layer = 0; layer < e->sc->layers; layer++)
    for (int eid = 0; eid < e->sc->experts; eid++) {
      int mine = 0;
      for (int i = 0; i < n && !mine; i++)
        mine = planned[i].layer == layer && planned[i].eid == eid;
      if (mine) continue;
      if (th_call_release_ram(e, layer, eid) == 1) th_ram_free(e, layer, eid);
      return;
    }
}

/* Each loader's share of the plan: keys j with j % n == i, then (a careless loader) its
 * first one again. Each has its own stretch of e->planned (TH_PLAN_STRIDE keys). */
static void spawn_loaders(th_engine *e, const tt_key *planned, int total, pthread_t *th,
                          int *started, int n) {
  size_t stride = th_plan_stride(e->sc);
  for (int i = 0; i < n; i++) {
    th_loader *ld = &e->loaders[i];
    *ld = (th_loader){e, i, e->planned + (size_t)(i + 1) * stride, 0};
    for (int j = i; j < total; j += n) ld->keys[ld->n++] = planned[j];
    if ((e->sc->careless & TH_CARELESS_HAND_OVER_TWICE) && ld->n > 0) {
      ld->keys[ld->n] = ld->keys[0];
      ld->n++;
    }
    started[i] = pthread_create(&th[i], NULL, loader_main, ld) == 0;
  }
}

static void warmstart_planned(th_engine *e) {
  const th_scenario *s = e->sc;
  int cap = s->layers * s->experts;
  tt_key *planned = e->planned;
  maybe_shutdown(e, TH_PHASE_PLAN, 0, 0, 0, -1);
  int total = th_call_plan_fill(e, planned, cap);
  if (s->careless & TH_CARELESS_PLAN_TWICE) total += th_call_plan_fill(e, planned + total, cap);
  int n = s->loaders > 0 ? s->loaders : 1;
  pthread_t th[TH_MAX_LOADERS];
  int started[TH_MAX_LOADERS];
  spawn_loaders(e, planned, total, th, started, n);
  maybe_shutdown(e, TH_PHASE_WARMSTART, 0, 0, 0, -1);
  for (int i = 0; i < n; i++)
    if (started[i]) pthread_join(th[i], NULL);
  maybe_shutdown(e, TH_PHASE_FILL, 0, 0, 0, -1);
  th_call_simple(e, TT_FN_FILL_WAIT);
  if (s->careless & TH_CARELESS_FILL_WAIT_TWICE) th_call_simple(e, TT_FN_FILL_WAIT);
  if (s->careless & TH_CARELESS_RELEASE_UNPLANNED) release_unplanned(e, planned, total);
  /* ownership-based free: only what the tier confirms resident, after it forgot the pointer */
  for (int i = 0; i < total; i++)
    if (th_call_release_ram(e, planned[i].layer, planned[i].eid) == 1)
      th_ram_free(e, planned[i].layer, planned[i].eid);
  int resident = th_call_simple(e, TT_FN_RESIDENT_COUNT);
  th_log_engine(e->log, TH_EV_MARK, TH_MARK_RESIDENCY, resident, 0, 0, 0, 0, 0);
}

static void warmstart_blocking(th_engine *e) {
  maybe_shutdown(e, TH_PHASE_PLAN, 0, 0, 0, -1);
  for (int layer = 0; layer < e->sc->layers; layer++) {
    for (int eid = 0; eid < e->sc->experts; eid++)
      th_call_note(e, TT_FN_NOTE_BLOCK, layer, eid, th_ram_current(e, layer, eid));
    if (layer == 0) maybe_shutdown(e, TH_PHASE_WARMSTART, 0, 0, 0, -1);
  }
  maybe_shutdown(e, TH_PHASE_FILL, 0, 0, 0, -1);
  th_call_simple(e, TT_FN_FILL_WAIT);
}

/* A contribution: where it came from, and the token-layer and expert its output says. */
typedef struct part {
  int set, where, token, layer, eid;
} part;

static void *ram_for_cpu(th_engine *e, int layer, int eid) {
  if (!e->sc->streaming) {
    void *ram = th_ram_current(e, layer, eid);
    if (ram != NULL) return ram;
  }
  return th_ram_load(e, layer, eid, 2);
}

/* The CPU computes route positions k with want[k]; a missing RAM copy is the replay's
 * to judge (the event says so), the output is the expert's own. */
static void compute_on_cpu(th_engine *e, int token, int layer, const th_route *rt,
                           const uint8_t *want, part *parts) {
  for (int k = 0; k < rt->n; k++) {
    if (!want[k]) continue;
    int eid = rt->eids[k];
    void *ram = ram_for_cpu(e, layer, eid);
    th_log_engine(e->log, TH_EV_CPU, layer, eid, (int)th_ram_id(ram), token, 0, 0, 0);
    parts[k] = (part){1, 1, token, layer, eid};
    if (e->sc->streaming && ram != NULL) th_ram_recycle(e, ram);
  }
}

static void log_route(th_engine *e, int token, int layer, const th_route *rt) {
  th_log_engine(e->log, TH_EV_ROUTE, token, layer, rt->n, 0, 0, 0, 0);
  for (int k = 0; k < rt->n; k++)
    th_log_engine(e->log, TH_EV_ROUTE_EID, k, rt->eids[k], 0, 0, 0, 0, 0);
}

static void note_route(th_engine *e, int layer, const th_route *rt) {
  for (int k = 0; k < rt->n; k++) {
    int eid = rt->eids[k];
    if (e->sc->streaming) {
      void *ram = th_ram_load(e, layer, eid, 3);
      th_call_note(e, TT_FN_NOTE, layer, eid, ram);
      if (ram != NULL) th_ram_recycle(e, ram);
    } else {
      th_call_note(e, TT_FN_NOTE, layer, eid, th_ram_current(e, layer, eid));
    }
  }
}

static void combine(th_engine *e, int token, int layer, const th_route *rt, const part *parts) {
  int n = 0;
  for (int k = 0; k < rt->n; k++) {
    if (!parts[k].set) continue;
    const part *p = &parts[k];
    th_log_engine(e->log, TH_EV_CONTRIB, token, layer, rt->eids[k], p->where, p->token, p->layer,
                  p->eid);
    n++;
  }
  th_log_engine(e->log, TH_EV_COMBINE, token, layer, n, 0, 0, 0, 0);
}

/* One layer of one token; at: the token within this run, token: the engine's step. */
static void decode_layer(th_engine *e, int at, int layer, int token) {
  const th_scenario *s = e->sc;
  const th_route *rt = &s->routes[(size_t)at * (size_t)s->layers + (size_t)layer];
  maybe_shutdown(e, TH_PHASE_DECODE, at, layer, 0, -1);
  log_route(e, token, layer, rt);
  note_route(e, layer, rt);
  float x[TH_HIDDEN], y[TH_MAX_TOPK * TH_HIDDEN];
  uint8_t mask[TH_MAX_TOPK] = {0}, want[TH_MAX_TOPK];
  part parts[TH_MAX_TOPK];
  memset(parts, 0, sizeof parts);
  th_input(s, token, layer, x);
  th_call_issue(e, layer, rt->eids, rt->n, x, mask);
  maybe_shutdown(e, TH_PHASE_DECODE, at, layer, 1, 1);
  if (s->dense_while_open)
    for (int i = 0; i < s->ntrunk; i++) th_call_dense(e, i, x);
  for (int k = 0; k < rt->n; k++) want[k] = !mask[k];
  compute_on_cpu(e, token, layer, rt, want, parts);
  maybe_shutdown(e, TH_PHASE_DECODE, at, layer, 1, 0);
  int ok = th_call_take(e, y, rt->n);
  for (int k = 0; k < rt->n; k++) {
    if (!mask[k] || y[k * TH_HIDDEN] != y[k * TH_HIDDEN]) continue; /* not claimed, or NaN */
    parts[k] = (part){1, 0, 0, 0, 0};
    th_provenance(s, y + k * TH_HIDDEN, &parts[k].token, &parts[k].layer, &parts[k].eid);
  }
  /* take reported a lost group: its experts are computed here, and only then */
  if (ok != 1) {
    for (int k = 0; k < rt->n; k++) want[k] = mask[k] && !parts[k].set;
    compute_on_cpu(e, token, layer, rt, want, parts);
  }
  combine(e, token, layer, rt, parts);
}

static void one_run(th_engine *e, int first_token) {
  const th_scenario *s = e->sc;
  e->has_shutdown_thread = 0;
  int started = th_call_init(e);
  if (s->init_twice) {
    /* a second init while active must change nothing; after a failed one it is a retry */
    int again = th_call_init(e);
    if (started != TT_INIT_ACTIVE) started = again;
  }
  if (started == TT_INIT_OFF) th_log_engine(e->log, TH_EV_MARK, TH_MARK_TIER_OFF, 0, 0, 0, 0, 0, 0);
  if (started == TT_INIT_ACTIVE) {
    if (s->warmstart == 1) warmstart_planned(e);
    if (s->warmstart == 2) warmstart_blocking(e);
    if (s->warmstart == 0) maybe_shutdown(e, TH_PHASE_PLAN, 0, 0, 0, -1);
  }
  for (int at = 0; at < s->tokens; at++) {
    for (int layer = 0; layer < s->layers; layer++) decode_layer(e, at, layer, first_token + at);
    th_log_engine(e->log, TH_EV_FINISH_TOKEN, first_token + at, 0, 0, 0, 0, 0, 0);
    if (at == s->refill_after) th_call_simple(e, TT_FN_FILL_WAIT);
    if (s->evicted_poll > 0) th_call_evicted_take(e, s->evicted_poll);
  }
  /* the exit path shuts down too, while a shutdown thread of its own may still be at it */
  exit_path(e);
}

void *th_engine_main(void *arg) {
  th_engine *e = arg;
  for (int r = 0; r < e->sc->runs; r++) {
    e->run = r;
    one_run(e, r * e->sc->tokens);
  }
  return NULL;
}
