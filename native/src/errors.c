/*
 * Error reporting for the whole engine: one helper that writes a message into the
 * caller's buffer and returns the status code, one that clears the buffer at a call's
 * start. A leaf: every other file may call it, it calls none of them.
 *
 * Invariants: never writes past err[cap-1]; the buffer is always NUL-terminated when
 * cap > 0; a NULL buffer or cap 0 is allowed (the caller did not want a message).
 */
#include <stdarg.h>
#include <stdio.h>

#include "backend.h"

int tl_fail(char *err, size_t cap, int code, const char *fmt, ...) {
  if (err != NULL && cap > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap); /* truncates and terminates */
    va_end(ap);
  }
  return code;
}

void tl_clear_err(char *err, size_t cap) {
  if (err != NULL && cap > 0) err[0] = '\0';
}
