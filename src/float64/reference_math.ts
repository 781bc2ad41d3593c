// The trunk's building blocks of MATH.md in float64: rmsnorm, row-major matvec,
// max-subtracted softmax, top-k routing, argmax with its margin.
// Invariants: sums run from index 0 upwards (the order MATH.md names, even though
// float64 makes it matter far less); ties in routing and argmax go to the lower id.

export const RMS_EPS = 1e-5;

/** out_i = (x_i * r) * w_i with r = 1 / sqrt(sum x^2 / n + eps). */
export function rmsnorm(x: Float64Array, w: Float32Array): Float64Array {
  const n = x.length;
  let ss = 0;
  for (let i = 0; i < n; i++) {
    const v = x[i] ?? 0;
    ss += v * v;
  }
  const r = 1 / Math.sqrt(ss / n + RMS_EPS);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = (x[i] ?? 0) * r * (w[i] ?? 0);
  return out;
}

/** y = W x for W row-major [rows][x.length]. */
export function matvec(w: Float32Array, x: Float64Array, rows: number): Float64Array {
  const cols = x.length;
  if (w.length !== rows * cols) throw new Error(`matvec: ${w.length} weights for ${rows}x${cols}`);
  const y = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    let s = 0;
    const base = r * cols;
    for (let c = 0; c < cols; c++) s += (w[base + c] ?? 0) * (x[c] ?? 0);
    y[r] = s;
  }
  return y;
}

/** Softmax of s in place order: subtract the max, exp, divide by the sum. */
export function softmax(s: Float64Array): Float64Array {
  let max = -Infinity;
  for (const v of s) if (v > max) max = v;
  const p = new Float64Array(s.length);
  let sum = 0;
  for (let i = 0; i < s.length; i++) {
    const e = Math.exp((s[i] ?? 0) - max);
    p[i] = e;
    sum += e;
  }
  for (let i = 0; i < p.length; i++) p[i] = (p[i] ?? 0) / sum;
  return p;
}

/** The k largest logits' ids, largest first; equal logits: the lower id first. */
export function topK(logits: Float64Array, k: number): Int32Array {
  if (k < 1 || k > logits.length) throw new Error(`topK: k = ${k} for ${logits.length} logits`);
  const ids = Array.from({ length: logits.length }, (_, i) => i);
  ids.sort((a, b) => {
    const d = (logits[b] ?? 0) - (logits[a] ?? 0);
    return d !== 0 ? d : a - b;
  });
  return Int32Array.from(ids.slice(0, k));
}

export interface ArgmaxResult {
  readonly token: number;
  /** top1 - top2 (0 when the two largest are equal). */
  readonly margin: number;
  /** max - min over all logits. */
  readonly range: number;
}

/** Argmax with the lowest id on ties, plus the gap to the runner-up. */
export function argmaxWithMargin(logits: Float64Array): ArgmaxResult {
  if (logits.length < 2) throw new Error(`argmaxWithMargin: needs 2 logits, has ${logits.length}`);
  let best = 0;
  let top1 = -Infinity;
  let top2 = -Infinity;
  let min = Infinity;
  for (let i = 0; i < logits.length; i++) {
    const v = logits[i] ?? 0;
    if (v > top1) {
      top2 = top1;
      top1 = v;
      best = i;
    } else if (v > top2) {
      top2 = v;
    }
    if (v < min) min = v;
  }
  return { token: best, margin: top1 - top2, range: top1 - min };
}
