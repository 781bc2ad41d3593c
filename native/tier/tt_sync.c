/*
 * The tier's mutex and condition variables, as plain pthread calls (a scheduler that
 * interposes pthreads sees exactly these), with the critical-section count the event
 * log carries: every acquisition of mx, and every return from a wait (which re-acquires
 * it), starts a new section.
 * A `wait` event is recorded before each wait, under mx: it ends the section, names the
 * condition variable, and carries the predicate's variables; an `unlock` event ends every
 * other section the same way, so each section's last event carries the state it leaves. A
 * `wake` event records each signal and broadcast (the reference expects each one where
 * the protocol makes it).
 */
#include "tt_state.h"

void tt_lock(tt_tier *t) {
  pthread_mutex_lock(&t->g.mx);
  t->g.sec++;
}

void tt_unlock(tt_tier *t) {
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_UNLOCK, -1, -1, -1, 0, 0);
  pthread_mutex_unlock(&t->g.mx);
}

void tt_wait_cv(tt_tier *t) {
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_WAIT, -1, -1, -1, 0, 0);
  pthread_cond_wait(&t->g.cv, &t->g.mx);
  t->g.sec++;
}

void tt_wait_take(tt_tier *t) { tt_wait_take_for(t, -1, -1); }

void tt_wait_take_for(tt_tier *t, int layer, int eid) {
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_WAIT, layer, eid, -1, 1, 0);
  pthread_cond_wait(&t->g.cv_take, &t->g.mx);
  t->g.sec++;
}

void tt_signal_cv(tt_tier *t) {
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_WAKE, -1, -1, -1, 0, 0);
  pthread_cond_signal(&t->g.cv);
}

void tt_broadcast_take(tt_tier *t) {
  if (TT_LOGGING(t)) tt_ev(t, TT_EV_WAKE, -1, -1, -1, 1, 1);
  pthread_cond_broadcast(&t->g.cv_take);
}
