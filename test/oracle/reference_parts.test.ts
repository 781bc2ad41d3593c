// The reference's building blocks against hand-computed values: int4 unpacking (low
// nibble first, two's complement), grouped and per-row dots, the SiLU table index
// clamp, top-k and argmax tie rules, and bad-input errors.

import { describe, expect, it } from 'vitest';
import type { ExpertMatrix } from '../../src/fixture/model_types.js';
import { dotRow, expertForward, unpackMatrix } from '../../src/float64/reference_expert.js';
import { argmaxWithMargin, rmsnorm, softmax, topK } from '../../src/float64/reference_math.js';
import { ReferenceModel, referenceGenerate } from '../../src/float64/reference.js';
import { loadModel } from '../../src/fixture/container.js';
import { siluTable } from '../../fixtures/synthesize.js';
import { writeSmallModel } from './small_model.js';

const mat = (over: Partial<ExpertMatrix>): ExpertMatrix => ({
  format: 2,
  rows: 1,
  cols: 4,
  group: 4,
  data: new Uint8Array([0x8f, 0x71]),
  scales: new Float32Array([1]),
  ...over,
});

describe('unpackMatrix', () => {
  it('int4: low nibble first, sign-extended', () => {
    // 0x8f: low f = -1, high 8 = -8; 0x71: low 1, high 7.
    expect(Array.from(unpackMatrix(mat({})).w)).toEqual([-1, -8, 1, 7]);
  });
  it('int8: values as stored', () => {
    const m = unpackMatrix(mat({ format: 1, data: new Int8Array([-128, 127, 0, -1]) }));
    expect(Array.from(m.w)).toEqual([-128, 127, 0, -1]);
  });
  it('rejects data or scales of the wrong length', () => {
    expect(() => unpackMatrix(mat({ data: new Uint8Array(3) }))).toThrow(/bytes for 1x4 int4/);
    expect(() => unpackMatrix(mat({ format: 4, group: 2, scales: new Float32Array(1) }))).toThrow(
      /1 scales, expected 2/,
    );
  });
});

describe('dotRow', () => {
  it('per row: int sum times the row scale times 2^e', () => {
    const m = unpackMatrix(mat({ scales: new Float32Array([0.5]) }));
    // (-1*1 + -8*2 + 1*3 + 7*4) = 14; * 0.5 * 2^-2
    expect(dotRow(m, 0, new Int8Array([1, 2, 3, 4]), -2)).toBe(14 * 0.5 * 0.25);
  });
  it("grouped: each group's sum times its own scale, in order", () => {
    const m = unpackMatrix(mat({ format: 4, group: 2, scales: new Float32Array([0.5, 2]) }));
    // group 0: -1*1 + -8*2 = -17; group 1: 1*3 + 7*4 = 31
    expect(dotRow(m, 0, new Int8Array([1, 2, 3, 4]), 1)).toBe((-17 * 0.5 + 31 * 2) * 2);
  });
});

describe('expertForward', () => {
  const lut = siluTable();
  const expert = (gateScale: number) => ({
    gate: unpackMatrix(
      mat({
        rows: 2,
        cols: 2,
        group: 2,
        data: new Uint8Array([0x01, 0x01]),
        scales: new Float32Array([gateScale, gateScale]),
      }),
    ),
    up: unpackMatrix(
      mat({ rows: 2, cols: 2, group: 2, data: new Uint8Array([0x01, 0x01]), scales: new Float32Array([1, 1]) }),
    ),
    down: unpackMatrix(
      mat({ rows: 2, cols: 2, group: 2, data: new Uint8Array([0x11, 0x11]), scales: new Float32Array([1, 1]) }),
    ),
  });
  it('zero input gives zero output', () => {
    expect(Array.from(expertForward(expert(1), lut, new Float64Array(2)))).toEqual([0, 0]);
  });
  it("a gate far out of the table's range clamps to its last entry", () => {
    // x = [1, 0]: qx = [64, 0], e = -6; g = 64 * s * 2^-6 = s; u = 1.
    const big = expertForward(expert(1000), lut, Float64Array.from([1, 0]));
    const h = lut[1023] ?? 0; // silu(511/32) ~ 15.97, times u = 1
    expect(h).toBeGreaterThan(15.9);
    // quant([h, h]): E = 3, e = -3, h * 8 = 127.75 rounds to 128 and clamps to 127;
    // down = [[1, 1], [1, 1]] with scale 1: y = (127 + 127) * 2^-3.
    expect(Array.from(big)).toEqual([31.75, 31.75]);
  });
  it('rejects mismatched shapes', () => {
    expect(() => expertForward(expert(1), lut, new Float64Array(3))).toThrow(/shapes disagree/);
  });
});

describe('trunk helpers', () => {
  it('topK: largest first, ties to the lower id', () => {
    expect(Array.from(topK(Float64Array.from([1, 3, 3, 2, 3]), 3))).toEqual([1, 2, 4]);
    expect(() => topK(new Float64Array(2), 3)).toThrow(/k = 3/);
  });
  it('argmax: lowest id on ties, margin 0', () => {
    expect(argmaxWithMargin(Float64Array.from([0, 5, 5, -1]))).toEqual({ token: 1, margin: 0, range: 6 });
    expect(argmaxWithMargin(Float64Array.from([2, 7, 4]))).toEqual({ token: 1, margin: 3, range: 5 });
  });
  it('softmax sums to one and keeps order', () => {
    const p = softmax(Float64Array.from([1000, 999, 0]));
    expect((p[0] ?? 0) + (p[1] ?? 0) + (p[2] ?? 0)).toBeCloseTo(1, 15);
    expect(p[0]).toBeGreaterThan(p[1] ?? 1);
  });
  it('rmsnorm of a constant vector is the weight', () => {
    const out = rmsnorm(Float64Array.from([3, 3, 3, 3]), new Float32Array([1, 2, 0.5, -1]));
    Array.from(out).forEach((v, i) => expect(v).toBeCloseTo([1, 2, 0.5, -1][i] ?? 0, 5));
  });
});

describe('ReferenceModel', () => {
  const model = loadModel(writeSmallModel(4).dir);
  it('rejects token ids outside the vocabulary', () => {
    const r = new ReferenceModel(model);
    expect(() => r.step(32)).toThrow(/token 32 is not an id in \[0, 32\)/);
    expect(() => r.step(1.5)).toThrow(/not an id/);
  });
  it('routes top-k per layer with weights summing to one', () => {
    const s = new ReferenceModel(model).step(3);
    expect(s.routes).toHaveLength(model.shape.layers);
    for (const r of s.routes) {
      expect(r.experts).toHaveLength(model.shape.topk);
      expect((r.weights[0] ?? 0) + (r.weights[1] ?? 0)).toBeCloseTo(1, 12);
      expect(r.weights[0]).toBeGreaterThanOrEqual(r.weights[1] ?? 1);
    }
    expect(s.logits).toHaveLength(model.shape.vocab);
    expect(s.hidden).toHaveLength(model.shape.hidden);
  });
  it('referenceGenerate is deterministic and validates its arguments', () => {
    const a = referenceGenerate(model, [1, 2], 10);
    expect(referenceGenerate(model, [1, 2], 10)).toEqual(a);
    expect(a.tokens).toHaveLength(10);
    expect(() => referenceGenerate(model, [], 4)).toThrow(/prompt is empty/);
    expect(() => referenceGenerate(model, [1], 0)).toThrow(/n = 0/);
  });
});
