// The fixture generator: deterministic (same seed, same bytes, through the library and
// through the CLI), refuses seeds that fail its checks and says so, rejects bad
// arguments with exit status 2.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildFixture } from '../../fixtures/build_fixture.js';
import { UsageError, parseArgs } from '../../fixtures/generate.js';
import { loadModel } from '../../src/fixture/container.js';
import { smallShape, tempDir } from './small_model.js';

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const small = { shape: smallShape(4), seed: 11, promptTokens: 4, tokens: 16 };
const smallArgs =
  '--layers 2 --hidden 16 --heads 2 --experts 4 --topk 2 --width 8 --vocab 32 --format 4 --group 8 --prompt 4 --tokens 16';

function cli(args: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'fixtures/generate.ts', ...args.split(' ')], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('buildFixture', () => {
  it('same seed twice gives identical files', () => {
    const a = buildFixture(small, () => {});
    const b = buildFixture(small, () => {});
    expect(sha(a.written.weights)).toBe(sha(b.written.weights));
    expect(a.written.manifestText).toBe(b.written.manifestText);
    expect(a.written.manifest.reference.tokens).toHaveLength(16);
  });

  it('a different seed gives different weights', () => {
    const a = buildFixture(small, () => {});
    const b = buildFixture({ ...small, seed: a.seed + 1 }, () => {});
    expect(sha(a.written.weights)).not.toBe(sha(b.written.weights));
  });

  it('rejects seeds below the margin bound, says so, and gives up after maxTries', () => {
    const log: string[] = [];
    expect(() => buildFixture({ ...small, minRelativeMargin: 0.9, maxTries: 2 }, (l) => log.push(l))).toThrow(
      /no seed in \[11, 13\) gives a usable fixture/,
    );
    expect(log).toHaveLength(2);
    expect(log[0]).toMatch(/^seed 11 rejected: min relative margin .* is below 0\.9; trying seed 12$/);
  });
});

describe('generate CLI', () => {
  it('writes byte-identical containers for the same arguments', () => {
    const [d1, d2] = [join(tempDir('gen'), 'm'), join(tempDir('gen'), 'm')];
    const r1 = cli(`--seed 11 ${smallArgs} --out ${d1}`);
    const r2 = cli(`--seed 11 ${smallArgs} --out ${d2}`);
    expect(r1.status, r1.stderr).toBe(0);
    expect(r2.status, r2.stderr).toBe(0);
    for (const f of ['manifest.json', 'weights.bin']) {
      expect(sha(readFileSync(join(d1, f)))).toBe(sha(readFileSync(join(d2, f))));
    }
    expect(loadModel(d1).manifest.reference.tokens).toHaveLength(16);
  });

  it('exits 2 with a message naming the bad argument', () => {
    const r = cli(`--seed 11 ${smallArgs} --heads 3 --out ${tempDir('gen')}`);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/generate: bad shape: heads = 3 does not divide hidden = 16/);
  });

  it('parseArgs names every kind of mistake', () => {
    const bad: Array<[string, RegExp]> = [
      ['--seed 1', /--out DIR is required/],
      ['--out x --seed -1', /--seed -1 is not a non-negative integer/],
      ['--out x --colour red', /unknown flag --colour/],
      ['--out x --format 3', /--format 3 is not 1 .* 2 .* 4 .* or 8/],
      ['--out x --topk 9', /topk = 9 exceeds experts = 8/],
      ['--out x --min-margin 2', /--min-margin 2 is not a number in \[0, 1\)/],
      ['--out', /--out needs a value/],
      ['stray', /unexpected argument "stray"/],
    ];
    for (const [args, re] of bad) {
      expect(() => parseArgs(args.split(' ')), args).toThrow(UsageError);
      expect(() => parseArgs(args.split(' ')), args).toThrow(re);
    }
    expect(parseArgs('--out x'.split(' ')).options.shape.expertFormat).toBe(4);
  });
});
