/*
 * What every entry point does at its boundary: the call and return events, the gate's
 * admission and leave, the argument checks, and the thread's last error message.
 *
 * The call event is recorded before the gate and the return event after it, outside every
 * lock, so a log shows each thread's calls even when a call is refused or does nothing.
 */
#include <stdarg.h>
#include <stdio.h>

#include "tt_state.h"

static _Thread_local char last_error[200];

void tt_set_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
}

const char *tt_last_error(void) { return last_error; }

int tt_key_ok(const tt_gen *g, int layer, int eid) {
  if (layer >= 0 && layer < g->cfg.layers && eid >= 0 && eid < g->cfg.experts) return 1;
  tt_set_error("expert L%dE%d does not exist (layers 0..%d, experts 0..%d)", layer, eid,
               g->cfg.layers - 1, g->cfg.experts - 1);
  return 0;
}
