/**
 * The engine driver's records as the checkers read them: each call and return at the
 * tier's boundary becomes the `call` or `ret` mark tierlab's own tier yields (src/ops.ts,
 * TierCall and TierReturn), and each engine action (a route, a RAM copy lent or freed, a
 * CPU expert, a combine) the op the simulator's engine yields, answered by the shadow
 * world. What a mark needs that one record does not hold is gathered from its
 * neighbours: a route's experts follow it, plan_fill's keys follow its return, a
 * combine's contributions precede it.
 *
 * Invariant: the marks and ops come out in the records' order, each on its thread.
 */
import type { Contribution, InitResult, MarkOp, RamRef, TierCall, TierReturn } from '../../ops.js';
import type { BlockRow } from '../ledger.js';
import type { EngineEvent, Rec } from './records.js';
import { FN_NAMES, type FnName } from './schema.js';
import type { Did, ShadowWorld } from './shadow_world.js';

export type EngineAction = { readonly mark: MarkOp } | { readonly did: Did };

interface RouteNow {
  token: number;
  layer: number;
  eids: number[];
  want: number;
}

const LENT: RamRef = { __opaque: 'ram' } as unknown as RamRef;
const INIT_STATES: readonly InitResult['state'][] = ['active', 'off', 'already', 'busy'];
const FILL: readonly ('done' | 'stopped' | 'off')[] = ['done', 'stopped', 'off'];

function bits(lo: number, hi: number, n: number): boolean[] {
  return Array.from({ length: n }, (_, i) => (i < 32 ? ((lo >>> i) & 1) === 1 : ((hi >>> (i - 32)) & 1) === 1));
}

export class EngineReader {
  private readonly routes = new Map<number, RouteNow>();
  private readonly calls = new Map<number, { fn: FnName; k: number }>();
  private readonly parts = new Map<number, Contribution[]>();

  constructor(
    private readonly world: ShadowWorld,
    private readonly recs: readonly Rec[],
  ) {}

  /** The input of the token-layer the thread works on (its last route). */
  input(tid: number): BlockRow {
    const r = this.routes.get(tid);
    return { token: r?.token ?? -1, layer: r?.layer ?? -1 };
  }

  read(e: EngineEvent, at: number): EngineAction | null {
    const a = e.a;
    switch (e.kind) {
      case 'call':
        return this.call(e);
      case 'ret':
        return this.ret(e, at);
      case 'route':
        this.routes.set(e.tid, { token: a[0] ?? 0, layer: a[1] ?? 0, eids: [], want: a[2] ?? 0 });
        return this.routeDone(e.tid);
      case 'route_eid':
        this.routes.get(e.tid)?.eids.push(a[1] ?? 0);
        return this.routeDone(e.tid);
      case 'ram':
        return this.did(this.world.ramEvent(e));
      case 'ram_free':
        return this.did(this.world.ramFree(e));
      case 'recycle':
        return this.did(this.world.recycle(e));
      case 'cpu':
        return this.did(this.world.cpu(e, this.input(e.tid)));
      case 'contrib':
        return this.contrib(e);
      case 'combine':
        return this.combine(e);
      case 'mark':
        return { mark: { k: 'mark', what: a[0] === 1 ? 'residency' : 'tier-off', detail: String(a[1] ?? 0) } };
      case 'finish_token':
        return this.did({ op: { k: 'finishToken', token: a[0] ?? 0 }, result: undefined });
      default:
        return null;
    }
  }

  private did(d: Did | null): EngineAction | null {
    return d === null ? null : { did: d };
  }

  private routeDone(tid: number): EngineAction | null {
    const r = this.routes.get(tid);
    if (r === undefined || r.eids.length < r.want) return null;
    return { did: this.world.route(r.token, r.layer, r.eids) };
  }

  private call(e: EngineEvent): EngineAction | null {
    const [f = -1, layer = -1, eid = -1, value = 0] = e.a;
    const fn = FN_NAMES[f];
    if (fn === undefined) return null;
    this.calls.set(e.tid, { fn, k: value });
    const c = this.tierCall(fn, e.tid, layer, eid, value);
    return c === null ? null : { mark: { k: 'call', call: c } };
  }

  private tierCall(fn: FnName, tid: number, layer: number, eid: number, value: number): TierCall | null {
    switch (fn) {
      case 'note':
      case 'note_block':
      case 'note_planned':
        return { fn, layer, eid, ram: value !== 0 ? LENT : null };
      case 'release_ram':
        return { fn, layer, eid };
      case 'issue': {
        const route = this.world.route(this.input(tid).token, this.input(tid).layer, this.routes.get(tid)?.eids ?? []);
        return { fn, route: route.result as Extract<TierCall, { fn: 'issue' }>['route'] };
      }
      case 'take':
        return { fn, layer: this.input(tid).layer };
      case 'dense_matmul':
        return { fn, index: value };
      case 'evicted_take':
        return { fn, max: value };
      case 'init':
      case 'plan_fill':
      case 'fill_wait':
      case 'shutdown':
      case 'resident_count':
        return { fn };
      default:
        return null;
    }
  }

  private ret(e: EngineEvent, at: number): EngineAction | null {
    const [f = -1, value = 0, w5 = 0, w6 = 0] = e.a;
    const fn = FN_NAMES[f];
    const call = this.calls.get(e.tid);
    this.calls.delete(e.tid);
    if (fn === undefined || call === undefined) return null;
    const r = this.tierReturn(fn, e.tid, value, w5, w6, call.k, at);
    return r === null ? null : { mark: { k: 'ret', ret: r } };
  }

  private tierReturn(
    fn: FnName,
    tid: number,
    v: number,
    w5: number,
    w6: number,
    k: number,
    at: number,
  ): TierReturn | null {
    switch (fn) {
      case 'init': {
        const state = INIT_STATES[v] ?? 'off';
        const value: InitResult = state === 'off' ? { state, reason: w5 !== 0 ? 'refused' : '' } : { state };
        return { fn, value };
      }
      case 'note':
      case 'note_block':
      case 'note_planned':
      case 'release_ram':
      case 'dense_matmul':
        return { fn, value: v === 1 };
      case 'plan_fill':
      case 'evicted_take':
        return { fn, value: this.keysAfter(at, tid) };
      case 'fill_wait':
        return { fn, value: FILL[v] ?? 'off' };
      case 'issue':
        return { fn, value: bits(w5, w6, k) };
      case 'take':
        return { fn, value: { ok: v === 1, outputs: this.taken(tid, w5, w6, k) } };
      case 'shutdown':
        return { fn, value: v === 0 ? 'done' : 'already' };
      case 'resident_count':
        return { fn, value: v };
      default:
        return null;
    }
  }

  private keysAfter(at: number, tid: number): { layer: number; eid: number }[] {
    const keys: { layer: number; eid: number }[] = [];
    for (let i = at + 1; i < this.recs.length; i++) {
      const r = this.recs[i];
      if (r === undefined || r.c !== 'engine' || r.tid !== tid || r.kind !== 'ret_key') {
        if (r !== undefined && r.c === 'engine' && r.tid === tid) break;
        continue;
      }
      keys.push({ layer: r.a[0] ?? 0, eid: r.a[1] ?? 0 });
    }
    return keys;
  }

  private taken(tid: number, lo: number, hi: number, k: number): Map<number, never> {
    const eids = this.routes.get(tid)?.eids ?? [];
    const out = new Map<number, never>();
    bits(lo, hi, k).forEach((b, i) => {
      const eid = eids[i];
      if (b && eid !== undefined) out.set(eid, {} as never);
    });
    return out;
  }

  private contrib(e: EngineEvent): null {
    const [, , eid = 0, where = 0, token = -1, layer = -1, peid = -1] = e.a;
    const list = this.parts.get(e.tid) ?? [];
    const output = { token, layer, eid: peid } as unknown as Contribution['output'];
    list.push({ eid, output, where: where === 0 ? 'gpu' : 'cpu' });
    this.parts.set(e.tid, list);
    return null;
  }

  private combine(e: EngineEvent): EngineAction {
    const [token = 0, layer = 0] = e.a;
    const parts = this.parts.get(e.tid) ?? [];
    this.parts.delete(e.tid);
    return { did: this.world.combine(token, layer, this.routes.get(e.tid)?.eids ?? [], parts) };
  }
}
