/*
 * The C tier's stress test: what C tier authors do today to find races (real threads,
 * random sleeps in the fake backend's hooks, many iterations), kept as the baseline a
 * benchmark compares tierlab's scheduler with.
 *
 * Each iteration: init; a warmstart (plan_fill, two loader threads, fill_wait, and right
 * after it the check the engine relies on: every expert handed over is resident or its
 * upload failed); then a decode thread (notes, issue, take, outputs checked against the
 * fake's arithmetic) races a shutdown thread that starts after a random number of tokens;
 * then the ledger must be clean (no live tensor, staging copy or host array, no
 * violation) and every call must have returned (a hang is reported by the caller's
 * timeout: this program has no clock of its own in any verdict).
 * Usage: tier_stress [--iterations N] [--sleep-us U] [--seed S] [--stop-at-first] [--progress]
 *                    [--log FILE]
 * (--log writes every event of every iteration to FILE as NDJSON: a free run's log;
 * --progress writes "iteration N" to stderr as each one starts, so a caller that kills a
 * hung run, or a sanitizer that stops one, knows how far it got.)
 * Prints one line per failure and a summary; exit 0 clean, 1 a failure, 2 bad input.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../fake_backend.h"

#define LAYERS 2
#define EXPERTS 8
#define HIDDEN 4
#define TOKENS 40

typedef struct opts {
  long iterations, sleep_us;
  unsigned seed;
  int stop_at_first, progress;
  tt_log *log; /* --log FILE: every iteration's events, as NDJSON (NULL: no log) */
} opts;

typedef struct run {
  const opts *o;
  fb_fake *fake;
  tt_tier *tier;
  void *ram[LAYERS][EXPERTS];
  unsigned seed;
  int shutdown_after; /* tokens the decode thread runs before the shutdown thread goes */
  pthread_mutex_t mx;
  pthread_cond_t cv;
  int tokens_done;
  char failure[200];
} run;

static _Thread_local unsigned hook_seed;

static int sleepy(void *arg, int site, uint64_t nth, int dev) {
  const opts *o = arg;
  (void)site;
  (void)nth;
  (void)dev;
  if (hook_seed == 0) hook_seed = (unsigned)(uintptr_t)&hook_seed ^ o->seed;
  if (o->sleep_us <= 0) return 0;
  long us = (long)(rand_r(&hook_seed) % (unsigned)(o->sleep_us + 1));
  struct timespec d = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&d, NULL);
  return 0;
}

static void fail(run *r, const char *what) {
  pthread_mutex_lock(&r->mx);
  if (r->failure[0] == '\0') snprintf(r->failure, sizeof r->failure, "%s", what);
  pthread_mutex_unlock(&r->mx);
}

static void config(tt_config *cfg) {
  tt_config_defaults(cfg);
  cfg->layers = LAYERS;
  cfg->experts = EXPERTS;
  cfg->topk = 3;
  cfg->hidden = HIDDEN;
  cfg->format = 2;
  cfg->ram_capacity = EXPERTS;
  for (int p = 0; p < 3; p++) cfg->weight_bytes[p] = 4096, cfg->scale_bytes[p] = 64;
  uint64_t exp = tt_expert_bytes(cfg);
  cfg->budget_bytes[0] = cfg->budget_bytes[1] = 3 * exp;
  cfg->ring_capacity = 2;
  cfg->swap_period = 4;
}

typedef struct loader {
  run *r;
  const tt_key *keys;
  int from, to;
} loader;

static void *load(void *arg) {
  loader *l = arg;
  for (int i = l->from; i < l->to; i++)
    tt_note_planned(l->r->tier, l->keys[i].layer, l->keys[i].eid,
                    l->r->ram[l->keys[i].layer][l->keys[i].eid]);
  return NULL;
}

/* plan, two loaders, fill_wait; then what the engine relies on, read at once */
static void warmstart(run *r) {
  tt_key keys[LAYERS * EXPERTS];
  int n = tt_plan_fill(r->tier, keys, LAYERS * EXPERTS);
  loader ld[2] = {{r, keys, 0, n / 2}, {r, keys, n / 2, n}};
  pthread_t th[2];
  for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, load, &ld[i]);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  if (tt_fill_wait(r->tier) != TT_FILL_DONE) {
    fail(r, "fill_wait did not return done");
    return;
  }
  tt_stats s;
  tt_stats_get(r->tier, &s);
  int resident = 0;
  for (int i = 0; i < n; i++) resident += tt_is_resident(r->tier, keys[i].layer, keys[i].eid) == 1;
  if (s.inflight != 0 || (uint64_t)resident + s.upload_failures < (uint64_t)n)
    fail(r, "fill_wait returned with an expert neither resident nor failed");
}

/* One token of one layer: notes, issue, take, and the outputs of the experts on devices. */
static void layer_step(run *r, int layer, unsigned *seed) {
  int route[3];
  for (int i = 0; i < 3; i++) route[i] = (int)(rand_r(seed) % (i == 0 ? 3u : EXPERTS));
  for (int i = 0; i < 3; i++) tt_note(r->tier, layer, route[i], r->ram[layer][route[i]]);
  float x[HIDDEN], y[3 * HIDDEN], want[HIDDEN];
  uint8_t mask[3];
  for (int h = 0; h < HIDDEN; h++) x[h] = (float)(rand_r(seed) % 64) / 8.0f;
  int on = tt_issue(r->tier, layer, route, 3, x, mask);
  int ok = tt_take(r->tier, y, 3, HIDDEN);
  if (on < 0 || ok < 0) {
    fail(r, "issue or take refused its arguments");
    return;
  }
  for (int i = 0; i < 3 && ok == 1; i++) {
    if (!mask[i]) continue;
    fb_expert_output(layer, route[i], x, want, HIDDEN);
    if (memcmp(y + i * HIDDEN, want, sizeof want) != 0) fail(r, "take returned a wrong output");
  }
}

static void *decode(void *arg) {
  run *r = arg;
  unsigned seed = r->seed * 2654435761u + 1;
  for (int t = 0; t < TOKENS; t++) {
    for (int layer = 0; layer < LAYERS; layer++) layer_step(r, layer, &seed);
    pthread_mutex_lock(&r->mx);
    r->tokens_done = t + 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mx);
  }
  return NULL;
}

static void *closer(void *arg) {
  run *r = arg;
  pthread_mutex_lock(&r->mx);
  while (r->tokens_done < r->shutdown_after) pthread_cond_wait(&r->cv, &r->mx);
  pthread_mutex_unlock(&r->mx);
  if (tt_shutdown(r->tier) != TT_SHUTDOWN_DONE)
    fail(r, "shutdown of a live tier did not tear down");
  return NULL;
}

static void check_ledger(run *r) {
  fb_ledger l;
  fb_ledger_get(r->fake, &l);
  if (l.violations > 0) {
    char msg[200];
    snprintf(msg, sizeof msg, "backend violation: %.150s", l.first_violation);
    fail(r, msg);
  } else if (l.tensors_live != 0 || l.staging_live != 0 || l.host_live != 0 || l.groups_open != 0) {
    fail(r, "shutdown left device tensors, staging copies, host arrays or groups behind");
  }
}

/* One iteration in a fresh world; returns 0, or 1 with r->failure set. */
static int iteration(const opts *o, unsigned seed, char *failure, size_t cap) {
  run r = {.o = o, .seed = seed};
  pthread_mutex_init(&r.mx, NULL);
  pthread_cond_init(&r.cv, NULL);
  fb_config fc = {.devices = 2, .reclaims = 1};
  for (int p = 0; p < 3; p++) fc.weight_bytes[p] = 4096, fc.scale_bytes[p] = 64;
  tt_config cfg;
  config(&cfg);
  tt_backend be;
  r.fake = fb_create(&fc, o->log);
  fb_backend(r.fake, &be);
  fb_set_hook(r.fake, sleepy, (void *)o);
  r.tier = tt_create(&be, o->log);
  for (int l = 0; l < LAYERS; l++)
    for (int e = 0; e < EXPERTS; e++) r.ram[l][e] = fb_ram_new(r.fake, l, e);
  r.shutdown_after = (int)(seed % (TOKENS + 1));
  if (tt_init(r.tier, &cfg, NULL) != TT_INIT_ACTIVE) fail(&r, "init did not start the tier");
  warmstart(&r);
  pthread_t d, c;
  pthread_create(&d, NULL, decode, &r);
  pthread_create(&c, NULL, closer, &r);
  pthread_join(d, NULL);
  pthread_join(c, NULL);
  check_ledger(&r);
  tt_destroy(r.tier);
  fb_destroy(r.fake);
  pthread_cond_destroy(&r.cv);
  pthread_mutex_destroy(&r.mx);
  snprintf(failure, cap, "%s", r.failure);
  return r.failure[0] != '\0';
}

static int parse(int argc, char **argv, opts *o, const char **log_path) {
  *o = (opts){.iterations = 100, .sleep_us = 50, .seed = 1, .stop_at_first = 0, .log = NULL};
  for (int i = 1; i < argc; i++) {
    char *end = NULL;
    if (strcmp(argv[i], "--stop-at-first") == 0) {
      o->stop_at_first = 1;
      continue;
    }
    if (strcmp(argv[i], "--progress") == 0) {
      o->progress = 1;
      continue;
    }
    if (strcmp(argv[i], "--log") == 0 && i + 1 < argc) {
      *log_path = argv[++i];
      continue;
    }
    if (i + 1 >= argc) return fprintf(stderr, "tier_stress: %s: needs a value\n", argv[i]), -1;
    long v = strtol(argv[i + 1], &end, 10);
    if (end == argv[i + 1] || *end != '\0' || v < 0)
      return fprintf(stderr, "tier_stress: %s: '%s' is not a count\n", argv[i], argv[i + 1]), -1;
    if (strcmp(argv[i], "--iterations") == 0 && v >= 1)
      o->iterations = v;
    else if (strcmp(argv[i], "--sleep-us") == 0 && v <= 1000000)
      o->sleep_us = v;
    else if (strcmp(argv[i], "--seed") == 0 && v <= 0xffffffffL)
      o->seed = (unsigned)v;
    else
      return fprintf(stderr, "tier_stress: %s %s: unknown option or out of range\n", argv[i],
                     argv[i + 1]),
             -1;
    i++;
  }
  return 0;
}

int main(int argc, char **argv) {
  opts o;
  const char *log_path = NULL;
  if (parse(argc, argv, &o, &log_path) != 0) return 2;
  tt_ndjson_sink file;
  tt_log log;
  if (log_path != NULL) {
    if (tt_ndjson_sink_open(&file, log_path, 1u << 20) != 0) {
      fprintf(stderr, "tier_stress: --log %s: cannot be written\n", log_path);
      return 2;
    }
    tt_log_init(&log, tt_ndjson_sink_as_sink(&file));
    o.log = &log;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  long failures = 0, first = -1, done = 0;
  for (long i = 0; i < o.iterations; i++) {
    char failure[200];
    if (o.progress) fprintf(stderr, "iteration %ld\n", i);
    done++;
    if (iteration(&o, o.seed + (unsigned)i, failure, sizeof failure) == 0) continue;
    if (failures++ == 0) first = i;
    printf("iteration %ld (seed %u): %s\n", i, o.seed + (unsigned)i, failure);
    if (o.stop_at_first) break;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("tier_stress: %ld iterations, %ld failed, first failure at iteration %ld, %.3f s\n", done,
         failures, first, secs);
  if (log_path != NULL && tt_ndjson_sink_close(&file) != 0) {
    fprintf(stderr, "tier_stress: --log %s: a write failed\n", log_path);
    return 2;
  }
  return failures > 0 ? 1 : 0;
}
