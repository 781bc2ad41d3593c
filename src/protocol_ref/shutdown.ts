/**
 * shutdown (PROTOCOL.md, "shutdown" and its contract details), safe to call twice and
 * from any thread:
 *  1. under the lock: unless off or already stopping, snapshot the heat (heat file),
 *     set stop, signal cv, broadcast cv_take, and wait until no woken caller is left
 *     inside fill_wait, note_block or note_planned;
 *  2. outside: write the heat file, join the uploader;
 *  3. under the lock: wait while the decode thread issues or collects groups outside the
 *     lock, then claim the groups still open (the issuer's take will report them lost);
 *  4. outside: collect them;
 *  5. under the lock: wait while a dense GEMV reads a dense tensor; close the group
 *     window and broadcast; take every resident tensor, dense tensor, staging copy and
 *     host array out of the tables (every charge given back): the tier is off;
 *  6. outside: free them, slot by slot (gate, up, down), then the trunk's tensors in
 *     offer order, the staging copies, the host arrays; shut the backend down.
 */
import { writeHeatFile } from './heat_file.js';
import { PARTS, type SpecIo, type SpecOp, type Step } from './io.js';
import { trunkBytes } from './config.js';
import { home, type SpecState } from './state.js';
import { UNLOCK, WAIT_TAKE, type SpecCall } from './call.js';

export class ShutdownCall implements SpecCall {
  readonly family = 'SPEC-SHUTDOWN' as const;
  private pc: 'begin' | 'waiters' | 'join' | 'busy' | 'collect' | 'dense' | 'free' = 'begin';
  private value: 'done' | 'already' = 'already';
  private heat: Uint8Array | null = null;
  private open: { dev: number; eids: number[] }[] = [];
  private release: SpecOp[] = [];

  step(s: SpecState, io: SpecIo): Step {
    switch (this.pc) {
      case 'begin':
        if (!s.active || s.stop) {
          this.pc = 'free';
          return UNLOCK;
        }
        this.value = 'done';
        this.heat = s.cfg.heatFile
          ? writeHeatFile(
              s.slots.map((row) => row.map((x) => x.heat)),
              s.cfg.experts,
            )
          : null;
        s.stop = true;
        io.op({ k: 'signal', cv: 'cv' }, 'SPEC-WAKEUP');
        io.op({ k: 'broadcast', cv: 'cv_take' }, 'SPEC-WAKEUP');
        return this.waiters(s);
      case 'waiters':
        return this.waiters(s);
      case 'join':
        if (this.heat !== null) io.op({ k: 'writeHeat', bytes: this.heat }, 'SPEC-HEAT-FILE');
        io.op({ k: 'join' }, 'SPEC-SHUTDOWN');
        return this.claim(s);
      case 'busy':
        return this.claim(s);
      case 'collect':
        for (const g of this.open) io.op({ k: 'takeGroup', dev: g.dev, eids: g.eids }, 'SPEC-SHUTDOWN');
        return this.releaseAll(s, io);
      case 'dense':
        return this.releaseAll(s, io);
      default:
        for (const op of this.release) io.op(op, 'SPEC-SHUTDOWN');
        if (this.value === 'done') io.op({ k: 'backendShutdown' }, 'SPEC-SHUTDOWN');
        return { returned: { fn: 'shutdown', value: this.value } };
    }
  }

  private waiters(s: SpecState): Step {
    this.pc = s.waiters > 0 ? 'waiters' : 'join';
    return s.waiters > 0 ? WAIT_TAKE : UNLOCK;
  }

  private claim(s: SpecState): Step {
    if (s.groupsBusy) {
      this.pc = 'busy';
      return WAIT_TAKE;
    }
    s.groups.forEach((eids, dev) => {
      if (eids.length > 0) this.open.push({ dev, eids });
      s.groups[dev] = [];
    });
    if (this.open.length > 0) s.groupsDrained = true;
    this.pc = 'collect';
    return UNLOCK;
  }

  private releaseAll(s: SpecState, io: SpecIo): Step {
    if (s.denseInflight > 0) {
      this.pc = 'dense';
      return WAIT_TAKE;
    }
    s.issueOpen = false;
    io.op({ k: 'broadcast', cv: 'cv_take' }, 'SPEC-WAKEUP');
    const ops: SpecOp[] = [];
    s.slots.forEach((row, layer) =>
      row.forEach((x, eid) => {
        const dev = home(s, eid);
        if (x.tensors) for (const part of PARTS) ops.push({ k: 'free', dev, key: { layer, eid }, part });
        if (x.resident || x.queued || x.planned) s.used[dev] = (s.used[dev] ?? 0) - s.exp;
      }),
    );
    s.dense.forEach((dev, index) => {
      const offer = s.cfg.trunk[index];
      if (dev === null || offer === undefined) return;
      ops.push({ k: 'free', dev, key: null, part: 'dense', index });
      s.dense[index] = null;
      s.used[dev] = (s.used[dev] ?? 0) - trunkBytes(offer);
    });
    for (const e of s.ring) ops.push({ k: 'unstage', key: { layer: e.layer, eid: e.eid } });
    ops.push({ k: 'hostFree', what: 'slots' }, { k: 'hostFree', what: 'ring' });
    this.release = ops;
    s.slots = [];
    s.ring = [];
    s.active = false;
    this.pc = 'free';
    return UNLOCK;
  }
}
