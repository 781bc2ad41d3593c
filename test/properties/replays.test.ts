/**
 * Every bug the properties found and that was fixed stays fixed: each counterexample in
 * properties/replays/ replays clean (and prints the same trace every time).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCounterexample } from '../../properties/counterexample_file.js';
import { replayCounterexample } from '../../properties/runner.js';

const dir = 'properties/replays';
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

describe('replays of fixed bugs', () => {
  it('there is at least one', () => {
    expect(files.length).toBeGreaterThan(0);
  });
  for (const file of files) {
    it(`${file} replays clean and deterministically`, () => {
      const cx = loadCounterexample(join(dir, file));
      const a = replayCounterexample(cx.scenario, cx.choices);
      const b = replayCounterexample(cx.scenario, cx.choices);
      expect(a.scheduleProblem).toBeNull();
      expect(a.violation?.message ?? null).toBeNull();
      expect(a.trace?.hash()).toBe(b.trace?.hash());
    });
  }
});
