/*
 * init (PROTOCOL.md, "init"): an exclusive section of the gate, from DEAD only. Checks the
 * configuration, then in stages: the host arrays (the slot table with the groups' and
 * blocks' room, then the ring), the mutex and condition variables, the budgets, the heat
 * file, the dense trunk (before the experts), the uploader thread.
 *
 * Results, never aborts: a refused configuration, or a stage that fails, leaves the tier
 * off with a reason and nothing allocated: each failure undoes every stage before it, in
 * the TypeScript tier's order (src/tier/init.ts). A second init while live or tearing
 * down changes nothing and says ALREADY; an init that finds another exclusive section
 * under way says BUSY and never waits; init after shutdown starts afresh (the state is
 * cleared with memset, the sync objects initialized again).
 */
#include <stdio.h>
#include <string.h>

#include "tt_state.h"

#define ALIGN64(n) (((n) + 63u) & ~(size_t)63u)

/* The slot table's host array also holds plan_fill's order, the groups, the input and
 * output blocks, the eviction ring and the pending re-plan swaps, in that order. */
enum {
  PART_SLOTS,
  PART_ORDER,
  PART_GROUPS,
  PART_XBLOCK,
  PART_YBLOCK,
  PART_EVICTED,
  PART_PENDING,
  PARTS
};

static size_t slots_bytes(const tt_config *c, int devices, size_t *parts) {
  size_t n = (size_t)c->layers * (size_t)c->experts;
  size_t rows = (size_t)devices * TT_GROUP_ROWS;
  parts[PART_SLOTS] = ALIGN64(n * sizeof(tt_slot));
  parts[PART_ORDER] = ALIGN64(n * sizeof(uint32_t));
  parts[PART_GROUPS] = ALIGN64(rows * sizeof(tt_row));
  parts[PART_XBLOCK] = parts[PART_YBLOCK] = ALIGN64(rows * (size_t)c->hidden * sizeof(float));
  parts[PART_EVICTED] = ALIGN64(TT_EVICT_CAP * sizeof(tt_key));
  parts[PART_PENDING] = ALIGN64(TT_REPLAN_PENDING * sizeof(tt_pair));
  size_t total = 0;
  for (int i = 0; i < PARTS; i++) total += parts[i];
  return total;
}

static void carve(tt_gen *g, const size_t *parts, size_t total) {
  char *p = g->host_slots;
  void *at[PARTS];
  memset(p, 0, total);
  for (int i = 0; i < PARTS; p += parts[i], i++) at[i] = p;
  g->slots = at[PART_SLOTS];
  g->order = at[PART_ORDER];
  g->groups = at[PART_GROUPS];
  g->xblock = at[PART_XBLOCK];
  g->yblock = at[PART_YBLOCK];
  g->evicted = at[PART_EVICTED];
  g->pending = at[PART_PENDING];
  g->ring = g->host_ring;
  memset(g->ring, 0, (size_t)g->cfg.ring_capacity * sizeof(tt_entry));
}

static int sync_init(tt_tier *t) {
  tt_gen *g = &t->g;
  if (tt_be_env_fault(t, TT_ENV_SYNC_INIT)) return -1;
  if (pthread_mutex_init(&g->mx, NULL) != 0) return -1;
  if (pthread_cond_init(&g->cv, NULL) != 0) {
    pthread_mutex_destroy(&g->mx);
    return -1;
  }
  if (pthread_cond_init(&g->cv_take, NULL) != 0) {
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mx);
    return -1;
  }
  return 0;
}

static void sync_destroy(tt_tier *t) {
  pthread_cond_destroy(&t->g.cv_take);
  pthread_cond_destroy(&t->g.cv);
  pthread_mutex_destroy(&t->g.mx);
}

static int off(tt_init_result *out, const char *reason) {
  out->state = TT_INIT_OFF;
  snprintf(out->reason, sizeof out->reason, "%s", reason);
  return TT_INIT_OFF;
}

/* init's stages, as init_stage events number them */
enum {
  STAGE_SLOTS = 1,
  STAGE_RING,
  STAGE_SYNC,
  STAGE_BUDGETS,
  STAGE_HEAT,
  STAGE_TRUNK,
  STAGE_UPLOADER
};

static void stage_done(tt_tier *t, int stage, int ok) {
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_INIT_STAGE, -1, -1, -1, stage, ok);
}

/* Undoes the host arrays of a failed init (slot table first, as the TypeScript tier);
 * stage 0: the failure was reported already. */
static int rollback(tt_tier *t, int stage, int arrays, tt_init_result *out, const char *reason) {
  if (stage > 0) stage_done(t, stage, 0);
  if (arrays >= 1) tt_be_host_free(t, TT_HOST_SLOTS, t->g.host_slots);
  if (arrays >= 2) tt_be_host_free(t, TT_HOST_RING, t->g.host_ring);
  t->g.host_slots = t->g.host_ring = NULL;
  t->g.slots = NULL;
  return off(out, reason);
}

static void set_budgets(tt_tier *t) {
  tt_gen *g = &t->g;
  for (int dev = 0; dev < g->devices; dev++) {
    uint64_t want = g->cfg.budget_bytes[dev];
    if (want == TT_BUDGET_AUTO) {
      uint64_t free_bytes = 0;
      int rc = tt_be_mem_info(t, dev, &free_bytes);
      want = rc != 0 || free_bytes < g->cfg.reserve_bytes ? 0 : free_bytes - g->cfg.reserve_bytes;
    }
    g->budget[dev] = want;
    if (TT_LOGGING(t)) tt_ev(t, TT_EV_BUDGET, -1, -1, dev, (int64_t)want, (int64_t)g->exp_bytes);
  }
}

/* Budgets, heat, trunk, uploader: the stages after the sync objects exist. */
static int start(tt_tier *t, tt_init_result *out) {
  tt_gen *g = &t->g;
  set_budgets(t);
  stage_done(t, STAGE_BUDGETS, 1);
  if (g->cfg.heat_path != NULL) {
    int loaded = tt_heat_load(t);
    if (TT_LOGGING(t)) tt_ev(t, TT_EV_HEAT_LOADED, -1, -1, -1, loaded, 0);
    stage_done(t, STAGE_HEAT, 1);
  }
  tt_trunk_charge_live(t);
  out->trunk_base = tt_trunk_place_offers(t);
  stage_done(t, STAGE_TRUNK, 1);
  g->cfg.trunk = NULL; /* the caller's offers are not ours past init */
  t->in_x = 0; /* from its first step on, the uploader shares tt_gen */
  if (tt_be_env_fault(t, TT_ENV_THREAD_START) ||
      pthread_create(&g->uploader, NULL, tt_uploader_main, t) != 0) {
    t->in_x = 1; /* no uploader: tt_gen is this section's alone again */
    /* the tables are off from here (the reference's section of them ends at the failed
     * start); what they held is freed after */
    stage_done(t, STAGE_UPLOADER, 0);
    /* the trunk this init placed goes; one placed while DEAD stays, uncharged */
    tt_trunk_uncharge(t);
    if (out->trunk_base >= 0) tt_trunk_release_from(t, out->trunk_base);
    /* the host arrays first, then the sync objects, as the reference undoes them */
    int rc = rollback(t, 0, 2, out, "cannot start the uploader thread");
    sync_destroy(t);
    return rc;
  }
  out->state = TT_INIT_ACTIVE;
  return TT_INIT_ACTIVE;
}

static int stages(tt_tier *t, const tt_config *cfg, tt_init_result *out) {
  tt_gen *g = &t->g;
  const char *problem = tt_config_problem(cfg);
  if (problem != NULL) return off(out, problem);
  memset(g, 0, sizeof *g);
  g->cfg = *cfg;
  if (cfg->heat_path != NULL) {
    snprintf(g->heat_path, sizeof g->heat_path, "%s", cfg->heat_path);
    g->cfg.heat_path = g->heat_path;
  }
  g->devices = t->be.devices;
  g->exp_bytes = tt_expert_bytes(cfg);
  g->swaps = cfg->want_swaps && t->be.reclaims;
  g->tick = cfg->start_tick;
  size_t parts[PARTS];
  size_t total = slots_bytes(cfg, g->devices, parts);
  g->host_slots = tt_be_host_alloc(t, TT_HOST_SLOTS, total);
  if (g->host_slots == NULL)
    return rollback(t, STAGE_SLOTS, 0, out, "cannot allocate the slot table");
  stage_done(t, STAGE_SLOTS, 1);
  g->host_ring = tt_be_host_alloc(t, TT_HOST_RING, (size_t)cfg->ring_capacity * sizeof(tt_entry));
  if (g->host_ring == NULL)
    return rollback(t, STAGE_RING, 1, out, "cannot allocate the upload ring");
  stage_done(t, STAGE_RING, 1);
  if (sync_init(t) != 0)
    return rollback(t, STAGE_SYNC, 2, out, "cannot initialize the mutex and condition variables");
  carve(g, parts, total);
  stage_done(t, STAGE_SYNC, 1);
  tt_gate_reset_groups(t); /* fresh tables: no group of this generation is open */
  return start(t, out);
}

/* Arguments no configuration may have (a caller's mistake, not a protocol refusal). */
static const char *arg_problem(const tt_config *c) {
  if (c->layers < 1 || c->layers > 65536 || c->experts < 1 || c->experts > 65536)
    return "layers and experts must be in 1..65536";
  if ((uint64_t)c->layers * (uint64_t)c->experts > (1u << 24))
    return "layers x experts must be at most 2^24";
  if (c->hidden < 1 || c->hidden > (1 << 20)) return "hidden must be in 1..2^20";
  if (c->topk < 0) return "topk must not be negative";
  if (c->format != 1 && c->format != 2 && c->format != 4 && c->format != 8)
    return "format must be 1, 2, 4 or 8";
  if (c->group < 0 || c->ram_capacity < 0) return "group and ram_capacity must not be negative";
  if (c->ring_capacity < 1 || c->ring_capacity > TT_QCAP_MAX)
    return "ring_capacity must be in 1..4096";
  if (c->swap_period < 1 || c->decay_period < 1) return "swap and decay periods must be >= 1";
  if (c->ntrunk < 0 || c->ntrunk > 65536 || (c->ntrunk > 0 && c->trunk == NULL))
    return "ntrunk must be in 0..65536, with trunk offers when positive";
  if (c->heat_path != NULL && strlen(c->heat_path) >= TT_PATH_MAX)
    return "heat_path is longer than 1023 bytes";
  return NULL;
}

int tt_init(tt_tier *t, const tt_config *cfg, tt_init_result *out) {
  tt_init_result spare;
  if (out == NULL) out = &spare;
  memset(out, 0, sizeof *out);
  out->state = TT_INIT_OFF;
  if (t == NULL || cfg == NULL) {
    tt_set_error("tt_init: the tier and the configuration are required");
    return TT_E_ARG;
  }
  if (TT_LOGGING(t)) tt_ev_call(t, TT_FN_INIT, -1, -1, 0);
  const char *bad = arg_problem(cfg);
  int life, state = TT_E_ARG;
  if (bad != NULL) {
    tt_set_error("tt_init: %s", bad);
    snprintf(out->reason, sizeof out->reason, "%s", bad);
  } else if (!tt_gate_enter_x(t, TT_LIFE_DEAD, &life)) {
    /* LIVE: already; during a teardown or another init: busy (the reference's init) */
    state = out->state = life == TT_LIFE_LIVE ? TT_INIT_ALREADY : TT_INIT_BUSY;
    snprintf(out->reason, sizeof out->reason, "%s",
             state == TT_INIT_BUSY ? "another init or teardown holds the gate" : "already live");
  } else {
    t->in_x = 1;
    state = stages(t, cfg, out);
    /* an active tier cleared it before its uploader started (which reads it from then on) */
    if (state != TT_INIT_ACTIVE) t->in_x = 0;
    tt_gate_leave_x(t, state == TT_INIT_ACTIVE ? TT_LIFE_LIVE : TT_LIFE_DEAD, 0);
  }
  if (TT_LOGGING(t)) tt_ev_ret(t, TT_FN_INIT, state);
  return state;
}
