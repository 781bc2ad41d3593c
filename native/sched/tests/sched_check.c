/*
 * The scheduler tests' harness (see sched_check.h).
 */
#include "sched_check.h"

#include <stdio.h>
#include <string.h>

static int case_failures, passed, failed;

void sc_check(int ok, const char *what, const char *file, int line) {
  if (ok) return;
  case_failures++;
  printf("    check failed at %s:%d: %s\n", file, line, what);
}

void sc_run(const char *name, void (*fn)(void)) {
  case_failures = 0;
  fn();
  if (case_failures == 0) {
    passed++;
    printf("ok - %s\n", name);
  } else {
    failed++;
    printf("FAIL - %s (%d checks)\n", name, case_failures);
  }
  fflush(stdout);
}

int sc_summary(void) {
  printf("%d passed, %d failed\n", passed, failed);
  return failed;
}

void sc_show(const tl_sched_result *r) {
  static char text[1 << 16];
  tl_sched_trace_text(r, text, sizeof text);
  printf("    %s: %s\n%s", tl_sched_outcome_name(r->outcome), r->description, text);
}

tl_sched_config sc_config(void *(*entry)(void *), tl_sched_source *src) {
  tl_sched_config c;
  memset(&c, 0, sizeof c);
  c.entry = entry;
  c.source = src;
  c.record_trace = 1;
  return c;
}

int sc_says(const tl_sched_result *r, const char *needle) {
  return r->description != NULL && strstr(r->description, needle) != NULL;
}
