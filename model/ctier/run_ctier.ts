/**
 * One run of the C tier on a scenario, judged: the harness runs the schedule whole
 * (src/engine/native/ctier_harness.ts), the replay feeds its records to the checkers
 * (src/check/replay/), and the scheduler's outcome says the rest: a deadlock is
 * LIVE-DEADLOCK (LIVE-SHUTDOWN once a shutdown began), a run past its step bound
 * LIVE-STEPS, a misuse of a mutex or condition variable SYNC-DISCIPLINE, a crash of the
 * forked child SAFE-NO-CRASH. The first violation wins, in the order they happened:
 * what the checkers saw along the records comes before how the run ended.
 *
 * The result has the shape of a simulated run's (model/run.ts): ok, the violation, steps,
 * decisions and the path of choices that replays it.
 */
import type { HarnessRun } from '../../src/engine/native/ctier_harness.js';
import { type CTierHarness, HarnessError, type HarnessOptions } from '../../src/engine/native/ctier_harness.js';
import { Replay } from '../../src/check/replay/replay.js';
import type { Rec } from '../../src/check/replay/records.js';
import { Violation } from '../../src/check/violation.js';
import { DEFAULT_LIMITS } from '../../src/check/limits.js';
import { ctierCheckers } from './checkers.js';
import type { HarnessScenario } from './harness_config.js';

export type CTierStrategy =
  | { readonly kind: 'choices'; readonly choices: readonly number[] }
  | { readonly kind: 'random'; readonly seed: number }
  | { readonly kind: 'pct'; readonly seed: number; readonly depth: number; readonly steps: number };

export interface CTierRunOptions {
  readonly level: 1 | 2;
  readonly strategy: CTierStrategy;
  /** run in a forked child (a crashing tier) */
  readonly fresh?: boolean;
  readonly maxSteps?: number;
  /** keep the records (a replay command prints them) */
  readonly keepRecords?: boolean;
}

export interface CTierRunResult {
  readonly ok: boolean;
  readonly violation: Violation | null;
  readonly steps: number;
  readonly decisions: number;
  /** the option taken at each decision: replays the run (trailing zeros implied) */
  readonly path: readonly number[];
  readonly widths: readonly number[];
  readonly outcome: HarnessRun['outcome'];
  readonly records: readonly Rec[] | null;
}

function harnessOptions(sc: HarnessScenario, o: CTierRunOptions): HarnessOptions {
  const s = o.strategy;
  const base = {
    maxSteps: o.maxSteps ?? DEFAULT_LIMITS.maxSteps,
    spurious: sc.scenario.spuriousWakeups,
    fresh: o.fresh === true,
    level: o.level,
  };
  if (s.kind === 'random') return { ...base, source: 'random', seed: s.seed, stayPermille: 500 };
  if (s.kind === 'pct') return { ...base, source: 'pct', seed: s.seed, pctDepth: s.depth, pctSteps: s.steps };
  return { ...base, source: 'recorded' };
}

export function runCTier(h: CTierHarness, sc: HarnessScenario, o: CTierRunOptions): CTierRunResult {
  const choices = o.strategy.kind === 'choices' ? o.strategy.choices : [];
  const run = h.run(sc.words, sc.heat, harnessOptions(sc, o), choices);
  if (run.outcome === 'error') throw new HarnessError(`the harness could not run the scenario: ${run.description}`);
  if (run.dropped > 0) throw new HarnessError(`the run's log dropped ${run.dropped} records: too long to judge`);
  const { records, blob } = h.records();
  const replay = new Replay(
    { records, blob, level: o.level, cfg: sc.tier, world: sc.world },
    ctierCheckers({
      faultFree: sc.faultFree,
      devices: sc.scenario.devices,
      plan: sc.plan,
      wantSwaps: sc.scenario.wantSwaps,
    }),
  );
  const violation = judge(replay, run, records);
  return {
    ok: violation === null,
    violation,
    steps: run.steps,
    decisions: run.decisions,
    path: run.choices,
    widths: run.widths,
    outcome: run.outcome,
    records: o.keepRecords === true ? records : null,
  };
}

function judge(replay: Replay, run: HarnessRun, records: readonly Rec[]): Violation | null {
  try {
    replay.run();
    const ended = outcomeViolation(replay, run, records);
    if (ended !== null) return ended;
    replay.atEnd();
    return null;
  } catch (e) {
    if (e instanceof Violation) return e;
    throw e;
  }
}

/** How the run ended, as a property: null when every thread finished. */
function outcomeViolation(replay: Replay, run: HarnessRun, records: readonly Rec[]): Violation | null {
  const shutdownBegan = records.some((r) => r.c === 'engine' && r.kind === 'call' && r.a[0] === SHUTDOWN_FN);
  const threads = replay.threads.describe();
  switch (run.outcome) {
    case 'completed':
      return null;
    case 'deadlock':
      return new Violation(
        shutdownBegan ? 'LIVE-SHUTDOWN' : 'LIVE-DEADLOCK',
        `deadlock: no thread can move: ${run.description || threads}`,
      );
    case 'livelock':
      return new Violation(
        shutdownBegan ? 'LIVE-SHUTDOWN' : 'LIVE-STEPS',
        `run exceeded ${run.steps} steps (livelock?): ${threads}`,
      );
    case 'violation':
      return new Violation('SYNC-DISCIPLINE', run.description);
    case 'crashed':
      return new Violation('SAFE-NO-CRASH', run.description);
    default:
      throw new HarnessError(run.description);
  }
}

/** TT_FN_SHUTDOWN (native/tier/tt.h) */
const SHUTDOWN_FN = 14;
