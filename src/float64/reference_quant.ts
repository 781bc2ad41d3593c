// quant(v) of MATH.md applied to float64 values: int8 values with a power-of-two scale.
// Invariants: q_i in [-127, 127]; |v_i| * 2^-e < 128 before clamping; e is read from
// the exponent bits of amax (no log2, which is not exact near powers of two); every
// multiplication by 2^-e is exact in float64 for the normal range used here.

/** amax below this is treated as zero (keeps every scale a normal number). */
export const QUANT_ZERO_AMAX = 2 ** -60;

export interface Quantized {
  readonly q: Int8Array;
  /** The scale is 2^e. */
  readonly e: number;
}

const bits = new DataView(new ArrayBuffer(8));

/** Unbiased binary exponent E of a positive normal float64: x in [2^E, 2^(E+1)). */
export function exponentOf(x: number): number {
  bits.setFloat64(0, x);
  const biased = (bits.getUint16(0) >>> 4) & 0x7ff;
  if (!(x > 0) || biased === 0 || biased === 0x7ff) {
    throw new Error(`exponentOf: ${x} is not a positive normal number`);
  }
  return biased - 1023;
}

/** Round half to even (C rint in the default rounding mode), exact for |x| < 2^52. */
export function rintHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f; // exact: x and f share an exponent range for |x| < 2^52
  if (d < 0.5) return f;
  if (d > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}

export function quant(v: Float64Array): Quantized {
  let amax = 0;
  for (let i = 0; i < v.length; i++) {
    const a = Math.abs(v[i] ?? 0);
    if (!(a <= Number.MAX_VALUE)) throw new Error(`quant: element ${i} is not finite (${v[i]})`);
    if (a > amax) amax = a;
  }
  const q = new Int8Array(v.length);
  if (amax < QUANT_ZERO_AMAX) return { q, e: 0 };
  const e = exponentOf(amax) + 1 - 7;
  const inv = 2 ** -e;
  for (let i = 0; i < v.length; i++) {
    const r = rintHalfEven((v[i] ?? 0) * inv);
    q[i] = r > 127 ? 127 : r < -127 ? -127 : r;
  }
  return { q, e };
}
