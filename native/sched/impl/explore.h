/*
 * tl_sched implementation, part 15: exhaustive enumeration, stateless (VeriSoft style): a
 * run follows a prefix of choices and takes option 0 past it; the next prefix is the last
 * run's choices up to the deepest decision that has an untried option, with that option.
 * Every schedule of the decision tree is run once, depth first, in lexicographic order of
 * choices; no state is saved, so any program that is deterministic for a given schedule
 * can be searched (its reset hook, or the fresh-process mode, makes its state the same at
 * every run's start). The widths come from the result, so this works in both modes.
 *
 * No partial-order reduction here: the count is that of all interleavings at the
 * scheduling points (the tests check it against a hand count). A caller that wants DPOR
 * drives tl_sched_run with the callback source and the decision log instead.
 *
 * Invariants: the enumeration is complete exactly when every decision of the last run
 * took its last option; max_runs bounds the work.
 */

/* the next prefix after a run; 0 when the tree is exhausted */
static int tls_next_prefix(uint32_t **v, uint32_t *cap, uint32_t *len, const tl_sched_result *r) {
  uint32_t depth = r->n_choices;
  while (depth > 0 && r->choices[depth - 1] + 1 >= r->widths[depth - 1]) depth--;
  if (depth == 0) return 0;
  *v = (uint32_t *)tls_grow(*v, cap, depth, sizeof(uint32_t));
  memcpy(*v, r->choices, (depth - 1) * sizeof(uint32_t));
  (*v)[depth - 1] = r->choices[depth - 1] + 1;
  *len = depth;
  return 1;
}

static void tls_count_run(tl_sched_explore_stats *st, const tl_sched_result *r) {
  st->runs++;
  if (r->outcome == TL_SCHED_COMPLETED) return;
  st->failures++;
  if (st->first_failure == 0) st->first_failure = st->runs;
}

TL_SCHED_API int tl_sched_explore(const tl_sched_config *cfg, uint64_t max_runs,
                                  tl_sched_visit_fn visit, void *ctx,
                                  tl_sched_explore_stats *stats) {
  tl_sched_explore_stats st;
  memset(&st, 0, sizeof st);
  if (cfg == NULL) return -1;
  tl_sched_config c = *cfg;
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  uint32_t *prefix = NULL, cap = 0, len = 0;
  int rc = 0;
  while (st.runs < max_runs) {
    tls_recorded rec = {prefix, len, 0};
    tl_sched_source src = {{tls_recorded_choose, tls_recorded_begin, NULL, NULL}, &rec, 0};
    c.source = &src;
    if (tl_sched_run(&c, &r) != 0) {
      rc = -1;
      break;
    }
    tls_count_run(&st, &r);
    if (visit != NULL && visit(ctx, &r) != 0) {
      st.stopped = 1;
      break;
    }
    if (!tls_next_prefix(&prefix, &cap, &len, &r)) {
      st.complete = 1;
      break;
    }
  }
  if (stats != NULL) *stats = st;
  tl_sched_result_free(&r);
  free(prefix);
  return rc;
}
