/*
 * The harness implementation (see harness.h). A failed check prints where and what;
 * the test that contains it counts as failed.
 */
#include "harness.h"

#include <stdio.h>

static int case_failures, passed, failed;

void th_check(int ok, const char *what, const char *file, int line) {
  if (ok) return;
  case_failures++;
  printf("    check failed at %s:%d: %s\n", file, line, what);
}

void th_check_code(int rc, int code, const char *err, const char *what, const char *file,
                   int line) {
  if (rc != code) {
    case_failures++;
    printf("    %s:%d: %s returned %d, expected %d (err: \"%s\")\n", file, line, what, rc, code,
           err);
  } else if (code != TL_OK && err[0] == '\0') {
    case_failures++;
    printf("    %s:%d: %s returned %d with no message\n", file, line, what, rc);
  }
}

void th_run(const char *name, void (*fn)(void)) {
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

int th_summary(void) {
  printf("%d passed, %d failed\n", passed, failed);
  return failed;
}
