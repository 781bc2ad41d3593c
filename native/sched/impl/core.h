/*
 * tl_sched implementation, part 7: the scheduler. A managed thread that reaches a
 * scheduling point states its next operation (its "pending" op) and calls tls_schedule,
 * which, in a loop: collects the options (threads whose pending op can execute now,
 * timeouts of timed waiters, spurious wakeups while the budget lasts), asks the choice
 * source when there are two or more, applies the chosen thread's operation on its behalf
 * (the state changes of every op happen here, in one place), and switches to that thread
 * if the op lets it run on. A thread that blocks (a condition wait) or a timeout that only
 * wakes a waiter is followed by another decision, on the same stack.
 *
 * Option order makes option 0 the quiet one: the current thread first when it can run on
 * (no preemption), then the others by thread id, then timeouts, then spurious wakeups.
 * An explicit yield (TL_SCHED_YIELD, sched_yield, a sleep) puts the current thread last
 * instead: a yield asks others to go first, so that a spin loop with a yield in it lets
 * the thread it waits for run even under all-zero choices.
 * A thread can run when its pending op can execute: a lock (or a woken waiter's relock)
 * needs the mutex free, a join needs the target finished; every other op always can.
 * Misuse (a use after destroy, a join of an unknown thread) makes the op "able to run",
 * so that applying it reports the violation instead of hiding it in a deadlock.
 *
 * Invariants: exactly one managed thread runs at a time; a step is one applied operation
 * (a chosen timeout or spurious wakeup counts as one); the run ends only here (or in
 * tl_sched_fail) by switching to the home context, and a thread is never resumed after.
 */

static void tls_apply_sync(tls_run *S, tls_thread *t);
static void tls_apply_thread(tls_run *S, tls_thread *t);

/* ends the run from the running thread: home resumes in tl_sched_run. No thread of the
 * run runs again, so every context's fake stack is dropped (the switch is "dying") */
static void tls_end(tls_run *S, int outcome) __attribute__((noreturn));
static void tls_end(tls_run *S, int outcome) {
  S->res->outcome = outcome;
  S->res->steps = S->steps;
  tls_thread *self = &S->th[S->running];
  S->running = TLS_NONE;
  tls_fiber_switch(&self->fiber, &S->home, 1);
  /* a thread of an ended run is never switched to again */
  abort();
}

static void tls_violation(tls_run *S, const char *fmt, ...) TL_SCHED_PRINTF(2, 3)
    __attribute__((noreturn));
static void tls_violation(tls_run *S, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tls_vdescribe(S->res, 0, fmt, ap);
  va_end(ap);
  tls_describe_more(S->res, " (step %u)", S->steps);
  tls_end(S, TL_SCHED_VIOLATION);
}

static int tls_mutex_free_for(const tls_run *S, uint32_t m, uint32_t tid) {
  const tls_obj *o = &S->obj[m];
  if (!o->live || o->kind != TL_SCHED_OBJ_MUTEX || o->owner == TLS_NONE) return 1;
  return o->owner == tid && o->type != TLS_MX_NORMAL;
}

static int tls_can_run(const tls_run *S, const tls_thread *t) {
  if (t->state != TLS_READY) return 0;
  switch (t->op) {
    case TL_SCHED_OP_LOCK:
    case TL_SCHED_OP_TIMEDLOCK:
    case TL_SCHED_OP_RELOCK:
      return tls_mutex_free_for(S, t->obj, t->tid);
    case TL_SCHED_OP_JOIN: {
      uint32_t target = (uint32_t)t->arg;
      if (target >= S->n_th || target == t->tid) return 1;
      const tls_thread *g = &S->th[target];
      return g->state == TLS_DONE || g->detached || g->joined;
    }
    default:
      return 1;
  }
}

static void tls_option(tls_run *S, uint32_t *n, const tls_thread *t, uint32_t kind) {
  tl_sched_option *o = &S->opts[(*n)++];
  o->tid = t->tid;
  o->kind = kind;
  o->op = t->op;
  o->obj = t->obj == TLS_NONE ? 0 : S->obj[t->obj].id;
  o->obj_kind = t->obj == TLS_NONE ? TL_SCHED_OBJ_NONE : S->obj[t->obj].kind;
  o->obj2 = t->obj2 == TLS_NONE ? 0 : S->obj[t->obj2].id;
  o->addr = t->obj == TLS_NONE ? NULL : (const void *)S->obj[t->obj].addr;
}

static uint32_t tls_options(tls_run *S) {
  uint32_t n = 0;
  int cur_can = S->cur != TLS_NONE && tls_can_run(S, &S->th[S->cur]);
  int cur_yields = cur_can && S->th[S->cur].op == TL_SCHED_OP_YIELD;
  if (cur_can && !cur_yields) tls_option(S, &n, &S->th[S->cur], TL_SCHED_OPTION_RUN);
  for (uint32_t i = 0; i < S->n_th; i++)
    if (i != S->cur && tls_can_run(S, &S->th[i])) tls_option(S, &n, &S->th[i], TL_SCHED_OPTION_RUN);
  if (cur_yields) tls_option(S, &n, &S->th[S->cur], TL_SCHED_OPTION_RUN);
  for (uint32_t i = 0; i < S->n_th; i++) {
    const tls_thread *t = &S->th[i];
    int timed_wait = t->state == TLS_BLOCKED && t->timed;
    int timed_lock = t->state == TLS_READY && t->op == TL_SCHED_OP_TIMEDLOCK && !tls_can_run(S, t);
    if (timed_wait || timed_lock) tls_option(S, &n, t, TL_SCHED_OPTION_TIMEOUT);
  }
  if (S->spurious_left > 0)
    for (uint32_t i = 0; i < S->n_th; i++)
      if (S->th[i].state == TLS_BLOCKED) tls_option(S, &n, &S->th[i], TL_SCHED_OPTION_SPURIOUS);
  return n;
}

/* asks the source to choose among S->opts[0..n) (n >= 2) and records the decision */
static uint32_t tls_decide(tls_run *S, uint32_t kind, uint32_t n) {
  tl_sched_decision d;
  memset(&d, 0, sizeof d);
  d.index = S->res->n_choices;
  d.step = S->steps;
  d.kind = kind;
  d.current = S->cur;
  d.n = n;
  d.options = S->opts;
  uint32_t c = 0;
  if (S->src != NULL && S->src->on_home) { /* home takes it, on the caller's stack */
    S->ask = &d;
    tls_thread *self = &S->th[S->running];
    self->saved_errno = errno;
    tls_fiber_switch(&self->fiber, &S->home, 0);
    errno = self->saved_errno;
    c = S->answer;
  } else if (S->src != NULL) {
    c = S->src->vt.choose(S->src->self, &d);
  }
  d.chosen = c % n;
  tls_record_decision(S, &d);
  return d.chosen;
}

static void tls_step(tls_run *S, uint32_t tid) {
  S->steps++;
  if (S->src && S->src->vt.on_step) S->src->vt.on_step(S->src->self, tid, S->steps);
}

/* a woken waiter leaves its condition variable and must take its mutex back */
static void tls_wake(tls_thread *w, int32_t rc) {
  w->state = TLS_READY;
  w->op = TL_SCHED_OP_RELOCK;
  uint32_t cond = w->obj;
  w->obj = w->obj2;
  w->obj2 = cond;
  w->wait_rc = rc;
  w->timed = 0;
}

/* applies the chosen option; afterwards t->op is NONE when t runs on from here */
static void tls_apply_option(tls_run *S, tls_thread *t, uint32_t kind) {
  t->rc = 0;
  if (kind == TL_SCHED_OPTION_RUN) {
    if (t->op == TL_SCHED_OP_CREATE || t->op == TL_SCHED_OP_JOIN || t->op == TL_SCHED_OP_START)
      tls_apply_thread(S, t);
    else
      tls_apply_sync(S, t);
    return;
  }
  uint32_t cond = t->obj;
  if (kind == TL_SCHED_OPTION_TIMEOUT && t->state == TLS_READY) { /* a timed lock */
    t->rc = ETIMEDOUT;
    t->op = TL_SCHED_OP_NONE;
  } else if (kind == TL_SCHED_OPTION_TIMEOUT) {
    tls_wake(t, ETIMEDOUT);
  } else {
    S->spurious_left--;
    S->res->spurious++;
    tls_wake(t, 0);
  }
  uint32_t op = kind == TL_SCHED_OPTION_TIMEOUT ? TL_SCHED_OP_TIMEOUT : TL_SCHED_OP_SPURIOUS;
  tls_event(S, t->tid, op, cond, 0);
}

static void tls_switch_to(tls_run *S, tls_thread *t, int dying) {
  tls_thread *self = &S->th[S->running];
  self->saved_errno = errno;
  S->running = t->tid;
  tls_fiber_switch(&self->fiber, &t->fiber, dying);
  errno = self->saved_errno;
}

/* the scheduling loop, run by the thread executing now (S->running), whose pending op is
 * set (dying: it has finished). Returns once that thread was chosen and its op applied */
static void tls_schedule(tls_run *S, int dying) {
  for (;;) {
    uint32_t n = tls_options(S);
    if (n == 0) {
      uint32_t alive = 0;
      for (uint32_t i = 0; i < S->n_th; i++) alive += S->th[i].state != TLS_DONE;
      if (alive) tls_report_deadlock(S);
      tls_end(S, alive ? TL_SCHED_DEADLOCK : TL_SCHED_COMPLETED);
    }
    if (S->steps >= S->lim.max_steps) {
      tls_report_livelock(S);
      tls_end(S, TL_SCHED_LIVELOCK);
    }
    uint32_t i = n > 1 ? tls_decide(S, TL_SCHED_DECIDE_THREAD, n) : 0;
    uint32_t kind = S->opts[i].kind;
    tls_thread *t = &S->th[S->opts[i].tid];
    tls_step(S, t->tid);
    tls_apply_option(S, t, kind);
    if (t->state != TLS_READY || t->op != TL_SCHED_OP_NONE) continue;
    S->cur = t->tid;
    if (t->tid != S->running) tls_switch_to(S, t, dying);
    return;
  }
}

/* a scheduling point of the running thread: returns its op's result */
static int tls_point(tls_run *S, uint32_t op, uint32_t obj, uint32_t obj2, int32_t arg,
                     uint32_t timed) {
  tls_thread *self = &S->th[S->running];
  self->op = op;
  self->obj = obj;
  self->obj2 = obj2;
  self->arg = arg;
  self->timed = timed;
  tls_schedule(S, 0);
  return self->rc;
}

/* the running thread's function returned (or it called pthread_exit) */
static void tls_thread_exit(tls_run *S, void *rv) __attribute__((noreturn));
static void tls_thread_exit(tls_run *S, void *rv) {
  tls_thread *self = &S->th[S->running];
  self->retval = rv;
  self->state = TLS_DONE;
  self->op = TL_SCHED_OP_EXIT;
  self->obj = self->obj2 = TLS_NONE;
  tls_step(S, self->tid);
  tls_event(S, self->tid, TL_SCHED_OP_EXIT, TLS_NONE, 0);
  tls_schedule(S, 1);
  abort(); /* a finished thread is never chosen */
}

static void tls_fiber_main(void) {
  tls_run *S = tls_cur;
  tls_fiber_arrived(&S->home);
  tls_thread *self = &S->th[S->running];
  errno = 0;
  void *rv = self->fn(self->fn_arg);
  tls_thread_exit(tls_cur, rv);
}
