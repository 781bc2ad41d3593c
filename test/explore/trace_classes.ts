/**
 * An oracle for the reduction tests, independent of the explorer: enumerate every
 * interleaving of a toy program by brute force (a choice list per run), record each
 * run's steps (thread and footprint), and name its Mazurkiewicz trace by a canonical
 * linearization (the least thread id first among steps whose dependent predecessors
 * have all been taken). Equivalent runs get the same name.
 */
import { dependent, stepFootprint, type Footprint } from '../../model/explore/footprint.js';
import type { Subject } from '../../model/explore/subject.js';
import type { ChoiceContext, Strategy } from '../../model/rt/strategy.js';
import type { SimThread } from '../../model/rt/thread.js';

interface Step {
  readonly tid: number;
  readonly fp: Footprint;
}

class Recorder implements Strategy {
  readonly name = 'recorder';
  readonly path: number[] = [];
  readonly widths: number[] = [];
  readonly steps: Step[] = [];
  private i = 0;
  constructor(private readonly prefix: readonly number[]) {}
  pick(n: number, _kind: unknown, _ctx: ChoiceContext): number {
    const o = this.prefix[this.i] ?? 0;
    this.i++;
    this.widths.push(n);
    this.path.push(o);
    return o;
  }
  onStep(th: SimThread, holdsMx: boolean): void {
    this.steps.push({ tid: th.tid, fp: stepFootprint(th.pending, th.reacquire, holdsMx, false) });
  }
}

export function traceName(steps: readonly Step[]): string {
  const n = steps.length;
  const preds: number[][] = steps.map(() => []);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < j; i++) {
      const a = steps[i];
      const b = steps[j];
      if (a !== undefined && b !== undefined && (a.tid === b.tid || dependent(a.fp, b.fp))) preds[j]?.push(i);
    }
  }
  const done = new Array<boolean>(n).fill(false);
  const out: string[] = [];
  for (let k = 0; k < n; k++) {
    let pick = -1;
    for (let j = 0; j < n; j++) {
      if (done[j] === true || !(preds[j] ?? []).every((i) => done[i] === true)) continue;
      if (pick < 0 || (steps[j]?.tid ?? 0) < (steps[pick]?.tid ?? 0)) pick = j;
    }
    done[pick] = true;
    out.push(String(steps[pick]?.tid));
  }
  return out.join('.');
}

/** Every complete interleaving's trace name (brute force over all choice lists). */
export function allTraceNames(subject: Subject): { runs: number; names: Set<string> } {
  const names = new Set<string>();
  let runs = 0;
  const visit = (prefix: number[]): void => {
    const r = new Recorder(prefix);
    subject.run(r);
    runs++;
    names.add(traceName(r.steps));
    // branch on every choice point past the prefix: options 1.. of each
    for (let d = r.widths.length - 1; d >= prefix.length; d--) {
      for (let o = 1; o < (r.widths[d] ?? 1); o++) visit([...r.path.slice(0, d), o]);
    }
  };
  visit([]);
  return { runs, names };
}

export { Recorder };
