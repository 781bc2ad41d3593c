/*
 * tl_sched implementation, part 4: choice sources (a vtable with optional slots).
 *
 *  - recorded: an array of small integers, read in order, 0 past its end; a value is
 *    taken modulo the options, so any array is a schedule (fast-check shrinks it like any
 *    array: shorter, smaller values, towards the run without preemption).
 *  - random: uniform over the options from a seed, with a chance of staying on option 0
 *    (the quiet one) so runs are not all noise.
 *  - PCT (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS 2010): per run, distinct
 *    random priorities for the threads (all >= depth) and depth-1 change points over
 *    steps 1..k; the highest-priority thread that can run moves; at change point i the
 *    thread taking that step drops to priority depth-1-i. Timeouts and spurious wakeups
 *    are not PCT's steps: they are taken only when no thread can run (then by priority),
 *    as the TypeScript model's PCT does. A signal wakes the highest-priority waiter. A
 *    thread about to yield (TL_SCHED_YIELD, sched_yield, a sleep) ranks below every
 *    other thread that can run: a yield says "let others go", and without this rule a
 *    high-priority spin loop would starve the thread it waits for until the step bound.
 *  - callback: a function decides (another language's search); it sees every option
 *    with what its thread would do next, and it runs on the stack of the thread that
 *    called tl_sched_run (two extra switches per decision), never on a managed one.
 *
 * Invariants: a source is deterministic from its seed and the decisions it is shown; the
 * recorded source starts again at its first value in every run, the random and PCT
 * sources continue their stream (a new source with the same seed repeats the runs).
 */
struct tl_sched_source {
  tl_sched_source_vt vt;
  void *self;
  /* choose on the caller's own stack, not a managed thread's: a callback into another
   * language's runtime (a JavaScript function through koffi) must not run on a stack its
   * runtime does not know (its stack-limit checks would fire) */
  int on_home;
};

static uint64_t tls_splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* uniform in [0, n) (n >= 1), without modulo bias worth the name for small n */
static uint32_t tls_below(uint64_t *s, uint32_t n) {
  return (uint32_t)(((tls_splitmix(s) >> 32) * (uint64_t)n) >> 32);
}

static tl_sched_source *tls_source_new(const tl_sched_source_vt *vt, void *self) {
  tl_sched_source *s = (tl_sched_source *)calloc(1, sizeof *s);
  if (s == NULL) return NULL;
  s->vt = *vt;
  s->self = self;
  return s;
}

/* ---- recorded ---- */
typedef struct tls_recorded {
  uint32_t *v;
  size_t n, next;
} tls_recorded;

static uint32_t tls_recorded_choose(void *self, const tl_sched_decision *d) {
  tls_recorded *r = (tls_recorded *)self;
  (void)d;
  uint32_t c = r->next < r->n ? r->v[r->next] : 0;
  r->next++;
  return c;
}
static void tls_recorded_begin(void *self, uint32_t max_threads) {
  (void)max_threads;
  ((tls_recorded *)self)->next = 0;
}
static void tls_recorded_destroy(void *self) {
  free(((tls_recorded *)self)->v);
  free(self);
}

TL_SCHED_API tl_sched_source *tl_sched_source_recorded(const uint32_t *choices, size_t n) {
  static const tl_sched_source_vt vt = {tls_recorded_choose, tls_recorded_begin, NULL,
                                        tls_recorded_destroy};
  tls_recorded *r = (tls_recorded *)calloc(1, sizeof *r);
  if (r == NULL) return NULL;
  r->v = (uint32_t *)malloc((n ? n : 1) * sizeof(uint32_t));
  if (r->v == NULL) {
    free(r);
    return NULL;
  }
  if (n) memcpy(r->v, choices, n * sizeof(uint32_t));
  r->n = n;
  return tls_source_new(&vt, r);
}

/* ---- random ---- */
typedef struct tls_random {
  uint64_t state;
  uint32_t stay_permille;
} tls_random;

static uint32_t tls_random_choose(void *self, const tl_sched_decision *d) {
  tls_random *r = (tls_random *)self;
  if (tls_below(&r->state, 1000) < r->stay_permille) return 0;
  return 1 + tls_below(&r->state, d->n - 1);
}

TL_SCHED_API tl_sched_source *tl_sched_source_random(uint64_t seed, uint32_t stay_permille) {
  static const tl_sched_source_vt vt = {tls_random_choose, NULL, NULL, free};
  tls_random *r = (tls_random *)calloc(1, sizeof *r);
  if (r == NULL) return NULL;
  r->state = seed;
  r->stay_permille = stay_permille > 1000 ? 1000 : stay_permille;
  return tls_source_new(&vt, r);
}

/* ---- PCT ---- */
typedef struct tls_pct {
  uint64_t state;
  uint32_t depth, k, n_prio, step;
  uint32_t *prio; /* per tid; higher moves first */
  uint32_t *change_at; /* depth-1 step numbers (1-based) */
} tls_pct;

static void tls_pct_begin(void *self, uint32_t max_threads) {
  tls_pct *p = (tls_pct *)self;
  if (p->n_prio < max_threads) {
    uint32_t *q = (uint32_t *)realloc(p->prio, max_threads * sizeof(uint32_t));
    if (q == NULL) abort();
    p->prio = q;
    p->n_prio = max_threads;
  }
  for (uint32_t i = 0; i < p->n_prio; i++) p->prio[i] = p->depth + i;
  for (uint32_t i = p->n_prio; i > 1; i--) { /* Fisher-Yates */
    uint32_t j = tls_below(&p->state, i);
    uint32_t t = p->prio[i - 1];
    p->prio[i - 1] = p->prio[j];
    p->prio[j] = t;
  }
  for (uint32_t i = 0; i + 1 < p->depth; i++) p->change_at[i] = 1 + tls_below(&p->state, p->k);
  p->step = 0;
}

static void tls_pct_step(void *self, uint32_t tid, uint32_t step) {
  tls_pct *p = (tls_pct *)self;
  (void)step;
  p->step++;
  for (uint32_t i = 0; i + 1 < p->depth; i++)
    if (p->change_at[i] == p->step && tid < p->n_prio) p->prio[tid] = p->depth - 1 - i;
}

static uint32_t tls_pct_choose(void *self, const tl_sched_decision *d) {
  tls_pct *p = (tls_pct *)self;
  uint32_t runnable = 0;
  for (uint32_t i = 0; i < d->n; i++)
    if (d->options[i].kind == TL_SCHED_OPTION_RUN) runnable++;
  uint32_t best = 0, best_prio = 0;
  int found = 0;
  for (uint32_t i = 0; i < d->n; i++) {
    const tl_sched_option *o = &d->options[i];
    if (runnable && d->kind == TL_SCHED_DECIDE_THREAD && o->kind != TL_SCHED_OPTION_RUN) continue;
    uint32_t pr = o->tid < p->n_prio ? p->prio[o->tid] + 1 : 0;
    if (o->op == TL_SCHED_OP_YIELD && o->kind == TL_SCHED_OPTION_RUN) pr = 0;
    if (!found || pr > best_prio) {
      best_prio = pr;
      best = i;
      found = 1;
    }
  }
  return best;
}

static void tls_pct_destroy(void *self) {
  tls_pct *p = (tls_pct *)self;
  free(p->prio);
  free(p->change_at);
  free(p);
}

TL_SCHED_API tl_sched_source *tl_sched_source_pct(uint64_t seed, uint32_t depth, uint32_t k) {
  static const tl_sched_source_vt vt = {tls_pct_choose, tls_pct_begin, tls_pct_step,
                                        tls_pct_destroy};
  if (depth < 1 || k < 1) return NULL;
  tls_pct *p = (tls_pct *)calloc(1, sizeof *p);
  if (p == NULL) return NULL;
  p->state = seed;
  p->depth = depth;
  p->k = k;
  p->change_at = (uint32_t *)calloc(depth, sizeof(uint32_t));
  if (p->change_at == NULL) {
    free(p);
    return NULL;
  }
  return tls_source_new(&vt, p);
}

/* ---- callback and custom ---- */
typedef struct tls_callback {
  tl_sched_choose_fn fn;
  void *ctx;
} tls_callback;

static uint32_t tls_callback_choose(void *self, const tl_sched_decision *d) {
  tls_callback *c = (tls_callback *)self;
  return c->fn(c->ctx, d);
}

TL_SCHED_API tl_sched_source *tl_sched_source_callback(tl_sched_choose_fn fn, void *ctx) {
  static const tl_sched_source_vt vt = {tls_callback_choose, NULL, NULL, free};
  if (fn == NULL) return NULL;
  tls_callback *c = (tls_callback *)calloc(1, sizeof *c);
  if (c == NULL) return NULL;
  c->fn = fn;
  c->ctx = ctx;
  tl_sched_source *s = tls_source_new(&vt, c);
  if (s == NULL)
    free(c);
  else
    s->on_home = 1;
  return s;
}

TL_SCHED_API tl_sched_source *tl_sched_source_custom(const tl_sched_source_vt *vt, void *self) {
  if (vt == NULL || vt->choose == NULL) return NULL;
  return tls_source_new(vt, self);
}

TL_SCHED_API void tl_sched_source_free(tl_sched_source *s) {
  if (s == NULL) return;
  if (s->vt.destroy) s->vt.destroy(s->self);
  free(s);
}
