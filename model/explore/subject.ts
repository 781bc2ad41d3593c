/**
 * What a search explores: something that runs once, deterministically, under a
 * strategy. The explorer only needs the outcome and, to count distinct states, a way to
 * look at the state mid-run; it never needs to know it is running the tier.
 *
 * Invariant: the same strategy path gives the same run (the runtime is deterministic),
 * which is what lets a stateless search reproduce a state by replaying a prefix.
 */
import { engineMain } from '../../src/engine/driver.js';
import type { Gen } from '../../src/ops.js';
import type { TierState } from '../../src/tier/state.js';
import type { Tier } from '../../src/tier/tier.js';
import { driverPlanOf, runScenario } from '../run.js';
import type { Strategy } from '../rt/strategy.js';
import type { Violation } from '../../src/check/violation.js';
import type { Scenario } from '../scenario.js';
import type { SimulatedWorld } from '../sim_engine/sim_world.js';
import { stateDigest, type ThreadCounters } from './state_digest.js';

export interface SubjectRun {
  readonly violation: Violation | null;
  readonly steps: number;
  /** coverage marks the run reached (for the property report) */
  readonly coverage?: ReadonlySet<string>;
}

/** Reads the state of the run in progress; valid only during that run. */
export type StateProbe = (threads: ThreadCounters) => number;

export interface Subject {
  /** checkers run (footprints of unlock and wait then read device bytes) */
  readonly checks: boolean;
  /** spurious wakeups a run may inject (the scenario's budget); 0 when absent */
  readonly spuriousWakeups?: number;
  /** runs once; `probe` receives, before the first step, a way to digest the state */
  run(strategy: Strategy, probe?: (p: StateProbe) => void): SubjectRun;
}

/** A hand-written main thread instead of the engine's (tests build faulty ones). */
export type MainThread = (tier: Tier, world: SimulatedWorld) => Gen<void>;

export function scenarioSubject(scenario: Scenario, checks = true, main?: MainThread): Subject {
  return {
    checks,
    spuriousWakeups: scenario.spuriousWakeups,
    run(strategy, probe) {
      let st: TierState | null = null;
      let world: SimulatedWorld | null = null;
      probe?.((threads) => (st !== null && world !== null ? stateDigest(st, world, threads) : 0));
      const r = runScenario(scenario, {
        strategy,
        checks,
        // wrapped only to see the tier and world the run uses
        main: (tier, w) => {
          st = tier.st;
          world = w;
          return main !== undefined ? main(tier, w) : engineMain(tier, driverPlanOf(scenario));
        },
      });
      return { violation: r.violation, steps: r.steps, coverage: r.coverage };
    },
  };
}
