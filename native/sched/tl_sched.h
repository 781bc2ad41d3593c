/*
 * tl_sched: a deterministic scheduler for C programs written with pthreads.
 *
 * Role: runs a multithreaded C program (a tier: threads, one mutex, condition variables)
 * one managed thread at a time, and at every scheduling point asks a choice source who
 * moves next, so that any interleaving can be reproduced exactly, searched and shrunk.
 * The program's source stays as it is: its pthread calls are renamed to this library's
 * by the preprocessor (TL_SCHED_INTERPOSE, or `-include tl_sched_interpose.h` on the
 * compiler's command line).
 *
 * Library form (stb style): every file that uses the scheduler includes this header;
 * exactly one file of the program defines TL_SCHED_IMPLEMENTATION (and _GNU_SOURCE,
 * before any include) first. `make sched-header` writes the same library as ONE file
 * (build/sched/tl_sched.h), which is all a standalone regression test needs.
 *
 * Thread representation: user-level contexts on the caller's OS thread, switched by a
 * few instructions of assembly on x86-64 (ucontext elsewhere, or with
 * -DTL_SCHED_UCONTEXT). Measured by `make sched-bench` on this project's shared 2-core
 * machine (under load, one core): 35 to 51 million switches per second with the
 * assembly switch, 0.8 to 1.4 million with swapcontext (a signal-mask system call per
 * switch), 0.14 to 0.23 million handing a baton between two OS threads (a futex wake and
 * wait per switch). A toy tier of 279 scheduling points switches threads 82 times a run:
 * a baton would allow at most about 1,800 schedules per second, before creating its OS
 * threads each run; contexts run 30,000 to 43,000 (assembly) or 8,000 to 9,000
 * (swapcontext), against the 1,000 per core the searches need. The costs of
 * contexts, and what this library does about them (impl/fiber.h has the details):
 *  - pthread_self and thread handles: managed threads have handles of their own
 *    (tagged, never a real pthread_t); every pthread function that takes one is renamed.
 *  - errno is saved and restored at every switch; other thread-local variables are
 *    shared by all managed threads (one OS thread runs them): not supported.
 *  - CPU affinity: pthread_setaffinity_np on a managed handle is recorded, not applied;
 *    a call the renaming does not see (sched_setaffinity) moves the one OS thread that
 *    runs the whole schedule, which changes nothing the scheduler decides.
 *  - sanitizers: AddressSanitizer is told of every switch (fiber annotations); under
 *    ThreadSanitizer every managed thread is a TSan fiber and every switch synchronizes,
 *    so TSan checks the scheduler and any real threads, not races inside the schedule.
 *  - a loop with no scheduling point in it (a spin on a plain variable) cannot be
 *    preempted: mark it with TL_SCHED_YIELD() or the atomic wrappers.
 *
 * Invariants: one run is deterministic (the same choices give the same trace, byte for
 * byte); a failure of the program under test (deadlock, misuse of a mutex or condition
 * variable, a step bound) ends the run with a result, never a crash of the caller; no
 * choice value is an error (out-of-range values are taken modulo the options).
 */
#if !defined(TL_SCHED_HOOKS_H)
#define TL_SCHED_HOOKS_H
/* ---- hooks the program under test may call (primitive types only: this block and the
 * renaming below include no system header, so that a file's own feature macros, such
 * as _GNU_SOURCE at its top, still work after a forced include) ---- */
#if defined(__GNUC__)
#define TL_SCHED_API __attribute__((visibility("default")))
#define TL_SCHED_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TL_SCHED_API
#define TL_SCHED_PRINTF(a, b)
#endif
#ifdef __cplusplus
extern "C" {
#endif
/* nonzero inside a managed thread of a run */
TL_SCHED_API int tl_sched_active(void);
/* an explicit scheduling point (a spin loop, a poll of a flag outside the lock) */
TL_SCHED_API void tl_sched_yield(void);
/* a scheduling point at the entry of a backend call (what: its name; obj: what it works
 * on, or null); the fake backend calls it so backend calls interleave with the tier */
TL_SCHED_API void tl_sched_backend_enter(const char *what, const volatile void *obj);
/* a scheduling point before an atomic access to addr (is_store: 0 load, 1 store, 2 both) */
TL_SCHED_API void tl_sched_atomic_point(const volatile void *addr, int is_store);
/* the running managed thread's id (-1 outside a run), and in *trace_events (when not null)
 * the number of trace events the run has recorded so far: a program's own log entry made
 * now belongs after exactly that many trace events (a harness merges the two by it) */
TL_SCHED_API int tl_sched_current(unsigned *trace_events);
/* names the calling managed thread / an object (mutex, condvar) in traces and reports */
TL_SCHED_API void tl_sched_name_thread(const char *name);
TL_SCHED_API void tl_sched_name_object(const volatile void *addr, const char *name);
/* ends the run with a violation that the program itself found (its own assertion) */
TL_SCHED_API void tl_sched_fail(const char *fmt, ...) TL_SCHED_PRINTF(1, 2);
#ifdef __cplusplus
}
#endif

#define TL_SCHED_YIELD() tl_sched_yield()
#define TL_SCHED_BACKEND(what, obj) tl_sched_backend_enter((what), (obj))
#define TL_SCHED_ASSERT(c) \
  ((c) ? (void)0 : tl_sched_fail("assertion failed: %s (%s:%d)", #c, __FILE__, __LINE__))
/* atomic accesses that are scheduling points (GNU C: the pointer is evaluated once) */
#define TL_SCHED_LOAD(p, mo)               \
  __extension__({                          \
    __typeof__(p) tl_sched_p_ = (p);       \
    tl_sched_atomic_point(tl_sched_p_, 0); \
    (__atomic_load_n)(tl_sched_p_, (mo));  \
  })
#define TL_SCHED_STORE(p, v, mo)                \
  __extension__({                               \
    __typeof__(p) tl_sched_p_ = (p);            \
    tl_sched_atomic_point(tl_sched_p_, 1);      \
    (__atomic_store_n)(tl_sched_p_, (v), (mo)); \
  })
#endif /* TL_SCHED_HOOKS_H */

#if defined(TL_SCHED_INTERPOSE) && !defined(TL_SCHED_INTERPOSE_H)
#define TL_SCHED_INTERPOSE_H
/* ---- the renaming: object-like macros, so the system headers declared later declare
 * tl_sched_* with their own types, and a function's address is renamed too ---- */
#define pthread_create tl_sched_create
#define pthread_join tl_sched_join
#define pthread_detach tl_sched_detach
#define pthread_exit tl_sched_exit
#define pthread_self tl_sched_self
#define pthread_equal tl_sched_equal
#define pthread_setaffinity_np tl_sched_setaffinity_np
#define pthread_getaffinity_np tl_sched_getaffinity_np
#define pthread_setname_np tl_sched_setname_np
#define pthread_getname_np tl_sched_getname_np
#define pthread_mutex_init tl_sched_mutex_init
#define pthread_mutex_destroy tl_sched_mutex_destroy
#define pthread_mutex_lock tl_sched_mutex_lock
#define pthread_mutex_trylock tl_sched_mutex_trylock
#define pthread_mutex_timedlock tl_sched_mutex_timedlock
#define pthread_mutex_unlock tl_sched_mutex_unlock
#define pthread_cond_init tl_sched_cond_init
#define pthread_cond_destroy tl_sched_cond_destroy
#define pthread_cond_wait tl_sched_cond_wait
#define pthread_cond_timedwait tl_sched_cond_timedwait
#define pthread_cond_signal tl_sched_cond_signal
#define pthread_cond_broadcast tl_sched_cond_broadcast
#define sched_yield tl_sched_sched_yield
#define nanosleep tl_sched_nanosleep
#define usleep tl_sched_usleep
#endif /* TL_SCHED_INTERPOSE_H */

#if defined(TL_SCHED_INTERPOSE) && defined(TL_SCHED_INTERPOSE_ATOMICS) && \
    !defined(TL_SCHED_ATOMICS_H)
#define TL_SCHED_ATOMICS_H
/* every __atomic builtin (and so <stdatomic.h>'s functions) becomes a scheduling point,
 * the pointer evaluated once; plain reads and writes of an _Atomic variable are not seen.
 * Define TL_SCHED_INTERPOSE_ATOMICS before the renaming, or before including tl_sched.h
 * again later in a file */
#define TL_SCHED_AT_(p, st, f, ...)           \
  __extension__({                             \
    __typeof__(p) tl_sched_q_ = (p);          \
    tl_sched_atomic_point(tl_sched_q_, (st)); \
    (f)(tl_sched_q_, __VA_ARGS__);            \
  })
#define __atomic_load_n(p, mo) TL_SCHED_AT_(p, 0, __atomic_load_n, mo)
#define __atomic_load(p, r, mo) TL_SCHED_AT_(p, 0, __atomic_load, r, mo)
#define __atomic_store_n(p, v, mo) TL_SCHED_AT_(p, 1, __atomic_store_n, v, mo)
#define __atomic_store(p, v, mo) TL_SCHED_AT_(p, 1, __atomic_store, v, mo)
#define __atomic_exchange_n(p, v, mo) TL_SCHED_AT_(p, 2, __atomic_exchange_n, v, mo)
#define __atomic_compare_exchange_n(p, e, d, w, s, f) \
  TL_SCHED_AT_(p, 2, __atomic_compare_exchange_n, e, d, w, s, f)
#define __atomic_compare_exchange(p, e, d, w, s, f) \
  TL_SCHED_AT_(p, 2, __atomic_compare_exchange, e, d, w, s, f)
#define __atomic_fetch_add(p, v, mo) TL_SCHED_AT_(p, 2, __atomic_fetch_add, v, mo)
#define __atomic_fetch_sub(p, v, mo) TL_SCHED_AT_(p, 2, __atomic_fetch_sub, v, mo)
#define __atomic_fetch_and(p, v, mo) TL_SCHED_AT_(p, 2, __atomic_fetch_and, v, mo)
#define __atomic_fetch_or(p, v, mo) TL_SCHED_AT_(p, 2, __atomic_fetch_or, v, mo)
#define __atomic_add_fetch(p, v, mo) TL_SCHED_AT_(p, 2, __atomic_add_fetch, v, mo)
#define __atomic_sub_fetch(p, v, mo) TL_SCHED_AT_(p, 2, __atomic_sub_fetch, v, mo)
#endif /* TL_SCHED_ATOMICS_H */

#if !defined(TL_SCHED_INTERPOSE_ONLY) && !defined(TL_SCHED_H)
#define TL_SCHED_H
#include "tl_sched_api.h"
#endif

#if defined(TL_SCHED_IMPLEMENTATION) && !defined(TL_SCHED_INTERPOSE_ONLY) && \
    !defined(TL_SCHED_IMPLEMENTED)
#define TL_SCHED_IMPLEMENTED
#include "impl/base.h"
#include "impl/fiber.h"
#include "impl/objects.h"
#include "impl/sources.h"
#include "impl/record.h"
#include "impl/report.h"
#include "impl/core.h"
#include "impl/sync.h"
#include "impl/sync_api.h"
#include "impl/threads.h"
#include "impl/hooks.h"
#include "impl/run.h"
#include "impl/fork.h"
#include "impl/fork_parent.h"
#include "impl/explore.h"
#include "impl/render.h"
#endif
