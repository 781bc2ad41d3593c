/*
 * The event log's core: the one sequence counter, thread numbers, kind names, and one
 * event as one JSON line (the schema of EVENTS.md).
 *
 * Invariants: tt_log_emit takes seq with one atomic fetch-add and calls the sink once;
 * it touches no pthread object. A thread's number is thread-local, assigned from an
 * atomic counter on its first event (or set by a harness, which then numbers threads as
 * it likes); `after` remembers, per thread, the seq of its last event under a lock, and
 * in which log: a thread that emits into several logs in turn (one process running many
 * tiers, each with its own log) places an event only after an event of the same log.
 */
#include <string.h>

#include "tt.h"

static atomic_uint next_tid = 1;
static _Thread_local uint32_t my_tid;
static _Thread_local uint64_t my_last_locked;
static _Thread_local const tt_log *my_last_log; /* the log my_last_locked is a seq of */

uint32_t tt_log_thread_id(void) {
  if (my_tid == 0) my_tid = atomic_fetch_add(&next_tid, 1u);
  return my_tid;
}

void tt_log_set_thread_id(uint32_t tid) { my_tid = tid; }

void tt_log_init(tt_log *log, tt_sink sink) {
  log->sink = sink;
  atomic_init(&log->seq, 1);
}

void tt_event_clear(tt_event *ev, int src, int kind, int lk) {
  memset(ev, 0, sizeof *ev);
  ev->src = (uint16_t)src;
  ev->kind = (uint16_t)kind;
  ev->lk = lk;
  ev->fn = -1;
  ev->layer = ev->eid = ev->dev = ev->part = ev->vlayer = ev->veid = -1;
}

void tt_log_emit(tt_log *log, tt_event *ev) {
  ev->tid = tt_log_thread_id();
  ev->seq = atomic_fetch_add(&log->seq, 1);
  if (ev->lk == TT_LK_NONE || ev->lk == TT_LK_BACKEND) {
    ev->after = my_last_log == log ? my_last_locked : 0;
  } else {
    my_last_locked = ev->seq;
    my_last_log = log;
  }
  log->sink.write(log->sink.ctx, ev);
}

#define TT_EV_NAME(name, text) text,
static const char *const kind_names[TT_EV_COUNT] = {TT_EVENT_KINDS(TT_EV_NAME)};
#undef TT_EV_NAME

const char *tt_event_kind_name(int kind) {
  return kind >= 0 && kind < TT_EV_COUNT ? kind_names[kind] : "unknown";
}

static const char *const fn_names[TT_FN_COUNT] = {
    "init",        "note",   "note_block",   "plan_fill",    "note_planned",
    "fill_wait",   "issue",  "take",         "is_resident",  "resident_count",
    "release_ram", "stats",  "dense_matmul", "trunk_upload", "shutdown",
    "stats_mark",  "replan", "evicted_take", "route_prefer"};

const char *tt_fn_name(int fn) { return fn >= 0 && fn < TT_FN_COUNT ? fn_names[fn] : "unknown"; }

static const char *const src_names[] = {"tier", "gate", "trunk", "backend"};
static const char *const lk_names[] = {"-", "mx", "gmx", "tmx", "be", "x"};

/* A bounded JSON writer: never writes past cap, always NUL-terminated. Integers are
 * written by hand: a log line has about twenty of them, and snprintf per field cost more
 * than everything else an event does. */
typedef struct jbuf {
  char *out;
  size_t cap, at;
} jbuf;

static void jraw(jbuf *b, const char *s, size_t n) {
  if (b->at + n + 1 > b->cap) n = b->cap > b->at + 1 ? b->cap - b->at - 1 : 0;
  memcpy(b->out + b->at, s, n);
  b->at += n;
  b->out[b->at] = '\0';
}

static void jkey(jbuf *b, const char *key) {
  char tmp[40];
  size_t k = strlen(key);
  if (k > sizeof tmp - 4) k = sizeof tmp - 4;
  tmp[0] = ',';
  tmp[1] = '"';
  memcpy(tmp + 2, key, k);
  tmp[k + 2] = '"';
  tmp[k + 3] = ':';
  jraw(b, tmp, k + 4);
}

static void jnum(jbuf *b, long long v) {
  char tmp[24];
  int i = (int)sizeof tmp;
  unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
  do tmp[--i] = (char)('0' + u % 10);
  while ((u /= 10) != 0);
  if (v < 0) tmp[--i] = '-';
  jraw(b, tmp + i, sizeof tmp - (size_t)i);
}

static void jint(jbuf *b, const char *key, long long v) {
  jkey(b, key);
  jnum(b, v);
}

/* Values here are the log's own names: no character needs escaping. */
static void jstr(jbuf *b, const char *key, const char *v) {
  jkey(b, key);
  jraw(b, "\"", 1);
  jraw(b, v, strlen(v));
  jraw(b, "\"", 1);
}

static void jopt(jbuf *b, const char *key, int32_t v) {
  if (v >= 0) jint(b, key, v);
}

/* The protocol variables a tier event under mx carries. */
static void json_tier_vars(jbuf *b, const tt_event *ev) {
  jint(b, "inflight", ev->inflight);
  jint(b, "qn", ev->qn);
  jint(b, "waiters", ev->waiters);
  jint(b, "tick", ev->tick);
  jint(b, "flags", ev->flags);
  if (ev->dev >= 0) {
    jint(b, "used", ev->used);
    jint(b, "budget", ev->budget);
  }
  if (ev->layer >= 0 && ev->eid >= 0) jint(b, "heat", ev->heat);
  if (ev->vlayer >= 0 && ev->veid >= 0) jint(b, "vflags", ev->vflags);
}

size_t tt_event_json(const tt_event *ev, char *out, size_t cap) {
  jbuf b = {out, cap, 0};
  if (cap == 0) return 0;
  out[0] = '\0';
  jraw(&b, "{\"seq\":", 7);
  jnum(&b, (long long)ev->seq);
  jstr(&b, "src", src_names[ev->src & 3u]);
  jstr(&b, "lk", lk_names[ev->lk >= 0 && ev->lk <= 5 ? ev->lk : 0]);
  jint(&b, "tid", ev->tid);
  jstr(&b, "ev", tt_event_kind_name(ev->kind));
  if (ev->fn >= 0) jstr(&b, "fn", tt_fn_name(ev->fn));
  if (ev->sec > 0) jint(&b, "sec", (long long)ev->sec);
  if (ev->after > 0) jint(&b, "after", (long long)ev->after);
  if (ev->id > 0) jint(&b, "id", (long long)ev->id);
  jopt(&b, "layer", ev->layer);
  jopt(&b, "eid", ev->eid);
  jopt(&b, "dev", ev->dev);
  jopt(&b, "part", ev->part);
  jopt(&b, "vlayer", ev->vlayer);
  jopt(&b, "veid", ev->veid);
  jint(&b, "value", ev->value);
  jint(&b, "value2", ev->value2);
  if (ev->src == TT_SRC_TIER && (ev->lk == TT_LK_MX || ev->lk == TT_LK_X)) json_tier_vars(&b, ev);
  if (ev->src == TT_SRC_GATE) {
    jint(&b, "life", ev->life);
    jint(&b, "live", ev->live);
    jint(&b, "want_x", ev->want_x);
    jint(&b, "x", ev->x);
  }
  jraw(&b, "}", 1);
  return b.at;
}
