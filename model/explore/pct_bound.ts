/**
 * PCT's guarantee as arithmetic (Burckhardt et al., ASPLOS 2010, Theorem 1): one run
 * finds a bug of depth d in a program of n threads and at most k steps with probability
 * p >= 1 / (n k^(d-1)). Runs are independent, so r runs miss it with probability at most
 * (1 - p)^r, and r = ceil(ln(1 - c) / ln(1 - p)) runs find it with confidence >= c.
 *
 * Invariants: the functions are exact inverses up to the ceiling (runsFor gives the
 * least r whose confidence reaches c); log1p keeps the tiny p of deep bugs accurate.
 */
export interface PctBound {
  readonly threads: number;
  readonly steps: number;
  readonly depth: number;
  /** lower bound on the per-run probability of hitting a depth-d bug */
  readonly perRun: number;
}

export function pctBound(threads: number, steps: number, depth: number): PctBound {
  if (!(threads >= 1) || !(steps >= 1) || !(depth >= 1)) {
    throw new RangeError(`PCT bound needs n >= 1, k >= 1, d >= 1 (got n=${threads} k=${steps} d=${depth})`);
  }
  return { threads, steps, depth, perRun: 1 / (threads * steps ** (depth - 1)) };
}

/** Runs needed for confidence c in (0, 1): ceil(ln(1 - c) / ln(1 - p)). */
export function runsFor(bound: PctBound, confidence: number): number {
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must be in (0, 1), got ${confidence}`);
  const p = bound.perRun;
  if (p >= 1) return 1;
  return Math.ceil(Math.log1p(-confidence) / Math.log1p(-p));
}

/** Confidence that r runs reach: 1 - (1 - p)^r. */
export function confidenceOf(bound: PctBound, runs: number): number {
  const p = bound.perRun;
  if (p >= 1) return runs > 0 ? 1 : 0;
  return -Math.expm1(runs * Math.log1p(-p));
}

/** One line for people: the guarantee a PCT campaign gives. */
export function describeBound(bound: PctBound, runs: number): string {
  const c = confidenceOf(bound, runs);
  return (
    `PCT depth ${bound.depth}: n=${bound.threads} threads, k=${bound.steps} steps, ` +
    `p >= 1/(n k^(d-1)) = ${bound.perRun.toExponential(3)} per run; ${runs} runs -> ` +
    `a depth-${bound.depth} bug is found with probability >= ${(100 * c).toFixed(c > 0.999 ? 4 : 2)} %`
  );
}
