/**
 * Optimal DPOR against the brute-force oracle on the largest toy program (two spurious
 * wakeups under a held mx, then a lock): every Mazurkiewicz trace explored exactly once.
 * Nightly (npm run test:nightly): its oracle enumerates every schedule, a minute on two
 * busy cores; dpor.test.ts checks the other programs in npm test.
 */
import { describe, it } from 'vitest';
import { eachTraceOnce, LARGEST, programs } from './dpor_programs.js';

describe('optimal DPOR, the largest toy program', () => {
  for (const [label, subject] of programs.filter(([l]) => l === LARGEST))
    it(`explores each Mazurkiewicz trace exactly once: ${label}`, () => eachTraceOnce(subject));
});
