/**
 * Every bug the properties found and that was fixed stays fixed, and its counterexample
 * still checks the fix: each file in properties/replays/ replays clean on today's sources
 * (and prints the same trace every time), and with its regression patch applied to a
 * scratch copy (the mutants' patcher and scratch replay, as `npm run mutants -- --replay
 * FILE` does) the same schedule violates the file's property. A schedule that no longer
 * reaches the race, or a patch that no longer puts the bug back, fails the second half.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { regressionMutant, replayInScratch } from '../../mutants/lib/replay.js';
import { loadCounterexample } from '../../properties/counterexample_file.js';
import { replayCounterexample } from '../../properties/runner.js';
import { exitForViolations } from '../../src/check/exit_codes.js';

const dir = join(REPO_ROOT, 'properties/replays');
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

describe('replays of fixed bugs', () => {
  it('there is at least one', () => {
    expect(files.length).toBeGreaterThan(0);
  });
  for (const name of files) {
    const file = join(dir, name);

    it(`${name} replays clean and deterministically`, () => {
      const cx = loadCounterexample(file);
      const a = replayCounterexample(cx.scenario, cx.choices);
      const b = replayCounterexample(cx.scenario, cx.choices);
      expect(a.scheduleProblem).toBeNull();
      expect(a.violation?.message ?? null).toBeNull();
      expect(a.trace?.hash()).toBe(b.trace?.hash());
    });

    it(`${name} violates its property with its regression patch applied`, async () => {
      const cx = loadCounterexample(file);
      expect(cx.regression, `${name} has no regression patch`).not.toBeNull();
      if (cx.regression === null) return;
      const mutant = regressionMutant(file, cx, cx.regression);
      const r = await replayInScratch(REPO_ROOT, REPO_ROOT, file, mutant, { full: false, inherit: false });
      // the replay's verdict line, or why there is none
      const verdict =
        /^(VIOLATED [A-Z0-9-]+|no violation.*)/m.exec(r.stdout)?.[1] ?? `exit ${r.rc}: ${r.stderr.trim()}`;
      expect(verdict).toBe(`VIOLATED ${cx.property}`);
      expect(r.rc).toBe(exitForViolations([cx.property]));
    });
  }
});
