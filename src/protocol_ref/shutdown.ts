/**
 * shutdown (PROTOCOL.md, "shutdown", "Lifecycle gate" and the contract details), safe to
 * call twice and from any thread:
 *  1. under gmx, who tears down: LIVE -> TEARING_DOWN makes this caller the owner; a
 *     caller that finds TEARING_DOWN loses and waits on gcv until the gate leaves it, then
 *     says 'already'; one that finds DEAD says 'already' at once, unless a trunk placed
 *     while DEAD is live or still uploading: it then takes an exclusive section from DEAD
 *     (refused: 'already'), frees that trunk, shuts the backend down, leaves DEAD ('done');
 *  2. the owner, under mx: snapshot the heat (heat file), set stop, signal cv, broadcast
 *     cv_take;
 *  3. outside: write the heat file, join the uploader;
 *  4. the exclusive section from TEARING_DOWN (refused: 'done', and nothing freed);
 *  5. under mx: claim the groups still open, close the group window, take every resident
 *     tensor, trunk tensor, staging copy and host array out of the tables (every charge
 *     given back): the tier is off;
 *  6. outside: collect the open groups, free everything (slot by slot gate, up, down,
 *     then the trunk in offer order, the staging copies, the host arrays), destroy mx,
 *     cv and cv_take, shut the backend down; then, under gmx, DEAD.
 */
import { writeHeatFile } from './heat_file.js';
import { PARTS, type SpecIo, type SpecOp, type Step } from './io.js';
import { trunkBytes } from './config.js';
import { ExclusiveEntry, leaveExclusive } from './gate.js';
import { home, type SpecFamily, type SpecState } from './state.js';
import { GUNLOCK, UNLOCK, WAIT_GCV, type SpecCall } from './call.js';

type Pc = 'door' | 'lose' | 'dead-x' | 'dead-free' | 'stop' | 'join' | 'x' | 'release' | 'free' | 'ret';

export class ShutdownCall implements SpecCall {
  private pc: Pc = 'door';
  private value: 'done' | 'already' = 'already';
  private heat: Uint8Array | null = null;
  private open: { dev: number; eids: number[] }[] = [];
  private release: SpecOp[] = [];
  private readonly entry = new ExclusiveEntry();

  get family(): SpecFamily {
    return this.pc === 'door' || this.pc === 'lose' || this.pc === 'x' || this.pc === 'join' || this.pc === 'dead-x'
      ? 'SPEC-GATE'
      : 'SPEC-SHUTDOWN';
  }

  step(s: SpecState, io: SpecIo): Step {
    switch (this.pc) {
      case 'door':
        return this.door(s);
      case 'lose':
        return this.lose(s);
      case 'dead-x':
        return this.exclusive(s, 'DEAD', 'dead-free');
      case 'dead-free':
        for (const t of this.entry.taken) {
          io.op({ k: 'free', dev: t.dev, key: null, part: 'dense', index: t.index }, 'SPEC-SHUTDOWN');
        }
        io.op({ k: 'backendShutdown' }, 'SPEC-SHUTDOWN');
        this.pc = 'ret';
        return leaveExclusive(s, io, 'DEAD');
      case 'stop':
        return this.stop(s, io);
      case 'join':
        if (this.heat !== null) io.op({ k: 'writeHeat', bytes: this.heat }, 'SPEC-HEAT-FILE');
        io.op({ k: 'join' }, 'SPEC-SHUTDOWN');
        this.pc = 'x';
        return this.exclusive(s, 'TEARING_DOWN', 'release');
      case 'x':
        return this.exclusive(s, 'TEARING_DOWN', 'release');
      case 'release':
        return this.releaseAll(s);
      case 'free':
        for (const g of this.open) io.op({ k: 'takeGroup', dev: g.dev, eids: g.eids }, 'SPEC-SHUTDOWN');
        for (const op of this.release) io.op(op, 'SPEC-SHUTDOWN');
        io.op({ k: 'syncDestroy' }, 'SPEC-SHUTDOWN');
        io.op({ k: 'backendShutdown' }, 'SPEC-SHUTDOWN');
        this.pc = 'ret';
        return leaveExclusive(s, io, 'DEAD');
      case 'ret':
        return { returned: { fn: 'shutdown', value: this.value } };
    }
  }

  private door(s: SpecState): Step {
    const g = s.gate;
    if (g.state === 'LIVE') {
      g.state = 'TEARING_DOWN';
      this.value = 'done';
      this.pc = 'stop';
      return GUNLOCK;
    }
    if (g.state === 'TEARING_DOWN') return this.lose(s);
    this.pc = g.trunkBusy || g.deadTrunk.some((d) => d !== null) ? 'dead-x' : 'ret';
    return GUNLOCK;
  }

  private lose(s: SpecState): Step {
    if (s.gate.state === 'TEARING_DOWN') {
      this.pc = 'lose';
      return WAIT_GCV;
    }
    this.pc = 'ret';
    return GUNLOCK;
  }

  /** The exclusive entry (its writes of the heat and the join come before it, outside). */
  private exclusive(s: SpecState, from: 'DEAD' | 'TEARING_DOWN', next: Pc): Step {
    const r = this.entry.step(s.gate, from);
    if (r === 'wait') return WAIT_GCV;
    // refused: the door's answer stands ('already' at DEAD; the teardown's owner, 'done')
    if (r === 'refused') {
      this.pc = 'ret';
      return GUNLOCK;
    }
    this.value = 'done';
    this.pc = next;
    return GUNLOCK;
  }

  private stop(s: SpecState, io: SpecIo): Step {
    this.heat = s.cfg.heatFile
      ? writeHeatFile(
          s.slots.map((row) => row.map((x) => x.heat)),
          s.cfg.experts,
        )
      : null;
    s.stop = true;
    io.op({ k: 'signal', cv: 'cv' }, 'SPEC-WAKEUP');
    io.op({ k: 'broadcast', cv: 'cv_take' }, 'SPEC-WAKEUP');
    this.pc = 'join';
    return UNLOCK;
  }

  /** Under mx, holding the exclusive section: the tables emptied, what to free listed. */
  private releaseAll(s: SpecState): Step {
    s.groups.forEach((eids, dev) => {
      if (eids.length > 0) this.open.push({ dev, eids });
    });
    s.issueOpen = false;
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
    s.groups = [];
    s.active = false;
    this.pc = 'free';
    return UNLOCK;
  }
}
