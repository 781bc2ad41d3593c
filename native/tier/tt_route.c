/*
 * Routing that prefers residents (PROTOCOL.md, "Routing that prefers residents"): inside a
 * window of the router's top-m candidates, the first j slots are the router's; each later
 * slot takes, among the candidates not yet taken, the first that is resident on a device,
 * else the first the engine's RAM holds, else the first left (router order breaks every
 * tie). Residency is read once, under mx, for the whole window. The engine's output then
 * depends on residency by design: an oracle compares against a reference given the same
 * routing decisions (the log's route_preferred event records them).
 */
#include <string.h>

#include "tt_state.h"

/* The k choices from ranked[0..m) given each candidate's residency. */
static void choose(const int *ranked, int m, int k, int j, const uint8_t *resident,
                   const uint8_t *in_ram, int *out) {
  uint8_t taken[TT_MAX_ROUTE];
  memset(taken, 0, (size_t)m);
  for (int s = 0; s < k; s++) {
    int pick = -1;
    if (s < j) pick = s;
    for (int i = 0; pick < 0 && i < m; i++)
      if (!taken[i] && resident[i]) pick = i;
    for (int i = 0; pick < 0 && in_ram != NULL && i < m; i++)
      if (!taken[i] && in_ram[i]) pick = i;
    for (int i = 0; pick < 0 && i < m; i++)
      if (!taken[i]) pick = i;
    taken[pick] = 1;
    out[s] = ranked[pick];
  }
}

static int window_ok(const tt_gen *g, int layer, const int *ranked, int m) {
  for (int i = 0; i < m; i++)
    if (!tt_key_ok(g, layer, ranked[i])) return 0;
  return 1;
}

int tt_route_prefer(tt_tier *t, int layer, const int *ranked, int m, int k, int j,
                    const uint8_t *in_ram, int *out) {
  if (t == NULL || ranked == NULL || out == NULL || m < 1 || m > TT_MAX_ROUTE || k < 0 || k > m ||
      j < 0 || j > k) {
    tt_set_error("tt_route_prefer: needs 0 <= j <= k <= m <= %d, the candidates and room for k",
                 TT_MAX_ROUTE);
    return TT_E_ARG;
  }
  if (TT_LOGGING(t)) tt_ev_call(t, TT_FN_ROUTE_PREFER, layer, -1, k);
  uint8_t resident[TT_MAX_ROUTE];
  memset(resident, 0, (size_t)m);
  int life, rc = k;
  if (tt_gate_enter(t, TT_GATE_EXPERT, &life)) {
    if (!window_ok(&t->g, layer, ranked, m)) {
      rc = TT_E_ARG;
    } else {
      tt_lock(t);
      for (int i = 0; i < m; i++) resident[i] = tt_slot_at(&t->g, layer, ranked[i])->resident;
      choose(ranked, m, k, j, resident, in_ram, out);
      for (int s = 0; TT_LOGGING(t) && s < k; s++)
        tt_ev(t, TT_EV_ROUTE_PREFERRED, layer, out[s], tt_home(&t->g, out[s]), s, 0);
      tt_unlock(t);
    }
    tt_gate_leave(t, TT_GATE_EXPERT, TT_GROUPS_KEEP);
  } else {
    choose(ranked, m, k, k, resident, NULL, out); /* not live: the router's order */
  }
  if (TT_LOGGING(t)) tt_ev_ret(t, TT_FN_ROUTE_PREFER, rc);
  return rc;
}
