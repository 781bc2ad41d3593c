/**
 * A C tier counterexample replayed: the scenario and its schedule (the scheduler's
 * choices) run once more by the harness, judged at the level it was found at, with the
 * run's records kept and printed as lines (src/check/replay/record_text.ts).
 *
 * A saved schedule is the path a run took, so each choice names one of its decision's
 * options and the run reaches every choice; one that does not (edited by hand, or saved
 * for another scenario) is named in `scheduleProblem` instead of being read as another run.
 */
import { planReplay } from '../../src/check/replay/replay_plan.js';
import { recordLines } from '../../src/check/replay/record_text.js';
import { CTierHarness } from '../../src/engine/native/ctier_harness.js';
import type { Scenario } from '../scenario/scenario.js';
import { harnessScenario } from './harness_config.js';
import { runCTier, type CTierRunResult } from './run_ctier.js';

export interface CTierReplayed {
  readonly result: CTierRunResult;
  readonly lines: readonly string[];
  readonly scheduleProblem: string | null;
}

export function replayCTier(
  scenario: Scenario,
  choices: readonly number[],
  level: 1 | 2,
  opts: { readonly library?: string; readonly fresh?: boolean; readonly last?: number } = {},
): CTierReplayed {
  const h = new CTierHarness(opts.library);
  try {
    const result = runCTier(h, harnessScenario(scenario), {
      level,
      strategy: { kind: 'choices', choices },
      fresh: opts.fresh === true,
      keepRecords: true,
    });
    const records = result.records ?? [];
    const lines = recordLines(records, planReplay(records), opts.last);
    return { result, lines, scheduleProblem: problem(choices, result) };
  } finally {
    h.close();
  }
}

function problem(choices: readonly number[], r: CTierRunResult): string | null {
  const at = choices.findIndex((c, i) => i < r.widths.length && c >= (r.widths[i] ?? 0));
  if (at >= 0) return `choice ${at} is ${choices[at]}, but that decision has ${r.widths[at]} options`;
  if (r.widths.length < choices.length)
    return `the schedule has ${choices.length} choices, but the run reaches only ${r.widths.length} decisions`;
  return null;
}
