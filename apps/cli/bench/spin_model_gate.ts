/**
 * The lifecycle gate in the Promela model (PROTOCOL.md, "Lifecycle gate"), an option of
 * the bench's model (spin_model.ts, `gate`): the anchor's model predates the gate, and
 * tierlab's tier passes it at every entry point, so without it the two count different
 * protocols. Written from the protocol page: a lock of its own (`gmx`), the state (DEAD 0,
 * LIVE 1, TEARING_DOWN 2), `live`, `wantX` and `x`, checked at every release of gmx
 * (GATE-STATE); each gate step one atomic sequence, as tierlab runs one op and the code
 * after it (its gmx lock and its unlock are steps apart).
 *
 * In the configurations the model covers (one warmstart, then shutdown) no door refuses
 * and nobody waits on gcv: the model asserts both, so a configuration where they could
 * happen fails loudly instead of being counted wrong.
 *
 * Invariant: without the option the model's text is the anchor's, byte for byte (these
 * pieces are only added with it).
 */

export const GATE_GLOBALS = `
byte gmx = FREE;
byte gstate;
byte glive;
bit  gwantx;
bit  gx;
`;

export const GATE_HELPERS = `
inline gquiescent() {
  assert(gwantx + gx <= 1 && (!gx || glive == 0))
}
`;

/** a gated entry point's way in: gmx taken and the caller counted, then gmx released */
export function gateEnter(who: string): string {
  return `  atomic { gmx == FREE -> gmx = ${who}; STEP; assert(gstate == 1 && !gwantx && !gx); glive++ }
  atomic { gquiescent(); gmx = FREE; STEP }
`;
}

/** the way out (nobody waits for the last one out here); `then` runs in gmx's release step */
export function gateLeave(who: string, then = ''): string {
  return `  atomic { gmx == FREE -> gmx = ${who}; STEP; glive--; assert(!(glive == 0 && gwantx)) }
  atomic { gquiescent(); gmx = FREE; STEP${then} }
`;
}

/** main takes an exclusive section from state `from` (nobody is inside: no wait) */
export function exclusiveIn(from: number): string {
  const free = `gstate == ${from} && !gwantx && !gx && glive == 0`;
  return `  atomic { gmx == FREE -> gmx = MAIN; STEP; assert(${free}); gx = 1 }
  atomic { gquiescent(); gmx = FREE; STEP }
`;
}

/** main leaves its exclusive section in state `to`: gmx, the broadcast on gcv, the release */
export function exclusiveOut(to: number, then = ''): string {
  return `  atomic { gmx == FREE -> gmx = MAIN; STEP; gx = 0; gstate = ${to} }
  atomic { STEP }
  atomic { gquiescent(); gmx = FREE; STEP${then} }
`;
}

/** shutdown's first half at the gate: LIVE to TEARING_DOWN, this caller the owner */
export const BEGIN_TEARDOWN = `  atomic { gmx == FREE -> gmx = MAIN; STEP; assert(gstate == 1); gstate = 2 }
  atomic { gquiescent(); gmx = FREE; STEP }
`;
