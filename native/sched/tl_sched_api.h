/*
 * tl_sched's API: running one schedule, choice sources, results, the renamed pthread
 * functions. Part of tl_sched.h (include that, not this file).
 *
 * Invariants: every exported symbol starts with tl_sched_ (the shared library exports
 * nothing else); the structs are plain data a caller in another language can read
 * (koffi), with fixed-width fields; a result owns its arrays until tl_sched_result_free,
 * and a result passed to a run again is reused (its arrays keep their capacity).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TL_SCHED_ABI_VERSION 1
#define TL_SCHED_NAME_MAX 32

/* how a run ended */
enum tl_sched_outcome {
  TL_SCHED_COMPLETED = 0, /* every managed thread finished */
  TL_SCHED_DEADLOCK = 1, /* no thread can move, some not finished */
  TL_SCHED_LIVELOCK = 2, /* the step bound was reached */
  TL_SCHED_VIOLATION = 3, /* misuse found by the scheduler, or tl_sched_fail */
  TL_SCHED_CRASHED = 4, /* fresh-process mode: the child died (a signal, a sanitizer) */
  TL_SCHED_ERROR = 5 /* the run could not start (bad configuration, nested run) */
};

/* operations: what a trace event did, what a thread will do next */
enum tl_sched_op {
  TL_SCHED_OP_NONE = 0,
  TL_SCHED_OP_START, /* a thread's first step */
  TL_SCHED_OP_EXIT, /* its function returned (or pthread_exit) */
  TL_SCHED_OP_CREATE, /* arg: the new thread */
  TL_SCHED_OP_JOIN, /* arg: the joined thread */
  TL_SCHED_OP_LOCK, /* mutex */
  TL_SCHED_OP_TRYLOCK, /* arg: 0 or EBUSY */
  TL_SCHED_OP_TIMEDLOCK, /* arg: 0 or ETIMEDOUT */
  TL_SCHED_OP_UNLOCK,
  TL_SCHED_OP_WAIT, /* cond; releases the mutex and blocks */
  TL_SCHED_OP_TIMEDWAIT, /* the same, may time out */
  TL_SCHED_OP_RELOCK, /* a woken waiter takes its mutex back; arg: 0 or ETIMEDOUT */
  TL_SCHED_OP_SIGNAL, /* arg: the woken thread, or -1 */
  TL_SCHED_OP_BROADCAST, /* arg: how many woke */
  TL_SCHED_OP_TIMEOUT, /* a timed wait or lock timed out (a choice, no clock) */
  TL_SCHED_OP_SPURIOUS, /* a spurious wakeup (a choice) */
  TL_SCHED_OP_YIELD,
  TL_SCHED_OP_BACKEND, /* object: the backend call's name or object */
  TL_SCHED_OP_LOAD, /* atomic access; object: its address */
  TL_SCHED_OP_STORE,
  TL_SCHED_OP_RMW,
  TL_SCHED_OP_INIT, /* not scheduling points, recorded for the reader */
  TL_SCHED_OP_DESTROY,
  TL_SCHED_OP_COUNT
};

enum tl_sched_obj_kind {
  TL_SCHED_OBJ_NONE = 0,
  TL_SCHED_OBJ_MUTEX,
  TL_SCHED_OBJ_COND,
  TL_SCHED_OBJ_ATOMIC,
  TL_SCHED_OBJ_BACKEND
};

/* a decision: which thread moves next, or which waiter a signal wakes */
enum tl_sched_decision_kind { TL_SCHED_DECIDE_THREAD = 0, TL_SCHED_DECIDE_WAKE = 1 };

/* one option of a decision. Option 0 is always the quiet one (the current thread goes
 * on; the oldest waiter wakes), so all-zero choices are the run without preemption */
enum tl_sched_option_kind {
  TL_SCHED_OPTION_RUN = 0, /* the thread performs its next operation */
  TL_SCHED_OPTION_TIMEOUT = 1, /* its timed wait or timed lock times out */
  TL_SCHED_OPTION_SPURIOUS = 2, /* it wakes from its condition wait spuriously */
  TL_SCHED_OPTION_WAKE = 3 /* the signal wakes it */
};

typedef struct tl_sched_option {
  uint32_t tid; /* the thread */
  uint32_t kind; /* enum tl_sched_option_kind */
  uint32_t op; /* what the thread does next (enum tl_sched_op) */
  uint32_t obj; /* the object it works on (id, 0 = none) */
  uint32_t obj_kind; /* enum tl_sched_obj_kind */
  uint32_t obj2; /* the second object (a wait's mutex), 0 = none */
  const void *addr; /* the object's address in this process */
} tl_sched_option;

typedef struct tl_sched_decision {
  uint32_t index; /* decisions before this one in the run */
  uint32_t step; /* steps taken before it */
  uint32_t kind; /* enum tl_sched_decision_kind */
  uint32_t current; /* the thread that moved last */
  uint32_t n; /* options (n >= 2: a point with one option is no decision) */
  uint32_t chosen; /* the option taken (filled once chosen) */
  uint32_t first; /* in a result's decision log: index of its first option */
  uint32_t reserved;
  const tl_sched_option *options; /* the n options (live decisions only) */
} tl_sched_decision;

/* one trace event: a step of one thread, or an init/destroy (not a step) */
typedef struct tl_sched_event {
  uint32_t step; /* 1-based step number (init/destroy: the step they follow) */
  uint32_t tid;
  uint32_t op; /* enum tl_sched_op */
  uint32_t obj; /* object id, 0 = none */
  int32_t arg; /* see enum tl_sched_op */
  uint32_t gen; /* the object's generation */
} tl_sched_event;

typedef struct tl_sched_object_info {
  uint32_t id; /* 1-based, in order of first use in the run */
  uint32_t kind; /* enum tl_sched_obj_kind */
  uint32_t gen; /* generation at the end of the run (init or clearing starts one) */
  uint32_t reserved;
  const void *addr;
  char name[TL_SCHED_NAME_MAX];
} tl_sched_object_info;

typedef struct tl_sched_thread_info {
  uint32_t tid;
  uint32_t parent; /* creator (thread 0 is its own) */
  char name[TL_SCHED_NAME_MAX];
} tl_sched_thread_info;

/* choice sources: a vtable with optional slots */
typedef struct tl_sched_source_vt {
  /* the option to take (any value: it is taken modulo d->n) */
  uint32_t (*choose)(void *self, const tl_sched_decision *d);
  /* optional: a run starts (max_threads: how many threads it may have) */
  void (*begin_run)(void *self, uint32_t max_threads);
  /* optional: thread tid takes a step (PCT counts steps) */
  void (*on_step)(void *self, uint32_t tid, uint32_t step);
  /* optional: frees self (tl_sched_source_free) */
  void (*destroy)(void *self);
} tl_sched_source_vt;

typedef struct tl_sched_source tl_sched_source;

typedef struct tl_sched_limits {
  uint32_t max_steps; /* livelock past this many steps (0: 100000) */
  uint32_t max_threads; /* managed threads a run may have (0: 16; at most 1024) */
  uint32_t max_spurious; /* spurious wakeups a run may inject (0: none) */
  uint32_t stack_bytes; /* each managed thread's stack (0: 256 KiB) */
  uint32_t child_timeout_ms; /* fresh-process mode: safety net, 0 = none */
  uint32_t reserved;
} tl_sched_limits;

typedef struct tl_sched_config {
  void *(*entry)(void *arg); /* thread 0's function */
  void *arg;
  /* optional: called before every run, on the caller's stack (in the child, in
   * fresh-process mode), to put the program's state back: its globals, its files */
  void (*reset)(void *arg);
  void *reset_arg;
  tl_sched_source *source; /* null: all choices 0 */
  tl_sched_limits limits;
  int32_t fresh_process; /* nonzero: run in a forked child, result through a pipe */
  int32_t record_trace; /* keep the trace events */
  int32_t record_decisions; /* keep every decision with its options */
  int32_t reserved;
} tl_sched_config;

typedef struct tl_sched_result {
  int32_t outcome; /* enum tl_sched_outcome */
  uint32_t steps; /* steps taken */
  uint32_t decisions; /* decisions taken (= n_choices) */
  uint32_t spurious; /* spurious wakeups injected */
  char *description; /* readable, one line or a few; "" when completed */
  uint32_t *choices; /* the option taken at each decision: replays the run */
  uint32_t *widths; /* the number of options at each decision */
  uint32_t n_choices;
  uint32_t n_events;
  tl_sched_event *events; /* when record_trace */
  tl_sched_decision *log; /* when record_decisions */
  uint32_t n_log;
  uint32_t n_options;
  tl_sched_option *options; /* the log's options */
  tl_sched_object_info *objects;
  uint32_t n_objects;
  uint32_t n_threads;
  tl_sched_thread_info *threads;
  /* capacities (internal) */
  uint32_t cap_choices, cap_widths, cap_events, cap_log, cap_options, cap_objects;
  uint32_t cap_threads, cap_description;
} tl_sched_result;

/* statistics of an exhaustive enumeration */
typedef struct tl_sched_explore_stats {
  uint64_t runs; /* schedules run */
  uint64_t failures; /* runs whose outcome was not COMPLETED */
  uint64_t first_failure; /* 1-based run number of the first failure, 0 = none */
  int32_t complete; /* 1: every schedule was run (the tree is exhausted) */
  int32_t stopped; /* 1: the visitor asked to stop */
} tl_sched_explore_stats;

/* a visitor gets every run's result; nonzero stops the enumeration */
typedef int (*tl_sched_visit_fn)(void *ctx, const tl_sched_result *r);
/* the callback source's function */
typedef uint32_t (*tl_sched_choose_fn)(void *ctx, const tl_sched_decision *d);

/* ---- running ---- */
TL_SCHED_API int tl_sched_abi_version(void);
/* runs one schedule; 0 when a result was produced (whatever its outcome), -1 when the
 * run could not start (out->outcome TL_SCHED_ERROR and the reason in out->description) */
TL_SCHED_API int tl_sched_run(const tl_sched_config *cfg, tl_sched_result *out);
TL_SCHED_API void tl_sched_result_free(tl_sched_result *r);
/* every schedule of the program, depth first, by replaying prefixes (cfg->source is not
 * used); stops after max_runs runs or when visit returns nonzero */
TL_SCHED_API int tl_sched_explore(const tl_sched_config *cfg, uint64_t max_runs,
                                  tl_sched_visit_fn visit, void *ctx,
                                  tl_sched_explore_stats *stats);

/* ---- choice sources ---- */
/* a recorded array of choices (copied); past its end every choice is 0 */
TL_SCHED_API tl_sched_source *tl_sched_source_recorded(const uint32_t *choices, size_t n);
/* uniform random options from a seed; stay_permille: chance of option 0 (0..1000) */
TL_SCHED_API tl_sched_source *tl_sched_source_random(uint64_t seed, uint32_t stay_permille);
/* PCT: priorities and depth-1 change points over steps 1..k, drawn per run from a seed */
TL_SCHED_API tl_sched_source *tl_sched_source_pct(uint64_t seed, uint32_t depth, uint32_t k);
/* a function called at every decision (another language's search) */
TL_SCHED_API tl_sched_source *tl_sched_source_callback(tl_sched_choose_fn fn, void *ctx);
/* any vtable (self is freed through vt->destroy, if set) */
TL_SCHED_API tl_sched_source *tl_sched_source_custom(const tl_sched_source_vt *vt, void *self);
TL_SCHED_API void tl_sched_source_free(tl_sched_source *s);

/* ---- reading a result ---- */
TL_SCHED_API const char *tl_sched_op_name(uint32_t op);
TL_SCHED_API const char *tl_sched_outcome_name(int32_t outcome);
/* the trace as text, one line per event (snprintf semantics: returns the length the
 * whole text needs, writes at most cap bytes with the terminating NUL) */
TL_SCHED_API size_t tl_sched_trace_text(const tl_sched_result *r, char *buf, size_t cap);
/* the choices as one line ("3 0 1 ..."), to paste into a replay; snprintf semantics */
TL_SCHED_API size_t tl_sched_choices_text(const tl_sched_result *r, char *buf, size_t cap);

/* ---- the renamed pthread functions (TL_SCHED_INTERPOSE maps the pthread names here).
 * Outside a run, and on threads that are not managed, they call the real functions ---- */
TL_SCHED_API int tl_sched_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
                                 void *arg);
TL_SCHED_API int tl_sched_join(pthread_t t, void **ret);
TL_SCHED_API int tl_sched_detach(pthread_t t);
TL_SCHED_API void tl_sched_exit(void *ret) __attribute__((noreturn));
TL_SCHED_API pthread_t tl_sched_self(void);
TL_SCHED_API int tl_sched_equal(pthread_t a, pthread_t b);
TL_SCHED_API int tl_sched_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr);
TL_SCHED_API int tl_sched_mutex_destroy(pthread_mutex_t *m);
TL_SCHED_API int tl_sched_mutex_lock(pthread_mutex_t *m);
TL_SCHED_API int tl_sched_mutex_trylock(pthread_mutex_t *m);
TL_SCHED_API int tl_sched_mutex_timedlock(pthread_mutex_t *m, const struct timespec *t);
TL_SCHED_API int tl_sched_mutex_unlock(pthread_mutex_t *m);
TL_SCHED_API int tl_sched_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr);
TL_SCHED_API int tl_sched_cond_destroy(pthread_cond_t *c);
TL_SCHED_API int tl_sched_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
TL_SCHED_API int tl_sched_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                         const struct timespec *t);
TL_SCHED_API int tl_sched_cond_signal(pthread_cond_t *c);
TL_SCHED_API int tl_sched_cond_broadcast(pthread_cond_t *c);
TL_SCHED_API int tl_sched_sched_yield(void);
TL_SCHED_API int tl_sched_nanosleep(const struct timespec *req, struct timespec *rem);
TL_SCHED_API int tl_sched_usleep(unsigned int usec);
/* the GNU thread functions take cpu_set_t, declared only under _GNU_SOURCE: the real
 * declarations (renamed) give these their types in files that use them */
#if defined(_GNU_SOURCE)
TL_SCHED_API int tl_sched_setaffinity_np(pthread_t t, size_t size, const cpu_set_t *set);
TL_SCHED_API int tl_sched_getaffinity_np(pthread_t t, size_t size, cpu_set_t *set);
TL_SCHED_API int tl_sched_setname_np(pthread_t t, const char *name);
TL_SCHED_API int tl_sched_getname_np(pthread_t t, char *name, size_t len);
#endif

#ifdef __cplusplus
}
#endif
