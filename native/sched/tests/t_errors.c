/*
 * Bad input is a clear error, never a crash: a configuration without an entry, limits
 * out of range, a run started inside a run, a null result; a program past its thread
 * limit is told which limit to raise; a PCT source with depth 0 is refused.
 */
#include <pthread.h>
#include <string.h>

#include "sched_check.h"

static int nested_rc;
static int32_t nested_outcome;

static void *nothing_at_all(void *arg) { return arg; }

static void *nests(void *arg) {
  (void)arg;
  tl_sched_config c = sc_config(nothing_at_all, NULL);
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  nested_rc = tl_sched_run(&c, &r);
  nested_outcome = r.outcome;
  TL_SCHED_ASSERT(strstr(r.description, "runs do not nest") != NULL);
  tl_sched_result_free(&r);
  return NULL;
}

static void *spawns_three(void *arg) {
  (void)arg;
  pthread_t t[3];
  for (int i = 0; i < 3; i++) pthread_create(&t[i], NULL, nothing_at_all, NULL);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  return NULL;
}

static void test_bad_config(void) {
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  tl_sched_config c = sc_config(NULL, NULL);
  CHECK(tl_sched_run(&c, &r) == -1 && r.outcome == TL_SCHED_ERROR);
  CHECK(sc_says(&r, "config.entry is null"));
  c.entry = nothing_at_all;
  c.limits.max_threads = 5000;
  CHECK(tl_sched_run(&c, &r) == -1 && sc_says(&r, "limits.max_threads is 5000"));
  c.limits.max_threads = 0;
  c.limits.stack_bytes = 100;
  CHECK(tl_sched_run(&c, &r) == -1 && sc_says(&r, "limits.stack_bytes is 100"));
  CHECK(tl_sched_run(NULL, &r) == -1 && sc_says(&r, "configuration is null"));
  CHECK(tl_sched_run(&c, NULL) == -1);
  CHECK(tl_sched_source_pct(1, 0, 10) == NULL);
  tl_sched_result_free(&r);
}

static void test_nested_run(void) {
  tl_sched_config c = sc_config(nests, NULL);
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  CHECK(tl_sched_run(&c, &r) == 0 && r.outcome == TL_SCHED_COMPLETED);
  CHECK(nested_rc == -1 && nested_outcome == TL_SCHED_ERROR);
  tl_sched_result_free(&r);
}

static void test_thread_limit(void) {
  tl_sched_config c = sc_config(spawns_three, NULL);
  c.limits.max_threads = 3;
  tl_sched_result r;
  memset(&r, 0, sizeof r);
  CHECK(tl_sched_run(&c, &r) == 0 && r.outcome == TL_SCHED_VIOLATION);
  CHECK(sc_says(&r, "creates a thread past the limit of 3 (raise limits.max_threads)"));
  c.limits.max_threads = 4;
  CHECK(tl_sched_run(&c, &r) == 0 && r.outcome == TL_SCHED_COMPLETED);
  tl_sched_result_free(&r);
}

void suite_errors(void) {
  sc_run("errors: bad configurations are refused with the reason", test_bad_config);
  sc_run("errors: a run inside a run is refused, the outer run goes on", test_nested_run);
  sc_run("errors: past limits.max_threads, a violation that names the limit", test_thread_limit);
}
