/**
 * How fast tierlab's scheduler runs the C tier: complete schedules per second on the
 * small configuration (properties/scenarios/small-warmstart.json), with the CPU seconds
 * beside the wall seconds (the process is one thread, so schedules per CPU second is the
 * rate per core, whatever a shared machine's other load takes).
 *
 * Rows: the harness alone (the scheduler, the tier, the fake backend and the driver in C,
 * records kept but not read), a run judged at level 1 (its boundary) and at level 2 (its
 * event log and the refinement), each under seeded random schedules; and the depth-first
 * search of every schedule of the same scenario (properties/ctier/ctier_explore.ts), which
 * says whether it completed. Bounded by runs: the numbers are measured, never a verdict.
 */
import { harnessScenario, type HarnessScenario } from '../../../model/ctier/harness_config.js';
import { runCTier } from '../../../model/ctier/run_ctier.js';
import { exploreCTier } from '../../../properties/ctier/ctier_explore.js';
import { DEFAULT_LIMITS } from '../../../src/check/limits.js';
import type { CTierHarness } from '../../../src/engine/native/ctier_harness.js';
import { describeScenario, type Scenario } from '../../../model/scenario/scenario.js';

export interface CTierSpeedRow {
  readonly label: string;
  readonly schedules: number;
  readonly steps: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly schedulesPerSecond: number;
  readonly schedulesPerCpuSecond: number;
  readonly violations: number;
  /** the depth-first search only: whether it covered every schedule */
  readonly complete?: boolean;
}

function timed(
  label: string,
  body: () => { schedules: number; steps: number; violations: number; complete?: boolean },
): CTierSpeedRow {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = body();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  return {
    label,
    ...r,
    seconds,
    cpuSeconds,
    schedulesPerSecond: r.schedules / Math.max(seconds, 1e-9),
    schedulesPerCpuSecond: r.schedules / Math.max(cpuSeconds, 1e-9),
  };
}

function harnessOnly(h: CTierHarness, sc: HarnessScenario, runs: number, seed: number): CTierSpeedRow {
  return timed('harness alone (random schedules, records not read)', () => {
    let steps = 0;
    let violations = 0;
    for (let i = 0; i < runs; i++) {
      const r = h.run(
        sc.words,
        sc.heat,
        {
          source: 'random',
          seed: seed + i,
          stayPermille: 500,
          maxSteps: DEFAULT_LIMITS.maxSteps,
          spurious: sc.scenario.spuriousWakeups,
          fresh: false,
          level: 2,
        },
        [],
      );
      steps += r.steps;
      if (r.outcome !== 'completed') violations++;
    }
    return { schedules: runs, steps, violations };
  });
}

function judged(h: CTierHarness, sc: HarnessScenario, runs: number, seed: number, level: 1 | 2): CTierSpeedRow {
  const what = level === 2 ? 'event log and refinement' : 'boundary only';
  return timed(`judged at level ${level}, ${what} (random schedules)`, () => {
    let steps = 0;
    let violations = 0;
    for (let i = 0; i < runs; i++) {
      const r = runCTier(h, sc, { level, strategy: { kind: 'random', seed: seed + i } });
      steps += r.steps;
      if (r.violation !== null) violations++;
    }
    return { schedules: runs, steps, violations };
  });
}

export interface CTierSpeed {
  readonly scenario: string;
  readonly rows: readonly CTierSpeedRow[];
}

export function measureCTierSpeed(h: CTierHarness, s: Scenario, runs: number, seed: number): CTierSpeed {
  const sc = harnessScenario(s);
  // a first pass pays for compiling what runs: not measured
  judged(h, sc, Math.min(runs, 200), seed, 2);
  const rows = [harnessOnly(h, sc, runs, seed), judged(h, sc, runs, seed, 1), judged(h, sc, runs, seed, 2)];
  const dfs = timed('every schedule, depth first, judged at level 2', () => {
    const r = exploreCTier(
      h,
      { suite: 'scenario', scenario: s, seed, runs, strategy: 'exhaustive', level: 2, fresh: false },
      s,
    );
    return {
      schedules: r.runs,
      steps: r.steps,
      violations: Object.values(r.violations).reduce((a, b) => a + b, 0),
      complete: r.guarantee?.complete === true,
    };
  });
  return { scenario: describeScenario(s), rows: [...rows, dfs] };
}
