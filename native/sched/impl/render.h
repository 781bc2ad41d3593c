/*
 * tl_sched implementation, part 16: names and text. The trace text is the determinism
 * contract's witness: one line per thread ("t1 = uploader"), then one line per event
 * ("12 t1 lock mutex#1(mx)"), objects by id and name, never by address, so that the same
 * schedule gives the same bytes in any process.
 *
 * Invariants: snprintf semantics (the length the whole text needs is returned; at most
 * cap bytes are written, NUL included; cap 0 writes nothing).
 */

TL_SCHED_API const char *tl_sched_op_name(uint32_t op) {
  static const char *const names[TL_SCHED_OP_COUNT] = {
      "none",   "start",   "exit",      "create", "join",   "lock",      "trylock", "timedlock",
      "unlock", "wait",    "timedwait", "relock", "signal", "broadcast", "timeout", "spurious",
      "yield",  "backend", "load",      "store",  "rmw",    "init",      "destroy"};
  return op < TL_SCHED_OP_COUNT ? names[op] : "?";
}

TL_SCHED_API const char *tl_sched_outcome_name(int32_t outcome) {
  static const char *const names[] = {"completed", "deadlock", "livelock",
                                      "violation", "crashed",  "error"};
  return outcome >= 0 && outcome <= TL_SCHED_ERROR ? names[outcome] : "?";
}

typedef struct tls_text {
  char *buf;
  size_t cap, len;
} tls_text;

static void tls_put(tls_text *t, const char *fmt, ...) TL_SCHED_PRINTF(2, 3);
static void tls_put(tls_text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t room = t->len < t->cap ? t->cap - t->len : 0;
  int n = vsnprintf(room ? t->buf + t->len : NULL, room, fmt, ap);
  va_end(ap);
  if (n > 0) t->len += (size_t)n;
}

static const char *tls_errno_name(int32_t rc) {
  switch (rc) {
    case EBUSY:
      return "EBUSY";
    case ETIMEDOUT:
      return "ETIMEDOUT";
    case EDEADLK:
      return "EDEADLK";
    default:
      return NULL;
  }
}

static void tls_put_object(tls_text *t, const tl_sched_result *r, const tl_sched_event *e) {
  if (e->obj == 0) return;
  const tl_sched_object_info *o = e->obj <= r->n_objects ? &r->objects[e->obj - 1] : NULL;
  char g[16] = "";
  if (e->gen > 1) snprintf(g, sizeof g, ".g%u", e->gen);
  if (o == NULL)
    tls_put(t, " obj#%u%s", e->obj, g);
  else if (o->name[0])
    tls_put(t, " %s#%u%s(%s)", tls_kind_name(o->kind), o->id, g, o->name);
  else
    tls_put(t, " %s#%u%s", tls_kind_name(o->kind), o->id, g);
}

static void tls_put_arg(tls_text *t, const tl_sched_event *e) {
  switch (e->op) {
    case TL_SCHED_OP_CREATE:
      tls_put(t, " -> t%d", e->arg);
      break;
    case TL_SCHED_OP_JOIN:
      tls_put(t, " t%d", e->arg);
      break;
    case TL_SCHED_OP_SIGNAL:
      if (e->arg >= 0)
        tls_put(t, " -> t%d", e->arg);
      else
        tls_put(t, " (no waiter)");
      break;
    case TL_SCHED_OP_BROADCAST:
      tls_put(t, " -> %d woken", e->arg);
      break;
    case TL_SCHED_OP_INIT:
      if (e->arg == 1) tls_put(t, " (memory rewritten: a new generation)");
      break;
    case TL_SCHED_OP_LOCK:
    case TL_SCHED_OP_TRYLOCK:
    case TL_SCHED_OP_TIMEDLOCK:
    case TL_SCHED_OP_RELOCK: {
      const char *n = tls_errno_name(e->arg);
      if (n != NULL)
        tls_put(t, " = %s", n);
      else if (e->arg != 0)
        tls_put(t, " = %d", e->arg);
      break;
    }
    default:
      break;
  }
}

TL_SCHED_API size_t tl_sched_trace_text(const tl_sched_result *r, char *buf, size_t cap) {
  tls_text t = {buf, cap, 0};
  if (cap) buf[0] = '\0';
  for (uint32_t i = 0; i < r->n_threads; i++)
    tls_put(&t, "t%u = %s\n", r->threads[i].tid, r->threads[i].name[0] ? r->threads[i].name : "-");
  for (uint32_t i = 0; i < r->n_events; i++) {
    const tl_sched_event *e = &r->events[i];
    tls_put(&t, "%u t%u %s", e->step, e->tid, tl_sched_op_name(e->op));
    tls_put_object(&t, r, e);
    tls_put_arg(&t, e);
    tls_put(&t, "\n");
  }
  tls_put(&t, "%s after %u steps, %u decisions\n", tl_sched_outcome_name(r->outcome), r->steps,
          r->decisions);
  return t.len;
}

TL_SCHED_API size_t tl_sched_choices_text(const tl_sched_result *r, char *buf, size_t cap) {
  tls_text t = {buf, cap, 0};
  if (cap) buf[0] = '\0';
  for (uint32_t i = 0; i < r->n_choices; i++) tls_put(&t, i ? " %u" : "%u", r->choices[i]);
  return t.len;
}
