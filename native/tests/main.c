/*
 * The native test runner: every suite, then "N passed, N failed" as the last line.
 * Exit status 0 only when nothing failed (make test relies on it).
 */
#include "harness.h"

int main(void) {
  suite_footprint();
  suite_math();
  suite_route();
  suite_args();
  suite_ledger();
  suite_fault();
  suite_group();
  suite_destroy();
  suite_threads();
  suite_ram();
  suite_async();
  suite_dense();
  return th_summary() == 0 ? 0 : 1;
}
