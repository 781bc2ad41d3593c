/**
 * The trunk's entry points (PROTOCOL.md, "Dense residents", "Lifecycle gate"), through
 * the gate's trunk door, admitted at LIVE and at DEAD:
 *  - trunk_place: only at DEAD, one at a time, over an empty gate trunk: counted in, the
 *    placement marked under way; outside any lock the placer of init over the configured
 *    budgets (memInfo for an automatic one), nothing charged to the experts; then under
 *    gmx the placed matrices kept in the gate, the placement over, the caller out (the
 *    last one out wakes an exclusive section). Returns how many it placed (0 otherwise).
 *  - dense_matmul: counted in; at DEAD the gate's matrix read under gmx, at LIVE the
 *    tables' under mx (none once stopping); the GEMV outside the locks on that device;
 *    out through the gate. True when it ran on a device.
 */
import { roomiest, trunkBytes, trunkRanking, type SpecConfig } from './config.js';
import type { SpecIo, Step } from './io.js';
import { admits, leaveGate } from './gate.js';
import type { SpecFamily, SpecState } from './state.js';
import { GUNLOCK, UNLOCK, type SpecCall } from './call.js';

export class DenseCall implements SpecCall {
  private pc: 'door' | 'read' | 'gemv' | 'ret' = 'door';
  private dev: number | null = null;
  constructor(private readonly index: number) {}

  get family(): SpecFamily {
    return this.pc === 'read' ? 'SPEC-MASK' : 'SPEC-GATE';
  }

  step(s: SpecState, io: SpecIo): Step {
    switch (this.pc) {
      case 'door': {
        const g = s.gate;
        const admitted = admits(g, 'trunk');
        if (admitted) {
          g.live++;
          // the gate's matrix (none once LIVE: init took it over); at LIVE the read step's instead
          this.dev = g.deadTrunk[this.index] ?? null;
        }
        this.pc = !admitted ? 'ret' : g.state === 'DEAD' ? 'gemv' : 'read';
        return GUNLOCK;
      }
      case 'read':
        this.dev = s.stop ? null : (s.dense[this.index] ?? null);
        this.pc = 'gemv';
        return UNLOCK;
      case 'gemv':
        if (this.dev !== null) io.op({ k: 'denseGemv', dev: this.dev, index: this.index }, 'SPEC-MASK');
        leaveGate(s, io);
        this.pc = 'ret';
        return GUNLOCK;
      case 'ret':
        return { returned: { fn: 'bool', value: this.dev !== null } };
    }
  }
}

export class TrunkPlaceCall implements SpecCall {
  readonly family = 'SPEC-GATE' as const;
  private pc: 'door' | 'place' | 'ret' = 'door';
  private placed = 0;

  step(s: SpecState, io: SpecIo): Step {
    const g = s.gate;
    switch (this.pc) {
      case 'door': {
        const mine = admits(g, 'trunk') && g.state === 'DEAD' && !g.trunkBusy && g.deadTrunk.every((d) => d === null);
        if (mine) {
          g.live++;
          g.trunkBusy = true;
        }
        this.pc = mine ? 'place' : 'ret';
        return GUNLOCK;
      }
      case 'place': {
        const placed = place(s, io);
        for (const [index, dev] of placed) g.deadTrunk[index] = dev;
        this.placed = placed.length;
        g.trunkBusy = false;
        leaveGate(s, io);
        this.pc = 'ret';
        return GUNLOCK;
      }
      case 'ret':
        return { returned: { fn: 'count', value: this.placed } };
    }
  }
}

/** The placer over the configured budgets, nothing charged to experts: [offer, device] placed. */
function place(s: SpecState, io: SpecIo): [number, number][] {
  const c = s.cfg;
  const budget = budgets(c, (dev) => io.memInfo(dev, 'SPEC-GATE'));
  const used = budget.map(() => 0);
  const out: [number, number][] = [];
  for (const index of trunkRanking(c)) {
    const offer = c.trunk[index];
    if (offer === undefined) continue;
    const dev = roomiest(budget, used, trunkBytes(offer));
    if (dev < 0 || !io.op({ k: 'uploadDense', dev, index }, 'SPEC-GATE')) continue;
    used[dev] = (used[dev] ?? 0) + trunkBytes(offer);
    out.push([index, dev]);
  }
  return out;
}

/** The budgets, device by device: the configured figure, or (automatic) the free memory
 * the device reports minus the reserve; no answer means no room (the reserve is never
 * negative). init's and trunk_place's alike. */
export function budgets(c: SpecConfig, memInfo: (dev: number) => number | null): number[] {
  return Array.from({ length: c.devices }, (_, dev) => {
    const want = c.budget[dev] ?? 0;
    return Math.max(0, want === 'auto' ? (memInfo(dev) ?? 0) - c.reserveBytes : want);
  });
}
