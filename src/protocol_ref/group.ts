/**
 * The decode thread's groups (PROTOCOL.md, "issue", "take", "Dense residents"):
 *  - issue, under the lock: unless off or stopping, opens the group window, takes each
 *    routed expert that is resident (with its tensors) into its home device's group while
 *    that group has fewer than 32 rows, sets its mask bit and counts a hit, else a miss;
 *    on layer 0 runs the LFRU tick. Outside the lock, per device with rows: the input
 *    into the device's own block (row dev x 32), the group issued; a device whose issue
 *    fails gets its bits cleared. Then, under the lock, the issued groups are published
 *    (the window stays open for take).
 *  - take, in two phases: claims the published groups (and whether a shutdown drained
 *    them), collects each outside the lock (a failed collection loses that device's
 *    outputs), then closes the window and broadcasts. It succeeds iff nothing was lost.
 *  - a trunk GEMV runs on the device of its resident matrix (inside a group's window or
 *    not), never once stopping, counted while it reads its tensor outside the lock;
 *    otherwise the engine computes it on the CPU.
 */
import { GROUP_ROWS } from './config.js';
import type { SpecIo, Step } from './io.js';
import { lfruTick, type TickOutcome } from './lfru.js';
import { home, type SpecState } from './state.js';
import { UNLOCK, type SpecCall } from './call.js';

export class IssueCall implements SpecCall {
  readonly family = 'SPEC-MASK' as const;
  tickOutcome: TickOutcome | null = null;
  private pc: 'build' | 'issue' | 'ret' = 'build';
  private mask: boolean[] = [];
  private rows: number[][] = [];
  private positions: number[][] = [];
  private busy = false;
  constructor(
    private readonly layer: number,
    private readonly eids: readonly number[],
  ) {}

  step(s: SpecState, io: SpecIo): Step {
    if (this.pc === 'build') return this.build(s, io);
    if (this.pc === 'issue') return this.issue(s, io);
    return { returned: { fn: 'issue', mask: this.mask } };
  }

  private build(s: SpecState, io: SpecIo): Step {
    this.mask = this.eids.map(() => false);
    if (s.active && !s.stop) {
      this.rows = Array.from({ length: s.cfg.devices }, () => []);
      this.positions = Array.from({ length: s.cfg.devices }, () => []);
      s.issueOpen = true;
      this.eids.forEach((eid, k) => {
        const x = s.slots[this.layer]?.[eid];
        const dev = home(s, eid);
        const rows = this.rows[dev] ?? [];
        if (x !== undefined && x.resident && x.tensors && rows.length < GROUP_ROWS) {
          rows.push(eid);
          this.positions[dev]?.push(k);
          this.mask[k] = true;
          s.counters.hits++;
        } else {
          s.counters.misses++;
        }
      });
      if (this.rows.some((r) => r.length > 0)) s.groupsBusy = true;
      if (this.layer === 0) this.tickOutcome = lfruTick(s, io);
    }
    this.busy = s.groupsBusy;
    this.pc = 'issue';
    return UNLOCK;
  }

  private issue(s: SpecState, io: SpecIo): Step {
    this.tickOutcome = null;
    const issued = this.rows.map(() => [] as number[]);
    this.rows.forEach((rows, dev) => {
      if (rows.length === 0) return;
      io.op({ k: 'writeInput', dev, rowOffset: dev * GROUP_ROWS, rows: rows.length }, 'SPEC-MASK');
      if (io.op({ k: 'issueGroup', dev, eids: rows }, 'SPEC-MASK')) issued[dev] = rows;
      else for (const k of this.positions[dev] ?? []) this.mask[k] = false;
    });
    this.pc = 'ret';
    if (!this.busy) return { returned: { fn: 'issue', mask: this.mask } };
    issued.forEach((rows, dev) => (s.groups[dev] = rows));
    s.groupsBusy = false;
    if (s.stop) io.op({ k: 'broadcast', cv: 'cv_take' }, 'SPEC-WAKEUP');
    return UNLOCK;
  }
}

export class TakeCall implements SpecCall {
  readonly family = 'SPEC-TAKE' as const;
  private pc: 'claim' | 'collect' | 'ret' = 'claim';
  private claimed: { dev: number; eids: number[] }[] = [];
  private ok = true;
  private readonly collected: number[] = [];

  step(s: SpecState, io: SpecIo): Step {
    if (this.pc === 'claim') {
      s.groups.forEach((eids, dev) => {
        if (eids.length > 0) this.claimed.push({ dev, eids });
      });
      this.ok = !s.groupsDrained;
      s.groupsDrained = false;
      for (const g of this.claimed) s.groups[g.dev] = [];
      if (this.claimed.length > 0) s.groupsBusy = true;
      this.pc = 'collect';
      return UNLOCK;
    }
    if (this.pc === 'collect') {
      for (const g of this.claimed) {
        if (io.op({ k: 'takeGroup', dev: g.dev, eids: g.eids }, 'SPEC-TAKE')) this.collected.push(...g.eids);
        else this.ok = false;
      }
      s.groupsBusy = false;
      s.issueOpen = false;
      io.op({ k: 'broadcast', cv: 'cv_take' }, 'SPEC-WAKEUP');
      this.pc = 'ret';
      return UNLOCK;
    }
    return { returned: { fn: 'take', ok: this.ok, collected: this.collected } };
  }
}

export class DenseCall implements SpecCall {
  readonly family = 'SPEC-MASK' as const;
  private pc: 'enter' | 'gemv' | 'ret' = 'enter';
  private dev: number | null = null;
  constructor(private readonly index: number) {}

  step(s: SpecState, io: SpecIo): Step {
    if (this.pc === 'enter') {
      this.dev = s.active && !s.stop ? (s.dense[this.index] ?? null) : null;
      if (this.dev !== null) s.denseInflight++;
      this.pc = this.dev !== null ? 'gemv' : 'ret';
      return UNLOCK;
    }
    if (this.pc === 'gemv') {
      io.op({ k: 'denseGemv', dev: this.dev ?? -1, index: this.index }, 'SPEC-MASK');
      s.denseInflight--;
      if (s.stop) io.op({ k: 'broadcast', cv: 'cv_take' }, 'SPEC-WAKEUP');
      this.pc = 'ret';
      return UNLOCK;
    }
    return { returned: { fn: 'bool', value: this.dev !== null } };
  }
}
