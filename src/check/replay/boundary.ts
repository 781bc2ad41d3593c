/**
 * The checks that need only what crosses the tier's boundary (level 1: a tier whose
 * source logs nothing): its calls and returns, the backend's calls with their answers,
 * the engine's actions and the scheduler's trace. Each holds the tier to a property of
 * the catalogue by what the world saw, never by the tier's state:
 *  - POST-FILL-WAIT: when fill_wait returns done, every staging copy made before it was
 *    called is freed (every upload enqueued before it finished, or failed);
 *  - PROG-FILL: with nothing failing, every expert plan_fill returned holds its three
 *    parts on the backend when the warmstart's fill_wait returns done;
 *  - POST-SHUTDOWN: when the backend shuts down nothing is alive; at the end nothing is,
 *    and every uploader the tier started was followed by a backend shutdown;
 *  - COMP-EXACT-ONCE: every token-layer was combined;
 *  - SPEC-MASK: issue's mask is exactly the routed experts in the groups it issued, each
 *    on its home device;
 *  - SPEC-TAKE: take writes exactly the outputs of the groups it collected, and succeeds
 *    iff it collected every group the issue before it opened.
 * Memory safety (use after free, double free, a free under an open group, a stale RAM
 * read) is the shadow world's ledger, at the op; deadlocks and livelocks are the
 * scheduler's (outcome.ts in model/ctier/).
 */
import type { ExpertKey, GroupRow, MarkOp, Op } from '../../ops.js';
import type { Checker, RunView, ThreadView } from '../checker.js';
import type { SimStaging, SimTensor } from '../ledger.js';
import { Violation } from '../violation.js';
import type { ShadowWorld } from './shadow_world.js';

interface Memory {
  /** live staging copies, by the order they were made */
  readonly staged: Map<SimStaging, number>;
  made: number;
  /** per thread in fill_wait: the staging copies alive when it was called */
  readonly atFill: Map<number, SimStaging[]>;
  planned: readonly ExpertKey[];
  fullDevice: boolean;
  /** per expert: its last three uploaded parts */
  readonly parts: Map<string, SimTensor[]>;
  uploaders: number;
  shutdowns: number;
  /** per thread: the rows of the groups its issue opened, and what its take collected */
  readonly issued: Map<number, GroupRow[][]>;
  readonly collected: Map<number, { rows: GroupRow[]; failed: boolean }>;
  readonly route: Map<number, readonly number[]>;
}

export interface BoundaryOptions {
  /** no upload, staging copy or load can fail, and every device holds its budget */
  readonly faultFree: boolean;
  readonly devices: number;
}

export function boundaryChecker(world: ShadowWorld, opts: BoundaryOptions): Checker {
  const m: Memory = {
    staged: new Map(),
    made: 0,
    atFill: new Map(),
    planned: [],
    fullDevice: false,
    parts: new Map(),
    uploaders: 0,
    shutdowns: 0,
    issued: new Map(),
    collected: new Map(),
    route: new Map(),
  };
  return {
    memory: m,
    onOp(_rt: RunView, th: ThreadView, op: Op, result: unknown) {
      observe(m, world, th, op, result);
    },
    onMark(_rt: RunView, th: ThreadView, op: MarkOp) {
      if (op.k === 'call') called(m, th, op);
      else if (op.k === 'ret') returned(m, opts, th, op);
    },
    atEnd() {
      const left = alive(world);
      const problems: string[] = [];
      if (world.combines !== world.expectedCombines)
        throw new Violation(
          'COMP-EXACT-ONCE',
          `${world.combines} of ${world.expectedCombines} token-layers were combined`,
        );
      if (m.shutdowns < m.uploaders)
        problems.push(
          `the tier started ${m.uploaders} uploader(s) but the backend was shut down ${m.shutdowns} time(s)`,
        );
      if (left !== null) problems.push(`${left} at the end of the run`);
      if (problems.length > 0) throw new Violation('POST-SHUTDOWN', problems.join('; '));
    },
  };
}

function alive(world: ShadowWorld): string | null {
  const L = world.ledger;
  if (L.liveTensors === 0 && L.liveStaging === 0 && L.liveHostArrays === 0) return null;
  return `${L.liveTensors} device tensors, ${L.liveStaging} staging copies and ${L.liveHostArrays} host arrays alive`;
}

function observe(m: Memory, world: ShadowWorld, th: ThreadView, op: Op, result: unknown): void {
  switch (op.k) {
    case 'stage':
      if (result !== null) m.staged.set(result as SimStaging, m.made++);
      return;
    case 'unstage':
      m.staged.delete(op.staging as unknown as SimStaging);
      return;
    case 'upload':
      if (result === null) m.fullDevice = true;
      else partOf(m, op.layer, op.eid)[['gate', 'up', 'down'].indexOf(op.part)] = result as SimTensor;
      return;
    case 'spawn':
      if (op.name === 'uploader' && typeof result === 'number' && result >= 0) m.uploaders++;
      return;
    case 'backendShutdown': {
      m.shutdowns++;
      const left = alive(world);
      if (left !== null) throw new Violation('POST-SHUTDOWN', `${left} when the backend shut down`);
      return;
    }
    case 'route':
      m.route.set(th.tid, (result as { eids: readonly number[] }).eids);
      return;
    case 'issueGroup':
      if (result === true) m.issued.get(th.tid)?.push([...op.rows]);
      return;
    case 'takeGroup': {
      const c = m.collected.get(th.tid);
      if (c === undefined) return;
      if (result === null) c.failed = true;
      else c.rows.push(...op.rows);
      return;
    }
    default:
      return;
  }
}

function partOf(m: Memory, layer: number, eid: number): SimTensor[] {
  const k = `${layer}:${eid}`;
  const p = m.parts.get(k) ?? [];
  m.parts.set(k, p);
  return p;
}

function called(m: Memory, th: ThreadView, op: MarkOp & { k: 'call' }): void {
  const fn = op.call.fn;
  if (fn === 'fill_wait') m.atFill.set(th.tid, [...m.staged.keys()]);
  if (fn === 'issue') m.issued.set(th.tid, []);
  if (fn === 'take') m.collected.set(th.tid, { rows: [], failed: false });
}

function returned(m: Memory, opts: BoundaryOptions, th: ThreadView, op: MarkOp & { k: 'ret' }): void {
  const r = op.ret;
  if (r.fn === 'plan_fill') m.planned = r.value;
  if ((r.fn === 'init' && r.value.state === 'active') || r.fn === 'shutdown') m.planned = [];
  if (r.fn === 'fill_wait') fillWaitReturned(m, opts, th, r.value);
  if (r.fn === 'issue') maskReturned(m, opts, th, r.value);
  if (r.fn === 'take') takeReturned(m, th, r.value.ok, [...r.value.outputs.keys()]);
}

function fillWaitReturned(m: Memory, opts: BoundaryOptions, th: ThreadView, value: string): void {
  const before = m.atFill.get(th.tid) ?? [];
  m.atFill.delete(th.tid);
  const planned = m.planned;
  m.planned = [];
  if (value !== 'done') return;
  const still = before.filter((s) => m.staged.has(s));
  if (still.length > 0) {
    const keys = still.map((s) => `L${s.layer}E${s.eid}`).join(' ');
    throw new Violation(
      'POST-FILL-WAIT',
      `fill_wait returned while ${still.length} upload(s) enqueued before it still copy from their staging copies: ${keys}`,
    );
  }
  if (!opts.faultFree || m.fullDevice) return;
  const missing = planned.filter((k) => {
    const p = m.parts.get(`${k.layer}:${k.eid}`) ?? [];
    return p.length < 3 || p.some((t) => t === undefined || !t.alive);
  });
  if (missing.length > 0) {
    throw new Violation(
      'PROG-FILL',
      `fill_wait returned with ${missing.length} of ${planned.length} planned experts not held by the backend: ${missing
        .slice(0, 6)
        .map((k) => `L${k.layer}E${k.eid}`)
        .join(' ')}`,
    );
  }
}

function maskReturned(m: Memory, opts: BoundaryOptions, th: ThreadView, mask: readonly boolean[]): void {
  const groups = m.issued.get(th.tid) ?? [];
  const eids = m.route.get(th.tid) ?? [];
  const inGroups = new Set<number>();
  for (const rows of groups) for (const row of rows) inGroups.add(row.eid);
  eids.forEach((eid, k) => {
    if ((mask[k] === true) !== inGroups.has(eid)) {
      const says = mask[k] === true ? 'set' : 'clear';
      throw new Violation(
        'SPEC-MASK',
        `issue's mask bit ${k} (E${eid}) is ${says}, but the expert is ${inGroups.has(eid) ? '' : 'not '}in a group it issued`,
      );
    }
  });
  groups.forEach((rows) => {
    const bad = rows.find((r) => r.eid % opts.devices !== devOf(r));
    if (bad !== undefined) throw new Violation('SPEC-MASK', `E${bad.eid} was issued on another device than its home`);
  });
}

function devOf(row: GroupRow): number {
  const t = row.tensors[0] as unknown as SimTensor | undefined;
  return t?.dev ?? -1;
}

function takeReturned(m: Memory, th: ThreadView, ok: boolean, outputs: number[]): void {
  const c = m.collected.get(th.tid);
  m.collected.delete(th.tid);
  const opened = (m.issued.get(th.tid) ?? []).flat();
  if (c === undefined) return;
  const got = new Set(c.rows.map((r) => r.eid));
  const wrote = new Set(outputs);
  const extra = outputs.filter((e) => !got.has(e));
  const lost = [...got].filter((e) => !wrote.has(e));
  if (extra.length > 0 || lost.length > 0) {
    throw new Violation(
      'SPEC-TAKE',
      `take wrote the outputs of [${outputs.join(' ')}], but collected [${[...got].join(' ')}]`,
    );
  }
  const all = !c.failed && opened.every((r) => got.has(r.eid));
  if (ok && !all)
    throw new Violation('SPEC-TAKE', 'take returned success though a group of its issue was not collected');
}
