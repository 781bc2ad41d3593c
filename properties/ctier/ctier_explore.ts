/**
 * Every schedule of one scenario on the C tier, depth first, stateless (VeriSoft style, as
 * the scheduler's own tl_sched_explore): a run follows a prefix of choices and takes the
 * quiet option past it; the next prefix is the last run's choices up to its deepest
 * decision with an untried option, with that option. Each run is judged by the replay, so
 * the first failure is found in the tree's order and shrunk like any other.
 *
 * No reduction: the count is that of all interleavings at the scheduling points of the
 * tier, the engine driver and the backend entries. Bounded by `runs`: a search cut short
 * says so (INCOMPLETE), never PASS.
 */
import type { Guarantee } from '../../model/explore/guarantee.js';
import { harnessScenario } from '../../model/ctier/harness_config.js';
import type { Scenario } from '../../model/scenario/scenario.js';
import type { CTierHarness } from '../../src/engine/native/ctier_harness.js';
import { newTally, record, summarize } from '../tally.js';
import type { Counterexample, SuiteResult } from '../types.js';
import { runOnce, shrunk, type CTierRequest } from './ctier_shared.js';

/** The next prefix after a run of `choices` with `widths`; null when the tree is exhausted. */
export function nextPrefix(choices: readonly number[], widths: readonly number[]): number[] | null {
  let depth = choices.length;
  while (depth > 0 && (choices[depth - 1] ?? 0) + 1 >= (widths[depth - 1] ?? 0)) depth--;
  if (depth === 0) return null;
  const next = choices.slice(0, depth);
  next[depth - 1] = (next[depth - 1] ?? 0) + 1;
  return next;
}

export function exploreCTier(h: CTierHarness, req: CTierRequest, scenario: Scenario): SuiteResult {
  const sc = harnessScenario(scenario);
  const tally = newTally();
  const started = performance.now();
  const deadline = req.seconds !== undefined ? started + req.seconds * 1000 : Infinity;
  let prefix: number[] | null = [];
  let failure: Counterexample | null = null;
  while (prefix !== null && tally.runs < req.runs && performance.now() < deadline) {
    const r = runOnce(h, req, sc, { kind: 'choices', choices: prefix });
    if (tally.runs % 500 === 0) req.onProgress?.(tally.runs);
    if (!record(tally, r, started, req.property) && r.violation !== null) {
      failure = shrunk(h, req, tally, sc, r);
      break;
    }
    prefix = nextPrefix(r.path, r.widths);
  }
  const seconds = (performance.now() - started) / 1000;
  const complete = prefix === null && failure === null;
  const statement = complete
    ? `exhaustive (C tier): every interleaving covered, no reduction (${tally.runs} schedules, ${seconds.toFixed(1)} s)`
    : `exhaustive (C tier), INCOMPLETE (stopped ${failure !== null ? 'at a failure' : 'by the budget'}): ${tally.runs} schedules run, no reduction`;
  const guarantee: Guarantee = {
    strategy: 'exhaustive',
    complete,
    statement,
    schedules: tally.runs,
    steps: tally.steps,
    seconds,
    preemptions: null,
    reduction: false,
  };
  return summarize('scenario', 'exhaustive', tally, seconds, failure, guarantee);
}
