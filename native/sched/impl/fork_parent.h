/*
 * tl_sched implementation, part 14: the parent's half of the fresh-process mode: fork,
 * read the child's result from the pipe, wait for it, and turn a death into a
 * TL_SCHED_CRASHED result that keeps what the child sent before it died.
 *
 * Invariants: the child is always reaped; a truncated or foreign payload is never read
 * past its end; the result's description names how the child ended.
 */

typedef struct tls_buf {
  char *p;
  size_t n, cap;
} tls_buf;

static int64_t tls_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* reads the pipe to its end; 1 when the safety-net timeout expired first */
static int tls_read_child(int fd, uint32_t timeout_ms, tls_buf *b) {
  int64_t deadline = timeout_ms ? tls_now_ms() + timeout_ms : 0;
  for (;;) {
    if (timeout_ms) {
      int64_t left = deadline - tls_now_ms();
      struct pollfd p = {fd, POLLIN, 0};
      if (left <= 0 || poll(&p, 1, (int)left) == 0) return 1;
    }
    if (b->cap - b->n < 65536) {
      size_t cap = b->cap ? b->cap * 2 : 131072;
      char *q = (char *)realloc(b->p, cap);
      if (q == NULL) return 0;
      b->p = q;
      b->cap = cap;
    }
    ssize_t r = read(fd, b->p + b->n, b->cap - b->n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return 0;
    b->n += (size_t)r;
  }
}

static const char *tls_take(const char **p, const char *end, size_t bytes) {
  if ((size_t)(end - *p) < bytes) return NULL;
  const char *at = *p;
  *p += bytes;
  return at;
}

#define TLS_TAKE_ARRAY(field, count, cap, type)                                      \
  do {                                                                               \
    const char *src_ = tls_take(&p, end, (size_t)(count) * sizeof(type));            \
    if (src_ == NULL) return -1;                                                     \
    out->field = (type *)tls_grow(out->field, &out->cap, (count) + 1, sizeof(type)); \
    if (count) memcpy(out->field, src_, (size_t)(count) * sizeof(type));             \
  } while (0)

/* the child's payload into out; -1 when it is missing, foreign or cut short */
static int tls_parse(const tls_buf *b, tl_sched_result *out, tls_wire *w) {
  const char *p = b->p, *end = b->p + b->n;
  const char *h = tls_take(&p, end, sizeof *w);
  if (h == NULL) return -1;
  memcpy(w, h, sizeof *w);
  if (w->magic != TLS_WIRE_MAGIC) return -1;
  const char *desc = tls_take(&p, end, w->desc_len);
  if (desc == NULL) return -1;
  tls_describe(out, "%.*s", (int)w->desc_len, desc);
  TLS_TAKE_ARRAY(choices, w->n_choices, cap_choices, uint32_t);
  TLS_TAKE_ARRAY(widths, w->n_choices, cap_widths, uint32_t);
  TLS_TAKE_ARRAY(events, w->n_events, cap_events, tl_sched_event);
  TLS_TAKE_ARRAY(log, w->n_log, cap_log, tl_sched_decision);
  TLS_TAKE_ARRAY(options, w->n_options, cap_options, tl_sched_option);
  TLS_TAKE_ARRAY(objects, w->n_objects, cap_objects, tl_sched_object_info);
  TLS_TAKE_ARRAY(threads, w->n_threads, cap_threads, tl_sched_thread_info);
  out->outcome = w->outcome;
  out->steps = w->steps;
  out->decisions = w->decisions;
  out->spurious = w->spurious;
  out->n_choices = w->n_choices;
  out->n_events = w->n_events;
  out->n_log = w->n_log;
  out->n_options = w->n_options;
  out->n_objects = w->n_objects;
  out->n_threads = w->n_threads;
  return 0;
}

static void tls_describe_death(tl_sched_result *out, int got, const tls_wire *w, int status,
                               int timed_out, uint32_t timeout_ms) {
  char how[160];
  if (timed_out)
    snprintf(how, sizeof how, "was killed after %u ms (limits.child_timeout_ms)", timeout_ms);
  else if (WIFSIGNALED(status))
    snprintf(how, sizeof how, "was killed by signal %d (%s)", WTERMSIG(status),
             strsignal(WTERMSIG(status)));
  else
    snprintf(how, sizeof how, "exited with status %d",
             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  if (got && w->kind == 2) {
    char *said = strdup(out->description);
    tls_describe(out, "the child crashed: %s; it %s", said ? said : "", how);
    free(said);
  } else {
    tls_describe(out, "the child %s before it sent a whole result", how);
  }
  out->outcome = TL_SCHED_CRASHED;
}

static int tls_run_forked(const tl_sched_config *cfg, const tl_sched_limits *lim,
                          tl_sched_result *out) {
  int fds[2];
  if (pipe(fds) != 0) return tls_bad_config(out, "tl_sched_run: pipe failed: %s", strerror(errno));
  fflush(NULL); /* buffered output must not be written twice */
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return tls_bad_config(out, "tl_sched_run: fork failed: %s", strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    tls_child(cfg, lim, out, fds[1]);
  }
  close(fds[1]);
  tls_buf b = {NULL, 0, 0};
  int timed_out = tls_read_child(fds[0], lim->child_timeout_ms, &b);
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  tls_wire w;
  memset(&w, 0, sizeof w);
  int got = tls_parse(&b, out, &w) == 0;
  free(b.p);
  int clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!(got && w.kind == 1 && clean && !timed_out))
    tls_describe_death(out, got, &w, status, timed_out, lim->child_timeout_ms);
  return 0;
}
