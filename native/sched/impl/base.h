/*
 * tl_sched implementation, part 1: the run's state (threads, objects, the fiber of each
 * thread) and the real pthread functions. Included by tl_sched.h under
 * TL_SCHED_IMPLEMENTATION only; every name here is static or starts with tls_.
 *
 * Invariants: the real functions are bound by symbol name (asm labels), so the renaming
 * macros of TL_SCHED_INTERPOSE, active or not in this file, never reach them; a run's
 * state lives in the frame of tl_sched_run and is found through one thread-local pointer
 * (all managed threads of a run share the OS thread that called tl_sched_run).
 */
#if !defined(_GNU_SOURCE)
#error \
    "tl_sched: define _GNU_SOURCE before any include in the file that defines TL_SCHED_IMPLEMENTATION"
#endif
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define TLS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TLS_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define TLS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TLS_TSAN 1
#endif
#endif
#if defined(TLS_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(TLS_TSAN)
#include <sanitizer/tsan_interface.h>
#endif
#if !defined(__x86_64__) && !defined(TL_SCHED_UCONTEXT)
#define TL_SCHED_UCONTEXT 1
#endif
#if defined(TL_SCHED_UCONTEXT)
#include <ucontext.h>
#endif

/* the real functions, by symbol name */
extern int tls_real_mutex_init(pthread_mutex_t *,
                               const pthread_mutexattr_t *) __asm__("pthread_mutex_init");
extern int tls_real_mutex_destroy(pthread_mutex_t *) __asm__("pthread_mutex_destroy");
extern int tls_real_mutex_lock(pthread_mutex_t *) __asm__("pthread_mutex_lock");
extern int tls_real_mutex_trylock(pthread_mutex_t *) __asm__("pthread_mutex_trylock");
extern int tls_real_mutex_timedlock(pthread_mutex_t *,
                                    const struct timespec *) __asm__("pthread_mutex_timedlock");
extern int tls_real_mutex_unlock(pthread_mutex_t *) __asm__("pthread_mutex_unlock");
extern int tls_real_cond_init(pthread_cond_t *,
                              const pthread_condattr_t *) __asm__("pthread_cond_init");
extern int tls_real_cond_destroy(pthread_cond_t *) __asm__("pthread_cond_destroy");
extern int tls_real_cond_wait(pthread_cond_t *, pthread_mutex_t *) __asm__("pthread_cond_wait");
extern int tls_real_cond_timedwait(pthread_cond_t *, pthread_mutex_t *,
                                   const struct timespec *) __asm__("pthread_cond_timedwait");
extern int tls_real_cond_signal(pthread_cond_t *) __asm__("pthread_cond_signal");
extern int tls_real_cond_broadcast(pthread_cond_t *) __asm__("pthread_cond_broadcast");
extern int tls_real_create(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                           void *) __asm__("pthread_create");
extern int tls_real_join(pthread_t, void **) __asm__("pthread_join");
extern int tls_real_detach(pthread_t) __asm__("pthread_detach");
extern void tls_real_exit(void *) __asm__("pthread_exit") __attribute__((noreturn));
extern pthread_t tls_real_self(void) __asm__("pthread_self");
extern int tls_real_setaffinity(pthread_t, size_t,
                                const cpu_set_t *) __asm__("pthread_setaffinity_np");
extern int tls_real_getaffinity(pthread_t, size_t, cpu_set_t *) __asm__("pthread_getaffinity_np");
extern int tls_real_setname(pthread_t, const char *) __asm__("pthread_setname_np");
extern int tls_real_getname(pthread_t, char *, size_t) __asm__("pthread_getname_np");
extern int tls_real_sched_yield(void) __asm__("sched_yield");
extern int tls_real_nanosleep(const struct timespec *, struct timespec *) __asm__("nanosleep");
extern int tls_real_usleep(unsigned int) __asm__("usleep");

#define TLS_NONE 0xffffffffu
/* managed handles: a non-canonical address, never a real pthread_t */
#define TLS_HANDLE_TAG 0x7e5c000000000000ull
#define TLS_HANDLE_MASK 0xffff000000000000ull
#define TLS_MAX_THREADS 1024u
#define TLS_SNAP 48 /* bytes of an object's memory compared at each use (>= both sizes) */

enum tls_thread_state { TLS_READY = 0, TLS_BLOCKED = 1, TLS_DONE = 2 };
enum tls_space { TLS_SPACE_SYNC = 0, TLS_SPACE_ATOMIC = 1, TLS_SPACE_BACKEND = 2 };
enum tls_mutex_type { TLS_MX_NORMAL = 0, TLS_MX_RECURSIVE = 1, TLS_MX_ERRORCHECK = 2 };

/* one execution context: a managed thread's, or the caller's ("home") */
typedef struct tls_fiber {
  void *sp; /* the assembly switch's saved stack pointer */
#if defined(TL_SCHED_UCONTEXT)
  ucontext_t uc;
#endif
  void *stack; /* mapping (guard page first); null for home */
  size_t stack_bytes;
  void *asan_fake; /* ASan's fake stack of this context while switched out */
  const void *asan_bottom;
  size_t asan_size;
  void *tsan; /* TSan fiber */
} tls_fiber;

typedef struct tls_thread {
  uint32_t tid, parent, state;
  uint32_t op, obj, obj2; /* the pending operation: what the thread does next */
  int32_t arg;
  int32_t rc; /* result of its applied operation, read when it resumes */
  int32_t wait_rc; /* a woken waiter's result: 0, or ETIMEDOUT */
  uint32_t timed; /* the pending operation may time out */
  uint32_t wait_seq, relock_count;
  uint32_t detached, joined, started;
  void *(*fn)(void *);
  void *fn_arg, *retval;
  /* a pending create's arguments */
  pthread_t *new_handle;
  void *(*new_fn)(void *);
  void *new_arg;
  uint32_t new_detached;
  int saved_errno;
  uint32_t cpus_len;
  unsigned char cpus[128]; /* a recorded affinity mask */
  char name[TL_SCHED_NAME_MAX];
  tls_fiber fiber;
} tls_thread;

typedef struct tls_obj {
  const volatile void *addr;
  uint32_t space, kind, id, gen;
  uint32_t live; /* 0 once destroyed */
  uint32_t owner, count; /* a mutex's holder and depth */
  uint32_t type; /* enum tls_mutex_type */
  uint32_t destroyed_at; /* step of the destroy */
  uint32_t snap_len;
  unsigned char snap[TLS_SNAP]; /* the memory as last seen: a change is a memset or copy */
  char name[TL_SCHED_NAME_MAX];
} tls_obj;

typedef struct tls_run {
  const tl_sched_config *cfg;
  tl_sched_result *res;
  tl_sched_limits lim;
  tl_sched_source *src;
  tls_thread *th;
  uint32_t n_th;
  tls_obj *obj;
  uint32_t n_obj, cap_obj;
  uint32_t *slots; /* open addressing: object index + 1, 0 empty */
  uint32_t slot_mask;
  uint32_t cur; /* the thread that moved last */
  uint32_t running; /* the context executing now (TLS_NONE: home) */
  uint32_t steps, spurious_left, wait_seq;
  tl_sched_option *opts; /* scratch for a decision's options */
  tl_sched_decision *ask; /* a decision for home to take (a source that chooses there) */
  uint32_t answer;
  tls_fiber home;
} tls_run;

static _Thread_local tls_run *tls_cur;

/* the run this OS thread executes a managed thread of, or null */
static tls_run *tls_active_run(void) {
  tls_run *S = tls_cur;
  return (S != NULL && S->running != TLS_NONE) ? S : NULL;
}

static void *tls_grow(void *p, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return p;
  uint32_t c = *cap ? *cap : 16;
  while (c < need) c *= 2;
  void *q = realloc(p, (size_t)c * elem);
  if (q == NULL) {
    fprintf(stderr, "tl_sched: out of memory (%zu bytes)\n", (size_t)c * elem);
    abort();
  }
  *cap = c;
  return q;
}

static void tls_copy_name(char *dst, const char *src) {
  size_t n = src ? strlen(src) : 0;
  if (n >= TL_SCHED_NAME_MAX) n = TL_SCHED_NAME_MAX - 1;
  if (n) memcpy(dst, src, n);
  dst[n] = '\0';
}
