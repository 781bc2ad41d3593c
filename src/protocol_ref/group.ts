/**
 * The decode thread's groups (PROTOCOL.md, "issue", "take"), each inside the gate:
 *  - issue, under the lock: in synchronous mode it first waits on cv_take while anything
 *    is in flight and not stopping; then, unless stopping, opens the group window, takes
 *    each routed expert that is resident (with its tensors) into its home device's group
 *    while that group has fewer than 32 rows, sets its mask bit and counts a hit, else a
 *    miss; on layer 0 runs the LFRU tick. Outside the lock, per device with rows: the
 *    input into the device's own block (row dev x 32), the group issued; a device whose
 *    issue fails gets its bits cleared. Then, when some group was issued, under the lock
 *    the issued groups are published (the window stays open for take).
 *  - take, in two phases: claims the published groups, collects each outside the lock (a
 *    failed collection loses that device's outputs), then closes the window and
 *    broadcasts. It succeeds iff nothing was lost; refused at the gate it reports a loss.
 */
import { GROUP_ROWS } from './config.js';
import type { SpecIo, Step } from './io.js';
import { lfruTick, type TickOutcome } from './lfru.js';
import { home, type SpecState } from './state.js';
import { UNLOCK, WAIT_TAKE, type SpecCall } from './call.js';

export class IssueCall implements SpecCall {
  tickOutcome: TickOutcome | null = null;
  /** the last step waited for the uploads of synchronous mode */
  private syncWait = false;
  private pc: 'build' | 'issue' | 'ret' = 'build';
  private mask: boolean[] = [];
  private rows: number[][] = [];
  private positions: number[][] = [];
  constructor(
    private readonly layer: number,
    private readonly eids: readonly number[],
  ) {}

  get family(): 'SPEC-MASK' | 'SPEC-SYNC-MODE' {
    return this.syncWait ? 'SPEC-SYNC-MODE' : 'SPEC-MASK';
  }

  step(s: SpecState, io: SpecIo): Step {
    if (this.pc === 'build') return this.build(s, io);
    if (this.pc === 'issue') return this.issue(s, io);
    return { returned: { fn: 'issue', mask: this.mask } };
  }

  private build(s: SpecState, io: SpecIo): Step {
    this.syncWait = s.cfg.syncUploads && s.inflight > 0 && !s.stop;
    if (this.syncWait) return WAIT_TAKE;
    this.mask = this.eids.map(() => false);
    if (!s.stop) {
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
      if (this.layer === 0) this.tickOutcome = lfruTick(s, io);
    }
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
    if (!issued.some((r) => r.length > 0)) return { returned: { fn: 'issue', mask: this.mask } };
    issued.forEach((rows, dev) => (s.groups[dev] = rows));
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
      for (const g of this.claimed) s.groups[g.dev] = [];
      this.pc = 'collect';
      return UNLOCK;
    }
    if (this.pc === 'collect') {
      for (const g of this.claimed) {
        if (io.op({ k: 'takeGroup', dev: g.dev, eids: g.eids }, 'SPEC-TAKE')) this.collected.push(...g.eids);
        else this.ok = false;
      }
      s.issueOpen = false;
      io.op({ k: 'broadcast', cv: 'cv_take' }, 'SPEC-WAKEUP');
      this.pc = 'ret';
      return UNLOCK;
    }
    return { returned: { fn: 'take', ok: this.ok, collected: this.collected } };
  }
}
