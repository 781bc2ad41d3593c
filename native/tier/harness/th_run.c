/*
 * One schedule of the C tier, whole, per call (th.h): a fresh world for every run (the
 * scheduler's reset hook builds the fake backend, the tier and the engine's RAM, writes
 * the heat file), the engine driver as the scheduler's entry, and afterwards the record
 * stream: the harness's records and the scheduler's trace merged by trace position, then
 * the run's sync objects (with their roles: the tier's mx, cv, cv_take, the gate's gmx and
 * gcv, the trunk's tmx) and its threads.
 *
 * Why a reset and not tt_destroy: a run may end anywhere (a deadlock, a violation), with
 * the tier's locks held and its threads parked; tearing it down through its own entry
 * points would block. The next reset frees the memory instead (the fake backend owns every
 * tensor, staging copy and host array; the tier object is one allocation and its trunk
 * table). In the fresh-process mode the run happens in a forked child and its records come
 * back through a shared mapping; nothing outlives the child.
 * Invariant: the same scenario and choices give the same records, word for word.
 */
#define _GNU_SOURCE
#define TL_SCHED_IMPLEMENTATION
#include "../../sched/tl_sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../tt_state.h"
#include "th_internal.h"

#define SHARED_RECORDS (1u << 18)
#define SHARED_BLOB (1u << 20)

struct th_harness {
  char heat_path[TT_PATH_MAX];
  th_scenario sc;
  const uint8_t *heat;
  int n_heat, level;
  th_engine e;
  th_log log; /* the in-process log (a growing array) */
  th_log shared; /* the fresh-process mode's (fixed mappings) */
  th_counts counts;
  th_log *active; /* the log of the run under way */
  tl_sched_result res;
  int32_t *out; /* the merged stream */
  size_t out_n, out_cap;
  char description[512];
};

th_harness *th_create(const char *heat_path) {
  if (heat_path == NULL || strlen(heat_path) >= TT_PATH_MAX) return NULL;
  th_harness *h = calloc(1, sizeof *h);
  if (h == NULL) return NULL;
  snprintf(h->heat_path, sizeof h->heat_path, "%s", heat_path);
  h->log.c = &h->counts;
  h->log.heat_path = h->heat_path;
  return h;
}

/* Frees what the last run left: its engine, fake backend and tier (see the header). */
static void forget_world(th_harness *h) {
  th_engine *e = &h->e;
  if (e->tier != NULL) {
    free(e->tier->trunk.e);
    free(e->tier);
  }
  if (e->fake != NULL) fb_destroy(e->fake);
  free(e->ram);
  free(e->planned);
  memset(e, 0, sizeof *e);
}

void th_destroy(th_harness *h) {
  if (h == NULL) return;
  forget_world(h);
  th_scenario_free(&h->sc);
  tl_sched_result_free(&h->res);
  free(h->log.rec);
  free(h->log.blob);
  free(h->out);
  if (h->shared.c != NULL) munmap(h->shared.c, sizeof(th_counts));
  if (h->shared.rec != NULL) munmap(h->shared.rec, SHARED_RECORDS * TH_REC_WORDS * sizeof(int32_t));
  if (h->shared.blob != NULL) munmap(h->shared.blob, SHARED_BLOB);
  free(h);
}

static void write_heat(const th_harness *h) {
  if (!h->sc.heat_file) {
    unlink(h->heat_path);
    return;
  }
  FILE *f = fopen(h->heat_path, "wb");
  if (f == NULL) return; /* the tier then finds no file: the replay sees that too */
  if (h->n_heat > 0) fwrite(h->heat, 1, (size_t)h->n_heat, f);
  fclose(f);
}

static void name_roles(th_engine *e) {
  tt_tier *t = e->tier;
  const void *roles[TH_ROLES] = {&t->g.mx,     &t->g.cv,     &t->g.cv_take,
                                 &t->gate.gmx, &t->gate.gcv, &t->trunk.tmx};
  memcpy(e->log->c->roles, roles, sizeof roles);
}

/* The initial RAM: every expert's copy, but those the scenario leaves out (not streaming). */
static void initial_ram(th_engine *e) {
  const th_scenario *s = e->sc;
  for (int l = 0; l < s->layers && !s->streaming; l++)
    for (int x = 0; x < s->experts; x++) {
      if (s->no_ram[(size_t)l * (size_t)s->experts + (size_t)x]) continue;
      void *ram = fb_ram_new(e->fake, l, x);
      e->ram[(size_t)l * (size_t)s->experts + (size_t)x] = ram;
      th_log_engine(e->log, TH_EV_RAM, l, x, (int)th_ram_id(ram), 4, 0, 0, 0);
    }
}

/* The scheduler's reset hook (in the child, in the fresh-process mode): a fresh world. */
static void reset(void *arg) {
  th_harness *h = arg;
  th_engine *e = &h->e;
  th_log *log = h->active;
  forget_world(h);
  e->log = log;
  memset(log->c, 0, sizeof *log->c);
  write_heat(h);
  const th_scenario *s = &h->sc;
  e->sc = s;
  tt_log_init(&e->tlog, th_log_sink(log));
  fb_config fc = {.devices = s->devices, .reclaims = s->reclaims};
  for (int d = 0; d < TT_MAX_DEVICES; d++) fc.capacity[d] = (uint64_t)s->capacity[d];
  for (int p = 0; p < 3; p++)
    fc.weight_bytes[p] = s->weight_bytes[p], fc.scale_bytes[p] = s->scale_bytes[p];
  e->fake = fb_create(&fc, &e->tlog);
  tt_backend be;
  fb_backend(e->fake, &be);
  fb_set_hook(e->fake, th_fault_hook, e);
  e->tier = tt_create(&be, h->level >= 2 ? &e->tlog : NULL);
  e->ram = calloc((size_t)s->layers * (size_t)s->experts, sizeof *e->ram);
  e->planned = calloc((TH_MAX_LOADERS + 1) * th_plan_stride(s), sizeof *e->planned);
  name_roles(e);
  initial_ram(e);
}

static int map_shared(th_harness *h) {
  if (h->shared.c != NULL) return 0;
  int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE;
  void *a = mmap(NULL, sizeof(th_counts), prot, flags, -1, 0);
  void *b = mmap(NULL, SHARED_RECORDS * TH_REC_WORDS * sizeof(int32_t), prot, flags, -1, 0);
  void *c = mmap(NULL, SHARED_BLOB, prot, flags, -1, 0);
  if (a == MAP_FAILED || b == MAP_FAILED || c == MAP_FAILED) return -1;
  h->shared = (th_log){b, SHARED_RECORDS, c, SHARED_BLOB, 1, h->heat_path, a};
  return 0;
}

/* Words of the options array, checked; -1 and the reason when one is out of range. */
static int options(th_harness *h, const double *o, int n, tl_sched_config *cfg) {
  double v[TH_OPT_COUNT] = {TH_SOURCE_RECORDED, 0, 500, 2, 1000, 200000, 0, 0, 2};
  for (int i = 0; i < n && i < TH_OPT_COUNT; i++) v[i] = o[i];
  if (n > TH_OPT_COUNT || v[TH_OPT_SOURCE] < 0 || v[TH_OPT_SOURCE] > 2 ||
      v[TH_OPT_STAY_PERMILLE] < 0 || v[TH_OPT_STAY_PERMILLE] > 1000 || v[TH_OPT_PCT_DEPTH] < 1 ||
      v[TH_OPT_PCT_STEPS] < 1 || v[TH_OPT_MAX_STEPS] < 1 || v[TH_OPT_MAX_STEPS] > 1e8 ||
      v[TH_OPT_SPURIOUS] < 0 || v[TH_OPT_SPURIOUS] > 1000 || v[TH_OPT_LEVEL] < 1 ||
      v[TH_OPT_LEVEL] > 2 || v[TH_OPT_SEED] < 0) {
    snprintf(h->description, sizeof h->description, "run options out of range");
    return -1;
  }
  h->level = (int)v[TH_OPT_LEVEL];
  cfg->limits.max_steps = (uint32_t)v[TH_OPT_MAX_STEPS];
  cfg->limits.max_threads = 16;
  cfg->limits.max_spurious = (uint32_t)v[TH_OPT_SPURIOUS];
  cfg->fresh_process = v[TH_OPT_FRESH] != 0;
  cfg->record_trace = 1;
  uint64_t seed = (uint64_t)v[TH_OPT_SEED];
  if (v[TH_OPT_SOURCE] == TH_SOURCE_RANDOM)
    cfg->source = tl_sched_source_random(seed, (uint32_t)v[TH_OPT_STAY_PERMILLE]);
  else if (v[TH_OPT_SOURCE] == TH_SOURCE_PCT)
    cfg->source =
        tl_sched_source_pct(seed, (uint32_t)v[TH_OPT_PCT_DEPTH], (uint32_t)v[TH_OPT_PCT_STEPS]);
  return 0;
}

static int32_t *out_record(th_harness *h) {
  if (h->out_n == h->out_cap) {
    size_t cap = h->out_cap > 0 ? h->out_cap * 2 : 4096;
    int32_t *o = realloc(h->out, cap * TH_REC_WORDS * sizeof *o);
    if (o == NULL) return NULL;
    h->out = o;
    h->out_cap = cap;
  }
  int32_t *w = &h->out[h->out_n++ * TH_REC_WORDS];
  memset(w, 0, TH_REC_WORDS * sizeof *w);
  return w;
}

static void trace_record(th_harness *h, uint32_t i) {
  const tl_sched_event *ev = &h->res.events[i];
  int32_t *w = out_record(h);
  if (w == NULL) return;
  w[0] = TH_CLASS_SCHED;
  w[1] = (int32_t)ev->step;
  w[2] = (int32_t)ev->tid;
  w[3] = (int32_t)ev->op;
  w[4] = (int32_t)ev->obj;
  w[5] = ev->arg;
  w[6] = (int32_t)ev->gen;
  w[TH_W_TPOS] = (int32_t)i;
}

static void tables(th_harness *h, const th_log *log) {
  for (uint32_t i = 0; i < h->res.n_objects; i++) {
    const tl_sched_object_info *o = &h->res.objects[i];
    int32_t *w = out_record(h);
    if (w == NULL) return;
    int role = TH_ROLE_OTHER;
    for (int r = 0; r < TH_ROLES; r++)
      if (log->c->roles[r] == o->addr) role = r + 1;
    w[0] = TH_CLASS_OBJECT;
    w[1] = (int32_t)o->id;
    w[2] = (int32_t)o->kind;
    w[3] = (int32_t)o->gen;
    w[4] = role;
  }
  for (uint32_t i = 0; i < h->res.n_threads; i++) {
    const tl_sched_thread_info *t = &h->res.threads[i];
    int32_t *w = out_record(h);
    if (w == NULL) return;
    w[0] = TH_CLASS_THREAD;
    w[1] = (int32_t)t->tid;
    w[2] = (int32_t)t->parent;
    memcpy(&w[3], t->name, 16);
    ((char *)&w[3])[15] = '\0';
  }
}

/* The harness's records and the trace, merged by trace position, then the tables. */
static void merge(th_harness *h, const th_log *log) {
  h->out_n = 0;
  uint32_t next = 0;
  for (size_t r = 0; r < log->c->n; r++) {
    const int32_t *src = &log->rec[r * TH_REC_WORDS];
    uint32_t before = (uint32_t)src[TH_W_TPOS];
    while (next < before && next < h->res.n_events) trace_record(h, next++);
    int32_t *w = out_record(h);
    if (w != NULL) memcpy(w, src, TH_REC_WORDS * sizeof *w);
  }
  while (next < h->res.n_events) trace_record(h, next++);
  tables(h, log);
}

int th_run(th_harness *h, const double *cfg, int n_cfg, const uint8_t *heat, int n_heat,
           const double *opts, int n_opts, const uint32_t *choices, int n_choices,
           double *summary) {
  if (h == NULL || summary == NULL) return -1;
  memset(summary, 0, TH_SUM_COUNT * sizeof *summary);
  h->description[0] = '\0';
  th_scenario_free(&h->sc);
  if (th_scenario_parse(&h->sc, cfg, n_cfg, h->description, sizeof h->description) != 0) return -1;
  tl_sched_config c;
  memset(&c, 0, sizeof c);
  if (options(h, opts, n_opts, &c) != 0) return -1;
  if (c.source == NULL)
    c.source = tl_sched_source_recorded(choices, n_choices > 0 ? (size_t)n_choices : 0);
  h->heat = heat;
  h->n_heat = heat != NULL && n_heat > 0 ? n_heat : 0;
  h->log.c = &h->counts;
  h->log.heat_path = h->heat_path;
  if (c.fresh_process && map_shared(h) != 0) {
    tl_sched_source_free(c.source);
    snprintf(h->description, sizeof h->description, "cannot map the fresh-process mode's log");
    return -1;
  }
  h->active = c.fresh_process ? &h->shared : &h->log;
  c.entry = th_engine_main;
  c.arg = &h->e;
  c.reset = reset;
  c.reset_arg = h;
  int rc = tl_sched_run(&c, &h->res);
  tl_sched_source_free(c.source);
  snprintf(h->description, sizeof h->description, "%s", h->res.description);
  if (rc != 0) return -1;
  merge(h, h->active);
  summary[TH_SUM_OUTCOME] = h->res.outcome;
  summary[TH_SUM_STEPS] = h->res.steps;
  summary[TH_SUM_DECISIONS] = h->res.decisions;
  summary[TH_SUM_SPURIOUS] = h->res.spurious;
  summary[TH_SUM_RECORDS] = (double)h->out_n;
  summary[TH_SUM_BLOB_BYTES] = (double)h->active->c->blob_n;
  summary[TH_SUM_DROPPED] = (double)h->active->c->dropped;
  return h->res.outcome;
}

int th_records(th_harness *h, int32_t *out, int cap_words) {
  size_t n = h->out_n;
  if (cap_words < 0 || (size_t)cap_words / TH_REC_WORDS < n) n = (size_t)(cap_words / TH_REC_WORDS);
  memcpy(out, h->out, n * TH_REC_WORDS * sizeof *out);
  return (int)n;
}

int th_choices(th_harness *h, uint32_t *choices, uint32_t *widths, int cap) {
  uint32_t n = h->res.n_choices < (uint32_t)cap ? h->res.n_choices : (uint32_t)cap;
  memcpy(choices, h->res.choices, n * sizeof *choices);
  memcpy(widths, h->res.widths, n * sizeof *widths);
  return (int)n;
}

int th_blob(th_harness *h, uint8_t *out, int cap) {
  size_t n = h->active != NULL ? h->active->c->blob_n : 0;
  if ((size_t)cap < n) n = (size_t)cap;
  if (n > 0) memcpy(out, h->active->blob, n);
  return (int)n;
}

int th_description(th_harness *h, char *out, int cap) {
  if (cap <= 0) return 0;
  return snprintf(out, (size_t)cap, "%s", h->description);
}

int th_abi_version(void) { return TH_ABI_VERSION; }
