// quant() of MATH.md on float64 values, at its edges: zeros, amax exactly a power of
// two, values that round to 128 (clamped to 127), half-way values (round to even).

import { describe, expect, it } from 'vitest';
import { QUANT_ZERO_AMAX, exponentOf, quant, rintHalfEven } from '../../src/float64/reference_quant.js';

const q = (...v: number[]): { q: number[]; e: number } => {
  const r = quant(Float64Array.from(v));
  return { q: Array.from(r.q), e: r.e };
};

describe('rintHalfEven', () => {
  it('rounds half-way cases to even, both signs', () => {
    // The sign of a zero result does not matter: it is stored as an int8.
    const r = [0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, -3.5].map((x) => rintHalfEven(x) + 0);
    expect(r).toEqual([0, 2, 2, 4, 0, -2, -2, -4]);
  });
  it('rounds everything else to nearest', () => {
    expect([0.49999999999999994, 0.5000000000000001, -2.4, -2.6, 126.7, -127.2].map(rintHalfEven)).toEqual([
      0, 1, -2, -3, 127, -127,
    ]);
  });
});

describe('exponentOf', () => {
  it('reads the unbiased exponent from the bits', () => {
    expect(exponentOf(1)).toBe(0);
    expect(exponentOf(1.9999999999999998)).toBe(0);
    expect(exponentOf(2)).toBe(1);
    expect(exponentOf(0.75)).toBe(-1);
    expect(exponentOf(2 ** -60)).toBe(-60);
  });
  it('refuses zero, negatives, subnormals and non-finite values', () => {
    for (const bad of [0, -1, 5e-324, Infinity, NaN]) expect(() => exponentOf(bad)).toThrow(/not a positive normal/);
  });
});

describe('quant', () => {
  it('all zeros (and anything below 2^-60) quantize to zero with e = 0', () => {
    expect(q(0, 0, -0)).toEqual({ q: [0, 0, 0], e: 0 });
    expect(q(QUANT_ZERO_AMAX / 2, -QUANT_ZERO_AMAX / 4)).toEqual({ q: [0, 0], e: 0 });
    expect(q()).toEqual({ q: [], e: 0 });
  });

  it('amax exactly at the zero threshold 2^-60 is quantized normally', () => {
    // amax = 2^-60: E = -60, e = -66, so amax maps to 64.
    expect(q(QUANT_ZERO_AMAX, -QUANT_ZERO_AMAX / 2)).toEqual({ q: [64, -32], e: -66 });
  });

  it('amax exactly a power of two maps to 64 (scale 2^(E-6))', () => {
    expect(q(1, 0.5, -0.25)).toEqual({ q: [64, 32, -16], e: -6 });
    expect(q(-2, 1)).toEqual({ q: [-64, 32], e: -5 });
    expect(q(2 ** -10)).toEqual({ q: [64], e: -16 });
  });

  it('just below the next power of two stays below 128', () => {
    // 1.984375 * 64 = 127 exactly.
    expect(q(1.984375)).toEqual({ q: [127], e: -6 });
  });

  it('values that round to 128 clamp to 127 (and -128 to -127)', () => {
    // 1.995 * 64 = 127.68 -> 128 -> 127; 1.9921875 * 64 = 127.5 -> even 128 -> 127.
    expect(q(1.995, -1.995)).toEqual({ q: [127, -127], e: -6 });
    expect(q(1.9921875)).toEqual({ q: [127], e: -6 });
    expect(q(-1.9999999)).toEqual({ q: [-127], e: -6 });
  });

  it('negative half-way values round to even', () => {
    // With amax = 1 the scale is 2^-6: -2.5/64 -> -2, -3.5/64 -> -4, -0.5/64 -> -0.
    expect(q(1, -2.5 / 64, -3.5 / 64, -0.5 / 64, 2.5 / 64)).toEqual({ q: [64, -2, -4, 0, 2], e: -6 });
  });

  it('rejects non-finite input', () => {
    expect(() => q(1, NaN)).toThrow(/not finite/);
    expect(() => q(Infinity)).toThrow(/not finite/);
  });
});
