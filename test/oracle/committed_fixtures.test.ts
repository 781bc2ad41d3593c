// The fixtures kept in the repository: they load, and the float64 reference reproduces
// their recorded tokens n/n (and their margins). That the generator rebuilds them byte for
// byte is committed_fixtures.nightly.test.ts's (a minute on two busy cores).

import { describe, expect, it } from 'vitest';
import { loadModel } from '../../src/fixture/container.js';
import { referenceGenerate } from '../../src/float64/reference.js';

const FIXTURES: readonly [string, number][] = [
  ['fixtures/tiny-moe', 7],
  ['fixtures/tiny-moe-i8', 7],
  ['fixtures/wide-moe', 7],
  ['fixtures/tiny-moe-fp8', 28],
];

describe.each(FIXTURES)('%s', (dir, firstSeed) => {
  const model = loadModel(dir);
  const ref = model.manifest.reference;

  it('has at least 64 reference tokens and a safe margin', () => {
    expect(ref.tokens.length).toBeGreaterThanOrEqual(64);
    expect(ref.minRelativeMargin).toBeGreaterThanOrEqual(1e-3);
  });

  it('the float64 reference reproduces every recorded token', () => {
    const run = referenceGenerate(model, model.manifest.prompt, ref.tokens.length);
    const same = run.tokens.filter((t, i) => t === ref.tokens[i]).length;
    expect(`${same}/${ref.tokens.length}`).toBe(`${ref.tokens.length}/${ref.tokens.length}`);
    run.margins.forEach((m, i) => expect(Math.abs(m - (ref.margins[i] ?? 0))).toBeLessThanOrEqual(1e-5 * m));
  });
});
