/**
 * Shrinks a failing choice list found by PCT, random runs or exhaustive search (fast-check
 * shrinks its own finds; these strategies have no shrinker of their own).
 *
 * The same moves fast-check makes on an integer array, run to a fixed point: cut the list
 * short (trailing choices are then quiet), turn a choice quiet (0), delete a choice
 * (later ones shift up), lower a choice to 1. A candidate is kept when the run still
 * violates the same property. After each success the list is replaced by the path the
 * run really took, trimmed, so it stays a valid replay.
 *
 * Invariants: the result fails with the same property as the input and replays with
 * ChoicesStrategy; it is never longer, and the work is bounded by `maxRuns`.
 */
import type { PropertyId } from '../../src/check/catalogue.js';
import { runScenario } from '../run.js';
import { ChoicesStrategy, trimPath } from '../rt/strategy.js';
import type { Scenario } from '../scenario/scenario.js';
import type { MainThread } from './subject.js';

export interface MinimizeResult {
  readonly choices: number[];
  /** candidates kept */
  readonly shrinks: number;
  /** runs spent */
  readonly runs: number;
}

export function minimizeChoices(
  s: Scenario,
  choices: readonly number[],
  property: PropertyId,
  maxRuns = 2000,
  /** a hand-written main thread (tests); the engine's by default */
  main?: MainThread,
): MinimizeResult {
  /** the trimmed path of a run if it fails with `property`, else null */
  const attempt = (c: readonly number[]): number[] | null => {
    const strategy = new ChoicesStrategy(c);
    const r = runScenario(s, main !== undefined ? { strategy, main } : { strategy });
    return r.violation?.property === property ? trimPath(strategy.path) : null;
  };
  return shrinkChoices(choices, attempt, property, maxRuns);
}

/**
 * The shrinking itself, for any world that runs a choice list (the C tier's harness too):
 * `attempt` runs a candidate and returns the trimmed path it took when it still fails with
 * the property, else null.
 */
export function shrinkChoices(
  choices: readonly number[],
  attempt: (c: readonly number[]) => number[] | null,
  property: PropertyId,
  maxRuns = 2000,
): MinimizeResult {
  let runs = 1;
  let shrinks = 0;
  let best = attempt(choices);
  if (best === null) throw new Error(`the choice list does not reproduce ${property}`);
  let improved = true;
  while (improved && runs < maxRuns) {
    improved = false;
    const moves = candidates(best);
    for (const cand of moves) {
      if (runs >= maxRuns) break;
      runs++;
      const got = attempt(cand);
      if (got !== null && smaller(got, best)) {
        best = got;
        shrinks++;
        improved = true;
        break;
      }
    }
  }
  return { choices: best, shrinks, runs };
}

/** Shorter first, then fewer preemptions, then smaller numbers. */
function smaller(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return a.length < b.length;
  const nz = (x: readonly number[]) => x.reduce((n, v) => n + (v !== 0 ? 1 : 0), 0);
  if (nz(a) !== nz(b)) return nz(a) < nz(b);
  const sum = (x: readonly number[]) => x.reduce((n, v) => n + v, 0);
  return sum(a) < sum(b);
}

function* candidates(c: readonly number[]): Generator<number[]> {
  // cut: halves first, then one at a time from the end
  for (let len = c.length >> 1; len > 0 && len < c.length; len = (len + c.length) >> 1) {
    yield c.slice(0, len);
    if (len === c.length - 1) break;
  }
  for (let i = c.length - 1; i >= 0; i--) {
    if (c[i] !== 0) yield [...c.slice(0, i), 0, ...c.slice(i + 1)];
  }
  for (let i = c.length - 1; i >= 0; i--) yield [...c.slice(0, i), ...c.slice(i + 1)];
  for (let i = c.length - 1; i >= 0; i--) {
    if ((c[i] ?? 0) > 1) yield [...c.slice(0, i), 1, ...c.slice(i + 1)];
  }
}
