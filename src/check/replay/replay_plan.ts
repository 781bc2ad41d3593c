/**
 * What the replay must know before it walks a record stream, read in one pass: the role
 * of every sync object (mx, cv, cv_take, the gate's, the trunk's), every thread's name, and
 * for every tier call the engine made: where it returns, whether the lifecycle gate
 * refused it, whether it ever held mx, and (for an init) the uploader it started.
 *
 * Why the calls are read ahead: the reference (src/protocol_ref/) has no lifecycle gate
 * yet (PROTOCOL.md's last section), so a call the C tier's gate refuses changes nothing
 * where the reference would run the call against a tier that is stopping; such calls are
 * left out of the lockstep (the other checkers still see them). A call that takes no lock
 * at all (a shutdown that finds the tier dead) stands for the reference's one empty
 * section. And a call returns, for the checkers, right after the last thing it did that
 * they see (its last release of mx, or its last backend op): what the C tier does after
 * that is leave the gate, and another thread may take mx meanwhile, whose half-done
 * section the comparison at the return must not see (tierlab's own tier returns at once).
 * An init, which holds no mx, returns so where it starts its uploader.
 */
import type { EngineEvent, Rec } from './records.js';
import type { FnName, Role } from './schema.js';
import { FN_NAMES } from './schema.js';

export interface CallPlan {
  readonly fn: FnName;
  /** index of the call's ret record (-1: it never returned) */
  readonly ret: number;
  /** the record after which the checkers see the return (the ret record itself for a
   *  refused call, whose return is where the gate let it go, and for one that did nothing
   *  the checkers see) */
  readonly retAt: number;
  /** the lifecycle gate refused it (it changed nothing) */
  readonly refused: boolean;
  /** the calling thread held mx at some point of the call */
  readonly lockedMx: boolean;
  /** an init's create of its uploader: the index of that record (-1: none) */
  readonly spawn: number;
}

export interface ReplayPlan {
  readonly roles: ReadonlyMap<number, Role>;
  readonly names: ReadonlyMap<number, string>;
  /** by the index of the call record */
  readonly calls: ReadonlyMap<number, CallPlan>;
  /** by the index of an init's create record: the index of that init's call */
  readonly initSpawns: ReadonlyMap<number, number>;
  /** by the record after which a return is seen: the ret record's index */
  readonly returnsAfter: ReadonlyMap<number, number>;
}

interface Open {
  at: number;
  fn: FnName;
  refused: boolean;
  lockedMx: boolean;
  spawn: number;
  child: number;
  /** the last record of the thread in the call that the checkers see */
  last: number;
}

export function planReplay(recs: readonly Rec[]): ReplayPlan {
  const roles = new Map<number, Role>();
  const names = new Map<number, string>();
  for (const r of recs) {
    if (r.c === 'object') roles.set(r.id, r.role);
    else if (r.c === 'thread') names.set(r.tid, r.name);
  }
  const calls = new Map<number, CallPlan>();
  const initSpawns = new Map<number, number>();
  const returnsAfter = new Map<number, number>();
  const open = new Map<number, Open>();
  const close = (o: Open, ret: number): void => {
    // a call that did nothing the checkers see returns where it returned (a shutdown that
    // found the tier dead may have waited for a teardown to finish)
    const retAt = ret;
    calls.set(o.at, { fn: o.fn, ret, retAt, refused: o.refused, lockedMx: o.lockedMx, spawn: o.spawn });
    if (ret >= 0 && retAt !== ret) returnsAfter.set(retAt, ret);
  };
  recs.forEach((r, i) => {
    if (r.c === 'engine') return engineRecord(r, i, open, close);
    const o = r.c === 'event' || r.c === 'sched' ? open.get(r.tid) : undefined;
    if (o === undefined) return;
    if (r.c === 'event') {
      if (r.ev === 'gate_refuse') o.refused = true;
      if (r.src !== 'gate' && r.ev !== 'call' && r.ev !== 'ret') o.last = i;
      return;
    }
    if (r.c !== 'sched') return;
    const role = roles.get(r.obj) ?? 'other';
    if (role === 'mx' && (r.op === 'lock' || r.op === 'relock' || r.op === 'trylock')) o.lockedMx = true;
    if (seen(r.op, role)) o.last = i;
    if (r.op === 'create' && o.fn === 'init' && o.spawn < 0) {
      o.spawn = i;
      o.child = r.arg;
      initSpawns.set(i, o.at);
      names.set(r.arg, 'uploader');
    }
  });
  for (const o of open.values()) close(o, -1);
  return { roles, names, calls, initSpawns, returnsAfter };
}

/** A trace event the checkers see: a release of mx, a notify of the tier's, a thread's life. */
function seen(op: string, role: Role): boolean {
  if (op === 'create' || op === 'join') return true;
  if (op === 'unlock' || op === 'wait' || op === 'timedwait')
    return role === 'mx' || role === 'cv' || role === 'cv_take';
  return (op === 'signal' || op === 'broadcast') && (role === 'cv' || role === 'cv_take');
}

function engineRecord(r: EngineEvent, i: number, open: Map<number, Open>, close: (o: Open, ret: number) => void): void {
  if (r.kind === 'call') {
    const fn = FN_NAMES[r.a[0] ?? -1];
    if (fn !== undefined)
      open.set(r.tid, { at: i, fn, refused: false, lockedMx: false, spawn: -1, child: -1, last: i });
  } else if (r.kind === 'ret') {
    const o = open.get(r.tid);
    if (o === undefined) return;
    open.delete(r.tid);
    close(o, i);
  }
}
