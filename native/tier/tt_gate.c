/*
 * The lifecycle gate (PROTOCOL.md, "Lifecycle gate"): DEAD -> LIVE -> TEARING_DOWN -> DEAD,
 * under a small lock of its own (gmx, gcv) that outlives every generation of the tier.
 *
 * Invariants:
 *   - a caller is admitted only when no exclusive section is queued or held, and only
 *     LIVE (expert entry points) or LIVE/DEAD (trunk entry points; a trunk upload only at
 *     DEAD); it is counted in `live` from admission to leave, and a refused caller never
 *     waits and never touches the tier's state;
 *   - an exclusive section is admitted only from the state its caller may leave (DEAD for
 *     init and a trunk-only teardown, TEARING_DOWN for the teardown's second half),
 *     checked before want_x is raised (a loser refuses at once); it then waits for
 *     live == 0, and new callers refuse meanwhile;
 *   - the gate never waits while its caller holds mx or tmx.
 */
#include "tt_state.h"

int tt_gate_init(tt_tier *t) {
  tt_gate *g = &t->gate;
  if (pthread_mutex_init(&g->gmx, NULL) != 0) return -1;
  if (pthread_cond_init(&g->gcv, NULL) != 0) {
    pthread_mutex_destroy(&g->gmx);
    return -1;
  }
  g->life = TT_LIFE_DEAD;
  g->live = g->want_x = g->x = 0;
  g->teardowns = 0;
  g->open_groups = g->trunk_live = g->trunk_uploads = 0;
  return 0;
}

void tt_gate_destroy(tt_tier *t) {
  pthread_cond_destroy(&t->gate.gcv);
  pthread_mutex_destroy(&t->gate.gmx);
}

static int admits(const tt_gate *g, int kind) {
  if (g->want_x > 0 || g->x) return 0;
  if (kind == TT_GATE_EXPERT) return g->life == TT_LIFE_LIVE;
  if (kind == TT_GATE_TRUNK_UPLOAD) return g->life == TT_LIFE_DEAD;
  return g->life == TT_LIFE_LIVE || g->life == TT_LIFE_DEAD;
}

int tt_gate_enter(tt_tier *t, int kind, int *life) {
  tt_gate *g = &t->gate;
  pthread_mutex_lock(&g->gmx);
  int ok = admits(g, kind);
  /* a caller refused while an exclusive section runs at DEAD sees the tier off; during a
   * teardown it sees it stopping */
  *life = g->life;
  if (ok) {
    g->live++;
    if (kind == TT_GATE_TRUNK_UPLOAD) g->trunk_uploads++;
  }
  if (TT_LOGGING(t)) tt_ev_gate(t, ok ? TT_EV_GATE_ENTER : TT_EV_GATE_REFUSE, kind, 0);
  pthread_mutex_unlock(&g->gmx);
  return ok;
}

void tt_gate_leave(tt_tier *t, int kind, int arg) {
  tt_gate *g = &t->gate;
  pthread_mutex_lock(&g->gmx);
  g->live--;
  if (kind == TT_GATE_TRUNK_UPLOAD) {
    g->trunk_uploads--;
    g->trunk_live += arg;
  } else if (kind == TT_GATE_EXPERT && arg != TT_GROUPS_KEEP) {
    g->open_groups = arg;
  }
  if (TT_LOGGING(t)) tt_ev_gate(t, TT_EV_GATE_LEAVE, kind, arg);
  /* an exclusive section may be waiting for the last caller out */
  if (g->live == 0 && g->want_x > 0) pthread_cond_broadcast(&g->gcv);
  pthread_mutex_unlock(&g->gmx);
}

int tt_gate_enter_x(tt_tier *t, int from, int *life) {
  tt_gate *g = &t->gate;
  pthread_mutex_lock(&g->gmx);
  *life = g->life;
  if (g->life != from || g->want_x > 0 || g->x) {
    if (TT_LOGGING(t)) tt_ev_gate(t, TT_EV_GATE_REFUSE, TT_GATE_REFUSE_X, from);
    pthread_mutex_unlock(&g->gmx);
    return 0;
  }
  g->want_x++;
  while (g->live > 0) {
    /* queued: the reference's exclusive entry waits here too (one step per wait) */
    if (TT_LOGGING(t)) tt_ev_gate(t, TT_EV_GATE_WAIT, from, 0);
    pthread_cond_wait(&g->gcv, &g->gmx);
  }
  g->want_x--;
  g->x = 1;
  if (TT_LOGGING(t)) tt_ev_gate(t, TT_EV_GATE_X, from, 0);
  pthread_mutex_unlock(&g->gmx);
  return 1;
}

void tt_gate_leave_x(tt_tier *t, int to, int teardown_done) {
  tt_gate *g = &t->gate;
  pthread_mutex_lock(&g->gmx);
  int from = g->life;
  g->x = 0;
  g->life = to;
  if (teardown_done) g->teardowns++;
  if (TT_LOGGING(t)) tt_ev_gate(t, TT_EV_GATE_STATE, from, to);
  pthread_cond_broadcast(&g->gcv);
  pthread_mutex_unlock(&g->gmx);
}

int tt_gate_begin_teardown(tt_tier *t, int *dead_trunk) {
  tt_gate *g = &t->gate;
  int mine = 0;
  *dead_trunk = 0;
  pthread_mutex_lock(&g->gmx);
  /* a shutdown that finds DEAD returns at once (PROTOCOL.md, "Lifecycle gate"), even
   * while an init's exclusive section runs: it never waits for one */
  if (g->life == TT_LIFE_LIVE) {
    g->life = TT_LIFE_TEARING_DOWN;
    mine = 1;
    if (TT_LOGGING(t)) tt_ev_gate(t, TT_EV_GATE_STATE, TT_LIFE_LIVE, TT_LIFE_TEARING_DOWN);
  } else if (g->life == TT_LIFE_TEARING_DOWN) {
    /* lost to a teardown in progress: return only once it is complete */
    uint64_t seen = g->teardowns;
    if (TT_LOGGING(t)) tt_ev_gate(t, TT_EV_GATE_REFUSE, TT_GATE_REFUSE_TEARDOWN, 0);
    while (g->teardowns == seen) pthread_cond_wait(&g->gcv, &g->gmx);
  } else {
    *dead_trunk = g->trunk_live > 0 || g->trunk_uploads > 0;
    /* found DEAD: the reference's door is a step of the gate here too */
    if (TT_LOGGING(t)) tt_ev_gate(t, TT_EV_GATE_REFUSE, TT_GATE_REFUSE_DEAD, 0);
  }
  pthread_mutex_unlock(&g->gmx);
  return mine;
}

void tt_gate_reset_groups(tt_tier *t) {
  pthread_mutex_lock(&t->gate.gmx);
  t->gate.open_groups = 0;
  pthread_mutex_unlock(&t->gate.gmx);
}

void tt_gate_trunk_count(tt_tier *t, int delta) {
  pthread_mutex_lock(&t->gate.gmx);
  t->gate.trunk_live += delta;
  pthread_mutex_unlock(&t->gate.gmx);
}

int tt_life(tt_tier *t) {
  pthread_mutex_lock(&t->gate.gmx);
  int life = t->gate.life;
  pthread_mutex_unlock(&t->gate.gmx);
  return life;
}
