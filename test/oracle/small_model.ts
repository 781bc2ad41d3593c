// Test helper: a small synthetic model written to a fresh temp directory, and a way to
// make corrupted copies of it. Every call uses its own directory; nothing is shared, and
// every directory is removed when the test file that made it ends.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { ExpertFormat, ModelShape, TrunkFormat } from '../../src/fixture/model_types.js';
import type { WrittenModel } from '../../src/fixture/fixture_writer.js';
import { writeModel } from '../../src/fixture/fixture_writer.js';
import { synthesizePrompt, synthesizeTensors } from '../../fixtures/synthesize.js';

export function smallShape(expertFormat: ExpertFormat = 4, trunkFormat: TrunkFormat = 0): ModelShape {
  return {
    layers: 2,
    hidden: 16,
    heads: 2,
    experts: 4,
    topk: 2,
    expertWidth: 8,
    vocab: 32,
    groupSize: 8,
    expertFormat,
    trunkFormat,
  };
}

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(tag: string): string {
  const dir = mkdtempSync(join(tmpdir(), `tierlab-${tag}-`));
  made.push(dir);
  return dir;
}

export interface SmallModel {
  readonly dir: string;
  readonly written: WrittenModel;
  readonly tensors: Map<string, Float32Array | Int8Array | Uint8Array>;
}

export function writeSmallModel(expertFormat: ExpertFormat = 4, seed = 3, trunkFormat: TrunkFormat = 0): SmallModel {
  const shape = smallShape(expertFormat, trunkFormat);
  const tensors = synthesizeTensors(shape, seed);
  const dir = tempDir('small');
  const written = writeModel(dir, {
    shape,
    seed,
    prompt: synthesizePrompt(seed, shape.vocab, 4),
    tensors,
    reference: { tokens: [1, 2, 3], margins: [0.5, 0.25, 1], minMargin: 0.25, minRelativeMargin: 0.01 },
  });
  return { dir, written, tensors };
}

/** A copy of a model directory with its manifest JSON edited by `edit`. */
export function withManifest(src: string, edit: (m: Record<string, any>) => void): string {
  const dir = tempDir('bad');
  const m = JSON.parse(readFileSync(join(src, 'manifest.json'), 'utf8')) as Record<string, any>;
  edit(m);
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m));
  writeFileSync(join(dir, 'weights.bin'), readFileSync(join(src, 'weights.bin')));
  return dir;
}

/** A copy of a model directory with raw file contents replaced. */
export function withFiles(src: string, files: { manifest?: string | null; weights?: Uint8Array | null }): string {
  const dir = tempDir('bad');
  const manifest = files.manifest === undefined ? readFileSync(join(src, 'manifest.json'), 'utf8') : files.manifest;
  const weights = files.weights === undefined ? readFileSync(join(src, 'weights.bin')) : files.weights;
  if (manifest !== null) writeFileSync(join(dir, 'manifest.json'), manifest);
  if (weights !== null) writeFileSync(join(dir, 'weights.bin'), weights);
  return dir;
}
