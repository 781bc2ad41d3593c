/*
 * tl_sched implementation, part 8: mutexes and condition variables. The renamed pthread
 * functions state their operation at a scheduling point (lock, trylock, timed lock,
 * unlock, wait, timed wait, signal, broadcast); tls_apply_sync performs it when the
 * scheduler picks the thread. Init and destroy are not scheduling points: they check and
 * update the side table at once (and call the real init and destroy, so that the memory
 * is a valid, unlocked pthread object for code that runs after the run, outside it).
 *
 * Mesa semantics: a signal wakes one waiter, chosen (a decision; option 0 the oldest);
 * a broadcast wakes all; a woken waiter must take its mutex back (a step of its own),
 * and may have been overtaken by then. Timed waits time out only as a chosen option.
 *
 * Violations reported here: a use after destroy (or of an object whose memory was
 * overwritten while in use), destroy of a locked mutex or of a condition variable with
 * waiters, init over a busy object, unlock by a thread that does not hold the mutex, a
 * wait without holding its mutex, two mutexes used with one condition variable at once,
 * a mutex used as a condition variable or the other way round.
 */

/* a busy object: a held mutex, or one a condition waiter will take back; a condition
 * variable with waiters. Returns the thread that makes it busy, or TLS_NONE */
static uint32_t tls_obj_user(const tls_run *S, uint32_t idx) {
  const tls_obj *o = &S->obj[idx];
  if (o->kind == TL_SCHED_OBJ_MUTEX && o->owner != TLS_NONE) return o->owner;
  for (uint32_t i = 0; i < S->n_th; i++) {
    const tls_thread *t = &S->th[i];
    if (t->state == TLS_BLOCKED && (t->obj == idx || t->obj2 == idx)) return i;
    if (t->state == TLS_READY && t->op == TL_SCHED_OP_RELOCK && t->obj == idx) return i;
  }
  return TLS_NONE;
}

static const char *tls_busy_how(const tls_run *S, uint32_t idx, uint32_t user) {
  const tls_obj *o = &S->obj[idx];
  if (o->kind == TL_SCHED_OBJ_MUTEX && o->owner == user) return "holds it";
  if (S->th[user].state == TLS_BLOCKED) return "waits on it";
  return "is about to take it back after a wait";
}

/* the object's memory changed since the last use: a new generation if idle */
static void tls_obj_rewritten(tls_run *S, tls_thread *t, uint32_t idx) {
  char a[160], b[96], c[96];
  uint32_t user = tls_obj_user(S, idx);
  tls_obj *o = &S->obj[idx];
  if (o->live && user != TLS_NONE)
    tls_violation(S, "%s uses %s, whose memory was overwritten (memset?) while %s %s",
                  tls_thread_label(t, b, sizeof b), tls_obj_describe(o, a, sizeof a),
                  tls_thread_label(&S->th[user], c, sizeof c), tls_busy_how(S, idx, user));
  tls_obj_snapshot(o);
  if (!o->live) return; /* stays destroyed: the use below is reported */
  o->gen++;
  o->owner = TLS_NONE;
  o->count = 0;
  o->type = TLS_MX_NORMAL;
  tls_event(S, t->tid, TL_SCHED_OP_INIT, idx, 1);
}

/* checks a use of object idx as `kind` by t; reports misuse (never returns then) */
static tls_obj *tls_use(tls_run *S, tls_thread *t, uint32_t idx, uint32_t kind, uint32_t op) {
  char a[160], b[96];
  tls_obj *o = &S->obj[idx];
  if (o->kind != kind)
    tls_violation(S, "%s uses %s as a %s", tls_thread_label(t, b, sizeof b),
                  tls_obj_describe(o, a, sizeof a), tls_kind_name(kind));
  if (tls_obj_changed(o)) tls_obj_rewritten(S, t, idx);
  if (!o->live)
    tls_violation(S, "%s uses %s after its destroy at step %u (%s)",
                  tls_thread_label(t, b, sizeof b), tls_obj_describe(o, a, sizeof a),
                  o->destroyed_at, tl_sched_op_name(op));
  return o;
}

static void tls_apply_lock(tls_run *S, tls_thread *t) {
  tls_obj *o = tls_use(S, t, t->obj, TL_SCHED_OBJ_MUTEX, t->op);
  if (t->op == TL_SCHED_OP_RELOCK) {
    o->owner = t->tid;
    o->count = t->relock_count ? t->relock_count : 1;
    t->rc = t->wait_rc;
  } else if (o->owner == TLS_NONE) {
    o->owner = t->tid;
    o->count = 1;
  } else if (o->owner == t->tid && o->type == TLS_MX_RECURSIVE) {
    o->count++;
  } else {
    t->rc = t->op == TL_SCHED_OP_TRYLOCK ? EBUSY : EDEADLK; /* errorcheck: relock by owner */
  }
  tls_event(S, t->tid, t->op, t->obj, t->rc);
}

static void tls_apply_unlock(tls_run *S, tls_thread *t) {
  char a[160], b[96], c[96];
  tls_obj *o = tls_use(S, t, t->obj, TL_SCHED_OBJ_MUTEX, t->op);
  if (o->owner == TLS_NONE)
    tls_violation(S, "%s unlocks %s, which is not locked", tls_thread_label(t, b, sizeof b),
                  tls_obj_describe(o, a, sizeof a));
  if (o->owner != t->tid)
    tls_violation(S, "%s unlocks %s, which %s holds", tls_thread_label(t, b, sizeof b),
                  tls_obj_describe(o, a, sizeof a),
                  tls_thread_label(&S->th[o->owner], c, sizeof c));
  if (--o->count == 0) o->owner = TLS_NONE;
  tls_event(S, t->tid, TL_SCHED_OP_UNLOCK, t->obj, 0);
}

static void tls_apply_wait(tls_run *S, tls_thread *t) {
  char a[160], b[96], c[160], d[96];
  tls_use(S, t, t->obj, TL_SCHED_OBJ_COND, t->op);
  tls_obj *m = tls_use(S, t, t->obj2, TL_SCHED_OBJ_MUTEX, t->op);
  if (m->owner != t->tid)
    tls_violation(S, "%s waits on %s with %s, which it does not hold",
                  tls_thread_label(t, b, sizeof b), tls_obj_describe(&S->obj[t->obj], c, sizeof c),
                  tls_obj_describe(m, a, sizeof a));
  for (uint32_t i = 0; i < S->n_th; i++) {
    const tls_thread *w = &S->th[i];
    if (w->state == TLS_BLOCKED && w->obj == t->obj && w->obj2 != t->obj2)
      tls_violation(S, "%s waits on %s with %s while %s waits on it with another mutex",
                    tls_thread_label(t, b, sizeof b),
                    tls_obj_describe(&S->obj[t->obj], c, sizeof c),
                    tls_obj_describe(m, a, sizeof a), tls_thread_label(w, d, sizeof d));
  }
  t->relock_count = m->count;
  m->owner = TLS_NONE;
  m->count = 0;
  t->state = TLS_BLOCKED;
  t->wait_seq = ++S->wait_seq;
  tls_event(S, t->tid, t->op, t->obj, 0);
}

/* the waiters of cond idx into S->opts, oldest first; returns their number */
static uint32_t tls_waiters(tls_run *S, uint32_t idx) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < S->n_th; i++) {
    tls_thread *w = &S->th[i];
    if (w->state != TLS_BLOCKED || w->obj != idx) continue;
    uint32_t j = n;
    tls_option(S, &n, w, TL_SCHED_OPTION_WAKE);
    for (; j > 0 && S->th[S->opts[j - 1].tid].wait_seq > w->wait_seq; j--) {
      tl_sched_option x = S->opts[j];
      S->opts[j] = S->opts[j - 1];
      S->opts[j - 1] = x;
    }
  }
  return n;
}

static void tls_apply_signal(tls_run *S, tls_thread *t) {
  tls_use(S, t, t->obj, TL_SCHED_OBJ_COND, t->op);
  uint32_t n = tls_waiters(S, t->obj);
  int32_t arg = -1;
  if (t->op == TL_SCHED_OP_BROADCAST) {
    for (uint32_t i = 0; i < n; i++) tls_wake(&S->th[S->opts[i].tid], 0);
    arg = (int32_t)n;
  } else if (n > 0) {
    uint32_t i = n > 1 ? tls_decide(S, TL_SCHED_DECIDE_WAKE, n) : 0;
    arg = (int32_t)S->opts[i].tid;
    tls_wake(&S->th[arg], 0);
  }
  tls_event(S, t->tid, t->op, t->obj, arg);
}

static void tls_apply_sync(tls_run *S, tls_thread *t) {
  switch (t->op) {
    case TL_SCHED_OP_LOCK:
    case TL_SCHED_OP_TIMEDLOCK:
    case TL_SCHED_OP_TRYLOCK:
    case TL_SCHED_OP_RELOCK:
      tls_apply_lock(S, t);
      break;
    case TL_SCHED_OP_UNLOCK:
      tls_apply_unlock(S, t);
      break;
    case TL_SCHED_OP_WAIT:
    case TL_SCHED_OP_TIMEDWAIT:
      tls_apply_wait(S, t);
      return; /* blocked: op stays */
    case TL_SCHED_OP_SIGNAL:
    case TL_SCHED_OP_BROADCAST:
      tls_apply_signal(S, t);
      break;
    default:
      tls_event(S, t->tid, t->op, t->obj, t->arg);
      break; /* yield, backend, atomic */
  }
  t->op = TL_SCHED_OP_NONE;
}
