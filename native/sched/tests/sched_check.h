/*
 * The scheduler tests' harness: checks that never abort, one line per test
 * ("ok - name" / "FAIL - name"), and "N passed, N failed" as the runner's last line.
 * Helpers to run a program under the scheduler and read its result.
 *
 * Invariants: every bound in these tests is a number of runs or steps, never time.
 */
#ifndef TL_SCHED_CHECK_H
#define TL_SCHED_CHECK_H

#include <stddef.h>

#include "../tl_sched.h"

void sc_check(int ok, const char *what, const char *file, int line);
void sc_run(const char *name, void (*fn)(void));
int sc_summary(void);
/* prints a result's description and trace (for a failed check's context) */
void sc_show(const tl_sched_result *r);
/* the configuration most tests use: entry, trace on, the given source */
tl_sched_config sc_config(void *(*entry)(void *), tl_sched_source *src);
/* the description contains `needle` */
int sc_says(const tl_sched_result *r, const char *needle);

#define CHECK(cond) sc_check((cond) ? 1 : 0, #cond, __FILE__, __LINE__)

/* the suites, one per file */
void suite_count(void);
void suite_lost_wakeup(void);
void suite_deadlock(void);
void suite_static_init(void);
void suite_lifecycle(void);
void suite_atomic_spin(void);
void suite_atomic_interposed(void);
void suite_backend(void);
void suite_affinity(void);
void suite_fresh(void);
void suite_determinism(void);
void suite_timed(void);
void suite_errors(void);
void suite_concurrent(void);

#endif
