/*
 * Fault injection: tl_fault_arm and the per-call counter the dispatcher consults.
 *
 * Injectors never check, checkers never inject: this file only decides *whether* a call
 * fails; dispatch_tensor.c and dispatch_group.c decide what a failed call leaves behind.
 * Invariants: one-shot (firing disarms); arming replaces a pending arm; only calls whose
 * arguments passed the checks are counted, so a rejected call never consumes the arm.
 */
#include <string.h>

#include "engine.h"

static const char *const OP_NAMES[TL_OP_COUNT] = {"upload", "issue", "take"};

int tl_fault_fires(tl_engine *eng, int op, int dev) {
  tl_fault_slot *f = &eng->fault[op][dev];
  if (!f->armed) return 0;
  if (f->remaining > 0) {
    f->remaining--;
    return 0;
  }
  f->armed = 0;
  return 1;
}

TL_API int tl_fault_arm(tl_engine *eng, const char *op, int dev, int after, char *err,
                        size_t err_cap) {
  static const char *const FN = "tl_fault_arm";
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, FN, err, err_cap);
  if (rc != TL_OK) return rc;
  int code = -1;
  if (op != NULL) {
    for (int i = 0; i < TL_OP_COUNT; i++) {
      if (strcmp(op, OP_NAMES[i]) == 0) code = i;
    }
  }
  if (op == NULL) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: op is NULL", FN);
  } else if (code < 0) {
    rc = tl_fail(err, err_cap, TL_E_ARG,
                 "%s: op must be \"upload\", \"issue\" or \"take\" (got \"%.32s\")", FN, op);
  } else if ((rc = tl_check_dev(eng, FN, dev, err, err_cap)) != TL_OK) {
    /* message written */
  } else if (after < 0) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: after must be >= 0 (got %d)", FN, after);
  } else {
    pthread_mutex_lock(&eng->mu);
    eng->fault[code][dev].armed = 1;
    eng->fault[code][dev].remaining = after;
    pthread_mutex_unlock(&eng->mu);
  }
  tl_engine_leave(eng);
  return rc;
}
