/*
 * A tier object: its backend, its log, its gate and its trunk table, which live from
 * tt_create to tt_destroy; the expert tier's generations come and go inside it (init to
 * shutdown). The gate and the trunk lock are initialized here, once, because init clears
 * the generation state and the teardown destroys mx (PROTOCOL.md, "Lifecycle gate").
 */
#include <stdlib.h>
#include <string.h>

#include "tt_state.h"

static const char *backend_problem(const tt_backend *be) {
  if (be->devices < 1 || be->devices > TT_MAX_DEVICES) return "devices must be in 1..8";
  if (be->stage == NULL || be->unstage == NULL || be->upload == NULL || be->free == NULL ||
      be->issue == NULL || be->take == NULL)
    return "stage, unstage, upload, free, issue and take are required";
  return NULL;
}

tt_tier *tt_create(const tt_backend *be, tt_log *log) {
  if (be == NULL || backend_problem(be) != NULL) {
    tt_set_error("tt_create: %s", be == NULL ? "no backend" : backend_problem(be));
    return NULL;
  }
  tt_tier *t = calloc(1, sizeof *t);
  if (t == NULL) return NULL;
  t->be = *be;
  t->log = log;
  if (tt_gate_init(t) != 0) {
    free(t);
    return NULL;
  }
  if (pthread_mutex_init(&t->trunk.tmx, NULL) != 0) {
    tt_gate_destroy(t);
    free(t);
    return NULL;
  }
  return t;
}

void tt_destroy(tt_tier *t) {
  if (t == NULL) return;
  tt_shutdown(t);
  pthread_mutex_destroy(&t->trunk.tmx);
  tt_gate_destroy(t);
  free(t->trunk.e);
  free(t);
}
