/*
 * Staging references over the ABI: tl_stage and tl_unstage (see ram.h).
 *
 * Why a reference, not a copy: a RAM copy never changes after its load and its bytes are
 * counted, so what an upload reads can be the RAM copy itself (page-locked where the
 * backend could register it); the reference keeps the bytes alive until tl_unstage,
 * even past tl_ram_free, which is all a staging copy was for.
 * Invariants: a live staging reference holds exactly one count of its RAM copy; the
 * handle set (eng->stagings) holds live references only.
 */
#include <stdlib.h>

#include "engine.h"

TL_API int tl_stage(tl_engine *eng, tl_ram *ram, tl_staging **out, char *err, size_t err_cap) {
  static const char *const FN = "tl_stage";
  tl_clear_err(err, err_cap);
  if (out == NULL) return tl_fail(err, err_cap, TL_E_ARG, "%s: out is NULL", FN);
  *out = NULL;
  int rc = tl_engine_enter(eng, FN, err, err_cap);
  if (rc != TL_OK) return rc;
  tl_staging *s = malloc(sizeof *s);
  pthread_mutex_lock(&eng->mu);
  if (ram == NULL) {
    rc = tl_fail(err, err_cap, TL_E_ARG, "%s: ram is NULL", FN);
  } else if (!tl_ptrset_has(&eng->rams, ram)) {
    rc = tl_fail(err, err_cap, TL_E_ARG,
                 "%s: ram is not a live RAM copy of this engine (already freed, or from "
                 "another engine)",
                 FN);
  } else if (s == NULL || tl_ptrset_add(&eng->stagings, s) != 0) {
    rc = tl_fail(err, err_cap, TL_E_OOM, "%s: host out of memory", FN);
  } else {
    s->ram = ram;
    tl_ram_ref_locked(ram);
    *out = s;
  }
  pthread_mutex_unlock(&eng->mu);
  if (rc != TL_OK) free(s);
  tl_engine_leave(eng);
  return rc;
}

TL_API int tl_unstage(tl_engine *eng, tl_staging *s, char *err, size_t err_cap) {
  static const char *const FN = "tl_unstage";
  tl_clear_err(err, err_cap);
  int rc = tl_engine_enter(eng, FN, err, err_cap);
  if (rc != TL_OK) return rc;
  pthread_mutex_lock(&eng->mu);
  rc = tl_ram_take_handle(&eng->stagings, s, FN, "staging", err, err_cap);
  if (rc == TL_OK) {
    tl_ram_unref_locked(eng, s->ram);
    free(s);
  }
  pthread_mutex_unlock(&eng->mu);
  tl_engine_leave(eng);
  return rc;
}
