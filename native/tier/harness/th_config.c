/*
 * The scenario as the harness reads it: a flat array of numbers (th.h, TH_CFG_*), every
 * field checked, and the tier configuration it gives. A bad scenario is a one-line reason,
 * never a crash: the TypeScript side writes these arrays, but a hand-made one must fail
 * cleanly too.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "th_internal.h"

typedef struct reader {
  const double *cfg;
  int n, at;
  char *why;
  size_t cap;
  int bad;
} reader;

static int64_t take(reader *r, const char *what, int64_t lo, int64_t hi) {
  if (r->bad) return lo;
  if (r->at >= r->n) {
    snprintf(r->why, r->cap, "scenario ends before %s (word %d)", what, r->at);
    r->bad = 1;
    return lo;
  }
  double v = r->cfg[r->at++];
  if (!(v == floor(v)) || v < (double)lo || v > (double)hi) {
    snprintf(r->why, r->cap, "%s is %g, outside %lld..%lld (word %d)", what, v, (long long)lo,
             (long long)hi, r->at - 1);
    r->bad = 1;
    return lo;
  }
  return (int64_t)v;
}

#define BIG (1ll << 52)

static void fixed(reader *r, th_scenario *s) {
  if (take(r, "magic", 0, BIG) != (int64_t)TH_CFG_MAGIC_VALUE && !r->bad) {
    snprintf(r->why, r->cap, "not a harness scenario (bad magic)");
    r->bad = 1;
  }
  take(r, "version", 1, 1);
  s->devices = (int)take(r, "devices", 1, TT_MAX_DEVICES);
  s->layers = (int)take(r, "layers", 1, 64);
  s->experts = (int)take(r, "experts", 1, 256);
  s->topk = (int)take(r, "topk", 0, TH_MAX_TOPK);
  s->format = (int)take(r, "format", 1, 8);
  s->group = (int)take(r, "group", 0, 1 << 20);
  s->ram_capacity = (int)take(r, "ram_capacity", 0, 1 << 20);
  for (int p = 0; p < 3; p++) s->weight_bytes[p] = (uint64_t)take(r, "weight bytes", 0, BIG);
  for (int p = 0; p < 3; p++) s->scale_bytes[p] = (uint64_t)take(r, "scale bytes", 0, BIG);
  s->reserve_bytes = (uint64_t)take(r, "reserve bytes", 0, BIG);
  s->ring_capacity = (int)take(r, "ring capacity", 1, TT_QCAP_MAX);
  s->want_swaps = (int)take(r, "want_swaps", 0, 1);
  s->streaming = (int)take(r, "streaming", 0, 1);
  s->reclaims = (int)take(r, "reclaims", 0, 1);
  s->swap_period = (int)take(r, "swap period", 1, 1 << 30);
  s->decay_period = (int)take(r, "decay period", 1, 1 << 30);
  s->start_tick = (uint64_t)take(r, "start tick", 0, BIG);
  s->warmstart = (int)take(r, "warmstart", 0, 2);
  s->loaders = (int)take(r, "loaders", 0, TH_MAX_LOADERS);
  s->tokens = (int)take(r, "tokens", 0, 4096);
  s->refill_after = (int)take(r, "refill after", -1, 4096);
  s->runs = (int)take(r, "runs", 1, 2);
  s->init_twice = (int)take(r, "init twice", 0, 1);
  s->dense_while_open = (int)take(r, "dense while open", 0, 1);
  s->careless = (int)take(r, "careless", 0, 15);
  s->shutdown_phase = (int)take(r, "shutdown phase", -1, TH_PHASE_DECODE);
  s->shutdown_own = (int)take(r, "shutdown thread", 0, 1);
  s->shutdown_token = (int)take(r, "shutdown token", 0, 4096);
  s->shutdown_layer = (int)take(r, "shutdown layer", 0, 64);
  s->shutdown_open = (int)take(r, "shutdown group open", 0, 1);
  s->heat_file = (int)take(r, "heat file", 0, 1);
  s->sync_uploads = (int)take(r, "sync uploads", 0, 1);
  s->evict_capacity = (int)take(r, "evict capacity", 0, 1 << 20);
  s->init_racer = (int)take(r, "init racer", 0, 1);
  s->second_shutdown = (int)take(r, "second shutdown", 0, 1);
  s->evicted_poll = (int)take(r, "evicted poll", 0, TH_MAX_EVICTED_POLL);
  for (int d = 0; d < TT_MAX_DEVICES; d++) s->budget[d] = take(r, "budget bytes", -1, BIG);
  for (int d = 0; d < TT_MAX_DEVICES; d++) s->capacity[d] = take(r, "capacity bytes", 0, BIG);
}

static void trunk(reader *r, th_scenario *s) {
  s->ntrunk = (int)take(r, "trunk matrices", 0, TH_MAX_TRUNK);
  for (int i = 0; i < s->ntrunk && !r->bad; i++) {
    tt_trunk_offer *o = &s->trunk[i];
    memset(o, 0, sizeof *o);
    o->layer = (int)take(r, "trunk layer", -1, 64);
    o->weight_bytes = (uint64_t)take(r, "trunk weight bytes", 0, BIG);
    o->scale_bytes = (uint64_t)take(r, "trunk scale bytes", 0, BIG);
    o->rows = o->cols = 1;
  }
}

static void routes(reader *r, th_scenario *s) {
  size_t n = (size_t)s->tokens * (size_t)s->layers;
  s->routes = calloc(n > 0 ? n : 1, sizeof *s->routes);
  if (s->routes == NULL) {
    snprintf(r->why, r->cap, "out of memory for the routes");
    r->bad = 1;
    return;
  }
  for (size_t i = 0; i < n && !r->bad; i++) {
    th_route *rt = &s->routes[i];
    rt->n = (int)take(r, "route length", 0, TH_MAX_TOPK);
    for (int k = 0; k < rt->n; k++) rt->eids[k] = (int)take(r, "routed expert", 0, s->experts - 1);
  }
}

static void no_ram(reader *r, th_scenario *s) {
  s->no_ram = calloc((size_t)s->layers * (size_t)s->experts, 1);
  int n = (int)take(r, "experts without RAM", 0, s->layers * s->experts);
  for (int i = 0; i < n && !r->bad && s->no_ram != NULL; i++) {
    int layer = (int)take(r, "layer without RAM", 0, s->layers - 1);
    int eid = (int)take(r, "expert without RAM", 0, s->experts - 1);
    s->no_ram[(size_t)layer * (size_t)s->experts + (size_t)eid] = 1;
  }
}

static void faults(reader *r, th_scenario *s) {
  for (int site = 0; site < TH_SITE_COUNT && !r->bad; site++) {
    s->nfaults[site] = (int)take(r, "faults of a site", 0, 1 << 16);
    s->faults[site] = calloc((size_t)s->nfaults[site] + 1, sizeof(uint32_t));
    for (int i = 0; i < s->nfaults[site] && s->faults[site] != NULL; i++)
      s->faults[site][i] = (uint32_t)take(r, "fault call number", 0, 1ll << 31);
  }
}

int th_scenario_parse(th_scenario *sc, const double *cfg, int n, char *why, size_t cap) {
  memset(sc, 0, sizeof *sc);
  reader r = {cfg, n, 0, why, cap, cfg == NULL || n < TH_CFG_FIXED};
  if (r.bad) snprintf(why, cap, "scenario has %d words, fewer than %d", n, TH_CFG_FIXED);
  fixed(&r, sc);
  if (!r.bad && sc->topk > TH_MAX_TOPK) r.bad = 1;
  trunk(&r, sc);
  if (!r.bad) routes(&r, sc);
  if (!r.bad) no_ram(&r, sc);
  if (!r.bad) faults(&r, sc);
  if (!r.bad && r.at != n) {
    snprintf(why, cap, "scenario has %d words, %d read: trailing words", n, r.at);
    r.bad = 1;
  }
  if (!r.bad && sc->no_ram == NULL) {
    snprintf(why, cap, "out of memory");
    r.bad = 1;
  }
  if (r.bad) th_scenario_free(sc);
  return r.bad ? -1 : 0;
}

void th_scenario_free(th_scenario *sc) {
  free(sc->routes);
  free(sc->no_ram);
  for (int s = 0; s < TH_SITE_COUNT; s++) free(sc->faults[s]);
  memset(sc, 0, sizeof *sc);
}

void th_tier_config(const th_scenario *sc, const char *heat_path, tt_config *cfg) {
  tt_config_defaults(cfg);
  cfg->layers = sc->layers;
  cfg->experts = sc->experts;
  cfg->topk = sc->topk;
  cfg->hidden = TH_HIDDEN;
  cfg->format = sc->format;
  cfg->group = sc->group;
  cfg->ram_capacity = sc->ram_capacity;
  for (int p = 0; p < 3; p++) {
    cfg->weight_bytes[p] = sc->weight_bytes[p];
    cfg->scale_bytes[p] = sc->scale_bytes[p];
  }
  for (int d = 0; d < TT_MAX_DEVICES; d++)
    cfg->budget_bytes[d] = sc->budget[d] < 0 ? TT_BUDGET_AUTO : (uint64_t)sc->budget[d];
  cfg->reserve_bytes = sc->reserve_bytes;
  cfg->ring_capacity = sc->ring_capacity;
  cfg->want_swaps = sc->want_swaps;
  cfg->streaming = sc->streaming;
  cfg->heat_path = sc->heat_file ? heat_path : NULL;
  cfg->swap_period = sc->swap_period;
  cfg->decay_period = sc->decay_period;
  cfg->start_tick = sc->start_tick;
  cfg->trunk = sc->ntrunk > 0 ? sc->trunk : NULL;
  cfg->ntrunk = sc->ntrunk;
  cfg->sync_uploads = sc->sync_uploads;
  cfg->evict_capacity = sc->evict_capacity;
}
