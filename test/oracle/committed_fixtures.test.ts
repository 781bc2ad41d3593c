// The fixtures kept in the repository: they load, the float64 reference reproduces
// their recorded tokens n/n (and their margins), and the generator rebuilds them byte
// for byte from the seed the README gives (7, or 28 for the fp8 model; a rejected seed
// moves on to the next).

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildFixture } from '../../fixtures/build_fixture.js';
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

  it('regenerates byte for byte', () => {
    const built = buildFixture(
      {
        shape: model.shape,
        seed: firstSeed,
        promptTokens: model.manifest.prompt.length,
        tokens: ref.tokens.length,
      },
      () => {},
    );
    expect(built.seed).toBe(model.manifest.seed);
    const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
    expect(sha(built.written.weights)).toBe(ref.weightsSha256);
    expect(built.written.manifestText).toBe(readFileSync(`${dir}/manifest.json`, 'utf8'));
  });
});
