/**
 * Optimal DPOR against a brute-force oracle: on toy programs with plain ops, critical
 * sections, condition variables and spurious wakeups, every Mazurkiewicz trace is
 * explored exactly once, never a sleep-blocked run, and violations replay. Under a
 * preemption bound (BPOR), the traces explored are exactly those with a schedule within
 * the bound, which plain DFS within the bound enumerates. (The largest program's unbounded
 * oracle runs nightly: dpor.nightly.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { dporSearch } from '../../model/explore/dpor/search.js';
import { search } from '../../model/explore/search.js';
import { eachTraceOnce, LARGEST, programs, unboundedOnly } from './dpor_programs.js';
import { Recorder, recording } from './trace_classes.js';
import { lockedIncrement, racyIncrement, spawner, toySubject } from './toy_subject.js';

describe('optimal DPOR', () => {
  // the largest program's unbounded oracle is dpor.nightly.test.ts's
  for (const [label, subject] of [...programs, ...unboundedOnly].filter(([l]) => l !== LARGEST)) {
    it(`explores each Mazurkiewicz trace exactly once: ${label}`, () => eachTraceOnce(subject));
  }

  // the oracle: plain DFS within the bound runs every schedule of at most P preemptions
  for (const bound of [0, 1, 2]) {
    for (const [label, subject] of programs) {
      it(`under a bound of ${bound}, explores every trace with a schedule within it: ${label}`, () => {
        const oracle = new Set<string>();
        const dfs = search(recording(subject, oracle), { preemptions: bound, reduce: false, stopOnViolation: false });
        const covered = new Set<string>();
        const r = dporSearch(recording(subject, covered), { preemptions: bound, reduce: true, stopOnViolation: false });
        expect(dfs.complete).toBe(true);
        expect(r.complete).toBe(true);
        expect(covered).toEqual(oracle);
      });
    }
  }

  it('finds the lost update and its choices replay', () => {
    const subject = toySubject(spawner([racyIncrement(), racyIncrement()]), 2);
    const r = dporSearch(subject, { preemptions: Infinity, reduce: true });
    expect(r.violations.map((v) => v.property)).toEqual(['COMP-EXACT-ONCE']);
    const v = r.violations[0];
    if (v === undefined) throw new Error('no violation');
    expect(subject.run(new Recorder(v.choices)).violation?.property).toBe('COMP-EXACT-ONCE');
    // under mx the increments are atomic: no violation in any trace
    expect(
      dporSearch(toySubject(spawner([lockedIncrement(), lockedIncrement()]), 2), {
        preemptions: Infinity,
        reduce: true,
      }).violations,
    ).toEqual([]);
  });
});
