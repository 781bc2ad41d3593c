// One expert of MATH.md in float64: quantize x, gate/up dots, SiLU table, quantize h,
// down dot. Integer dots are exact (plain JS numbers, far below 2^53), and so are
// format 8's block sums (e4m3 values times int8 fit in float64 with room to spare); the
// scale products and the SiLU multiply are float64 here where the engine rounds to
// float32, which is the only difference allowed between the two.
// Invariants: weights are unpacked once to signed values in [-128, 127] (int8), [-8, 7]
// (int4, low nibble first) or the exact values of their e4m3 codes (decoded from the
// bit fields here, not from the engine's table); groups and 128 x 128 blocks are summed
// in order; t is clamped to the table's [-512, 511].

import type { ExpertMatrix, ExpertWeights } from '../fixture/model_types.js';
import { FMT_FP8_BLOCK, FMT_I4_GROUP, FMT_I8_ROW, FP8_BLOCK, SILU_LUT_SIZE } from '../fixture/model_types.js';
import { quant, rintHalfEven } from './reference_quant.js';

/** A matrix unpacked to one weight value per element, row-major [rows][cols]. */
export interface UnpackedMatrix {
  readonly rows: number;
  readonly cols: number;
  readonly group: number;
  readonly grouped: boolean;
  /** format 8: one scale per 128 x 128 block */
  readonly blocked: boolean;
  readonly w: Int8Array | Float64Array;
  readonly scales: Float32Array;
}

/** The exact value of an e4m3 ("fn") code: sign, 4 exponent bits (bias 7), 3 mantissa bits. */
export function e4m3Value(code: number): number {
  const sign = code & 0x80 ? -1 : 1;
  const e = (code >> 3) & 15;
  const m = code & 7;
  if (e === 15 && m === 7) return NaN;
  return sign * (e === 0 ? (m / 8) * 2 ** -6 : (1 + m / 8) * 2 ** (e - 7));
}

export function unpackMatrix(m: ExpertMatrix): UnpackedMatrix {
  const n = m.rows * m.cols;
  if (m.format === FMT_FP8_BLOCK) {
    if (m.data.length !== n) throw new Error(`unpackMatrix: ${m.data.length} e4m3 codes for ${m.rows}x${m.cols}`);
    const nScales = Math.ceil(m.rows / FP8_BLOCK) * Math.ceil(m.cols / FP8_BLOCK);
    if (m.scales.length !== nScales)
      throw new Error(`unpackMatrix: ${m.scales.length} block scales, expected ${nScales}`);
    const values = Float64Array.from(m.data, (b) => e4m3Value(b & 0xff));
    return { rows: m.rows, cols: m.cols, group: FP8_BLOCK, grouped: false, blocked: true, w: values, scales: m.scales };
  }
  const w = new Int8Array(n);
  if (m.format === FMT_I8_ROW) {
    if (m.data.length !== n) throw new Error(`unpackMatrix: ${m.data.length} int8 values for ${m.rows}x${m.cols}`);
    for (let i = 0; i < n; i++) w[i] = m.data[i] ?? 0;
  } else {
    if (m.data.length * 2 !== n) throw new Error(`unpackMatrix: ${m.data.length} bytes for ${m.rows}x${m.cols} int4`);
    for (let i = 0; i < m.data.length; i++) {
      const b = (m.data[i] ?? 0) & 0xff;
      const lo = b & 0x0f;
      const hi = b >>> 4;
      w[2 * i] = lo >= 8 ? lo - 16 : lo;
      w[2 * i + 1] = hi >= 8 ? hi - 16 : hi;
    }
  }
  const grouped = m.format === FMT_I4_GROUP;
  const nScales = grouped ? (m.rows * m.cols) / m.group : m.rows;
  if (m.scales.length !== nScales) throw new Error(`unpackMatrix: ${m.scales.length} scales, expected ${nScales}`);
  return { rows: m.rows, cols: m.cols, group: m.group, grouped, blocked: false, w, scales: m.scales };
}

/** Dequantized dot of one row with q (scale 2^e), MATH.md's dot(W, row, q). */
export function dotRow(m: UnpackedMatrix, row: number, q: Int8Array, e: number): number {
  const base = row * m.cols;
  let out = 0;
  if (m.blocked) {
    const nb = Math.ceil(m.cols / FP8_BLOCK);
    const firstScale = Math.floor(row / FP8_BLOCK) * nb;
    for (let b = 0; b < nb; b++) {
      let acc = 0;
      const end = Math.min(m.cols, (b + 1) * FP8_BLOCK);
      for (let j = b * FP8_BLOCK; j < end; j++) acc += (m.w[base + j] ?? 0) * (q[j] ?? 0);
      out += acc * (m.scales[firstScale + b] ?? 0);
    }
  } else if (!m.grouped) {
    let acc = 0;
    for (let j = 0; j < m.cols; j++) acc += (m.w[base + j] ?? 0) * (q[j] ?? 0);
    out = acc * (m.scales[row] ?? 0);
  } else {
    const ng = m.cols / m.group;
    for (let g = 0; g < ng; g++) {
      let acc = 0;
      const start = base + g * m.group;
      for (let j = 0; j < m.group; j++) acc += (m.w[start + j] ?? 0) * (q[g * m.group + j] ?? 0);
      out += acc * (m.scales[row * ng + g] ?? 0);
    }
  }
  return out * 2 ** e;
}

export interface UnpackedExpert {
  readonly gate: UnpackedMatrix;
  readonly up: UnpackedMatrix;
  readonly down: UnpackedMatrix;
}

export function unpackExpert(x: ExpertWeights): UnpackedExpert {
  return { gate: unpackMatrix(x.gate), up: unpackMatrix(x.up), down: unpackMatrix(x.down) };
}

/** y = expert(x); x has hidden entries, the result too. */
export function expertForward(ex: UnpackedExpert, siluLut: Float32Array, x: Float64Array): Float64Array {
  if (siluLut.length !== SILU_LUT_SIZE) throw new Error(`expertForward: SiLU table has ${siluLut.length} entries`);
  const F = ex.gate.rows;
  const H = ex.down.rows;
  if (x.length !== H || ex.gate.cols !== H || ex.up.rows !== F || ex.down.cols !== F) {
    throw new Error(
      `expertForward: shapes disagree (x ${x.length}, gate ${F}x${ex.gate.cols}, down ${H}x${ex.down.cols})`,
    );
  }
  const qx = quant(x);
  const h = new Float64Array(F);
  for (let i = 0; i < F; i++) {
    const g = dotRow(ex.gate, i, qx.q, qx.e);
    const u = dotRow(ex.up, i, qx.q, qx.e);
    const t = Math.min(511, Math.max(-512, rintHalfEven(g * 32)));
    h[i] = (siluLut[t + 512] ?? 0) * u;
  }
  const qh = quant(h);
  const y = new Float64Array(H);
  for (let r = 0; r < H; r++) y[r] = dotRow(ex.down, r, qh.q, qh.e);
  return y;
}
