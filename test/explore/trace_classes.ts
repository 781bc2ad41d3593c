/**
 * An oracle for the reduction tests, independent of the explorers: enumerate every
 * interleaving of a program by brute force (a choice list per run), record each run's
 * events (thread, spurious or not, footprint), and name its Mazurkiewicz trace by a
 * canonical linearization (the least event key first among events whose dependent
 * predecessors have all been taken). Equivalent runs get the same name.
 *
 * Two relations: `sleep`, the footprints of footprint.ts that the sleep-set search uses,
 * and `dpor`, the refinement of dependence.ts (spawn and join touch only the thread
 * table, mx roles). A signal's choice of waiter is part of its event's name.
 */
import { dependent as sleepDependent, stepFootprint, type Footprint } from '../../model/explore/footprint.js';
import { dependent as dporDependent, eventFp, spuriousFp, type EventFp } from '../../model/explore/dpor/dependence.js';
import type { Subject } from '../../model/explore/subject.js';
import type { ChoiceContext, DecisionKind, Strategy } from '../../model/rt/strategy.js';
import type { SimThread } from '../../model/rt/thread.js';

export type Relation = 'sleep' | 'dpor';

interface Step {
  readonly tid: number;
  /** tid * 2, plus 1 for a spurious wakeup */
  readonly key: number;
  readonly fp: Footprint;
  readonly efp: EventFp;
  choice: number;
}

const SPURIOUS_SLEEP_FP: Footprint = { reads: 0, writes: 1, global: false };

class Recorder implements Strategy {
  readonly name = 'recorder';
  readonly path: number[] = [];
  readonly widths: number[] = [];
  readonly steps: Step[] = [];
  private i = 0;
  constructor(
    private readonly prefix: readonly number[],
    private readonly checks = false,
  ) {}
  pick(n: number, kind: DecisionKind, _ctx?: ChoiceContext): number {
    const o = this.prefix[this.i] ?? 0;
    this.i++;
    this.widths.push(n);
    this.path.push(o);
    const last = this.steps[this.steps.length - 1];
    if (kind === 'wake' && last !== undefined) last.choice = o;
    return o;
  }
  onStep(th: SimThread, holdsMx: boolean, _step = 0, holdsGmx = false): void {
    this.steps.push({
      tid: th.tid,
      key: th.tid * 2,
      fp: stepFootprint(th.pending, th.reacquire, holdsMx, this.checks, holdsGmx, th.relock),
      efp: eventFp(th.pending, th.reacquire, holdsMx, this.checks, holdsGmx, th.relock),
      choice: -1,
    });
  }
  onSpurious(th: SimThread): void {
    // the waiter's mutex decides which mutex events the wakeup meets (held or not only matters to reversal)
    const efp = spuriousFp(false, th.waitingOn === 'gcv' ? 'gmx' : 'mx');
    this.steps.push({ tid: th.tid, key: th.tid * 2 + 1, fp: SPURIOUS_SLEEP_FP, efp, choice: -1 });
  }
}

export function traceName(steps: readonly Step[], relation: Relation = 'sleep'): string {
  const n = steps.length;
  const dep = (a: Step, b: Step): boolean =>
    a.tid === b.tid || (relation === 'sleep' ? sleepDependent(a.fp, b.fp) : dporDependent(a.efp, b.efp));
  const preds: number[][] = steps.map(() => []);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < j; i++) {
      const a = steps[i];
      const b = steps[j];
      if (a !== undefined && b !== undefined && dep(a, b)) preds[j]?.push(i);
    }
  }
  const done = new Array<boolean>(n).fill(false);
  const out: string[] = [];
  for (let k = 0; k < n; k++) {
    let pick = -1;
    for (let j = 0; j < n; j++) {
      if (done[j] === true || !(preds[j] ?? []).every((i) => done[i] === true)) continue;
      if (pick < 0 || (steps[j]?.key ?? 0) < (steps[pick]?.key ?? 0)) pick = j;
    }
    done[pick] = true;
    const s = steps[pick];
    out.push(`${s?.key ?? '?'}${s !== undefined && s.choice >= 0 ? `/${s.choice}` : ''}`);
  }
  return out.join('.');
}

/** Every complete interleaving's trace name (brute force over all choice lists). */
export function allTraceNames(subject: Subject, relation: Relation = 'sleep'): { runs: number; names: Set<string> } {
  const names = new Set<string>();
  let runs = 0;
  const visit = (prefix: number[]): void => {
    const r = new Recorder(prefix, subject.checks);
    subject.run(r);
    runs++;
    names.add(traceName(r.steps, relation));
    // branch on every choice point past the prefix: options 1.. of each
    for (let d = r.widths.length - 1; d >= prefix.length; d--) {
      for (let o = 1; o < (r.widths[d] ?? 1); o++) visit([...r.path.slice(0, d), o]);
    }
  };
  visit([]);
  return { runs, names };
}

/** Wraps a subject so that the trace class (DPOR relation) of every schedule the search completes lands in `names`. */
export function recording(subject: Subject, names: Set<string>): Subject {
  return {
    checks: subject.checks,
    spuriousWakeups: subject.spuriousWakeups,
    run(strategy: Strategy, probe) {
      const rec = new Recorder([], subject.checks);
      const both: Strategy = {
        name: 'both',
        path: strategy.path,
        pick: (n, kind, ctx) => {
          const o = strategy.pick(n, kind, ctx);
          rec.pick(n, kind, ctx);
          rec.path[rec.path.length - 1] = o;
          const last = rec.steps[rec.steps.length - 1];
          if (kind === 'wake' && last !== undefined) last.choice = o;
          return o;
        },
        onStep: (th, holds, step, holdsGmx) => {
          strategy.onStep?.(th, holds, step, holdsGmx);
          rec.onStep(th, holds, step, holdsGmx);
        },
        onSpurious: (th) => {
          strategy.onSpurious?.(th);
          rec.onSpurious(th);
        },
      };
      const r = subject.run(both, probe);
      names.add(traceName(rec.steps, 'dpor'));
      return r;
    },
  };
}

export { Recorder };
