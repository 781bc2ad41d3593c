/*
 * The dense trunk (PROTOCOL.md, "Dense residents"; src/tier/trunk_place.ts): a table of
 * trunk tensors that outlives a generation (the trunk works while the expert tier is
 * DEAD), under its own lock `tmx`, never held across a backend call.
 *
 * Placement at init (exclusive): every trunk matrix is read once per token, so the time a
 * resident one saves grows with its payload: offers go best payload per charged byte
 * first (ties: offer order), each onto the device with the most room left that holds
 * its charge (ties: the lower device); what fits nowhere, or whose upload fails, stays
 * on the CPU. Experts get what the trunk left. Trunk tensors placed while DEAD
 * (tt_trunk_upload) are charged to their device by the next init. Every teardown frees
 * the whole trunk. A GEMV holds a gate slot while it reads its tensor, so no teardown
 * frees it under the GEMV; it uses the dense path's own device buffers (the backend's
 * promise), never a group's.
 */
#include <stdlib.h>
#include <string.h>

#include "tt_state.h"

/* Appends `more` empty entries (tmx held); their first index, or -1 out of memory. */
static int append_locked(tt_trunk *tr, int more) {
  if (tr->n + more > tr->cap) {
    int cap = tr->cap > 0 ? tr->cap : 16;
    while (cap < tr->n + more) cap *= 2;
    tt_trunk_entry *e = realloc(tr->e, (size_t)cap * sizeof *e);
    if (e == NULL) return -1;
    tr->e = e;
    tr->cap = cap;
  }
  int first = tr->n;
  for (int i = 0; i < more; i++) tr->e[first + i] = (tt_trunk_entry){-1, NULL, 0, 0};
  tr->n += more;
  return first;
}

static _Thread_local const tt_trunk_offer *sort_offers;

static double value_per_byte(const tt_trunk_offer *o) {
  uint64_t charge = tt_trunk_charge(o);
  return (double)(o->weight_bytes + o->scale_bytes) / (double)(charge > 0 ? charge : 1);
}

static int better_value_first(const void *a, const void *b) {
  int i = *(const int *)a, j = *(const int *)b;
  double vi = value_per_byte(&sort_offers[i]), vj = value_per_byte(&sort_offers[j]);
  if (vi != vj) return vi > vj ? -1 : 1;
  return (i > j) - (i < j);
}

/* The device with the most room (budget - used) that holds charge; -1 when none does. */
static int roomiest(const tt_gen *g, uint64_t charge) {
  int best = -1;
  uint64_t best_room = 0;
  for (int d = 0; d < g->devices; d++) {
    if (g->used[d] > g->budget[d]) continue;
    uint64_t room = g->budget[d] - g->used[d];
    if (room >= charge && (best < 0 || room > best_room)) best = d, best_room = room;
  }
  return best;
}

static void place_one(tt_tier *t, int id, const tt_trunk_offer *o) {
  tt_gen *g = &t->g;
  uint64_t charge = tt_trunk_charge(o);
  int dev = roomiest(g, charge);
  if (dev < 0) return; /* fits nowhere: computed on the CPU */
  void *w = tt_be_dense_upload(t, dev, id, o);
  if (w == NULL) return;
  pthread_mutex_lock(&t->trunk.tmx);
  t->trunk.e[id] = (tt_trunk_entry){dev, w, charge, 1};
  if (TT_LOGGING(t)) tt_ev_trunk(t, TT_EV_TRUNK_PLACED, id, dev, (int64_t)charge);
  pthread_mutex_unlock(&t->trunk.tmx);
  g->used[dev] += charge;
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_CHARGED, -1, -1, dev, (int64_t)charge, id);
  tt_gate_trunk_count(t, 1);
}

int tt_trunk_place_offers(tt_tier *t) {
  tt_gen *g = &t->g;
  int n = g->cfg.ntrunk;
  pthread_mutex_lock(&t->trunk.tmx);
  int base = append_locked(&t->trunk, n);
  pthread_mutex_unlock(&t->trunk.tmx);
  int *order = n > 0 ? malloc((size_t)n * sizeof *order) : NULL;
  if (base < 0 || order == NULL) {
    free(order);
    return base; /* out of memory: the trunk stays on the CPU (-1: and has no ids) */
  }
  for (int i = 0; i < n; i++) order[i] = i;
  sort_offers = g->cfg.trunk;
  qsort(order, (size_t)n, sizeof *order, better_value_first);
  for (int k = 0; k < n; k++) place_one(t, base + order[k], &g->cfg.trunk[order[k]]);
  free(order);
  return base;
}

void tt_trunk_charge_live(tt_tier *t) {
  pthread_mutex_lock(&t->trunk.tmx);
  for (int i = 0; i < t->trunk.n; i++) {
    tt_trunk_entry *e = &t->trunk.e[i];
    if (e->tensor == NULL || e->dev >= t->g.devices) continue;
    t->g.used[e->dev] += e->charge;
    e->charged = 1;
    if (TT_LOGGING(t)) tt_ev(t, TT_EV_CHARGED, -1, -1, e->dev, (int64_t)e->charge, i);
  }
  pthread_mutex_unlock(&t->trunk.tmx);
}

void tt_trunk_uncharge(tt_tier *t) {
  pthread_mutex_lock(&t->trunk.tmx);
  for (int i = 0; i < t->trunk.n; i++) {
    tt_trunk_entry *e = &t->trunk.e[i];
    if (e->tensor != NULL && e->charged) {
      t->g.used[e->dev] -= e->charge;
      if (TT_LOGGING(t)) tt_ev(t, TT_EV_CHARGED, -1, -1, e->dev, -(int64_t)e->charge, i);
    }
    e->charged = 0;
  }
  pthread_mutex_unlock(&t->trunk.tmx);
}

/* Exclusive sections only (no trunk call is admitted meanwhile): frees the tensors of
 * entries from..n-1 outside tmx and drops those entries. */
int tt_trunk_release_from(tt_tier *t, int from) {
  int freed = 0;
  for (int i = from;; i++) {
    pthread_mutex_lock(&t->trunk.tmx);
    int more = i < t->trunk.n;
    tt_trunk_entry e = more ? t->trunk.e[i] : (tt_trunk_entry){-1, NULL, 0, 0};
    if (more && e.tensor != NULL && TT_LOGGING(t)) tt_ev_trunk(t, TT_EV_TRUNK_FREED, i, e.dev, 0);
    pthread_mutex_unlock(&t->trunk.tmx);
    if (!more) break;
    if (e.tensor == NULL) continue;
    tt_be_free(t, e.dev, e.tensor);
    freed++;
  }
  pthread_mutex_lock(&t->trunk.tmx);
  if (t->trunk.n > from) t->trunk.n = from;
  pthread_mutex_unlock(&t->trunk.tmx);
  tt_gate_trunk_count(t, -freed);
  return freed;
}

int tt_dense_matmul(tt_tier *t, int id, const float *x, float *y) {
  if (t == NULL || id < 0 || x == NULL || y == NULL) {
    tt_set_error("tt_dense_matmul: needs the tier, an id >= 0, x and y");
    return TT_E_ARG;
  }
  if (TT_LOGGING(t)) tt_ev_call(t, TT_FN_DENSE_MATMUL, -1, -1, id);
  int life, rc = 0;
  if (tt_gate_enter(t, TT_GATE_TRUNK, &life)) {
    /* at LIVE the matrix is read in a section of mx, and none once stopping (PROTOCOL.md,
     * "Dense residents"); mx before tmx, the order the teardown takes them in */
    int live = life == TT_LIFE_LIVE;
    if (live) tt_lock(t);
    tt_trunk_entry e = {-1, NULL, 0, 0};
    if (!live || !t->g.stop) {
      pthread_mutex_lock(&t->trunk.tmx);
      if (id < t->trunk.n) e = t->trunk.e[id];
      if (e.tensor != NULL && TT_LOGGING(t)) tt_ev_trunk(t, TT_EV_TRUNK_GEMV, id, e.dev, 0);
      pthread_mutex_unlock(&t->trunk.tmx);
    }
    if (live) tt_unlock(t);
    if (e.tensor != NULL) rc = tt_be_dense_gemv(t, e.dev, e.tensor, x, y) == 0;
    tt_gate_leave(t, TT_GATE_TRUNK, 0);
  }
  if (TT_LOGGING(t)) tt_ev_ret(t, TT_FN_DENSE_MATMUL, rc);
  return rc;
}

static int trunk_upload_admitted(tt_tier *t, int dev, const tt_trunk_offer *o, int *placed) {
  pthread_mutex_lock(&t->trunk.tmx);
  int id = append_locked(&t->trunk, 1);
  pthread_mutex_unlock(&t->trunk.tmx);
  if (id < 0) return TT_E_NOMEM;
  void *w = tt_be_dense_upload(t, dev, id, o);
  if (w == NULL) {
    tt_set_error("tt_trunk_upload: the backend refused the upload to device %d", dev);
    return TT_E_DEVICE;
  }
  pthread_mutex_lock(&t->trunk.tmx);
  t->trunk.e[id] = (tt_trunk_entry){dev, w, tt_trunk_charge(o), 0};
  if (TT_LOGGING(t)) tt_ev_trunk(t, TT_EV_TRUNK_PLACED, id, dev, (int64_t)t->trunk.e[id].charge);
  pthread_mutex_unlock(&t->trunk.tmx);
  *placed = 1;
  return id;
}

int tt_trunk_upload(tt_tier *t, int dev, const tt_trunk_offer *offer) {
  if (t == NULL || offer == NULL || dev < 0 || dev >= t->be.devices) {
    tt_set_error("tt_trunk_upload: needs the tier, an offer and a device in 0..%d",
                 t != NULL ? t->be.devices - 1 : 0);
    return TT_E_ARG;
  }
  if (TT_LOGGING(t)) tt_ev_call(t, TT_FN_TRUNK_UPLOAD, -1, -1, dev);
  int life, rc, placed = 0;
  if (tt_gate_enter(t, TT_GATE_TRUNK_UPLOAD, &life)) {
    rc = trunk_upload_admitted(t, dev, offer, &placed);
    tt_gate_leave(t, TT_GATE_TRUNK_UPLOAD, placed);
  } else {
    tt_set_error("tt_trunk_upload: the expert tier is not DEAD (state %d)", life);
    rc = TT_E_STATE;
  }
  if (TT_LOGGING(t)) tt_ev_ret(t, TT_FN_TRUNK_UPLOAD, rc);
  return rc;
}
