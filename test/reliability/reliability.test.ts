/**
 * The reliability review's trials marked `ci` (test/reliability/trials.ts): at least one
 * of every class of failure it found (hangs and vacuous passes on numeric options, bad
 * scenarios and counterexamples, stack traces, option and path injection, the oracle's
 * engine failures, a truncated library, environment variables, signals). Each must come
 * out clean (one line and exit 2) or ok (the correct result). `npm run reliability`
 * runs every trial.
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Workspace } from './tools.js';
import { TRIALS } from './trials.js';

describe('reliability trials', () => {
  for (const t of TRIALS.filter((x) => x.ci === true)) {
    it(`${t.id}: ${t.what}`, async () => {
      const w = new Workspace(resolve('.'));
      try {
        const o = await t.run(w);
        expect(['clean', 'ok'], o.observed).toContain(o.verdict);
      } finally {
        rmSync(w.dir, { recursive: true, force: true });
      }
    });
  }
});
