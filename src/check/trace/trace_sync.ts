/**
 * What a free run's log implies about its threads and sync objects, read ahead of the
 * reference replay (trace_records.ts), in the order the trace check consumed the log:
 *  - which thread each `signal` (a `wake` with value2 0) woke: a signal wakes one of the
 *    threads then asleep on its condition variable, and the log shows which one only by
 *    that thread's next section of mx (its relock); each relock takes the oldest signal
 *    on its variable given since its wait that no other relock took. A relock no signal
 *    and no broadcast explains is a spurious wakeup (POSIX allows them);
 *  - which thread each init's start of its uploader created, and where: the first thread
 *    new to the log after the init's trunk stage (6) whose first event is under mx (the
 *    uploader's first act is to take mx; the `be_call` of thread_start may be logged after
 *    the new thread's first events), created just before that event or before the init's
 *    change of the gate's state, whichever comes first; an init whose start failed
 *    (init_stage 7 failed) created none.
 *
 * Invariants: one pass, linear in the log's length; the answers depend only on the order
 * given, so the same order gives the same records.
 */
import { EventView, type TraceColumns } from './trace_columns.js';

/** init's trunk stage, the last before it starts the uploader (EVENTS.md, init_stage) */
const STAGE_TRUNK = 6;

export interface SyncFacts {
  /** by position in the order: the thread a signal woke (absent: none was asleep for it) */
  readonly signalled: ReadonlyMap<number, number>;
  /** by position (the uploader's first event, or its init's gate_state): the uploader
   *  created just before it */
  readonly created: ReadonlyMap<number, number>;
  /** by position of a thread's relock of mx: no signal or broadcast woke it (spurious) */
  readonly spurious: ReadonlySet<number>;
}

interface Sleeper {
  readonly cv: number;
  readonly since: number;
  woken: boolean;
}

export function syncFacts(cols: TraceColumns, order: Int32Array): SyncFacts {
  const signalled = new Map<number, number>();
  const created = new Map<number, number>();
  const spurious = new Set<number>();
  const asleep = new Map<number, Sleeper>();
  /** per condition variable (0 cv, 1 cv_take): positions of signals no relock took yet */
  const pending: number[][] = [[], []];
  const seen = new Set<number>();
  let starting = false;
  /** the init's leave of its exclusive section, when the uploader had not appeared by then */
  let leftAt = -1;
  const v = new EventView();
  for (let i = 0; i < order.length; i++) {
    const r = order[i] ?? -1;
    if (r < 0) continue;
    const e = cols.load(v, r);
    const fresh = !seen.has(e.tid);
    seen.add(e.tid);
    if (e.ev === 'init_stage') starting = e.value === STAGE_TRUNK && e.value2 === 1;
    if (e.ev === 'init_stage') leftAt = -1;
    if (starting && e.ev === 'gate_state' && leftAt < 0) leftAt = i;
    if (e.src !== 'tier' || e.lk !== 'mx') continue;
    if (fresh && starting) {
      created.set(leftAt >= 0 ? leftAt : i, e.tid);
      starting = false;
      leftAt = -1;
    }
    const s = asleep.get(e.tid);
    if (s !== undefined) {
      asleep.delete(e.tid);
      if (!s.woken && !takeSignal(pending[s.cv] ?? [], s.since, e.tid, signalled)) spurious.add(i);
    }
    if (e.ev === 'wait') asleep.set(e.tid, { cv: e.value === 0 ? 0 : 1, since: i, woken: false });
    else if (e.ev === 'wake') {
      const cv = e.value === 0 ? 0 : 1;
      // a signal with nobody asleep on its variable wakes nobody (so the lists stay short)
      if (e.value2 === 0) {
        if (sleepers(asleep, cv) > (pending[cv]?.length ?? 0)) pending[cv]?.push(i);
      } else for (const t of asleep.values()) if (t.cv === cv) t.woken = true;
    }
  }
  return { signalled, created, spurious };
}

function sleepers(asleep: ReadonlyMap<number, Sleeper>, cv: number): number {
  let n = 0;
  for (const t of asleep.values()) if (t.cv === cv && !t.woken) n++;
  return n;
}

/** The oldest signal given after `since` that no relock took yet, now taken by `tid`. */
function takeSignal(list: number[], since: number, tid: number, signalled: Map<number, number>): boolean {
  for (let k = 0; k < list.length; k++) {
    const at = list[k] ?? -1;
    if (at <= since) continue;
    list.splice(k, 1);
    signalled.set(at, tid);
    return true;
  }
  return false;
}
