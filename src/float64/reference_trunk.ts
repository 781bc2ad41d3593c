// The int8 trunk of MATH.md in float64: each trunk matrix quantized once to int8 rows
// with power-of-two row scales, and its GEMV on quant(x). Independent of the engine's
// code, yet exact: a float32 weight times 2^-e is exact in float64, so the rows
// quantize to the engine's very int8 values, and acc x 2^(e_row + e_x) is the engine's
// float32 output too whenever both quantize the same input.
// Invariants: a matrix is quantized once, at construction; a GEMV reads x's float64
// values (the only place the reference may differ from the engine: its hidden state).

import { quant } from './reference_quant.js';

export interface Int8Rows {
  readonly rows: number;
  readonly cols: number;
  readonly q: Int8Array;
  /** 2^e of each row */
  readonly scales: Float64Array;
}

export function quantizeRows(w: Float32Array, rows: number): Int8Rows {
  const cols = w.length / rows;
  if (!Number.isInteger(cols)) throw new Error(`quantizeRows: ${w.length} weights are not ${rows} rows`);
  const q = new Int8Array(w.length);
  const scales = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    const row = quant(Float64Array.from(w.subarray(r * cols, (r + 1) * cols)));
    q.set(row.q, r * cols);
    scales[r] = 2 ** row.e;
  }
  return { rows, cols, q, scales };
}

/** y = W x the int8 way: quant(x), integer row sums, times 2^e_row 2^e_x. */
export function int8Matvec(m: Int8Rows, x: Float64Array): Float64Array {
  if (x.length !== m.cols) throw new Error(`int8Matvec: x has ${x.length} values for ${m.cols} columns`);
  const qx = quant(x);
  const scaleX = 2 ** qx.e;
  const y = new Float64Array(m.rows);
  for (let r = 0; r < m.rows; r++) {
    let acc = 0;
    const base = r * m.cols;
    for (let j = 0; j < m.cols; j++) acc += (m.q[base + j] ?? 0) * (qx.q[j] ?? 0);
    y[r] = acc * (m.scales[r] ?? 0) * scaleX;
  }
  return y;
}
