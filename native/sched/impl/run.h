/*
 * tl_sched implementation, part 12: one run in this process. Checks the configuration,
 * calls the program's reset hook (state that outlives a run: its globals, its files),
 * starts thread 0 on the entry function and switches to it; the home context resumes
 * when the run ends (tls_end), collects the tables and releases the run's stacks; or,
 * before that, when a decision is to be taken on its stack (the callback source).
 *
 * Invariants: runs do not nest (a run inside a managed thread is refused with an error
 * result); the caller's errno is what it was before the run; a result's arrays are reused.
 */

static int tls_run_forked(const tl_sched_config *cfg, const tl_sched_limits *lim,
                          tl_sched_result *out);

TL_SCHED_API int tl_sched_abi_version(void) { return TL_SCHED_ABI_VERSION; }

static int tls_bad_config(tl_sched_result *out, const char *fmt, ...) TL_SCHED_PRINTF(2, 3);
static int tls_bad_config(tl_sched_result *out, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tls_vdescribe(out, 0, fmt, ap);
  va_end(ap);
  out->outcome = TL_SCHED_ERROR;
  return -1;
}

/* the limits with their defaults; -1 (and the reason in out) when they are unusable */
static int tls_check_config(const tl_sched_config *cfg, tl_sched_limits *lim,
                            tl_sched_result *out) {
  if (cfg == NULL) return tls_bad_config(out, "tl_sched_run: the configuration is null");
  if (cfg->entry == NULL) return tls_bad_config(out, "tl_sched_run: config.entry is null");
  *lim = cfg->limits;
  if (lim->max_steps == 0) lim->max_steps = 100000;
  if (lim->max_threads == 0) lim->max_threads = 16;
  if (lim->stack_bytes == 0) lim->stack_bytes = 256u * 1024u;
  if (lim->max_threads > TLS_MAX_THREADS)
    return tls_bad_config(out, "tl_sched_run: limits.max_threads is %u, over the maximum %u",
                          lim->max_threads, TLS_MAX_THREADS);
  if (lim->stack_bytes < 16384u)
    return tls_bad_config(out, "tl_sched_run: limits.stack_bytes is %u, under 16384",
                          lim->stack_bytes);
  size_t page = tls_page();
  lim->stack_bytes = (uint32_t)((lim->stack_bytes + page - 1) / page * page);
  if (tls_cur != NULL)
    return tls_bad_config(out, "tl_sched_run: called inside a run (runs do not nest)");
  return 0;
}

static void tls_run_free(tls_run *S) {
  for (uint32_t i = 0; i < S->n_th; i++) tls_fiber_free(&S->th[i].fiber);
  free(S->th);
  free(S->opts);
  free(S->obj);
  free(S->slots);
}

/* thread 0: the entry function; 0, or -1 without memory for it */
static int tls_start_thread0(tls_run *S) {
  tls_thread *t0 = &S->th[0];
  t0->state = TLS_READY;
  t0->op = TL_SCHED_OP_START;
  t0->obj = t0->obj2 = TLS_NONE;
  t0->fn = S->cfg->entry;
  t0->fn_arg = S->cfg->arg;
  tls_copy_name(t0->name, "main");
  if (tls_fiber_init(&t0->fiber, S->lim.stack_bytes) != 0) return -1;
  S->n_th = 1;
  return 0;
}

static int tls_run_here(const tl_sched_config *cfg, const tl_sched_limits *lim,
                        tl_sched_result *out) {
  tls_run S;
  memset(&S, 0, sizeof S);
  S.cfg = cfg;
  S.res = out;
  S.lim = *lim;
  S.src = cfg->source;
  S.cur = S.running = TLS_NONE;
  S.spurious_left = lim->max_spurious;
  S.th = (tls_thread *)calloc(lim->max_threads, sizeof(tls_thread));
  S.opts = (tl_sched_option *)calloc(3u * lim->max_threads + 1u, sizeof(tl_sched_option));
  if (cfg->reset != NULL) cfg->reset(cfg->reset_arg);
  if (S.src != NULL && S.src->vt.begin_run != NULL)
    S.src->vt.begin_run(S.src->self, lim->max_threads);
  if (S.th == NULL || S.opts == NULL || tls_start_thread0(&S) != 0) {
    tls_run_free(&S);
    return tls_bad_config(out, "tl_sched_run: out of memory for the run's threads");
  }
  int saved_errno = errno;
  tls_fiber_home(&S.home);
  tls_cur = &S;
  tls_step(&S, 0);
  tls_apply_option(&S, &S.th[0], TL_SCHED_OPTION_RUN);
  S.cur = S.running = 0;
  tls_fiber_switch(&S.home, &S.th[0].fiber, 0);
  while (S.ask != NULL) { /* a decision for the source that chooses here */
    S.answer = S.src->vt.choose(S.src->self, S.ask);
    S.ask = NULL;
    tls_fiber_switch(&S.home, &S.th[S.running].fiber, 0);
  }
  /* here again for good: the run has ended (tls_end) */
  tls_cur = NULL;
  tls_record_tables(&S);
  tls_run_free(&S);
  errno = saved_errno;
  return 0;
}

TL_SCHED_API int tl_sched_run(const tl_sched_config *cfg, tl_sched_result *out) {
  if (out == NULL) return -1;
  tls_res_reset(out);
  tl_sched_limits lim;
  if (tls_check_config(cfg, &lim, out) != 0) return -1;
  return cfg->fresh_process ? tls_run_forked(cfg, &lim, out) : tls_run_here(cfg, &lim, out);
}

TL_SCHED_API void tl_sched_result_free(tl_sched_result *r) {
  if (r == NULL) return;
  free(r->description);
  free(r->choices);
  free(r->widths);
  free(r->events);
  free(r->log);
  free(r->options);
  free(r->objects);
  free(r->threads);
  memset(r, 0, sizeof *r);
}
