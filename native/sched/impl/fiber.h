/*
 * tl_sched implementation, part 2: execution contexts (fibers) and their stacks.
 *
 * Role: a managed thread is a stack and a saved stack pointer on the OS thread that
 * called tl_sched_run; switching is a call of tls_switch_x86 (six callee-saved registers,
 * the SSE and x87 control words, the stack pointer) or swapcontext where that is not
 * available. Stacks are mappings with a guard page below them, kept in a pool across runs
 * (a schedule of a small program creates its threads hundreds of times a second).
 *
 * Sanitizers: AddressSanitizer is told of every switch (start/finish_switch_fiber; a
 * thread that ends passes no fake-stack slot, so its fake frames are freed), and a stack
 * going back to the pool is unpoisoned (a run abandoned mid-way leaves poisoned redzones
 * on it). ThreadSanitizer: each managed thread is a TSan fiber, and switches synchronize
 * (flags 0), so the serialised schedule is never reported as a race.
 *
 * Invariants: a stack is in use by at most one thread of one run; the signal mask is the
 * OS thread's (the assembly switch does not touch it, by design: a signal is the whole
 * schedule's); errno is saved and restored by the caller of tls_fiber_switch.
 */
#if !defined(TL_SCHED_UCONTEXT)
/* tls_switch_x86(save, to): pushes the callee-saved state, stores rsp in *save, loads
 * `to` as rsp, pops the state saved there and returns into that context */
__asm__(
    ".text\n"
    ".globl tls_switch_x86\n"
    ".hidden tls_switch_x86\n"
    ".type tls_switch_x86,@function\n"
    "tls_switch_x86:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
    "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
    "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
    "  ret\n"
    ".size tls_switch_x86, .-tls_switch_x86\n");
void tls_switch_x86(void **save, void *to);
#endif

/* ---- the stack pool (one mutex: runs on several OS threads share it) ---- */
typedef struct tls_stack {
  struct tls_stack *next;
  size_t bytes;
} tls_stack;
static tls_stack *tls_pool;
static pthread_mutex_t tls_pool_mx = PTHREAD_MUTEX_INITIALIZER;
static int tls_pool_off; /* a forked child allocates without the pool (its lock may be held) */

static size_t tls_page(void) {
  long p = sysconf(_SC_PAGESIZE);
  return p > 0 ? (size_t)p : 4096;
}

/* a stack of `bytes` usable bytes above a guard page; while pooled, its first bytes
 * hold the pool's link */
static void *tls_stack_get(size_t bytes) {
  if (!tls_pool_off) {
    tls_real_mutex_lock(&tls_pool_mx);
    for (tls_stack **pp = &tls_pool; *pp; pp = &(*pp)->next) {
      if ((*pp)->bytes != bytes) continue;
      tls_stack *s = *pp;
      *pp = s->next;
      tls_real_mutex_unlock(&tls_pool_mx);
      return s;
    }
    tls_real_mutex_unlock(&tls_pool_mx);
  }
  size_t page = tls_page();
  char *m = (char *)mmap(NULL, bytes + page, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return NULL;
  mprotect(m, page, PROT_NONE); /* the guard: an overflow faults instead of corrupting */
  return m + page;
}

static void tls_stack_put(void *base, size_t bytes) {
#if defined(TLS_ASAN)
  /* a run abandoned mid-way leaves its frames' redzones poisoned on the stack */
  __asan_unpoison_memory_region(base, bytes);
#endif
  if (tls_pool_off) {
    size_t page = tls_page();
    munmap((char *)base - page, bytes + page);
    return;
  }
  tls_stack *s = (tls_stack *)base;
  s->bytes = bytes;
  tls_real_mutex_lock(&tls_pool_mx);
  s->next = tls_pool;
  tls_pool = s;
  tls_real_mutex_unlock(&tls_pool_mx);
}

static void tls_fiber_main(void);

/* a context that starts in tls_fiber_main on a fresh stack; 0, or -1 without memory */
static int tls_fiber_init(tls_fiber *f, size_t bytes) {
  memset(f, 0, sizeof *f);
  f->stack = tls_stack_get(bytes);
  if (f->stack == NULL) return -1;
  f->stack_bytes = bytes;
  f->asan_bottom = f->stack;
  f->asan_size = bytes;
#if defined(TL_SCHED_UCONTEXT)
  getcontext(&f->uc);
  f->uc.uc_stack.ss_sp = f->stack;
  f->uc.uc_stack.ss_size = bytes;
  f->uc.uc_link = NULL;
  makecontext(&f->uc, tls_fiber_main, 0);
#else
  /* the frame tls_switch_x86 pops: control words, six registers, the return address
   * (tls_fiber_main), and a null "return address" above it so that tls_fiber_main
   * starts with the stack aligned as after a call */
  void **sp = (void **)((char *)f->stack + bytes);
  *--sp = NULL;
  *--sp = (void *)tls_fiber_main;
  for (int i = 0; i < 6; i++) *--sp = NULL;
  --sp;
  uint32_t ctl[2] = {0x1f80u, 0x037fu}; /* the ABI's default MXCSR and x87 control word */
  memcpy(sp, ctl, sizeof ctl);
  f->sp = sp;
#endif
#if defined(TLS_TSAN)
  f->tsan = __tsan_create_fiber(0);
#endif
  return 0;
}

static void tls_fiber_free(tls_fiber *f) {
#if defined(TLS_TSAN)
  if (f->tsan) __tsan_destroy_fiber(f->tsan);
#endif
  if (f->stack) tls_stack_put(f->stack, f->stack_bytes);
  f->stack = NULL;
  f->tsan = NULL;
}

/* the home context: the caller's stack (ASan learns its bounds at the first switch) */
static void tls_fiber_home(tls_fiber *f) {
  memset(f, 0, sizeof *f);
#if defined(TLS_TSAN)
  f->tsan = __tsan_get_current_fiber();
#endif
}

/* switches from `from` (the context running now) to `to`; returns when `from` is
 * switched to again. dying: `from` will never run again (its fake stack is dropped) */
static void tls_fiber_switch(tls_fiber *from, tls_fiber *to, int dying) {
#if defined(TLS_ASAN)
  __sanitizer_start_switch_fiber(dying ? NULL : &from->asan_fake, to->asan_bottom, to->asan_size);
#else
  (void)dying;
#endif
#if defined(TLS_TSAN)
  __tsan_switch_to_fiber(to->tsan, 0);
#endif
#if defined(TL_SCHED_UCONTEXT)
  swapcontext(&from->uc, &to->uc);
#else
  tls_switch_x86(&from->sp, to->sp);
#endif
#if defined(TLS_ASAN)
  __sanitizer_finish_switch_fiber(from->asan_fake, NULL, NULL);
#endif
}

/* first thing a new context does: completes the switch that started it; the context it
 * came from is home when it is the run's first thread (ASan then learns home's stack) */
static void tls_fiber_arrived(tls_fiber *home) {
#if defined(TLS_ASAN)
  const void *bottom = NULL;
  size_t size = 0;
  __sanitizer_finish_switch_fiber(NULL, &bottom, &size);
  if (home->asan_bottom == NULL) {
    home->asan_bottom = bottom;
    home->asan_size = size;
  }
#else
  (void)home;
#endif
}
