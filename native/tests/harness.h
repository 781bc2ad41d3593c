/*
 * A minimal test harness for the native C tests (no framework dependency).
 *
 * Role: each test is a void function that records failed checks; th_run runs one,
 * prints "ok - name" or "FAIL - name", and the runner's last line is
 * "N passed, N failed". Checks never abort, so one failure does not hide the next.
 */
#ifndef TIERLAB_HARNESS_H
#define TIERLAB_HARNESS_H

#include <stddef.h>

#include "../include/tierlab.h"

#define ERR_CAP 512

void th_check(int ok, const char *what, const char *file, int line);
/* rc must equal code, and (unless code is TL_OK) err must hold a message. */
void th_check_code(int rc, int code, const char *err, const char *what, const char *file, int line);
void th_run(const char *name, void (*fn)(void));
int th_summary(void); /* prints the final line; returns the failure count */

#define CHECK(cond) th_check((cond) ? 1 : 0, #cond, __FILE__, __LINE__)
/* Evaluates expr (which writes into `err`) once, checks the status and message. */
#define CHECK_CODE(expr, code)                                  \
  do {                                                          \
    err[0] = '\0';                                              \
    int rc_ = (expr);                                           \
    th_check_code(rc_, (code), err, #expr, __FILE__, __LINE__); \
  } while (0)

/* The suites (one per file). */
void suite_footprint(void);
void suite_math(void);
void suite_route(void);
void suite_args(void);
void suite_ledger(void);
void suite_fault(void);
void suite_group(void);
void suite_destroy(void);
void suite_threads(void);
void suite_ram(void);
void suite_async(void);
void suite_dense(void);

#endif
