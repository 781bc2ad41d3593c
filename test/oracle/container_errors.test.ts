// Every way a container can be broken gives a FixtureError whose one-line message
// names the file and the problem; nothing else is thrown.

import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FixtureError, loadModel } from '../../src/fixture/container.js';
import { tempDir, withFiles, withManifest, writeSmallModel } from './small_model.js';

let src = '';
let weights: Buffer = Buffer.alloc(0);
let fp8 = '';
beforeAll(() => {
  src = writeSmallModel(4).dir;
  weights = readFileSync(join(src, 'weights.bin'));
  fp8 = writeSmallModel(8, 3, 1).dir;
});

function sha(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

/** Loads dir and returns the FixtureError it must throw. */
function failure(dir: string): FixtureError {
  try {
    loadModel(dir);
  } catch (e) {
    if (e instanceof FixtureError) return e;
    throw new Error(`expected a FixtureError, got ${String(e)}`);
  }
  throw new Error(`expected ${dir} to be rejected`);
}

type Tensor = { name: string; dtype: string; shape: number[]; offset: number; bytes: number };
const tensor = (m: Record<string, any>, name: string): Tensor => {
  const t = (m['tensors'] as Tensor[]).find((x) => x.name === name);
  if (t === undefined) throw new Error(`no tensor ${name}`);
  return t;
};

interface Case {
  readonly what: string;
  readonly make: () => string;
  readonly file: 'manifest.json' | 'weights.bin' | 'dir';
  readonly match: RegExp;
}

const cases: Case[] = [
  { what: 'a missing directory', make: () => join(tempDir('gone'), 'nope'), file: 'dir', match: /does not exist/ },
  {
    what: 'a missing manifest',
    make: () => withFiles(src, { manifest: null }),
    file: 'manifest.json',
    match: /cannot read the manifest \(missing\)/,
  },
  {
    what: 'a missing weights.bin',
    make: () => withFiles(src, { weights: null }),
    file: 'weights.bin',
    match: /cannot read the weights \(missing\)/,
  },
  {
    what: 'bad JSON',
    make: () => withFiles(src, { manifest: '{"format": "tierlab-moe",' }),
    file: 'manifest.json',
    match: /not valid JSON/,
  },
  {
    what: 'a JSON array',
    make: () => withFiles(src, { manifest: '[]' }),
    file: 'manifest.json',
    match: /expected an object/,
  },
  {
    what: 'a wrong format name',
    make: () =>
      withManifest(src, (m) => {
        m['format'] = 'gguf';
      }),
    file: 'manifest.json',
    match: /format: "gguf" is not "tierlab-moe"/,
  },
  {
    what: 'a wrong version',
    make: () =>
      withManifest(src, (m) => {
        m['version'] = 2;
      }),
    file: 'manifest.json',
    match: /version 2 is not supported/,
  },
  {
    what: 'a missing top-level key',
    make: () =>
      withManifest(src, (m) => {
        delete m['prompt'];
      }),
    file: 'manifest.json',
    match: /missing key "prompt"/,
  },
  {
    what: 'an unknown key',
    make: () =>
      withManifest(src, (m) => {
        m['extra'] = 1;
      }),
    file: 'manifest.json',
    match: /unknown key "extra"/,
  },
  {
    what: 'a missing shape key',
    make: () =>
      withManifest(src, (m) => {
        delete m['shape'].heads;
      }),
    file: 'manifest.json',
    match: /shape: missing key "heads"/,
  },
  {
    what: 'an unknown expert format',
    make: () =>
      withManifest(src, (m) => {
        m['shape'].expertFormat = 3;
      }),
    file: 'manifest.json',
    match: /expertFormat: 3 is not 1, 2, 4 or 8/,
  },
  {
    what: 'an unknown trunk format',
    make: () =>
      withManifest(src, (m) => {
        m['shape'].trunkFormat = 2;
      }),
    file: 'manifest.json',
    match: /trunkFormat: 2 is not 0 \(float32\) or 1 \(int8 rows\)/,
  },
  {
    what: 'a missing fp8 scale block',
    make: () =>
      withManifest(fp8, (m) => {
        tensor(m, 'L0.E1.down_s').shape = [1];
        tensor(m, 'L0.E1.down_s').bytes = 4;
      }),
    file: 'manifest.json',
    match: /tensor "L0\.E1\.down_s"\.shape: is \[1\], the model shape needs \[1, 1\]/,
  },
  {
    what: 'an fp8 NaN encoding (with a matching sha256)',
    make: () => {
      const bytes = Buffer.from(readFileSync(join(fp8, 'weights.bin')));
      const m = JSON.parse(readFileSync(join(fp8, 'manifest.json'), 'utf8')) as Record<string, any>;
      bytes[tensor(m, 'L1.E2.up').offset + 5] = 0xff;
      return withManifest(withFiles(fp8, { weights: bytes }), (mm) => {
        mm['reference'].weightsSha256 = sha(bytes);
      });
    },
    file: 'weights.bin',
    match: /tensor "L1\.E2\.up" byte 5 is the fp8 NaN encoding 0xff \(format 8 weights must be finite\)/,
  },
  {
    what: 'heads not dividing hidden',
    make: () =>
      withManifest(src, (m) => {
        m['shape'].heads = 3;
      }),
    file: 'manifest.json',
    match: /heads = 3 does not divide hidden = 16/,
  },
  {
    what: 'groupSize not dividing hidden',
    make: () =>
      withManifest(src, (m) => {
        m['shape'].groupSize = 5;
      }),
    file: 'manifest.json',
    match: /groupSize = 5 does not divide hidden = 16/,
  },
  {
    what: 'groupSize not dividing expertWidth',
    make: () =>
      withManifest(src, (m) => {
        m['shape'].groupSize = 16;
      }),
    file: 'manifest.json',
    match: /groupSize = 16 does not divide expertWidth = 8/,
  },
  {
    what: 'topk above experts',
    make: () =>
      withManifest(src, (m) => {
        m['shape'].topk = 5;
      }),
    file: 'manifest.json',
    match: /topk = 5 exceeds experts = 4/,
  },
  {
    what: 'topk above 32',
    make: () =>
      withManifest(src, (m) => {
        m['shape'].experts = 40;
        m['shape'].topk = 33;
      }),
    file: 'manifest.json',
    match: /topk = 33 is not an integer in \[1, 32\]/,
  },
  {
    what: 'a fractional dimension',
    make: () =>
      withManifest(src, (m) => {
        m['shape'].hidden = 16.5;
      }),
    file: 'manifest.json',
    match: /shape\.hidden: expected an integer, got 16\.5/,
  },
  {
    what: 'a prompt token >= vocab',
    make: () =>
      withManifest(src, (m) => {
        m['prompt'][1] = 32;
      }),
    file: 'manifest.json',
    match: /prompt\[1\]: 32 is out of range \[0, 31\]/,
  },
  {
    what: 'a negative prompt token',
    make: () =>
      withManifest(src, (m) => {
        m['prompt'][0] = -1;
      }),
    file: 'manifest.json',
    match: /prompt\[0\]: -1 is out of range/,
  },
  {
    what: 'an empty prompt',
    make: () =>
      withManifest(src, (m) => {
        m['prompt'] = [];
      }),
    file: 'manifest.json',
    match: /prompt: needs 1 to \d+ token ids, has 0/,
  },
  {
    what: 'a reference token >= vocab',
    make: () =>
      withManifest(src, (m) => {
        m['reference'].tokens[2] = 99;
      }),
    file: 'manifest.json',
    match: /reference\.tokens\[2\]: 99 is out of range/,
  },
  {
    what: 'margins not matching tokens',
    make: () =>
      withManifest(src, (m) => {
        m['reference'].margins.pop();
      }),
    file: 'manifest.json',
    match: /reference\.margins: has 2 entries for 3 tokens/,
  },
  {
    what: 'a wrong minMargin',
    make: () =>
      withManifest(src, (m) => {
        m['reference'].minMargin = 0.5;
      }),
    file: 'manifest.json',
    match: /minMargin: 0\.5 is not the minimum/,
  },
  {
    what: 'a malformed sha256',
    make: () =>
      withManifest(src, (m) => {
        m['reference'].weightsSha256 = 'abc';
      }),
    file: 'manifest.json',
    match: /weightsSha256: is not 64 lowercase hex digits/,
  },
  {
    what: 'a missing tensor',
    make: () =>
      withManifest(src, (m) => {
        m['tensors'] = m['tensors'].filter((t: Tensor) => t.name !== 'L1.E2.up_s');
      }),
    file: 'manifest.json',
    match: /missing tensor "L1\.E2\.up_s"/,
  },
  {
    what: 'a duplicate tensor',
    make: () =>
      withManifest(src, (m) => {
        m['tensors'].push({ ...tensor(m, 'L0.wq') });
      }),
    file: 'manifest.json',
    match: /tensor "L0\.wq": listed twice/,
  },
  {
    what: 'an unknown tensor',
    make: () =>
      withManifest(src, (m) => {
        m['tensors'].push({ ...tensor(m, 'L0.wq'), name: 'L9.wq' });
      }),
    file: 'manifest.json',
    match: /tensor "L9\.wq": is not part of a model of this shape/,
  },
  {
    what: 'a wrong dtype',
    make: () =>
      withManifest(src, (m) => {
        tensor(m, 'L0.E0.gate').dtype = 'i8';
      }),
    file: 'manifest.json',
    match: /tensor "L0\.E0\.gate"\.dtype: is i8, the shape needs u8/,
  },
  {
    what: 'an unknown dtype',
    make: () =>
      withManifest(src, (m) => {
        tensor(m, 'embed').dtype = 'f16';
      }),
    file: 'manifest.json',
    match: /"f16" is not f32, i8 or u8/,
  },
  {
    what: 'a wrong shape',
    make: () =>
      withManifest(src, (m) => {
        tensor(m, 'L1.router').shape = [16, 4];
      }),
    file: 'manifest.json',
    match: /tensor "L1\.router"\.shape: is \[16, 4\], the model shape needs \[4, 16\]/,
  },
  {
    what: 'wrong bytes for the shape',
    make: () =>
      withManifest(src, (m) => {
        tensor(m, 'out_norm').bytes = 60;
      }),
    file: 'manifest.json',
    match: /tensor "out_norm"\.bytes: is 60, f32\[16\] is 64/,
  },
  {
    what: 'a misaligned offset',
    make: () =>
      withManifest(src, (m) => {
        tensor(m, 'lm_head').offset += 4;
      }),
    file: 'manifest.json',
    match: /offset: \d+ is not a multiple of 64/,
  },
  {
    what: 'overlapping tensors',
    make: () =>
      withManifest(src, (m) => {
        tensor(m, 'out_norm').offset = tensor(m, 'silu_lut').offset;
      }),
    file: 'manifest.json',
    match: /overlaps tensor/,
  },
  {
    what: 'a truncated weights.bin',
    make: () => withFiles(src, { weights: weights.subarray(0, weights.length - 100) }),
    file: 'weights.bin',
    match: /truncated: tensor "[^"]+" needs bytes \[\d+, \d+\) and the file has \d+ bytes/,
  },
  {
    what: 'an empty weights.bin',
    make: () => withFiles(src, { weights: new Uint8Array(0) }),
    file: 'weights.bin',
    match: /truncated/,
  },
  {
    what: 'trailing bytes',
    make: () => withFiles(src, { weights: Buffer.concat([weights, Buffer.alloc(64)]) }),
    file: 'weights.bin',
    match: /has 64 bytes after the last tensor/,
  },
  {
    what: 'a sha256 mismatch',
    make: () => {
      const bad = Buffer.from(weights);
      bad[bad.length - 1] = (bad[bad.length - 1] ?? 0) ^ 1;
      return withFiles(src, { weights: bad });
    },
    file: 'weights.bin',
    match: /sha256 [0-9a-f]{64} does not match manifest reference\.weightsSha256/,
  },
  {
    what: 'a NaN weight (with a matching sha256)',
    make: () => {
      const bad = Buffer.from(weights);
      bad.writeFloatLE(Number.NaN, 8);
      return withManifest(withFiles(src, { weights: bad }), (m) => {
        m['reference'].weightsSha256 = sha(bad);
      });
    },
    file: 'weights.bin',
    match: /tensor "embed" element 2 is not finite/,
  },
];

describe('loadModel rejects broken containers with a FixtureError', () => {
  for (const c of cases) {
    it(c.what, () => {
      const dir = c.make();
      const err = failure(dir);
      expect(err.message).toMatch(c.match);
      expect(err.message).not.toContain('\n');
      const where = c.file === 'dir' ? dir : join(dir, c.file);
      expect(err.file).toBe(where);
      expect(err.message.startsWith(`${where}: `)).toBe(true);
      rmSync(c.file === 'dir' ? join(dir, '..') : dir, { recursive: true, force: true });
    });
  }

  it('a file where the directory should be', () => {
    const file = join(src, 'manifest.json');
    expect(failure(file).message).toMatch(/is not a directory/);
  });

  it('the untouched model still loads', () => {
    expect(loadModel(src).shape.hidden).toBe(16);
  });
});
