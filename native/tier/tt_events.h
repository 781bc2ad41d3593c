/*
 * The C tier's event log: one schema for the tier, its lifecycle gate and its backend
 * (native/tier/EVENTS.md describes every kind and field).
 *
 * Role: the tier records each decision at its linearization point, under the lock that
 * orders it, as one tt_event; a sink receives them (an in-memory buffer for a harness, an
 * NDJSON file for a free run). Invariants:
 *   - `seq` comes from one counter per log, taken while the emitter holds the lock that
 *     orders the event (mx, gmx or tmx), so events under one lock are in lock order and
 *     the whole log is one order consistent with every thread's program order;
 *   - a NULL log costs one pointer test per event site and builds nothing;
 *   - emitting never blocks on a pthread object (the counter is an atomic; the sinks
 *     reserve a slot atomically or write one line with one write(2)), so logging adds no
 *     scheduling point and never changes which thread runs next.
 */
#ifndef TT_EVENTS_H
#define TT_EVENTS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The C tier's exported functions (its libraries are built with hidden visibility). */
#ifndef TT_API
#define TT_API __attribute__((visibility("default")))
#endif

/* Who recorded the event. */
enum { TT_SRC_TIER = 0, TT_SRC_GATE = 1, TT_SRC_TRUNK = 2, TT_SRC_BACKEND = 3 };

/* Which lock the emitter held (`lk`). */
enum {
  TT_LK_NONE = 0,
  TT_LK_MX = 1,
  TT_LK_GMX = 2,
  TT_LK_TMX = 3,
  TT_LK_BACKEND = 4, /* the backend's own lock */
  TT_LK_X = 5 /* an exclusive section of the gate (init, the teardown's second half) */
};

/* Event kinds: X(enum suffix, name in the log). EVENTS.md documents each. */
#define TT_EVENT_KINDS(X)                 \
  X(CALL, "call")                         \
  X(RET, "ret")                           \
  X(WAIT, "wait")                         \
  X(WAKE, "wake")                         \
  X(INIT_STAGE, "init_stage")             \
  X(BUDGET, "budget")                     \
  X(HEAT_LOADED, "heat_loaded")           \
  X(NOTED, "noted")                       \
  X(ENQUEUE, "enqueue")                   \
  X(REFUSE, "refuse")                     \
  X(DEQUEUE, "dequeue")                   \
  X(VICTIM_TAKEN, "victim_taken")         \
  X(SWAP_ABANDONED, "swap_abandoned")     \
  X(UPLOAD_DONE, "upload_done")           \
  X(UPLOAD_FAILED, "upload_failed")       \
  X(UPLOADER_EXIT, "uploader_exit")       \
  X(TICK, "tick")                         \
  X(SWAP_CHOSEN, "swap_chosen")           \
  X(SWAP_UNDONE, "swap_undone")           \
  X(PLANNED, "planned")                   \
  X(PLAN_DONE, "plan_done")               \
  X(RESERVATION_BACK, "reservation_back") \
  X(FILL_DONE, "fill_done")               \
  X(ROUTED, "routed")                     \
  X(GROUP_BUILT, "group_built")           \
  X(WRITE_INPUT, "write_input")           \
  X(ISSUE_FAILED, "issue_failed")         \
  X(GROUPS_PUBLISHED, "groups_published") \
  X(TAKE_CLAIMED, "take_claimed")         \
  X(TAKE_FAILED, "take_failed")           \
  X(TAKE_CLOSED, "take_closed")           \
  X(RAM_RELEASED, "ram_released")         \
  X(EVICTED_TAKEN, "evicted_taken")       \
  X(REPLAN_PAIR, "replan_pair")           \
  X(REPLAN_DONE, "replan_done")           \
  X(ROUTE_PREFERRED, "route_preferred")   \
  X(STOP, "stop")                         \
  X(HEAT_SAVED, "heat_saved")             \
  X(JOINED, "joined")                     \
  X(DRAINED, "drained")                   \
  X(RELEASED, "released")                 \
  X(TEARDOWN_DONE, "teardown_done")       \
  X(GATE_ENTER, "gate_enter")             \
  X(GATE_LEAVE, "gate_leave")             \
  X(GATE_REFUSE, "gate_refuse")           \
  X(GATE_X, "gate_x")                     \
  X(GATE_STATE, "gate_state")             \
  X(TRUNK_PLACED, "trunk_placed")         \
  X(TRUNK_GEMV, "trunk_gemv")             \
  X(TRUNK_FREED, "trunk_freed")           \
  X(BE_CALL, "be_call")                   \
  X(BE_ALLOC, "be_alloc")                 \
  X(BE_FREE, "be_free")                   \
  X(BE_STAGE, "be_stage")                 \
  X(BE_UNSTAGE, "be_unstage")             \
  X(BE_GROUP_OPEN, "be_group_open")       \
  X(BE_GROUP_TAKE, "be_group_take")       \
  X(BE_GEMV, "be_gemv")                   \
  X(BE_HOST, "be_host")                   \
  X(BE_FAULT, "be_fault")                 \
  X(BE_VIOLATION, "be_violation")         \
  X(BE_SHUTDOWN, "be_shutdown")           \
  X(BE_UPLOAD, "be_upload")               \
  X(BE_GROUP_ROW, "be_group_row")         \
  X(HEAT_SET, "heat_set")                 \
  X(CHARGED, "charged")                   \
  X(UNLOCK, "unlock")                     \
  X(GATE_WAIT, "gate_wait")

#define TT_EV_ENUM(name, text) TT_EV_##name,
enum { TT_EVENT_KINDS(TT_EV_ENUM) TT_EV_COUNT };
#undef TT_EV_ENUM

/* Backend operations, as backend events name them (be_call's and be_fault's value). */
enum {
  TT_OP_UPLOAD,
  TT_OP_FREE,
  TT_OP_STAGE,
  TT_OP_UNSTAGE,
  TT_OP_ISSUE,
  TT_OP_TAKE,
  TT_OP_MEM_INFO,
  TT_OP_DENSE_UPLOAD,
  TT_OP_DENSE_GEMV,
  TT_OP_HOST_ALLOC,
  TT_OP_HOST_FREE,
  TT_OP_SYNC_INIT,
  TT_OP_THREAD_START,
  TT_OP_SHUTDOWN,
  TT_OP_COUNT
};

/* Slot and tier flags (`flags`). */
enum {
  TT_F_RESIDENT = 1u << 0,
  TT_F_QUEUED = 1u << 1,
  TT_F_PLANNED = 1u << 2,
  TT_F_TENSORS = 1u << 3, /* the slot holds device tensors */
  TT_F_RAM = 1u << 4, /* the slot holds a RAM pointer the engine lent */
  TT_F_STOP = 1u << 8,
  TT_F_ISSUE_OPEN = 1u << 9,
  TT_F_GROUPS_BUSY = 1u << 10
};

/* One event. Integer fields that do not apply hold -1 (layer, eid, dev, vlayer, veid,
 * part) or 0 (the rest); EVENTS.md says which apply to which kind. */
typedef struct tt_event {
  uint64_t seq; /* position in the log's one order */
  uint64_t sec; /* tier events: number of the critical section of mx (0: outside mx) */
  uint64_t after; /* events outside a lock: seq of this thread's last locked event */
  uint64_t id; /* backend events: the allocation's id (0: none) */
  uint32_t tid; /* the emitting thread (tt_log_thread_id) */
  uint16_t src; /* TT_SRC_* */
  uint16_t kind; /* TT_EV_* */
  int32_t lk; /* TT_LK_*: the lock held while emitting */
  int32_t fn; /* call / ret: the entry point (TT_FN_*) */
  int32_t layer, eid, dev, part;
  int32_t vlayer, veid; /* a swap's victim */
  int64_t value, value2; /* kind-specific (EVENTS.md) */
  /* tier events under mx: the protocol variables after the action */
  int32_t inflight, qn, waiters;
  uint64_t tick;
  int64_t used, budget; /* of dev (dev >= 0) */
  uint32_t heat; /* of (layer, eid) */
  uint32_t flags; /* TT_F_* of (layer, eid) and of the tier */
  uint32_t vflags; /* TT_F_* of the victim (vlayer, veid) */
  /* gate events: the lifecycle state (TT_LIFE_*) and the gate's counters after */
  int32_t life, live, want_x, x;
} tt_event;

/* A sink: receives each event once; may be called from any thread, concurrently. */
typedef struct tt_sink {
  void *ctx;
  void (*write)(void *ctx, const tt_event *ev);
} tt_sink;

/* A log: one order (seq) over everything its emitters record. */
typedef struct tt_log {
  tt_sink sink;
  atomic_uint_fast64_t seq;
} tt_log;

TT_API void tt_log_init(tt_log *log, tt_sink sink);
/* Fills seq, tid and after (lk says whether the emitter holds a lock), then writes. */
TT_API void tt_log_emit(tt_log *log, tt_event *ev);
/* An event with every optional field absent. */
TT_API void tt_event_clear(tt_event *ev, int src, int kind, int lk);
TT_API const char *tt_event_kind_name(int kind);
TT_API const char *tt_fn_name(int fn);
/* The calling thread's number in logs: assigned on first use (1, 2, ...), or set. */
TT_API uint32_t tt_log_thread_id(void);
TT_API void tt_log_set_thread_id(uint32_t tid);

/* One event as one NDJSON line (no newline), NUL-terminated; returns its length. */
TT_API size_t tt_event_json(const tt_event *ev, char *out, size_t cap);
#define TT_EVENT_JSON_MAX 1024

/* The in-memory sink: the first `cap` events in seq-reservation order; later ones are
 * counted in `dropped`. */
typedef struct tt_mem_sink {
  tt_event *events;
  size_t cap;
  atomic_size_t n; /* reserved slots (may exceed cap) */
  atomic_size_t done; /* slots written */
} tt_mem_sink;
TT_API int tt_mem_sink_init(tt_mem_sink *m, size_t cap); /* 0, or -1 out of memory */
TT_API void tt_mem_sink_free(tt_mem_sink *m);
TT_API tt_sink tt_mem_sink_as_sink(tt_mem_sink *m);
TT_API size_t tt_mem_sink_count(tt_mem_sink *m); /* events kept (<= cap) */
/* Sorted by seq (call when no emitter runs). */
TT_API void tt_mem_sink_sort(tt_mem_sink *m);

/* The NDJSON file sink: one JSON object per line. Unbuffered (buffer_bytes 0), each line
 * is appended with one write(2) as it is emitted: nothing is lost if the process dies.
 * Buffered, each thread fills a buffer of its own and appends it whole when full and at
 * close (whole lines, in seq order within a thread): far fewer system calls, but close
 * must run after every emitter has stopped, and a crash loses the unwritten buffers. */
struct tt_ndjson_buffer;
typedef struct tt_ndjson_sink {
  int fd;
  uint64_t id; /* unique in the process: a thread's cached buffer names its sink by it */
  size_t buffer_bytes;
  _Atomic(struct tt_ndjson_buffer *) buffers; /* one per thread that wrote, pushed once */
  atomic_size_t lines;
  atomic_int errors; /* failed writes */
} tt_ndjson_sink;
/* 0, or -1 (errno). buffer_bytes: 0 unbuffered, else per-thread buffers (>= 4096). */
TT_API int tt_ndjson_sink_open(tt_ndjson_sink *s, const char *path, size_t buffer_bytes);
/* Flushes every buffer, closes. 0, or -1 when a write or close failed. */
TT_API int tt_ndjson_sink_close(tt_ndjson_sink *s);
TT_API tt_sink tt_ndjson_sink_as_sink(tt_ndjson_sink *s);

#ifdef __cplusplus
}
#endif
#endif
