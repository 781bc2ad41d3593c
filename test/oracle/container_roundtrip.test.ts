// The container round trip: what writeModel writes, loadModel gives back, byte for
// byte, for every expert format; views share the file's memory.

import { describe, expect, it } from 'vitest';
import { loadModel } from '../../src/fixture/container.js';
import { expertName, layerName } from '../../src/fixture/fixture_layout.js';
import type { ExpertFormat } from '../../src/fixture/model_types.js';
import { writeSmallModel } from './small_model.js';

function bytesOf(v: Float32Array | Int8Array | Uint8Array): number[] {
  return Array.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
}

describe('container round trip', () => {
  for (const fmt of [1, 2, 4, 8] as ExpertFormat[]) {
    it(`format ${fmt}: every tensor comes back identical`, () => {
      const { dir, written, tensors } = writeSmallModel(fmt, 3, fmt === 8 ? 1 : 0);
      const m = loadModel(dir);
      expect(m.manifest).toEqual(written.manifest);
      expect(m.shape.expertFormat).toBe(fmt);
      const want = (name: string): number[] => {
        const t = tensors.get(name);
        if (t === undefined) throw new Error(`no tensor ${name}`);
        return bytesOf(t);
      };
      expect(bytesOf(m.embed)).toEqual(want('embed'));
      expect(bytesOf(m.siluLut)).toEqual(want('silu_lut'));
      expect(bytesOf(m.outNorm)).toEqual(want('out_norm'));
      expect(bytesOf(m.lmHead)).toEqual(want('lm_head'));
      expect(m.layers).toHaveLength(m.shape.layers);
      m.layers.forEach((layer, l) => {
        expect(bytesOf(layer.wq)).toEqual(want(layerName(l, 'wq')));
        expect(bytesOf(layer.router)).toEqual(want(layerName(l, 'router')));
        expect(layer.experts).toHaveLength(m.shape.experts);
        layer.experts.forEach((ex, e) => {
          for (const part of ['gate', 'up', 'down'] as const) {
            const mat = ex[part];
            expect(bytesOf(mat.data)).toEqual(want(expertName(l, e, part)));
            expect(bytesOf(mat.scales)).toEqual(want(`${expertName(l, e, part)}_s`));
            expect(mat.data instanceof Int8Array).toBe(fmt === 1);
            expect(mat.group).toBe(fmt === 4 ? m.shape.groupSize : mat.cols);
          }
          expect([ex.gate.rows, ex.gate.cols, ex.down.rows, ex.down.cols]).toEqual([
            m.shape.expertWidth,
            m.shape.hidden,
            m.shape.hidden,
            m.shape.expertWidth,
          ]);
        });
      });
    });
  }

  it('views share one buffer (zero copy) and offsets are 64-byte aligned', () => {
    const { dir } = writeSmallModel(4);
    const m = loadModel(dir);
    expect(m.embed.buffer).toBe(m.weights.buffer);
    expect(m.layers[1]?.experts[3]?.down.data.buffer).toBe(m.weights.buffer);
    for (const t of m.manifest.tensors) expect(t.offset % 64).toBe(0);
  });

  it('the same input writes the same bytes', () => {
    const a = writeSmallModel(2, 5);
    const b = writeSmallModel(2, 5);
    expect(a.written.manifestText).toBe(b.written.manifestText);
    expect(Buffer.from(a.written.weights).equals(Buffer.from(b.written.weights))).toBe(true);
  });
});
