/*
 * The scheduler tests' runner: every suite, then "N passed, N failed" as the last line;
 * exit status 0 only when nothing failed. Built with the renaming header forced in
 * (make sched-test), under AddressSanitizer and UBSan, and under ThreadSanitizer.
 */
#include "sched_check.h"

int main(void) {
  suite_count();
  suite_lost_wakeup();
  suite_deadlock();
  suite_static_init();
  suite_lifecycle();
  suite_atomic_spin();
  suite_atomic_interposed();
  suite_backend();
  suite_affinity();
  suite_fresh();
  suite_determinism();
  suite_timed();
  suite_errors();
  suite_concurrent();
  return sc_summary() == 0 ? 0 : 1;
}
