/*
 * tl_sched implementation, part 6: readable descriptions of threads and of how a run
 * ended (deadlock, livelock), written into the result's description.
 *
 * Invariants: every thread of a report is named (t<id> and its name, when it has one)
 * with what it is doing or waiting on, objects with their label and address.
 */

static const char *tls_thread_label(const tls_thread *t, char *buf, size_t cap) {
  if (t->name[0])
    snprintf(buf, cap, "t%u \"%s\"", t->tid, t->name);
  else
    snprintf(buf, cap, "t%u", t->tid);
  return buf;
}

static const char *tls_op_verb(uint32_t op) {
  switch (op) {
    case TL_SCHED_OP_LOCK:
      return "locks";
    case TL_SCHED_OP_TIMEDLOCK:
      return "locks (timed)";
    case TL_SCHED_OP_RELOCK:
      return "takes back after its wait";
    case TL_SCHED_OP_TRYLOCK:
      return "tries to lock";
    case TL_SCHED_OP_UNLOCK:
      return "unlocks";
    case TL_SCHED_OP_WAIT:
      return "is about to wait on";
    case TL_SCHED_OP_TIMEDWAIT:
      return "is about to wait (timed) on";
    case TL_SCHED_OP_SIGNAL:
      return "signals";
    case TL_SCHED_OP_BROADCAST:
      return "broadcasts";
    case TL_SCHED_OP_BACKEND:
      return "enters backend call";
    case TL_SCHED_OP_LOAD:
      return "loads";
    case TL_SCHED_OP_STORE:
      return "stores";
    case TL_SCHED_OP_RMW:
      return "updates";
    default:
      return tl_sched_op_name(op);
  }
}

/* what thread t is doing or waiting for, appended to the description */
static void tls_report_thread(tls_run *S, const tls_thread *t) {
  char a[96], b[160], c[160];
  tl_sched_result *r = S->res;
  tls_describe_more(r, "\n  %s ", tls_thread_label(t, a, sizeof a));
  if (t->state == TLS_DONE) {
    tls_describe_more(r, "finished");
  } else if (t->state == TLS_BLOCKED) {
    tls_describe_more(r, "waits on %s with %s", tls_obj_describe(&S->obj[t->obj], b, sizeof b),
                      tls_obj_describe(&S->obj[t->obj2], c, sizeof c));
  } else if (t->op == TL_SCHED_OP_JOIN) {
    uint32_t target = (uint32_t)t->arg;
    if (target < S->n_th)
      tls_describe_more(r, "joins %s", tls_thread_label(&S->th[target], b, sizeof b));
    else
      tls_describe_more(r, "joins an unknown thread");
  } else if (t->obj != TLS_NONE) {
    const tls_obj *o = &S->obj[t->obj];
    tls_describe_more(r, "%s %s", tls_op_verb(t->op), tls_obj_describe(o, b, sizeof b));
    if (o->kind == TL_SCHED_OBJ_MUTEX && o->owner != TLS_NONE)
      tls_describe_more(r, ", held by %s%s", tls_thread_label(&S->th[o->owner], c, sizeof c),
                        o->owner == t->tid ? " (itself)" : "");
  } else {
    tls_describe_more(r, "next: %s", tl_sched_op_name(t->op));
  }
}

static void tls_report_threads(tls_run *S) {
  for (uint32_t i = 0; i < S->n_th; i++) tls_report_thread(S, &S->th[i]);
}

static void tls_report_deadlock(tls_run *S) {
  uint32_t blocked = 0, done = 0;
  for (uint32_t i = 0; i < S->n_th; i++) {
    if (S->th[i].state == TLS_DONE)
      done++;
    else
      blocked++;
  }
  tls_describe(S->res, "deadlock at step %u: no thread can move (%u blocked, %u finished)%s",
               S->steps, blocked, done,
               S->th[0].state == TLS_DONE ? "; thread 0 (the entry) has returned" : "");
  tls_report_threads(S);
}

static void tls_report_livelock(tls_run *S) {
  tls_describe(S->res,
               "livelock: the run reached its step bound (%u steps) without finishing; "
               "threads now:",
               S->lim.max_steps);
  tls_report_threads(S);
}
