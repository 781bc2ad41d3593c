/*
 * tl_sched implementation, part 13: the fresh-process mode. Each run happens in a forked
 * child (so globals, heap and files the program changes do not outlive the run in the
 * caller) and its result comes back through a pipe: a header, the description, then the
 * arrays, raw (both ends are the same binary).
 *
 * A child that dies still reports what it can: a fatal signal's handler, or the
 * sanitizers' death callback, writes the result so far (choices, trace, steps) with a
 * description of the death; the parent then reports TL_SCHED_CRASHED with the exit status
 * or signal. limits.child_timeout_ms is a safety net (a child stuck in a loop without a
 * scheduling point is killed), never part of a verdict.
 *
 * Invariants: the child leaves with _exit (no atexit handlers, no leak check of a run it
 * may have abandoned); the child uses no lock another thread of the parent could hold
 * (the stack pool is off in it).
 */
#define TLS_WIRE_MAGIC 0x524c5354u /* "TSLR" */

typedef struct tls_wire {
  uint32_t magic, kind; /* kind: 1 the whole result, 2 what a dying child had */
  int32_t outcome, signal;
  uint32_t steps, decisions, spurious;
  uint32_t n_choices, n_events, n_log, n_options, n_objects, n_threads, desc_len;
} tls_wire;

static int tls_child_fd = -1;
static tl_sched_result *tls_child_res;

static void tls_write_all(int fd, const void *p, size_t n) {
  const char *c = (const char *)p;
  while (n > 0) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    c += w;
    n -= (size_t)w;
  }
}

static void tls_send(int fd, const tl_sched_result *r, uint32_t kind, int32_t sig,
                     const char *desc) {
  tls_wire w;
  memset(&w, 0, sizeof w);
  w.magic = TLS_WIRE_MAGIC;
  w.kind = kind;
  w.outcome = r->outcome;
  w.signal = sig;
  w.steps = r->steps;
  w.decisions = r->decisions;
  w.spurious = r->spurious;
  w.n_choices = r->n_choices;
  w.n_events = r->n_events;
  w.n_log = r->n_log;
  w.n_options = r->n_options;
  w.n_objects = kind == 1 ? r->n_objects : 0; /* tables are built at the end of a run */
  w.n_threads = kind == 1 ? r->n_threads : 0;
  w.desc_len = (uint32_t)strlen(desc);
  tls_write_all(fd, &w, sizeof w);
  tls_write_all(fd, desc, w.desc_len);
  tls_write_all(fd, r->choices, w.n_choices * sizeof(uint32_t));
  tls_write_all(fd, r->widths, w.n_choices * sizeof(uint32_t));
  tls_write_all(fd, r->events, w.n_events * sizeof(tl_sched_event));
  tls_write_all(fd, r->log, w.n_log * sizeof(tl_sched_decision));
  tls_write_all(fd, r->options, w.n_options * sizeof(tl_sched_option));
  tls_write_all(fd, r->objects, w.n_objects * sizeof(tl_sched_object_info));
  tls_write_all(fd, r->threads, w.n_threads * sizeof(tl_sched_thread_info));
}

/* the dying child's last words (best effort: it is dying anyway) */
static void tls_child_dying(int sig) {
  static char desc[256];
  if (tls_child_fd < 0 || tls_child_res == NULL) return;
  tls_run *S = tls_cur;
  uint32_t step = S ? S->steps : tls_child_res->steps;
  uint32_t tid = (S && S->running != TLS_NONE) ? S->running : 0;
  tls_child_res->steps = step;
  if (sig)
    snprintf(desc, sizeof desc, "signal %d in t%u at step %u", sig, tid, step);
  else
    snprintf(desc, sizeof desc, "sanitizer error in t%u at step %u (its report is on stderr)", tid,
             step);
  tls_send(tls_child_fd, tls_child_res, 2, sig, desc);
  tls_child_fd = -1;
}

static void tls_child_signal(int sig) {
  tls_child_dying(sig);
  signal(sig, SIG_DFL);
  raise(sig);
}

static void tls_child_death(void) { tls_child_dying(0); }

static void tls_child_handlers(void) {
  static char alt[65536];
  stack_t ss;
  memset(&ss, 0, sizeof ss);
  ss.ss_sp = alt;
  ss.ss_size = sizeof alt;
  sigaltstack(&ss, NULL); /* a stack overflow's handler needs a stack of its own */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = tls_child_signal;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGABRT, &sa, NULL);
#if defined(TLS_ASAN)
  __sanitizer_set_death_callback(tls_child_death); /* ASan reports SEGV and friends itself */
#else
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
  sigaction(SIGILL, &sa, NULL);
  sigaction(SIGFPE, &sa, NULL);
  (void)tls_child_death;
#endif
}

static void tls_child(const tl_sched_config *cfg, const tl_sched_limits *lim, tl_sched_result *out,
                      int fd) __attribute__((noreturn));
static void tls_child(const tl_sched_config *cfg, const tl_sched_limits *lim, tl_sched_result *out,
                      int fd) {
  tls_pool_off = 1;
  tls_child_fd = fd;
  tls_child_res = out;
  tls_child_handlers();
  tl_sched_config c = *cfg;
  c.fresh_process = 0;
  tls_run_here(&c, lim, out);
  tls_child_fd = -1;
  tls_send(fd, out, 1, 0, out->description);
  _exit(0);
}
