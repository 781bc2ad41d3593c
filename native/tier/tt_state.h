/*
 * The C tier's private state: the lifecycle gate, the trunk table and the expert tier's
 * generation state, and the internal functions the tier's files share.
 *
 * Three locks, and no thread ever holds two of them at once:
 *   - gmx (with gcv) guards the gate; it lives as long as the tt_tier, outside the
 *     generation state, because init clears that state and the teardown destroys mx;
 *   - tmx guards the trunk table (which also outlives a generation: the trunk works
 *     while the expert tier is DEAD);
 *   - mx (with cv and cv_take) guards everything in tt_gen; init memsets tt_gen and
 *     initializes mx, cv and cv_take; the teardown's exclusive half destroys them.
 * Every field of tt_gen is read and written with mx held, except cfg, devices, exp_bytes,
 * swaps and the host arrays' addresses, which only an exclusive section writes.
 */
#ifndef TT_STATE_H
#define TT_STATE_H

#include <pthread.h>

#include "tt.h"
#include "tt_hooks.h"

#define TT_PATH_MAX 1024
#define TT_EVICT_CAP 1024 /* evictions kept until the engine takes them */
#define TT_REPLAN_PENDING 256 /* re-plan swaps kept for later */
#define TT_REPLAN_PER_TICK 2 /* pending re-plan swaps a decode tick may start */

typedef struct tt_slot {
  uint32_t heat; /* saturating */
  uint8_t resident, queued, planned;
  uint8_t in_replan; /* the victim or newcomer of a pending re-plan swap */
  void *tensors[3]; /* gate, up, down once resident (NULL: none held) */
  void *ram; /* the engine's RAM weights as last lent (NULL: none) */
} tt_slot;

typedef struct tt_entry {
  int32_t layer, eid;
  int32_t vlayer, veid; /* the victim of a swap; vlayer -1: a plain upload */
  void *staging;
} tt_entry;

/* One row of a device group. */
typedef struct tt_row {
  int32_t layer, eid, pos; /* pos: the route position its output goes to */
  void *tensors[3];
} tt_row;

typedef struct tt_counters {
  uint64_t uploads, upload_failures, hits, misses, swaps, swaps_abandoned, queue_full_skips;
} tt_counters;

/* One generation of the expert tier (init to shutdown). */
typedef struct tt_gen {
  tt_config cfg; /* cfg.heat_path points at heat_path below; cfg.trunk is NULL past init */
  char heat_path[TT_PATH_MAX];
  int devices; /* the backend's */
  uint64_t exp_bytes;
  int swaps; /* cfg.want_swaps and the backend reclaims */
  pthread_mutex_t mx;
  pthread_cond_t cv; /* the uploader waits here for work */
  pthread_cond_t cv_take; /* everyone else: ring space, an upload done, a group taken, stop */
  pthread_t uploader;
  void *host_slots, *host_ring; /* the two host arrays (tt_slot table and friends; the ring) */
  tt_slot *slots; /* layers x experts, layer-major */
  uint32_t *order; /* plan_fill's scratch: layers x experts indices */
  tt_row *groups; /* devices x TT_GROUP_ROWS: the published groups not yet taken */
  int ngroup[TT_MAX_DEVICES];
  float *xblock; /* devices x TT_GROUP_ROWS x hidden: each device's input block */
  float *yblock; /* the same for outputs */
  tt_entry *ring;
  tt_key *evicted; /* the eviction ring: TT_EVICT_CAP keys, oldest at ev_head */
  int ev_head, ev_n;
  uint64_t ev_dropped; /* evictions that overflowed the ring (never reported) */
  tt_pair *pending; /* re-plan swaps waiting for ring space (TT_REPLAN_PENDING pairs) */
  int pend_n;
  uint64_t hits_mark, misses_mark; /* the counters at the last stats mark */
  int qh, qt, qn, inflight;
  int stop, issue_open, groups_busy, waiters;
  uint64_t tick;
  uint64_t budget[TT_MAX_DEVICES], used[TT_MAX_DEVICES];
  tt_counters c;
  uint64_t sec; /* critical sections of mx so far (the log's `sec`) */
} tt_gen;

typedef struct tt_gate {
  pthread_mutex_t gmx;
  pthread_cond_t gcv;
  int life; /* TT_LIFE_* */
  int live; /* callers admitted and not yet out */
  int want_x; /* exclusive sections queued */
  int x; /* an exclusive section holds the gate */
  uint64_t teardowns; /* completed teardowns: a losing shutdown waits for the next */
  int open_groups; /* the decode thread's last issue left groups its take has not collected */
  int trunk_live; /* trunk tensors alive */
  int trunk_uploads; /* trunk uploads in flight */
} tt_gate;

typedef struct tt_trunk_entry {
  int dev;
  void *tensor;
  uint64_t charge;
  int charged; /* counted in the generation's used[dev] */
} tt_trunk_entry;

typedef struct tt_trunk {
  pthread_mutex_t tmx;
  tt_trunk_entry *e;
  int n, cap;
} tt_trunk;

struct tt_tier {
  tt_backend be;
  tt_log *log;
  tt_gate gate;
  tt_trunk trunk;
  tt_gen g;
  /* set while this tier's exclusive section runs on the calling thread and no other
   * thread can touch tt_gen: its tier events are then ordered by the gate ("x"), not mx */
  int in_x;
};

/* ---- the gate (tt_gate.c) ---- */
enum { TT_GATE_EXPERT = 0, TT_GATE_TRUNK = 1, TT_GATE_TRUNK_UPLOAD = 2 };
/* gate_refuse's value besides those kinds: an exclusive entry refused; a shutdown that
 * lost to a teardown under way (it waits for it to complete) */
enum { TT_GATE_REFUSE_X = 3, TT_GATE_REFUSE_TEARDOWN = 4, TT_GATE_REFUSE_DEAD = 5 };
int tt_gate_init(tt_tier *t);
void tt_gate_destroy(tt_tier *t);
/* 1 admitted (counted in live), 0 refused; *life gets the state seen. */
int tt_gate_enter(tt_tier *t, int kind, int *life);
/* arg: for TT_GATE_TRUNK_UPLOAD the trunk tensors it added; for an expert entry point
 * TT_GROUPS_SET (an issue published groups), TT_GROUPS_CLEAR (a take collected them) or
 * TT_GROUPS_KEEP. */
enum { TT_GROUPS_KEEP = -1, TT_GROUPS_CLEAR = 0, TT_GROUPS_SET = 1 };
void tt_gate_leave(tt_tier *t, int kind, int arg);
/* Exclusive entry from state `from`: 1 held (live == 0 now), 0 refused at once. */
int tt_gate_enter_x(tt_tier *t, int from, int *life);
void tt_gate_leave_x(tt_tier *t, int to, int teardown_done);
/* Shutdown's first step: 1 this caller tears down (LIVE -> TEARING_DOWN); 0 it lost or
 * nothing was live (it has waited for a concurrent teardown to complete); *dead_trunk is
 * set when the tier was DEAD with a trunk to free. */
int tt_gate_begin_teardown(tt_tier *t, int *dead_trunk);
void tt_gate_reset_groups(tt_tier *t); /* init: a new generation has no groups */
void tt_gate_trunk_count(tt_tier *t, int delta);

/* ---- mx and its condition variables, with the section count (tt_sync.c) ---- */
void tt_lock(tt_tier *t);
void tt_unlock(tt_tier *t);
void tt_wait_cv(tt_tier *t);
void tt_wait_take(tt_tier *t);
/* The same for a caller about one expert (note_block, note_planned): the wait event then
 * carries that expert's heat and flags, which the call changed in this section. */
void tt_wait_take_for(tt_tier *t, int layer, int eid);
void tt_signal_cv(tt_tier *t);
void tt_broadcast_take(tt_tier *t);

/* ---- the log (tt_log_tier.c) ---- */
/* A tier event under mx, with the protocol variables of (layer, eid) and dev. */
void tt_ev(tt_tier *t, int kind, int layer, int eid, int dev, int64_t value, int64_t value2);
void tt_ev_swap(tt_tier *t, int kind, int layer, int eid, int vlayer, int veid, int64_t value);
/* An event outside every lock (src tier or trunk). */
void tt_ev_out(tt_tier *t, int src, int kind, int dev, int64_t value, int64_t value2);
void tt_ev_call(tt_tier *t, int fn, int layer, int eid, int64_t value);
void tt_ev_ret(tt_tier *t, int fn, int64_t value);
void tt_ev_gate(tt_tier *t, int kind, int64_t value, int64_t value2); /* gmx held */
void tt_ev_trunk(tt_tier *t, int kind, int id, int dev, int64_t value); /* tmx held */
#define TT_LOGGING(t) ((t)->log != NULL)

/* ---- backend calls: a scheduling point at every entry (tt_dispatch.c) ---- */
int tt_be_mem_info(tt_tier *t, int dev, uint64_t *free_bytes);
void *tt_be_stage(tt_tier *t, void *ram, int layer, int eid);
void tt_be_unstage(tt_tier *t, void *staging);
void *tt_be_upload(tt_tier *t, int dev, void *staging, int part, int layer, int eid);
void tt_be_free(tt_tier *t, int dev, void *tensor);
int tt_be_issue(tt_tier *t, int dev, int n, const tt_row *rows, const float *x);
int tt_be_take(tt_tier *t, int dev, int n, float *y);
void *tt_be_dense_upload(tt_tier *t, int dev, int index, const tt_trunk_offer *o);
int tt_be_dense_gemv(tt_tier *t, int dev, void *w, const float *x, float *y);
void tt_be_shutdown(tt_tier *t);
void *tt_be_host_alloc(tt_tier *t, int what, size_t bytes);
void tt_be_host_free(tt_tier *t, int what, void *p);
int tt_be_env_fault(tt_tier *t, int site);

/* ---- shared pieces of the protocol ---- */
static inline tt_slot *tt_slot_at(tt_gen *g, int layer, int eid) {
  return &g->slots[(size_t)layer * (size_t)g->cfg.experts + (size_t)eid];
}
static inline int tt_home(const tt_gen *g, int eid) { return eid % g->devices; }
static inline int tt_has_tensors(const tt_slot *s) { return s->tensors[0] != NULL; }
/* The admission rule in 64 bits: promote iff hot > cold + cold/4 + 4. */
static inline int tt_admits(uint32_t hot, uint32_t cold) {
  return (uint64_t)hot > (uint64_t)cold + ((uint64_t)cold >> 2) + 4u;
}
static inline void tt_heat_up(tt_slot *s) {
  if (s->heat < TT_HEAT_MAX) s->heat++;
}
/* Reasons an enqueue refuses (the `refuse` event's value), in the order it checks. */
enum {
  TT_REFUSE_STOP = 1,
  TT_REFUSE_HELD = 2, /* resident, queued, or holding an eviction's tensors */
  TT_REFUSE_NO_RAM = 3,
  TT_REFUSE_RING_FULL = 4,
  TT_REFUSE_BUDGET = 5,
  TT_REFUSE_STAGE = 6
};
int tt_enqueue_locked(tt_tier *t, int layer, int eid, void *ram, int vlayer, int veid,
                      int reserved);
void tt_lfru_tick_locked(tt_tier *t);
/* A swap's victim left the device's routing (its swap is on the ring): the engine hears of
 * it once, through tt_evicted_take (mx held). */
void tt_evicted_push_locked(tt_tier *t, int layer, int eid);
/* Starts up to `max` pending re-plan swaps while the ring has room (mx held). */
int tt_replan_drain_locked(tt_tier *t, int max);
void tt_leave_wait_locked(tt_tier *t);
void *tt_uploader_main(void *arg);
void tt_set_error(const char *fmt, ...);
/* 1 when (layer, eid) names an expert of the live generation; else sets the error. */
int tt_key_ok(const tt_gen *g, int layer, int eid);
/* The trunk (tt_trunk.c): placement at init, charge of what is live, release. */
int tt_trunk_place_offers(tt_tier *t);
void tt_trunk_charge_live(tt_tier *t);
/* Gives every charged trunk tensor's charge back to used[] (mx held or exclusive). */
void tt_trunk_uncharge(tt_tier *t);
/* Frees the trunk tensors of ids from.. and drops them (exclusive section); how many. */
int tt_trunk_release_from(tt_tier *t, int from);
/* Init's stages (tt_init.c) and the teardown's halves (tt_shutdown.c). */
void tt_teardown_second_half(tt_tier *t);
int tt_heat_load(tt_tier *t);
int tt_heat_save(tt_tier *t, const uint8_t *bytes, size_t n);

#endif
