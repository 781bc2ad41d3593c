/*
 * tl_sched implementation, part 9: the renamed mutex and condition-variable functions.
 * Outside a run (or on a thread the scheduler does not manage) each calls the real one;
 * inside, the object is looked up (registered on first use: a static initializer) and
 * the operation is stated at a scheduling point, or for init and destroy done at once.
 *
 * Invariants: a run never changes a pthread object's bytes except through the real init
 * and destroy (so the memory is valid outside the run), and re-reads them after.
 */

static uint32_t tls_mutex_type(const pthread_mutexattr_t *attr) {
  int ty = PTHREAD_MUTEX_DEFAULT;
  if (attr != NULL && pthread_mutexattr_gettype(attr, &ty) != 0) ty = PTHREAD_MUTEX_DEFAULT;
  if (ty == PTHREAD_MUTEX_RECURSIVE) return TLS_MX_RECURSIVE;
  if (ty == PTHREAD_MUTEX_ERRORCHECK) return TLS_MX_ERRORCHECK;
  return TLS_MX_NORMAL;
}

/* an init: a new record, or a new generation of the address's record */
static uint32_t tls_init_obj(tls_run *S, const volatile void *addr, uint32_t kind) {
  char a[160], b[96], c[96];
  tls_thread *t = &S->th[S->running];
  uint32_t idx = tls_obj_find(S, addr, TLS_SPACE_SYNC);
  if (idx == TLS_NONE) return tls_obj_add(S, addr, TLS_SPACE_SYNC, kind);
  uint32_t user = S->obj[idx].live ? tls_obj_user(S, idx) : TLS_NONE;
  if (user != TLS_NONE)
    tls_violation(S, "%s initialises %s while %s %s", tls_thread_label(t, b, sizeof b),
                  tls_obj_describe(&S->obj[idx], a, sizeof a),
                  tls_thread_label(&S->th[user], c, sizeof c), tls_busy_how(S, idx, user));
  tls_obj *o = &S->obj[idx];
  o->kind = kind;
  o->live = 1;
  o->gen++;
  o->owner = TLS_NONE;
  o->count = 0;
  return idx;
}

static void tls_destroy_obj(tls_run *S, uint32_t idx, uint32_t kind) {
  char a[160], b[96], c[96];
  tls_thread *t = &S->th[S->running];
  tls_obj *o = &S->obj[idx];
  if (o->kind == kind && !o->live && !tls_obj_changed(o))
    tls_violation(S, "%s destroys %s again (destroyed at step %u)",
                  tls_thread_label(t, b, sizeof b), tls_obj_describe(o, a, sizeof a),
                  o->destroyed_at);
  o = tls_use(S, t, idx, kind, TL_SCHED_OP_DESTROY);
  uint32_t user = tls_obj_user(S, idx);
  if (user != TLS_NONE)
    tls_violation(S, "%s destroys %s while %s %s", tls_thread_label(t, b, sizeof b),
                  tls_obj_describe(o, a, sizeof a), tls_thread_label(&S->th[user], c, sizeof c),
                  tls_busy_how(S, idx, user));
  o->live = 0;
  o->destroyed_at = S->steps;
  tls_event(S, t->tid, TL_SCHED_OP_DESTROY, idx, 0);
}

TL_SCHED_API int tl_sched_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr) {
  tls_run *S = tls_active_run();
  if (S == NULL) return tls_real_mutex_init(m, attr);
  uint32_t idx = tls_init_obj(S, m, TL_SCHED_OBJ_MUTEX);
  int rc = tls_real_mutex_init(m, attr);
  S->obj[idx].type = tls_mutex_type(attr);
  tls_obj_snapshot(&S->obj[idx]);
  tls_event(S, S->running, TL_SCHED_OP_INIT, idx, 0);
  return rc;
}

TL_SCHED_API int tl_sched_mutex_destroy(pthread_mutex_t *m) {
  tls_run *S = tls_active_run();
  if (S == NULL) return tls_real_mutex_destroy(m);
  uint32_t idx = tls_obj_lookup(S, m, TLS_SPACE_SYNC, TL_SCHED_OBJ_MUTEX);
  tls_destroy_obj(S, idx, TL_SCHED_OBJ_MUTEX);
  int rc = tls_real_mutex_destroy(m);
  tls_obj_snapshot(&S->obj[idx]);
  return rc;
}

static int tls_mutex_point(pthread_mutex_t *m, uint32_t op, uint32_t timed) {
  tls_run *S = tls_active_run();
  uint32_t idx = tls_obj_lookup(S, m, TLS_SPACE_SYNC, TL_SCHED_OBJ_MUTEX);
  return tls_point(S, op, idx, TLS_NONE, 0, timed);
}

TL_SCHED_API int tl_sched_mutex_lock(pthread_mutex_t *m) {
  if (tls_active_run() == NULL) return tls_real_mutex_lock(m);
  return tls_mutex_point(m, TL_SCHED_OP_LOCK, 0);
}

TL_SCHED_API int tl_sched_mutex_trylock(pthread_mutex_t *m) {
  if (tls_active_run() == NULL) return tls_real_mutex_trylock(m);
  return tls_mutex_point(m, TL_SCHED_OP_TRYLOCK, 0);
}

TL_SCHED_API int tl_sched_mutex_timedlock(pthread_mutex_t *m, const struct timespec *t) {
  if (tls_active_run() == NULL) return tls_real_mutex_timedlock(m, t);
  return tls_mutex_point(m, TL_SCHED_OP_TIMEDLOCK, 1);
}

TL_SCHED_API int tl_sched_mutex_unlock(pthread_mutex_t *m) {
  if (tls_active_run() == NULL) return tls_real_mutex_unlock(m);
  return tls_mutex_point(m, TL_SCHED_OP_UNLOCK, 0);
}

TL_SCHED_API int tl_sched_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr) {
  tls_run *S = tls_active_run();
  if (S == NULL) return tls_real_cond_init(c, attr);
  uint32_t idx = tls_init_obj(S, c, TL_SCHED_OBJ_COND);
  int rc = tls_real_cond_init(c, attr);
  tls_obj_snapshot(&S->obj[idx]);
  tls_event(S, S->running, TL_SCHED_OP_INIT, idx, 0);
  return rc;
}

TL_SCHED_API int tl_sched_cond_destroy(pthread_cond_t *c) {
  tls_run *S = tls_active_run();
  if (S == NULL) return tls_real_cond_destroy(c);
  uint32_t idx = tls_obj_lookup(S, c, TLS_SPACE_SYNC, TL_SCHED_OBJ_COND);
  tls_destroy_obj(S, idx, TL_SCHED_OBJ_COND);
  int rc = tls_real_cond_destroy(c);
  tls_obj_snapshot(&S->obj[idx]);
  return rc;
}

static int tls_cond_point(pthread_cond_t *c, pthread_mutex_t *m, uint32_t op, uint32_t timed) {
  tls_run *S = tls_active_run();
  uint32_t ci = tls_obj_lookup(S, c, TLS_SPACE_SYNC, TL_SCHED_OBJ_COND);
  uint32_t mi = m ? tls_obj_lookup(S, m, TLS_SPACE_SYNC, TL_SCHED_OBJ_MUTEX) : TLS_NONE;
  return tls_point(S, op, ci, mi, 0, timed);
}

TL_SCHED_API int tl_sched_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) {
  if (tls_active_run() == NULL) return tls_real_cond_wait(c, m);
  return tls_cond_point(c, m, TL_SCHED_OP_WAIT, 0);
}

TL_SCHED_API int tl_sched_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                         const struct timespec *t) {
  if (tls_active_run() == NULL) return tls_real_cond_timedwait(c, m, t);
  return tls_cond_point(c, m, TL_SCHED_OP_TIMEDWAIT, 1);
}

TL_SCHED_API int tl_sched_cond_signal(pthread_cond_t *c) {
  if (tls_active_run() == NULL) return tls_real_cond_signal(c);
  return tls_cond_point(c, NULL, TL_SCHED_OP_SIGNAL, 0);
}

TL_SCHED_API int tl_sched_cond_broadcast(pthread_cond_t *c) {
  if (tls_active_run() == NULL) return tls_real_cond_broadcast(c);
  return tls_cond_point(c, NULL, TL_SCHED_OP_BROADCAST, 0);
}
