/**
 * The engine's side of the tier's boundary, rebuilt from a free run's log for the
 * reference replay (trace_records.ts): what the scheduled harness's driver records around
 * each call (native/tier/harness/th_calls.c) and the log says only through the tier's own
 * events inside the call:
 *  - issue's route (the experts of its token and layer) from its `routed` events, one per
 *    route position; a position the tier never routed (the gate refused the call, the tier
 *    is off) is the expert 0, which no step of the reference reads then;
 *  - issue's mask (the positions a device's group computes): routed to a group, on a
 *    device whose group was issued (no `issue_failed`);
 *  - take's outputs (the positions it wrote): none unless it claimed the groups
 *    (`take_claimed` 1), else the thread's last issue's mask, less the devices whose
 *    collection failed (`take_failed`);
 *  - plan_fill's keys, from its `planned` events in their order; init's reason (every
 *    answer but active says why).
 *
 * Invariants: one pass over the order; a call's records are keyed by the position of its
 * `call` event, its return's by the position of its `ret` event; evicted_take's return
 * (its keys are not in the log) has none.
 */
import { FN_NAMES, type EngineKind } from '../replay/schema.js';
import { EventView, type TraceColumns } from './trace_columns.js';

export interface EngineRecord {
  readonly kind: EngineKind;
  readonly a: readonly number[];
}

/** An engine record with its seven argument words (th.h), unused ones 0. */
function rec(kind: EngineKind, a: readonly number[]): EngineRecord {
  return { kind, a: [...a, 0, 0, 0, 0, 0, 0, 0].slice(0, 7) };
}

export interface BoundaryFacts {
  /** by the position of an issue's call: its route records */
  readonly routes: ReadonlyMap<number, readonly EngineRecord[]>;
  /** by the position of a ret: the engine's return records */
  readonly rets: ReadonlyMap<number, readonly EngineRecord[]>;
}

interface Open {
  readonly at: number;
  readonly fn: string;
  readonly layer: number;
  readonly k: number;
  /** route position -> eid, and the device of each position routed to a group */
  readonly eids: Map<number, number>;
  readonly gpu: Map<number, number>;
  readonly failed: Set<number>;
  readonly planned: [number, number][];
  /** take claimed the published groups (take_claimed 1) */
  claimed: boolean;
}

const FN = (name: string): number => FN_NAMES.indexOf(name as never);
/** TT_INIT_ACTIVE (tt.h): every other answer carries a reason */
const INIT_ACTIVE = 0;

export function boundaryFacts(cols: TraceColumns, order: Int32Array): BoundaryFacts {
  const routes = new Map<number, EngineRecord[]>();
  const rets = new Map<number, EngineRecord[]>();
  const open = new Map<number, Open>();
  /** per thread: its last issue's positions on a device, by device */
  const issued = new Map<number, Map<number, number>>();
  let token = 0;
  const v = new EventView();
  for (let i = 0; i < order.length; i++) {
    const r = order[i] ?? -1;
    if (r < 0) continue;
    const e = cols.load(v, r);
    if (e.src !== 'tier') continue;
    const o = open.get(e.tid);
    if (e.ev === 'call') {
      open.set(e.tid, {
        at: i,
        fn: e.fn,
        layer: e.layer,
        k: e.value,
        eids: new Map(),
        gpu: new Map(),
        failed: new Set(),
        planned: [],
        claimed: false,
      });
    } else if (o === undefined) continue;
    else if (e.ev === 'routed') {
      o.eids.set(e.value, e.eid);
      if (e.value2 === 1) o.gpu.set(e.value, e.dev);
    } else if (e.ev === 'issue_failed' || e.ev === 'take_failed') o.failed.add(e.dev);
    else if (e.ev === 'planned') o.planned.push([e.layer, e.eid]);
    else if (e.ev === 'take_claimed') o.claimed = e.value === 1;
    else if (e.ev === 'ret') {
      open.delete(e.tid);
      if (o.fn === 'issue') {
        routes.set(o.at, routeOf(o, token++));
        const kept = new Map([...o.gpu].filter(([, dev]) => !o.failed.has(dev)));
        issued.set(e.tid, kept);
        rets.set(i, [rec('ret', [FN('issue'), e.value, ...mask(kept.keys())])]);
      } else if (o.fn === 'take') {
        const last = issued.get(e.tid) ?? new Map<number, number>();
        const wrote = o.claimed ? [...last].filter(([, dev]) => !o.failed.has(dev)).map(([pos]) => pos) : [];
        rets.set(i, [rec('ret', [FN('take'), e.value, ...mask(wrote)])]);
      } else rets.set(i, retOf(o, e.value));
    }
  }
  return { routes, rets };
}

function routeOf(o: Open, token: number): EngineRecord[] {
  const out: EngineRecord[] = [rec('route', [token, o.layer, o.k])];
  for (let p = 0; p < o.k; p++) out.push(rec('route_eid', [p, o.eids.get(p) ?? 0]));
  return out;
}

function retOf(o: Open, value: number): EngineRecord[] {
  if (o.fn === 'evicted_take') return [];
  if (o.fn === 'init') return [rec('ret', [FN('init'), value, value === INIT_ACTIVE ? 0 : 1])];
  const out: EngineRecord[] = [rec('ret', [FN(o.fn), value])];
  if (o.fn === 'plan_fill') for (const [layer, eid] of o.planned) out.push(rec('ret_key', [layer, eid]));
  return out;
}

/** Positions as the two 32-bit words of a mask (th_calls.c, bits). */
function mask(positions: Iterable<number>): [number, number] {
  let lo = 0;
  let hi = 0;
  for (const p of positions) {
    if (p < 32) lo |= 1 << p;
    else if (p < 64) hi |= 1 << (p - 32);
  }
  return [lo, hi];
}
