/*
 * tl_sched implementation, part 5: what a run records into its result: the choices
 * (always: they replay the run), the trace events and the decision log (when asked),
 * the description, and at the end the objects and threads the trace refers to.
 *
 * Invariants: a result's arrays grow and are reused by the next run given the same
 * result; counts are updated after the element is written (a crash handler in a forked
 * child may serialise a result at any moment and must see only whole elements).
 */

static void tls_res_reset(tl_sched_result *r) {
  r->outcome = TL_SCHED_COMPLETED;
  r->steps = r->decisions = r->spurious = 0;
  r->n_choices = r->n_events = r->n_log = r->n_options = 0;
  r->n_objects = r->n_threads = 0;
  r->description = (char *)tls_grow(r->description, &r->cap_description, 256, 1);
  r->description[0] = '\0';
}

static void tls_event(tls_run *S, uint32_t tid, uint32_t op, uint32_t obj, int32_t arg) {
  tl_sched_result *r = S->res;
  if (!S->cfg->record_trace) return;
  r->events = (tl_sched_event *)tls_grow(r->events, &r->cap_events, r->n_events + 1,
                                         sizeof(tl_sched_event));
  tl_sched_event *e = &r->events[r->n_events];
  e->step = S->steps;
  e->tid = tid;
  e->op = op;
  e->obj = obj == TLS_NONE ? 0 : S->obj[obj].id;
  e->gen = obj == TLS_NONE ? 0 : S->obj[obj].gen;
  e->arg = arg;
  r->n_events++;
}

/* a decision was taken: its choice, and (when asked) the decision with its options */
static void tls_record_decision(tls_run *S, const tl_sched_decision *d) {
  tl_sched_result *r = S->res;
  r->choices =
      (uint32_t *)tls_grow(r->choices, &r->cap_choices, r->n_choices + 1, sizeof(uint32_t));
  r->widths = (uint32_t *)tls_grow(r->widths, &r->cap_widths, r->n_choices + 1, sizeof(uint32_t));
  r->choices[r->n_choices] = d->chosen;
  r->widths[r->n_choices] = d->n;
  r->n_choices++;
  r->decisions = r->n_choices;
  if (!S->cfg->record_decisions) return;
  r->options = (tl_sched_option *)tls_grow(r->options, &r->cap_options, r->n_options + d->n,
                                           sizeof(tl_sched_option));
  memcpy(r->options + r->n_options, d->options, d->n * sizeof(tl_sched_option));
  r->log =
      (tl_sched_decision *)tls_grow(r->log, &r->cap_log, r->n_log + 1, sizeof(tl_sched_decision));
  tl_sched_decision *e = &r->log[r->n_log];
  *e = *d;
  e->first = r->n_options;
  e->options = NULL;
  r->n_options += d->n;
  r->n_log++;
}

static void tls_vdescribe(tl_sched_result *r, int append, const char *fmt, va_list ap) {
  size_t used = append ? strlen(r->description) : 0;
  va_list aq;
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, fmt, aq);
  va_end(aq);
  if (n < 0) return;
  r->description =
      (char *)tls_grow(r->description, &r->cap_description, (uint32_t)(used + (size_t)n + 1), 1);
  vsnprintf(r->description + used, (size_t)n + 1, fmt, ap);
}

static void tls_describe(tl_sched_result *r, const char *fmt, ...) TL_SCHED_PRINTF(2, 3);
static void tls_describe(tl_sched_result *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tls_vdescribe(r, 0, fmt, ap);
  va_end(ap);
}

static void tls_describe_more(tl_sched_result *r, const char *fmt, ...) TL_SCHED_PRINTF(2, 3);
static void tls_describe_more(tl_sched_result *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tls_vdescribe(r, 1, fmt, ap);
  va_end(ap);
}

/* the objects and threads that the trace and the description refer to */
static void tls_record_tables(tls_run *S) {
  tl_sched_result *r = S->res;
  r->objects = (tl_sched_object_info *)tls_grow(r->objects, &r->cap_objects, S->n_obj + 1,
                                                sizeof(tl_sched_object_info));
  for (uint32_t i = 0; i < S->n_obj; i++) {
    tl_sched_object_info *o = &r->objects[i];
    memset(o, 0, sizeof *o);
    o->id = S->obj[i].id;
    o->kind = S->obj[i].kind;
    o->gen = S->obj[i].gen;
    o->addr = (const void *)S->obj[i].addr;
    memcpy(o->name, S->obj[i].name, TL_SCHED_NAME_MAX);
  }
  r->n_objects = S->n_obj;
  r->threads = (tl_sched_thread_info *)tls_grow(r->threads, &r->cap_threads, S->n_th + 1,
                                                sizeof(tl_sched_thread_info));
  for (uint32_t i = 0; i < S->n_th; i++) {
    tl_sched_thread_info *t = &r->threads[i];
    memset(t, 0, sizeof *t);
    t->tid = i;
    t->parent = S->th[i].parent;
    memcpy(t->name, S->th[i].name, TL_SCHED_NAME_MAX);
  }
  r->n_threads = S->n_th;
}
