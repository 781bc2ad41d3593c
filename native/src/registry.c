/*
 * The global registry of live engines.
 *
 * Why: koffi hands back whatever pointer the caller kept, including one to an engine
 * already destroyed. Membership is checked under a global lock before the engine is
 * touched, and each call counts itself in, so destroy removes the engine first (new
 * calls see TL_E_STATE) and then waits for calls in progress to leave.
 * Limit: a new engine allocated at the very address of a destroyed one makes the old
 * handle valid again; handles are not generation-counted.
 */
#include "engine.h"

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reg_cv = PTHREAD_COND_INITIALIZER;
static tl_ptrset live; /* guarded by reg_mu; the table lives until process exit */

int tl_registry_add(tl_engine *eng) {
  pthread_mutex_lock(&reg_mu);
  int rc = tl_ptrset_add(&live, eng);
  pthread_mutex_unlock(&reg_mu);
  return rc;
}

int tl_engine_enter(tl_engine *eng, const char *fn, char *err, size_t cap) {
  if (eng == NULL) return tl_fail(err, cap, TL_E_ARG, "%s: eng is NULL", fn);
  pthread_mutex_lock(&reg_mu);
  int ok = tl_ptrset_has(&live, eng);
  if (ok) eng->calls++;
  pthread_mutex_unlock(&reg_mu);
  if (!ok) {
    return tl_fail(err, cap, TL_E_STATE,
                   "%s: eng is not a live engine (destroyed, or never created)", fn);
  }
  return TL_OK;
}

void tl_engine_leave(tl_engine *eng) {
  pthread_mutex_lock(&reg_mu);
  eng->calls--;
  if (eng->calls == 0) pthread_cond_broadcast(&reg_cv);
  pthread_mutex_unlock(&reg_mu);
}

int tl_registry_remove(tl_engine *eng) {
  pthread_mutex_lock(&reg_mu);
  int removed = tl_ptrset_remove(&live, eng);
  pthread_mutex_unlock(&reg_mu);
  return removed ? 0 : -1;
}

void tl_registry_wait_idle(tl_engine *eng) {
  pthread_mutex_lock(&reg_mu);
  while (eng->calls > 0) pthread_cond_wait(&reg_cv, &reg_mu);
  pthread_mutex_unlock(&reg_mu);
}
