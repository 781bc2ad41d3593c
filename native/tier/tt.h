/*
 * tierlab's C expert tier: the public entry points.
 *
 * Role: the VRAM expert tier of a MoE engine, written as engines write it (pthreads, one
 * mutex `mx` with two condition variables `cv` and `cv_take`, an uploader thread, a ring
 * of upload entries, an in-flight counter), over a backend given as a parameter
 * (tt_backend.h). The protocol is PROTOCOL.md's, as tierlab's reference has it
 * (src/protocol_ref/) and its TypeScript tier implements it (src/tier/); this tier makes the same
 * decisions, in the same order, with the same arithmetic, the lifecycle gate included
 * (README.md says what it does not yet express).
 * Invariants:
 *   - every entry point enters and leaves through the lifecycle gate (DEAD -> LIVE ->
 *     TEARING_DOWN -> DEAD), a small lock of its own that outlives the tier's state;
 *     an entry point refused by the gate changes nothing and returns the "off" answer
 *     (take: a loss; init: ALREADY when live, BUSY otherwise);
 *   - init and the second half of shutdown run alone (exclusive sections of the gate);
 *   - used[d] = exp_bytes x (experts resident, queued or planned on d) + trunk on d;
 *   - inflight = entries in the ring + entries the uploader holds;
 *   - no call aborts the process: bad arguments return TT_E_ARG with a one-line reason
 *     in tt_last_error().
 * Thread safety: every entry point may be called from any thread, concurrently, except
 * tt_create and tt_destroy.
 */
#ifndef TT_H
#define TT_H

#include <stddef.h>
#include <stdint.h>

#include "tt_backend.h"
#include "tt_events.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TT_MAX_DEVICES 8
#define TT_GROUP_ROWS 32 /* rows (experts) of one device's group; the input stride */
#define TT_QCAP 48 /* the engine's ring capacity */
#define TT_QCAP_MAX 4096
#define TT_MAX_ROUTE 256 /* routed experts one issue takes */
#define TT_BUDGET_AUTO UINT64_MAX /* budget: the device's free memory minus the reserve */
#define TT_HEAT_MAX UINT32_MAX
#define TT_HEAT_MAGIC 0x51544831u /* "QTH1" */

/* Results and errors. */
enum {
  TT_E_ARG = -1, /* a bad argument */
  TT_E_NOMEM = -2, /* host memory ran out */
  TT_E_STATE = -3, /* the call is not allowed in the tier's lifecycle state */
  TT_E_DEVICE = -4 /* the backend refused (an upload failed) */
};
enum { TT_INIT_ACTIVE = 0, TT_INIT_OFF = 1, TT_INIT_ALREADY = 2, TT_INIT_BUSY = 3 };
enum { TT_FILL_DONE = 0, TT_FILL_STOPPED = 1, TT_FILL_OFF = 2 };
enum { TT_SHUTDOWN_DONE = 0, TT_SHUTDOWN_ALREADY = 1 };
enum { TT_LIFE_DEAD = 0, TT_LIFE_LIVE = 1, TT_LIFE_TEARING_DOWN = 2 };

/* Entry points, as the event log names them (tt_fn_name). */
enum {
  TT_FN_INIT,
  TT_FN_NOTE,
  TT_FN_NOTE_BLOCK,
  TT_FN_PLAN_FILL,
  TT_FN_NOTE_PLANNED,
  TT_FN_FILL_WAIT,
  TT_FN_ISSUE,
  TT_FN_TAKE,
  TT_FN_IS_RESIDENT,
  TT_FN_RESIDENT_COUNT,
  TT_FN_RELEASE_RAM,
  TT_FN_STATS,
  TT_FN_DENSE_MATMUL,
  TT_FN_TRUNK_UPLOAD,
  TT_FN_SHUTDOWN,
  TT_FN_STATS_MARK,
  TT_FN_REPLAN,
  TT_FN_EVICTED_TAKE,
  TT_FN_ROUTE_PREFER,
  TT_FN_COUNT
};

/* A dense trunk matrix offered to the placer: payload bytes before allocator rounding,
 * and what the backend needs to upload it (engine_backend.h: int8 rows and scales). */
typedef struct tt_trunk_offer {
  int layer; /* the layer it belongs to (-1: none, e.g. lm_head) */
  uint64_t weight_bytes, scale_bytes; /* scale_bytes 0: no scale allocation */
  int rows, cols;
  const void *data; /* backend-specific (may be NULL for the fake backend) */
  const float *scales;
} tt_trunk_offer;

typedef struct tt_config {
  int layers, experts;
  int topk; /* routed experts per token and layer; at most TT_GROUP_ROWS */
  int hidden; /* floats in one expert input and output */
  int format; /* 1 int8 per row, 2 int4 per row, 4 int4 grouped, 8 fp8 block */
  int group; /* weights per scale group (grouped formats), 0 for per-row formats */
  int ram_capacity; /* experts per layer the engine's RAM holds (cap) */
  uint64_t weight_bytes[3], scale_bytes[3]; /* gate, up, down, before rounding */
  uint64_t budget_bytes[TT_MAX_DEVICES]; /* per device, or TT_BUDGET_AUTO */
  uint64_t reserve_bytes; /* kept free by an automatic budget */
  int ring_capacity; /* QCAP */
  int want_swaps; /* LFRU swaps, if the backend reclaims memory */
  int streaming; /* experts stream through a RAM LRU: copy during note, keep no pointer */
  const char *heat_path; /* the heat file (NULL: none; streaming mode has none) */
  int swap_period, decay_period; /* an LFRU round / a decay every this many ticks */
  uint64_t start_tick;
  const tt_trunk_offer *trunk; /* offers placed by init, before the experts */
  int ntrunk;
  int sync_uploads; /* issue first waits until nothing is in flight (tests, diagnostics) */
  int evict_capacity; /* evictions kept for tt_evicted_take (0 or over 1024: 1024) */
} tt_config;

/* The engine's defaults: ring 48, periods 16 and 1024, 1 GiB reserve, automatic budgets. */
TT_API void tt_config_defaults(tt_config *cfg);
/* The reason init refuses cfg (a configuration the protocol refuses), or NULL. */
TT_API const char *tt_config_problem(const tt_config *cfg);
/* Bytes the device allocator charges for one allocation (the protocol's granularity). */
TT_API uint64_t tt_alloc_footprint(uint64_t bytes);
/* exp_bytes: three weight and three scale allocations, each rounded. */
TT_API uint64_t tt_expert_bytes(const tt_config *cfg);
/* A trunk matrix's charge: its weight allocation, and its scale allocation if any. */
TT_API uint64_t tt_trunk_charge(const tt_trunk_offer *o);

typedef struct tt_init_result {
  int state; /* TT_INIT_* */
  int trunk_base; /* trunk id of cfg->trunk[0] (offer i is trunk_base + i) */
  char reason[160]; /* why the tier is off or refused, else "" */
} tt_init_result;

typedef struct tt_key {
  int32_t layer, eid;
} tt_key;

typedef struct tt_pair {
  int32_t layer, eid; /* the newcomer */
  int32_t vlayer, veid; /* the resident it replaces */
} tt_pair;

typedef struct tt_stats {
  int life; /* TT_LIFE_* */
  uint64_t uploads, upload_failures, hits, misses, swaps, swaps_abandoned, queue_full_skips;
  uint64_t hits_since_mark, misses_since_mark; /* since tt_stats_mark (or init) */
  uint64_t evictions_dropped; /* evictions the eviction ring could not keep */
  int replan_pending;
  int inflight, qn, resident;
  uint64_t tick;
  uint64_t exp_bytes;
  uint64_t budget[TT_MAX_DEVICES], used[TT_MAX_DEVICES];
} tt_stats;

typedef struct tt_tier tt_tier;

/* A tier over backend `be` (copied), logging into `log` (NULL: no log; it must outlive
 * the tier). DEAD until tt_init. NULL when out of memory or be is not usable. */
TT_API tt_tier *tt_create(const tt_backend *be, tt_log *log);
/* Shuts down what is live (the trunk too), then frees the tier. */
TT_API void tt_destroy(tt_tier *t);

/* Starts the tier (exclusive; from DEAD). out gets ACTIVE, OFF (with the reason; the
 * engine runs on the CPU), ALREADY (live: nothing changes) or BUSY
 * (a teardown or another init holds the gate). Returns out->state, or TT_E_ARG. */
TT_API int tt_init(tt_tier *t, const tt_config *cfg, tt_init_result *out);
/* Decode time: heat++, remember the RAM weights, try an upload (never blocks).
 * 1 enqueued, 0 not, TT_E_ARG. ram: the engine's RAM copy (NULL: none to offer). */
TT_API int tt_note(tt_tier *t, int layer, int eid, void *ram);
/* Warmstart: like tt_note, but waits for ring space. */
TT_API int tt_note_block(tt_tier *t, int layer, int eid, void *ram);
/* Reserves budget for experts in heat order (heat file) or natural order, marking them
 * planned, until every device is full or `cap` keys were written. Returns the count. */
TT_API int tt_plan_fill(tt_tier *t, tt_key *out, int cap);
/* A loader hands a planned expert over: 1 enqueued; 0: the reservation is given back. */
TT_API int tt_note_planned(tt_tier *t, int layer, int eid, void *ram);
/* Waits until every upload enqueued so far has finished. TT_FILL_*. Not with a group open. */
TT_API int tt_fill_wait(tt_tier *t);
/* Routes of one layer: mask[i] = 1 when eids[i] runs on a device (its group issued).
 * x: hidden floats. Returns the number of bits set, or TT_E_ARG. */
TT_API int tt_issue(tt_tier *t, int layer, const int *eids, int k, const float *x, uint8_t *mask);
/* Collects the groups of the last issue: y[i*hidden..] gets route position i's output for
 * each position collected. 1 when nothing was lost, 0 when some group's outputs were lost
 * (a failed collection, or a shutdown collected it) or the gate refused the call, TT_E_ARG. */
TT_API int tt_take(tt_tier *t, float *y, int k, int hidden);
TT_API int tt_is_resident(tt_tier *t, int layer, int eid); /* 1, 0, TT_E_ARG */
TT_API int tt_resident_count(tt_tier *t);
/* The engine wants to free an expert's RAM copy: 1 when it is resident (the tier forgot
 * the pointer, the engine may free it), 0 when the engine must keep it. */
TT_API int tt_release_ram(tt_tier *t, int layer, int eid);
/* 1 and a snapshot when live, 0 (out->life set, the rest zero) otherwise. */
TT_API int tt_stats_get(tt_tier *t, tt_stats *out);
/* Snapshots the hit and miss counters: stats report the rate from here (the prefill /
 * decode boundary). 1, or 0 when not live. */
TT_API int tt_stats_mark(tt_tier *t);
/* Re-plan after a prefill layer's routing (counts: `experts` routing counts of `layer`), or
 * once for the whole prompt (layer < 0; counts: layers x experts, layer-major): residents
 * the prompt never routed are swapped, budget neutral and victim first, for the prompt's
 * most-routed non-residents of the same layer and device (whole prompt: of the same
 * device), while the newcomer's count strictly exceeds the victim's. As many swaps start
 * as the ring takes; the rest stay pending and start on later calls and a few per decode
 * tick. Never blocks. Returns the pairs this call planned (at most max_swaps; the first
 * `cap` written to out, which may be NULL); 0 on a backend that never swaps. */
TT_API int tt_replan(tt_tier *t, int layer, const uint32_t *counts, int max_swaps, tt_pair *out,
                     int cap);
/* The experts evicted (LFRU, streaming and re-plan swaps) since the last call, oldest first,
 * each reported once; at most max. What overflowed the ring (TT_EVICT_CAP) is not reported
 * (tt_stats counts it): the engine then rebuilds CPU copies lazily. */
TT_API int tt_evicted_take(tt_tier *t, tt_key *out, int max);
/* Routing that prefers residents: ranked holds the top-m candidates in router order; out
 * gets k of them: the first j as ranked, then each later slot takes, among the candidates
 * left in the window, the first resident on a device, else the first the engine's RAM holds
 * (in_ram[i] for ranked[i]; NULL: unknown), else the first left. k, or TT_E_ARG. A tier
 * that is not live routes by rank alone. The output then depends on residency by design. */
TT_API int tt_route_prefer(tt_tier *t, int layer, const int *ranked, int m, int k, int j,
                           const uint8_t *in_ram, int *out);
/* One GEMV of trunk matrix `id`: 1 when computed on its device (y written); 0 when the
 * engine must compute it on the CPU (not placed, the gate refused, or the device failed);
 * TT_E_ARG. Admitted while DEAD too. */
TT_API int tt_dense_matmul(tt_tier *t, int id, const float *x, float *y);
/* Places a trunk matrix on dev while the expert tier is DEAD (the trunk works without it;
 * the next init charges it to dev's budget): its id; TT_E_STATE when the tier is not DEAD
 * (the live tier's trunk comes from its configuration), TT_E_DEVICE when the upload
 * failed, TT_E_ARG, TT_E_NOMEM. */
TT_API int tt_trunk_upload(tt_tier *t, int dev, const tt_trunk_offer *offer);
/* Saves heat, stops, wakes everyone, joins the uploader, collects open groups, frees every
 * tensor, staging copy and host array, shuts the backend down. DONE, or ALREADY (nothing
 * was live; a concurrent caller returns once the teardown it lost to is complete). */
TT_API int tt_shutdown(tt_tier *t);
TT_API int tt_life(tt_tier *t); /* TT_LIFE_* now */

/* The heat file: magic, layers, experts (u32 little endian), then one u32 per expert in
 * layer-major order. */
TT_API size_t tt_heat_file_bytes(int layers, int experts);
TT_API void tt_heat_encode(const uint32_t *heat, int layers, int experts, uint8_t *out);
/* 1 and the heats when bytes is a file of exactly this shape; 0 otherwise (ignored whole). */
TT_API int tt_heat_decode(const uint8_t *bytes, size_t n, int layers, int experts, uint32_t *heat);

/* The calling thread's last TT_E_ARG reason ("" when none). */
TT_API const char *tt_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
