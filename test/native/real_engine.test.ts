/**
 * The real world's native pieces on the CPU backend: a container's engine form places
 * every expert tensor where the loader's views are; RAM copies are the engine's (one
 * load, lent while alive, freed exactly once, a stale lending is MEM-RAM); the
 * completion queue answers a finished group at once and an unfinished one in a batch;
 * the upload benchmark's model is a pure function of its options.
 */
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NativeEngineLib, type NativePtr } from '../../src/engine/native/binding.js';
import { libraryPath } from '../../src/engine/native/library_file.js';
import { CompletionQueue } from '../../src/engine/native/completions.js';
import { RealRamTable } from '../../src/engine/native/real_ram.js';
import { Violation } from '../../src/check/violation.js';
import { loadModel } from '../../src/fixture/container.js';
import { engineModelOf } from '../../src/fixture/engine_model.js';
import { benchShape, writeBenchModel } from '../../apps/cli/bench/bench_model.js';

const lib = new NativeEngineLib(libraryPath('cpu'));
const loaded = loadModel('fixtures/tiny-moe');
const model = engineModelOf(loaded);

async function withEngine(body: (eng: NativePtr) => void | Promise<void>): Promise<void> {
  const created = lib.createEngine([0], 0);
  expect(created.status.code).toBe(0);
  try {
    await body(created.engine);
  } finally {
    expect(lib.destroy(created.engine).code).toBe(0);
  }
}

describe('the engine form of a container', () => {
  it('places every expert tensor on the bytes the loader viewed', () => {
    const file = readFileSync(model.expertFile);
    const views = loaded.layers[1]?.experts[5];
    const places = model.experts[1]?.[5];
    if (views === undefined || places === undefined) throw new Error('fixture too small');
    for (const part of ['gate', 'up', 'down'] as const) {
      const p = places[part];
      const v = views[part];
      expect([p.rows, p.cols, p.dataBytes, p.nscales]).toEqual([v.rows, v.cols, v.data.byteLength, v.scales.length]);
      expect(
        file
          .subarray(p.dataAt, p.dataAt + p.dataBytes)
          .equals(Buffer.from(v.data.buffer, v.data.byteOffset, v.data.byteLength)),
      ).toBe(true);
      expect(
        file
          .subarray(p.scalesAt, p.scalesAt + 4 * p.nscales)
          .equals(Buffer.from(v.scales.buffer, v.scales.byteOffset, v.scales.byteLength)),
      ).toBe(true);
    }
  });
});

describe('RAM copies in native memory', () => {
  it('loads once, lends while alive, frees exactly once, and a stale read is MEM-RAM', () =>
    withEngine((eng) => {
      const ram = new RealRamTable(lib, eng, model, { kind: 'resident' });
      const all = model.shape.layers * model.shape.experts;
      expect(ram.live).toBe(all);
      expect(lib.ramStats(eng).copies).toBe(all);
      const a = ram.load(0, 3);
      expect(ram.load(0, 3)).toBe(a); // the current copy is lent, not read again
      expect(ram.loads).toBe(all);
      ram.release(a);
      expect(lib.ramStats(eng).copies).toBe(all - 1);
      expect(() => ram.check(a, 0, 3, 'CPU expert')).toThrow(Violation);
      const b = ram.load(0, 3); // none current: read from the file again
      expect(b).not.toBe(a);
      expect(ram.loads).toBe(all + 1);
      expect(() => ram.check(b, 0, 4, 'staging copy')).toThrow(/reads the RAM copy of L0E3/);
      ram.releaseAll();
      expect(ram.live).toBe(0);
      expect(lib.ramStats(eng).copies).toBe(0);
    }));
});

describe('the completion queue', () => {
  it('answers a finished group synchronously, an unfinished one through one native wait', () =>
    withEngine(async (eng) => {
      expect(lib.setLut(eng, model.siluLut).code).toBe(0);
      const places = model.experts[0]?.[0];
      if (places === undefined) throw new Error('fixture too small');
      const r = lib.ramLoadFile(eng, model.expertFile, [places.gate, places.up, places.down]);
      const s = lib.stage(eng, r.ram);
      const uploads: number[] = [];
      const q = new CompletionQueue(
        lib,
        eng,
        (c) => uploads.push(c.tag),
        (m) => {
          throw new Error(m);
        },
      );
      const t = [0, 1, 2].map((p) => lib.uploadStaged(eng, 0, s.staging, p, 2 * (p + 1)).tensor);
      const H = model.shape.hidden;
      const x = new Float32Array(H).fill(0.25);
      expect(lib.issue(eng, 0, [t[0]], [t[1]], [t[2]], x, H, 7).code).toBe(0);
      const first = q.group(7);
      const c = first instanceof Promise ? await first : first;
      expect([c.tag, c.status, c.dev]).toEqual([7, 0, 0]);
      expect(lib.take(eng, 0, new Float32Array(H), 1, H).code).toBe(0);
      q.drain();
      expect(uploads.sort()).toEqual([2, 4, 6]); // every upload landed, once
      expect(lib.issue(eng, 0, [t[0]], [t[1]], [t[2]], x, H, 9).code).toBe(0);
      expect((await lib.completionsWaitAsync(eng, 1, 10_000)).ready).toBe(1); // it is in
      const second = q.group(9);
      expect(second instanceof Promise).toBe(false);
      expect(lib.take(eng, 0, new Float32Array(H), 1, H).code).toBe(0);
      q.close();
    }));
});

describe('the upload benchmark model', () => {
  it('is a pure function of its options, with realistic tensors', () => {
    const opts = { expertGiB: 0.02, hidden: 2048, width: 768, topk: 8, seed: 3 };
    const a = join(tmpdir(), `tierlab-bm-a-${process.pid}`);
    const b = join(tmpdir(), `tierlab-bm-b-${process.pid}`);
    try {
      const ma = writeBenchModel({ ...opts, dir: a });
      const mb = writeBenchModel({ ...opts, dir: b });
      expect(readFileSync(ma.expertFile).equals(readFileSync(mb.expertFile))).toBe(true);
      expect(
        Buffer.from(ma.layers[0]?.wq.buffer ?? new ArrayBuffer(0)).equals(
          Buffer.from(mb.layers[0]?.wq.buffer ?? new ArrayBuffer(1)),
        ),
      ).toBe(true);
      const shape = benchShape({ ...opts, dir: a });
      const e = ma.experts[0]?.[0];
      expect(shape.layers * shape.experts).toBeGreaterThanOrEqual(8);
      expect(e?.gate.dataBytes).toBe((768 * 2048) / 2); // 0.75 MiB of weights, 0.84 MiB with scales
      expect(benchShape({ ...opts, dir: a, expertGiB: 16 }).layers).toBeGreaterThanOrEqual(7);
    } finally {
      rmSync(a, { recursive: true, force: true });
      rmSync(b, { recursive: true, force: true });
    }
  });
});
