/**
 * A PCT campaign on one scenario: measure n and k with the quiet run, then run PCT with
 * fresh seeds until the wanted confidence is reached (or a given number of runs), and
 * state the guarantee reached.
 *
 * k is measured, not proven: a PCT schedule can take more steps than the quiet run (more
 * waits and wakeups). A run counts toward the bound only if its change points were drawn
 * over at least as many steps as it took; a longer run is not counted, and from then on
 * change points are drawn over its length. The confidence is then
 *   1 - prod over counted runs i of (1 - 1 / (n k_i^(d-1)))
 * with n the most threads any run had. With a wanted confidence the campaign runs until
 * that product says so, so the promise holds even when k had to grow.
 *
 * Invariant: run i uses seed `${seed}:${i}`, so any run is reproducible alone, and its
 * recorded path replays it with ChoicesStrategy.
 */
import { runScenario, type RunResult } from '../run.js';
import { PctStrategy } from '../rt/pct.js';
import { DEFAULT_LIMITS } from '../../src/check/limits.js';
import { trimPath } from '../rt/strategy.js';
import type { Scenario } from '../scenario/scenario.js';
import { CountingQuietStrategy } from './measure.js';
import { pctBound, runsFor, type PctBound } from './pct_bound.js';
import type { FoundViolation } from './search.js';

export interface PctCampaignOptions {
  readonly depth: number;
  /** wanted confidence in (0, 1): run until the bound reaches it */
  readonly confidence?: number;
  /** run count when no confidence is given */
  readonly runs?: number;
  readonly seed: string;
  readonly maxSeconds?: number;
  /** stop at the first violation (default) */
  readonly stopOnViolation?: boolean;
  /** every run, the measuring one included */
  readonly onRun?: (r: RunResult) => void;
}

export interface PctCampaignResult {
  /** n and k of the measuring run */
  readonly measured: PctBound;
  /** n the most threads seen, k the largest range change points were drawn over */
  readonly bound: PctBound;
  readonly runsPlanned: number;
  readonly runs: number;
  /** runs that counted toward the bound (took no more steps than their range) */
  readonly counted: number;
  readonly steps: number;
  readonly seconds: number;
  /** probability that the runs done find any bug of depth d */
  readonly confidence: number;
  readonly complete: boolean;
  readonly violations: FoundViolation[];
  readonly statement: string;
}

export function pctCampaign(s: Scenario, opts: PctCampaignOptions): PctCampaignResult {
  const started = performance.now();
  const d = opts.depth;
  const quiet = new CountingQuietStrategy();
  const first = runScenario(s, { strategy: quiet });
  opts.onRun?.(first);
  const measured = pctBound(Math.max(1, quiet.threads), Math.max(1, first.steps), d);
  const planned = opts.confidence !== undefined ? runsFor(measured, opts.confidence) : (opts.runs ?? 1000);
  const deadline = opts.maxSeconds !== undefined ? started + opts.maxSeconds * 1000 : Infinity;
  const violations: FoundViolation[] = [];
  /** counted runs per range k */
  const countedByK = new Map<number, number>();
  let k = measured.steps;
  let n = measured.threads;
  let runs = 0;
  let counted = 0;
  let steps = 0;
  let stopped = false;
  const confidence = (): number => {
    let logMiss = 0;
    for (const [kk, c] of countedByK) logMiss += c * Math.log1p(-pctBound(n, kk, d).perRun);
    return -Math.expm1(logMiss);
  };
  if (first.violation !== null) {
    violations.push({
      property: first.violation.property,
      detail: first.violation.detail,
      choices: [],
      steps: first.steps,
      atSchedule: 0,
      seconds: 0,
    });
    stopped = opts.stopOnViolation !== false;
  }
  for (let i = 0; !stopped; i++) {
    if (opts.confidence !== undefined ? confidence() >= opts.confidence : i >= planned) break;
    if ((i & 63) === 63 && performance.now() > deadline) {
      stopped = true;
      break;
    }
    const strategy = new PctStrategy({
      seed: `${opts.seed}:${i}`,
      depth: d,
      steps: k,
      maxThreads: DEFAULT_LIMITS.maxThreads,
    });
    const r = runScenario(s, { strategy });
    opts.onRun?.(r);
    runs++;
    steps += r.steps;
    if (strategy.threadsSeen > n) n = strategy.threadsSeen;
    if (r.steps <= k) {
      counted++;
      countedByK.set(k, (countedByK.get(k) ?? 0) + 1);
    } else {
      k = r.steps;
    }
    const v = r.violation;
    if (v !== null && !violations.some((f) => f.property === v.property)) {
      violations.push({
        property: v.property,
        detail: v.detail,
        choices: trimPath(strategy.path),
        steps: r.steps,
        atSchedule: runs,
        seconds: (performance.now() - started) / 1000,
      });
    }
    if (v !== null && opts.stopOnViolation !== false) stopped = true;
  }
  const bound = pctBound(n, k, d);
  const c = confidence();
  const complete = opts.confidence !== undefined ? c >= opts.confidence : runs >= planned;
  const statement =
    `PCT depth ${d}: n=${n} threads, k<=${k} steps (the quiet run took ${measured.steps}), ` +
    `p >= 1/(n k^(d-1)) = ${bound.perRun.toExponential(3)} per run; ${runs} runs (${counted} within their k) -> ` +
    `a depth-${d} bug is found with probability >= ${(100 * c).toFixed(c > 0.999 ? 4 : 2)} %` +
    (opts.confidence !== undefined
      ? ` (wanted ${(100 * opts.confidence).toFixed(2)} %, planned ${planned} runs from the quiet run)`
      : '') +
    (!complete ? '; stopped early' + (violations.length > 0 ? ' at a violation' : ' by the time limit') : '');
  return {
    measured,
    bound,
    runsPlanned: planned,
    runs,
    counted,
    steps,
    seconds: (performance.now() - started) / 1000,
    confidence: c,
    complete,
    violations,
    statement,
  };
}
