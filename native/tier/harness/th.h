/*
 * The C tier's schedule harness: the tier, the fake backend and an engine driver in C, run
 * under tierlab's deterministic scheduler, one whole schedule per call.
 *
 * Role: what a TypeScript checker drives through koffi. A call takes a scenario (a flat
 * array of numbers, TH_CFG_* below: the model's shape, the tier's configuration, the
 * driver's plan, the routes, the faults, the heat file) and a choice source (a recorded
 * schedule, or a seed for random or PCT choices), runs the engine's main thread and every
 * thread it and the tier start to the end under the scheduler, and keeps one ordered
 * record stream of the run: the scheduler's trace (every lock, unlock, wait, signal,
 * create, join, backend entry), the tier's own event log (native/tier/EVENTS.md; off at
 * level 1), the fake backend's ledger events and the driver's engine events (calls and
 * returns at the tier's boundary, routes, RAM lent and freed, CPU experts, combines).
 * Records are merged exactly: each record the harness writes knows how many trace events
 * came before it (tl_sched_current).
 * Invariants: one run is deterministic (the same scenario and choices give the same
 * records, word for word); a run never aborts the caller (a bad scenario is an error
 * result with a reason); in the fresh-process mode the run happens in a forked child and
 * the records come back through shared memory, so a tier that crashes is a result too.
 * The record layout (TH_REC_*) is the TypeScript reader's (src/check/replay/): change both.
 */
#ifndef TH_H
#define TH_H

#include <stddef.h>
#include <stdint.h>

#include "../tt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TH_CFG_MAGIC_VALUE 1952998246.0 /* "thcf" */
#define TH_CFG_VERSION_VALUE 1.0

/* The scenario: fixed words, then sections (each a count, then its items). */
enum {
  TH_CFG_MAGIC,
  TH_CFG_VERSION,
  TH_CFG_DEVICES,
  TH_CFG_LAYERS,
  TH_CFG_EXPERTS,
  TH_CFG_TOPK,
  TH_CFG_FORMAT,
  TH_CFG_GROUP,
  TH_CFG_RAM_CAPACITY,
  TH_CFG_WEIGHT_BYTES, /* 3 words */
  TH_CFG_SCALE_BYTES = TH_CFG_WEIGHT_BYTES + 3, /* 3 words */
  TH_CFG_RESERVE_BYTES = TH_CFG_SCALE_BYTES + 3,
  TH_CFG_RING_CAPACITY,
  TH_CFG_WANT_SWAPS,
  TH_CFG_STREAMING,
  TH_CFG_RECLAIMS,
  TH_CFG_SWAP_PERIOD,
  TH_CFG_DECAY_PERIOD,
  TH_CFG_START_TICK,
  TH_CFG_WARMSTART, /* 0 none, 1 plan, 2 block */
  TH_CFG_LOADERS,
  TH_CFG_TOKENS, /* decode steps of one run */
  TH_CFG_REFILL_AFTER, /* fill_wait again after this token (-1: never) */
  TH_CFG_RUNS, /* 1, or 2: init again and run again from the saved heat */
  TH_CFG_INIT_TWICE,
  TH_CFG_DENSE_WHILE_OPEN, /* a trunk GEMV of every matrix while each group is open */
  TH_CFG_CARELESS, /* bits: TH_CARELESS_* */
  TH_CFG_SHUTDOWN_PHASE, /* -1 only at the end; TH_PHASE_* */
  TH_CFG_SHUTDOWN_OWN, /* 1: from a thread of its own, 0: the caller */
  TH_CFG_SHUTDOWN_TOKEN,
  TH_CFG_SHUTDOWN_LAYER,
  TH_CFG_SHUTDOWN_OPEN, /* decode: while the group is open */
  TH_CFG_HEAT_FILE, /* 1: the tier reads and writes the heat file (the bytes are given apart) */
  TH_CFG_SYNC_UPLOADS, /* 1: issue first waits until nothing is in flight */
  TH_CFG_EVICT_CAPACITY, /* evictions the tier keeps for evicted_take */
  TH_CFG_INIT_RACER, /* 1: the last run's exit path races an init from a thread of its own */
  TH_CFG_SECOND_SHUTDOWN, /* 1: and a second shutdown beside it */
  TH_CFG_EVICTED_POLL, /* evicted_take for up to this many keys after every token (0: never) */
  TH_CFG_BUDGET_BYTES, /* TT_MAX_DEVICES words; -1: automatic */
  TH_CFG_CAPACITY_BYTES = TH_CFG_BUDGET_BYTES + TT_MAX_DEVICES, /* TT_MAX_DEVICES words */
  TH_CFG_FIXED = TH_CFG_CAPACITY_BYTES + TT_MAX_DEVICES
  /* sections, in order: trunk (count, then layer, weight bytes, scale bytes each); routes
   * (runs x tokens x layers entries, each a count then its expert ids; one run's routes,
   * repeated by a second run); experts with no RAM copy (count, then layer, eid each);
   * faults (TH_SITE_COUNT sections: count, then the 0-based call numbers that fail) */
};

enum { TH_PHASE_PLAN = 0, TH_PHASE_WARMSTART = 1, TH_PHASE_FILL = 2, TH_PHASE_DECODE = 3 };
enum {
  TH_CARELESS_HAND_OVER_TWICE = 1,
  TH_CARELESS_PLAN_TWICE = 2,
  TH_CARELESS_FILL_WAIT_TWICE = 4,
  TH_CARELESS_RELEASE_UNPLANNED = 8
};
/* fault sites, in the scenario's order (src/engine/fault_sites.ts) */
enum {
  TH_SITE_UPLOAD,
  TH_SITE_ISSUE,
  TH_SITE_TAKE,
  TH_SITE_LOAD,
  TH_SITE_STAGE,
  TH_SITE_ALLOC,
  TH_SITE_SYNC,
  TH_SITE_SPAWN,
  TH_SITE_COUNT
};

/* Run options: a flat array too (TH_OPT_*). */
enum {
  TH_OPT_SOURCE, /* TH_SOURCE_* */
  TH_OPT_SEED, /* random and PCT */
  TH_OPT_STAY_PERMILLE, /* random: chance of the quiet option */
  TH_OPT_PCT_DEPTH,
  TH_OPT_PCT_STEPS, /* PCT: the steps its change points are drawn from */
  TH_OPT_MAX_STEPS,
  TH_OPT_SPURIOUS, /* spurious wakeups the run may inject */
  TH_OPT_FRESH, /* 1: in a forked child */
  TH_OPT_LEVEL, /* 1: boundary only (the tier logs nothing), 2: the tier's event log too */
  TH_OPT_COUNT
};
enum { TH_SOURCE_RECORDED = 0, TH_SOURCE_RANDOM = 1, TH_SOURCE_PCT = 2 };

/* The record stream: TH_REC_WORDS int32 words a record; word 0 is its class. */
#define TH_REC_WORDS 40
enum {
  TH_CLASS_EVENT = 0, /* a tt_event (tier, gate, trunk, backend) */
  TH_CLASS_SCHED = 1, /* a scheduler trace event */
  TH_CLASS_ENGINE = 2, /* a driver event (TH_EV_*) */
  TH_CLASS_OBJECT = 3, /* a sync object of the run (after the last trace event) */
  TH_CLASS_THREAD = 4, /* a managed thread of the run (after the objects) */
  TH_CLASS_BLOB = 5 /* the heat file's bytes at the event before it */
};
/* TH_CLASS_EVENT words */
enum {
  TH_W_SRC = 1,
  TH_W_KIND,
  TH_W_LK,
  TH_W_TID,
  TH_W_FN,
  TH_W_LAYER,
  TH_W_EID,
  TH_W_DEV,
  TH_W_PART,
  TH_W_VLAYER,
  TH_W_VEID,
  TH_W_VALUE, /* lo, hi */
  TH_W_VALUE2 = TH_W_VALUE + 2, /* lo, hi */
  TH_W_INFLIGHT = TH_W_VALUE2 + 2,
  TH_W_QN,
  TH_W_WAITERS,
  TH_W_TICK, /* lo, hi */
  TH_W_USED = TH_W_TICK + 2, /* lo, hi */
  TH_W_BUDGET = TH_W_USED + 2, /* lo, hi */
  TH_W_HEAT = TH_W_BUDGET + 2,
  TH_W_FLAGS,
  TH_W_VFLAGS,
  TH_W_ID,
  TH_W_SEC,
  TH_W_GATE, /* life | live << 8 | want_x << 16 | x << 24 */
  TH_W_TPOS = TH_REC_WORDS - 1 /* every class: trace events before it */
};
/* TH_CLASS_SCHED words: step, tid, op, obj, arg, gen (words 1..6) */
/* TH_CLASS_ENGINE words: kind (1), tid (2), then the kind's arguments from word 3 */
enum {
  TH_EV_CALL, /* fn (TT_FN_*), layer, eid, value (note*: has RAM; plan_fill: cap; issue/take: k) */
  TH_EV_RET, /* fn, value; issue: mask bits (words 5..6 lo, hi); take: collected bits */
  TH_EV_RET_KEY, /* plan_fill's keys after its RET: layer, eid */
  TH_EV_ROUTE, /* token, layer, k; then k TH_EV_ROUTE_EID */
  TH_EV_ROUTE_EID, /* position, eid */
  TH_EV_RAM, /* layer, eid, RAM id (0: none), why (0 the current copy, 1 loaded for the
              * warmstart, 2 for the CPU, 3 streamed) */
  TH_EV_RAM_FREE, /* layer, eid, RAM id freed (0: none was current) */
  TH_EV_RECYCLE, /* RAM id */
  TH_EV_CPU, /* layer, eid, RAM id (0: none), token */
  TH_EV_CONTRIB, /* token, layer, eid, where (0 gpu, 1 cpu), output's token, layer, eid */
  TH_EV_COMBINE, /* token, layer, contributions */
  TH_EV_MARK, /* TH_MARK_*, value */
  TH_EV_FINISH_TOKEN /* token */
};
enum { TH_MARK_RESIDENCY = 1, TH_MARK_TIER_OFF = 2 };
/* TH_CLASS_OBJECT: id, kind, gen, role (TH_ROLE_*); TH_CLASS_THREAD: tid, parent, name
 * (words 3.. as bytes, up to 16) */
enum {
  TH_ROLE_OTHER,
  TH_ROLE_MX,
  TH_ROLE_CV,
  TH_ROLE_CV_TAKE,
  TH_ROLE_GMX,
  TH_ROLE_GCV,
  TH_ROLE_TMX
};

/* th_run's summary (TH_SUM_*, doubles). */
enum {
  TH_SUM_OUTCOME, /* tl_sched outcome (0 completed ... 5 error) */
  TH_SUM_STEPS,
  TH_SUM_DECISIONS,
  TH_SUM_SPURIOUS,
  TH_SUM_RECORDS,
  TH_SUM_BLOB_BYTES,
  TH_SUM_DROPPED, /* records that did not fit (the run is then an error) */
  TH_SUM_COUNT
};

typedef struct th_harness th_harness;

/* A harness whose heat file lives at heat_path (a file it may create and remove). */
TT_API th_harness *th_create(const char *heat_path);
TT_API void th_destroy(th_harness *h);
/* One schedule. Returns the outcome (TH_SUM_OUTCOME), or -1 when the scenario or the
 * options are bad (th_description says why). choices: the recorded source's (past their
 * end every choice is 0). */
TT_API int th_run(th_harness *h, const double *cfg, int n_cfg, const uint8_t *heat, int n_heat,
                  const double *opts, int n_opts, const uint32_t *choices, int n_choices,
                  double *summary);
/* The last run's records (cap_words >= records x TH_REC_WORDS), choices with their widths,
 * heat bytes, and description; each returns how many it wrote. */
TT_API int th_records(th_harness *h, int32_t *out, int cap_words);
TT_API int th_choices(th_harness *h, uint32_t *choices, uint32_t *widths, int cap);
TT_API int th_blob(th_harness *h, uint8_t *out, int cap);
TT_API int th_description(th_harness *h, char *out, int cap);
TT_API int th_abi_version(void);
#define TH_ABI_VERSION 1

#ifdef __cplusplus
}
#endif
#endif
