/** Exhaustive search on toy programs: every Mazurkiewicz trace is explored, with and without reduction, and a lost update is found and replays. */
import { describe, expect, it } from 'vitest';
import { search } from '../../model/explore/search.js';
import { allTraceNames, Recorder, traceName } from './trace_classes.js';
import {
  nothing,
  output,
  racyIncrement,
  readCounter,
  spawner,
  steps,
  toySubject,
  writeCounter,
} from './toy_subject.js';

// main spawns A, then B; each has a first step (its body up to its first op) and two ops.
// A's three steps interleave with main's spawn of B followed by B's three: C(7,3) = 35.
const twoByTwo = (a: 'ram' | 'out', b: 'ram' | 'out') => {
  const op = (k: 'ram' | 'out', v: number) => (k === 'ram' ? writeCounter(v) : output);
  return spawner([steps([op(a, 1), op(a, 2)]), steps([op(b, 3), op(b, 4)])]);
};

describe('exhaustive search enumerates interleavings', () => {
  it('plain DFS finds the 35 interleavings of two threads of two ops each', () => {
    const r = search(toySubject(twoByTwo('out', 'ram')), { preemptions: Infinity, reduce: false });
    expect(r.complete).toBe(true);
    expect(r.schedules).toBe(35);
    expect(r.blocked).toBe(0);
    expect(allTraceNames(toySubject(twoByTwo('out', 'ram'))).runs).toBe(35);
  });

  it('with no preemption allowed, only who starts first after main ends is free: 2 schedules', () => {
    const r = search(toySubject(twoByTwo('out', 'ram')), { preemptions: 0, reduce: false });
    expect(r.schedules).toBe(2);
  });

  it('sleep sets explore one run per Mazurkiewicz trace', () => {
    // independent ops: only how many of A's 3 steps precede the spawn of B matters (4 traces)
    const indep = search(toySubject(twoByTwo('out', 'ram')), { preemptions: Infinity, reduce: true });
    expect(indep.complete).toBe(true);
    expect(indep.schedules).toBe(4);
    expect(allTraceNames(toySubject(twoByTwo('out', 'ram'))).names.size).toBe(4);
    // conflicting ops: the brute-force oracle counts the traces
    const subject = toySubject(twoByTwo('ram', 'ram'));
    const oracle = allTraceNames(subject);
    const red = search(subject, { preemptions: Infinity, reduce: true });
    expect(red.complete).toBe(true);
    expect(red.schedules).toBe(oracle.names.size);
    expect(oracle.names.size).toBeLessThan(oracle.runs);
  });

  it('every trace the brute force sees is covered by the reduced search', () => {
    const subject = toySubject(spawner([racyIncrement(), racyIncrement(), steps([nothing, output, writeCounter(7)])]));
    const oracle = allTraceNames(subject);
    const covered = new Set<string>();
    // record the trace name of every schedule the reduced search completes
    const recording = {
      checks: false,
      run(strategy: Parameters<typeof subject.run>[0]) {
        const rec = new Recorder([]);
        const inner = strategy;
        const both = {
          name: 'both',
          path: inner.path,
          pick: (n: number, kind: 'thread' | 'wake', ctx: Parameters<typeof inner.pick>[2]) => inner.pick(n, kind, ctx),
          onStep: (
            th: Parameters<NonNullable<typeof inner.onStep>>[0],
            holds: boolean,
            step: number,
            gmx?: boolean,
          ) => {
            rec.onStep(th, holds, step, gmx);
            inner.onStep?.(th, holds, step, gmx);
          },
          onSpurious: (th: Parameters<NonNullable<typeof inner.onSpurious>>[0]) => inner.onSpurious?.(th),
        };
        const r = subject.run(both);
        covered.add(traceName(rec.steps));
        return r;
      },
    };
    const red = search(recording, { preemptions: Infinity, reduce: true, stopOnViolation: false });
    expect(red.complete).toBe(true);
    expect(covered).toEqual(oracle.names);
    expect(red.schedules).toBeLessThan(oracle.runs);
  });

  it('finds a lost update, with and without reduction, and its choices replay', () => {
    const subject = toySubject(spawner([racyIncrement(), racyIncrement()]), 2);
    for (const reduce of [false, true]) {
      const r = search(subject, { preemptions: 1, reduce });
      expect(r.violations.map((v) => v.property)).toEqual(['COMP-EXACT-ONCE']);
      const v = r.violations[0];
      if (v === undefined) throw new Error('no violation');
      const again = subject.run(new Recorder(v.choices));
      expect(again.violation?.property).toBe('COMP-EXACT-ONCE');
    }
    // the read and the write of one thread are not atomic: no preemption, no bug
    expect(search(subject, { preemptions: 0, reduce: true }).violations).toEqual([]);
  });

  it('is deterministic: the same search twice gives the same counts', () => {
    const subject = toySubject(spawner([racyIncrement(), racyIncrement(), steps([readCounter, output])]), 2);
    const a = search(subject, { preemptions: 2, reduce: true, stopOnViolation: false });
    const b = search(subject, { preemptions: 2, reduce: true, stopOnViolation: false });
    expect([b.schedules, b.blocked, b.nodes, b.violatingSchedules]).toEqual([
      a.schedules,
      a.blocked,
      a.nodes,
      a.violatingSchedules,
    ]);
  });
});
