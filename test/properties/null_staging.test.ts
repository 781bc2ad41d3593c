/**
 * A tier that hands the world no staging copy at all (a failed `stage` returns null, and
 * a faulty uploader may go on with it) is a MEM-HOST violation at the op that uses it,
 * like every other misuse of host memory: never a TypeError inside the ledger, which is
 * the simulator's sanitizer and must not crash on what it is there to catch (review D4).
 */
import { describe, expect, it } from 'vitest';
import { runScenario } from '../../model/run.js';
import { ChoicesStrategy } from '../../model/rt/strategy.js';
import { defaultScenario } from '../../properties/committed_scenarios.js';
import type { Gen, StagingCopy } from '../../src/ops.js';

const none = null as unknown as StagingCopy;

const mains: Record<string, () => Gen<void>> = {
  'an upload from no staging copy': function* () {
    yield { k: 'upload', dev: 0, staging: none, part: 'gate', layer: 0, eid: 0 };
  },
  'freeing no staging copy': function* () {
    yield { k: 'unstage', staging: none };
  },
};

describe('a null staging copy', () => {
  for (const [name, main] of Object.entries(mains)) {
    it(`${name} is a MEM-HOST violation`, () => {
      const r = runScenario(defaultScenario(), { strategy: new ChoicesStrategy([]), main });
      expect(r.violation?.property, r.violation?.message).toBe('MEM-HOST');
      expect(r.violation?.detail).toMatch(/has no staging copy/);
    });
  }
});
