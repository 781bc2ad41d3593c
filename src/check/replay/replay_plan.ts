/**
 * What the replay must know before it walks a record stream, read in one pass: the role
 * of every sync object (mx, cv, cv_take, the gate's, the trunk's), every thread's name, and
 * for every tier call the engine made: where it returns, whether the lifecycle gate
 * refused it, and (for an init) the uploader it started.
 *
 * Why the calls are read ahead: a count the gate refused is no report of residency (the
 * engine's mark after it is left out), and an init's create of its uploader is where its
 * tables are in place (replay.ts, initTables). A call returns, for the checkers, at its
 * ret record: its way out of the gate (a release of gmx) comes before, and only the gate's
 * half of the state is compared at a return, mirrored at releases of gmx only.
 */
import type { EngineEvent, Rec } from './records.js';
import type { FnName, Role } from './schema.js';
import { FN_NAMES } from './schema.js';

export interface CallPlan {
  readonly fn: FnName;
  /** index of the call's ret record (-1: it never returned) */
  readonly ret: number;
  /** the lifecycle gate refused it (it changed nothing) */
  readonly refused: boolean;
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
}

interface Open {
  at: number;
  fn: FnName;
  refused: boolean;
  spawn: number;
  child: number;
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
  const open = new Map<number, Open>();
  const close = (o: Open, ret: number): void => {
    calls.set(o.at, { fn: o.fn, ret, refused: o.refused, spawn: o.spawn });
  };
  recs.forEach((r, i) => {
    if (r.c === 'engine') return engineRecord(r, i, open, close);
    const o = r.c === 'event' || r.c === 'sched' ? open.get(r.tid) : undefined;
    if (o === undefined) return;
    if (r.c === 'event') {
      if (r.ev === 'gate_refuse') o.refused = true;
      return;
    }
    if (r.c !== 'sched') return;
    if (r.op === 'create' && o.fn === 'init' && o.spawn < 0) {
      o.spawn = i;
      o.child = r.arg;
      initSpawns.set(i, o.at);
      names.set(r.arg, 'uploader');
    }
  });
  for (const o of open.values()) close(o, -1);
  return { roles, names, calls, initSpawns };
}

function engineRecord(r: EngineEvent, i: number, open: Map<number, Open>, close: (o: Open, ret: number) => void): void {
  if (r.kind === 'call') {
    const fn = FN_NAMES[r.a[0] ?? -1];
    if (fn !== undefined) open.set(r.tid, { at: i, fn, refused: false, spawn: -1, child: -1 });
  } else if (r.kind === 'ret') {
    const o = open.get(r.tid);
    if (o === undefined) return;
    open.delete(r.tid);
    close(o, i);
  }
}
