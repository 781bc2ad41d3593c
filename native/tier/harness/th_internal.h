/*
 * The harness's private parts: the scenario as C reads it, the engine world of one run
 * (the fake backend, the tier, the RAM table, the driver's threads) and the record log.
 *
 * Invariants: everything here belongs to one run and is rebuilt by the next (the reset
 * of tl_sched_run), so state never outlives a run in the process; the driver's threads
 * touch the world only between scheduling points (the scheduler runs one of them at a
 * time), so the world needs no lock of its own.
 */
#ifndef TH_INTERNAL_H
#define TH_INTERNAL_H

#include <pthread.h>

#include "../fake_backend.h"
#include "th.h"

#define TH_MAX_TRUNK 64
#define TH_MAX_TOPK 64
#define TH_MAX_EVICTED_POLL 64 /* keys one evicted_take of the driver asks for, at most */
#define TH_MAX_LOADERS 8

typedef struct th_route {
  int n;
  int eids[TH_MAX_TOPK];
} th_route;

typedef struct th_scenario {
  int devices, layers, experts, topk, format, group, ram_capacity;
  uint64_t weight_bytes[3], scale_bytes[3], reserve_bytes;
  int ring_capacity, want_swaps, streaming, reclaims, swap_period, decay_period;
  uint64_t start_tick;
  int warmstart, loaders, tokens, refill_after, runs, init_twice, dense_while_open, careless;
  int shutdown_phase, shutdown_own, shutdown_token, shutdown_layer, shutdown_open;
  int heat_file;
  int sync_uploads, evict_capacity;
  int init_racer, second_shutdown, evicted_poll;
  int64_t budget[TT_MAX_DEVICES], capacity[TT_MAX_DEVICES];
  int ntrunk;
  tt_trunk_offer trunk[TH_MAX_TRUNK];
  th_route *routes; /* tokens x layers of one run */
  uint8_t *no_ram; /* layers x experts: 1 when the engine has no copy until it loads one */
  int nfaults[TH_SITE_COUNT];
  uint32_t *faults[TH_SITE_COUNT];
} th_scenario;

/* Parses cfg into sc (its arrays allocated); 0, or -1 with the reason in why. */
int th_scenario_parse(th_scenario *sc, const double *cfg, int n, char *why, size_t cap);
void th_scenario_free(th_scenario *sc);
/* The tier configuration of the scenario (heat_path: the harness's file, or NULL). */
void th_tier_config(const th_scenario *sc, const char *heat_path, tt_config *cfg);

/* The record log's counts and the run's sync objects, where the parent reads them: a
 * shared mapping in the fresh-process mode (a child's counts are published as it writes). */
#define TH_ROLES 6
typedef struct th_counts {
  size_t n, dropped, blob_n; /* records, records that did not fit, heat-file bytes */
  const void *roles[TH_ROLES]; /* this run's mx, cv, cv_take, gmx, gcv, tmx (TH_ROLE_* - 1) */
} th_counts;

/* The record log: a growing array, or a fixed shared mapping in fresh-process mode. */
typedef struct th_log {
  int32_t *rec;
  size_t cap; /* records */
  uint8_t *blob;
  size_t blob_cap;
  int shared; /* rec and blob are fixed mappings: full means dropped */
  const char *heat_path; /* read into blobs at heat events */
  th_counts *c;
} th_log;

/* a record with its class and the running thread's place in the trace; NULL when full */
int32_t *th_log_record(th_log *l, int cls);
void th_log_engine(th_log *l, int kind, int a, int b, int c, int d, int e, int f, int g);
/* the tt_log sink writing tt_events into l (and heat-file bytes after heat events) */
tt_sink th_log_sink(th_log *l);

typedef struct th_engine th_engine;

typedef struct th_loader {
  th_engine *e;
  int index;
  tt_key *keys;
  int n;
} th_loader;

struct th_engine {
  const th_scenario *sc;
  th_log *log;
  fb_fake *fake;
  tt_tier *tier;
  tt_log tlog; /* the tier's (level 2) and the fake's log, writing into `log` */
  int trunk_base;
  void **ram; /* layers x experts: the engine's current RAM copy (NULL: none) */
  uint64_t warmstart_loads; /* the `load` fault site's calls */
  pthread_t shutdown_thread;
  int has_shutdown_thread;
  int run; /* 0 or 1: which run of the scenario */
  th_loader loaders[TH_MAX_LOADERS];
  /* the plan (a careless engine plans twice), then each loader's share: TH_MAX_LOADERS + 1
   * stretches of th_plan_stride keys */
  tt_key *planned;
};

static inline size_t th_plan_stride(const th_scenario *sc) {
  return 2 * (size_t)sc->layers * (size_t)sc->experts + 2;
}

/* The engine's main thread (the scheduler's entry); arg: the th_engine. */
void *th_engine_main(void *arg);
/* The world: the fault plan as the fake's hook, RAM copies, the expert input of a
 * token-layer, the provenance an output row says it has. */
int th_fault_hook(void *arg, int site, uint64_t nth, int dev);
int th_faults(const th_scenario *sc, int site, uint64_t nth);
void *th_ram_current(th_engine *e, int layer, int eid);
void *th_ram_load(th_engine *e, int layer, int eid, int why);
void th_ram_free(th_engine *e, int layer, int eid);
void th_ram_recycle(th_engine *e, void *ram);
uint64_t th_ram_id(const void *ram);
#define TH_HIDDEN 3
void th_input(const th_scenario *sc, int token, int layer, float *x);
void th_provenance(const th_scenario *sc, const float *y, int *token, int *layer, int *eid);

#endif
