/*
 * tl_sched implementation, part 10: managed threads (create, join, detach, exit, self,
 * equal) and what applying their operations does.
 *
 * A managed thread's handle is TLS_HANDLE_TAG | tid: the same in every run of the same
 * schedule (a program may print or hash it), and never a real pthread_t, so that a
 * handle of a finished run, or a real handle inside a run, is reported as unknown rather
 * than dereferenced. Create writes the handle before the new thread can run, as glibc
 * does. Joins of unknown, detached or already joined threads, and self-joins, are
 * violations; so is a thread past limits.max_threads (say so, raise the limit).
 */

static uint32_t tls_handle_tid(pthread_t h) {
  uint64_t v = (uint64_t)h;
  if ((v & TLS_HANDLE_MASK) != TLS_HANDLE_TAG) return TLS_NONE;
  return (uint32_t)(v & 0xffffffffu);
}

static int tls_is_handle(pthread_t h) { return tls_handle_tid(h) != TLS_NONE; }

static void tls_apply_create(tls_run *S, tls_thread *t) {
  char b[96];
  if (S->n_th >= S->lim.max_threads)
    tls_violation(S, "%s creates a thread past the limit of %u (raise limits.max_threads)",
                  tls_thread_label(t, b, sizeof b), S->lim.max_threads);
  tls_thread *c = &S->th[S->n_th];
  memset(c, 0, sizeof *c);
  if (tls_fiber_init(&c->fiber, S->lim.stack_bytes) != 0)
    tls_violation(S, "%s creates a thread: no memory for its stack (%u bytes)",
                  tls_thread_label(t, b, sizeof b), S->lim.stack_bytes);
  c->tid = S->n_th++;
  c->parent = t->tid;
  c->state = TLS_READY;
  c->op = TL_SCHED_OP_START;
  c->obj = c->obj2 = TLS_NONE;
  c->fn = t->new_fn;
  c->fn_arg = t->new_arg;
  c->detached = t->new_detached;
  *t->new_handle = (pthread_t)(TLS_HANDLE_TAG | c->tid);
  tls_event(S, t->tid, TL_SCHED_OP_CREATE, TLS_NONE, (int32_t)c->tid);
}

static void tls_apply_join(tls_run *S, tls_thread *t) {
  char b[96], c[96];
  uint32_t target = (uint32_t)t->arg;
  const char *me = tls_thread_label(t, b, sizeof b);
  if (target >= S->n_th)
    tls_violation(S, "%s joins an unknown thread (not created in this run)", me);
  tls_thread *g = &S->th[target];
  const char *it = tls_thread_label(g, c, sizeof c);
  if (target == t->tid) tls_violation(S, "%s joins itself", me);
  if (g->detached) tls_violation(S, "%s joins %s, which is detached", me, it);
  if (g->joined) tls_violation(S, "%s joins %s, which was joined already", me, it);
  g->joined = 1;
  tls_event(S, t->tid, TL_SCHED_OP_JOIN, TLS_NONE, (int32_t)target);
}

static void tls_apply_thread(tls_run *S, tls_thread *t) {
  if (t->op == TL_SCHED_OP_CREATE)
    tls_apply_create(S, t);
  else if (t->op == TL_SCHED_OP_JOIN)
    tls_apply_join(S, t);
  else
    tls_event(S, t->tid, TL_SCHED_OP_START, TLS_NONE, (int32_t)t->parent);
  t->op = TL_SCHED_OP_NONE;
}

TL_SCHED_API int tl_sched_create(pthread_t *h, const pthread_attr_t *attr, void *(*fn)(void *),
                                 void *arg) {
  tls_run *S = tls_active_run();
  if (S == NULL) return tls_real_create(h, attr, fn, arg);
  int ds = PTHREAD_CREATE_JOINABLE;
  if (attr != NULL && pthread_attr_getdetachstate(attr, &ds) != 0) ds = PTHREAD_CREATE_JOINABLE;
  tls_thread *self = &S->th[S->running];
  self->new_handle = h;
  self->new_fn = fn;
  self->new_arg = arg;
  self->new_detached = ds == PTHREAD_CREATE_DETACHED;
  return tls_point(S, TL_SCHED_OP_CREATE, TLS_NONE, TLS_NONE, 0, 0);
}

TL_SCHED_API int tl_sched_join(pthread_t h, void **ret) {
  tls_run *S = tls_active_run();
  if (S == NULL) return tls_is_handle(h) ? ESRCH : tls_real_join(h, ret);
  uint32_t tid = tls_handle_tid(h);
  int32_t arg = tid == TLS_NONE ? INT32_MAX : (int32_t)tid;
  int rc = tls_point(S, TL_SCHED_OP_JOIN, TLS_NONE, TLS_NONE, arg, 0);
  if (rc == 0 && ret != NULL) *ret = S->th[tid].retval;
  return rc;
}

TL_SCHED_API int tl_sched_detach(pthread_t h) {
  char b[96], c[96];
  tls_run *S = tls_active_run();
  if (S == NULL) return tls_is_handle(h) ? ESRCH : tls_real_detach(h);
  uint32_t tid = tls_handle_tid(h);
  tls_thread *self = &S->th[S->running];
  if (tid >= S->n_th)
    tls_violation(S, "%s detaches an unknown thread", tls_thread_label(self, b, sizeof b));
  if (S->th[tid].detached || S->th[tid].joined)
    tls_violation(S, "%s detaches %s, which is %s already", tls_thread_label(self, b, sizeof b),
                  tls_thread_label(&S->th[tid], c, sizeof c),
                  S->th[tid].detached ? "detached" : "joined");
  S->th[tid].detached = 1;
  return 0;
}

TL_SCHED_API void tl_sched_exit(void *ret) {
  tls_run *S = tls_active_run();
  if (S == NULL) tls_real_exit(ret);
  tls_thread_exit(S, ret);
}

TL_SCHED_API pthread_t tl_sched_self(void) {
  tls_run *S = tls_active_run();
  if (S == NULL) return tls_real_self();
  return (pthread_t)(TLS_HANDLE_TAG | S->running);
}

TL_SCHED_API int tl_sched_equal(pthread_t a, pthread_t b) { return a == b; }
