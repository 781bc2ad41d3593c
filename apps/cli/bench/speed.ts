/**
 * Simulator speed: steps and schedules per second of one scenario under seeded random
 * schedules, with every checker on or none, repeated so noise shows.
 *
 * Invariants: each measurement warms the JIT first (its numbers are not counted), runs
 * for a fixed wall time, and reports every repeat; the median is the number quoted, the
 * spread says how much the machine's load moved it. Each sample also counts the CPU
 * time the process got: on a shared machine, steps per CPU second is the simulator's
 * own speed, steps per wall second what this run saw.
 *
 * Why the warm-up runs until the rate settles rather than for a fixed time: for the first
 * seconds of a process V8 compiles the simulator's functions on threads of its own, which
 * the process's CPU time counts (1.9 CPU seconds a wall second, measured), and the main
 * thread runs code not yet optimized. A 0.3 s warm-up measured 150-280 k checked steps
 * per CPU second where the same process settles at about 400 k after 3 s: what a run of
 * the properties for an hour gets is the settled rate.
 */
import { runScenario } from '../../../model/run.js';
import { RandomStrategy } from '../../../model/rt/strategy.js';
import type { Scenario } from '../../../model/scenario/scenario.js';
import { SETTLED_CPU_PER_WALL, SETTLED_WITHIN, WINDOW_SECONDS } from './warm_up.js';

export interface SpeedSample {
  readonly stepsPerSecond: number;
  /** steps per second of CPU time this process was given */
  readonly stepsPerCpuSecond: number;
  readonly schedulesPerSecond: number;
  readonly stepsPerSchedule: number;
  readonly runs: number;
  readonly seconds: number;
}

export interface Speed {
  readonly checks: Checks;
  readonly samples: readonly SpeedSample[];
  /** median of the samples' steps/s */
  readonly stepsPerSecond: number;
  /** median of the samples' steps per CPU second */
  readonly stepsPerCpuSecond: number;
  readonly schedulesPerSecond: number;
  readonly stepsPerSchedule: number;
  /** violations seen (a benchmark of a correct tier expects none) */
  readonly violations: number;
  /** the JIT's warm-up before the samples (absent in reports written before it was measured) */
  readonly warmUp?: WarmUp;
}

/** Which checkers a speed sample runs: all of them, all but the refinement, none. */
export type Checks = true | 'no-refinement' | false;

function sample(
  s: Scenario,
  checks: Checks,
  seconds: number,
  seed: string,
): SpeedSample & { violations: number; cpuPerWall: number } {
  let steps = 0;
  let runs = 0;
  let violations = 0;
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  const until = started + seconds * 1000;
  // one batch at least, however late the clock is read: a sample of a busy machine is
  // slow, never empty (its figures would divide by no runs)
  do {
    for (let i = 0; i < 16; i++) {
      const r = runScenario(s, { strategy: new RandomStrategy(`${seed}:${runs}`), checks });
      steps += r.steps;
      runs++;
      if (r.violation !== null) violations++;
    }
  } while (performance.now() < until);
  const took = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = Math.max(1e-6, (cpu.user + cpu.system) / 1e6);
  return {
    stepsPerSecond: steps / took,
    stepsPerCpuSecond: steps / cpuSeconds,
    schedulesPerSecond: runs / took,
    stepsPerSchedule: steps / runs,
    runs,
    seconds: took,
    violations,
    cpuPerWall: cpuSeconds / Math.max(1e-6, took),
  };
}

/** How long the JIT warmed up before the samples, and whether the rate had settled by then. */
export interface WarmUp {
  readonly seconds: number;
  readonly settled: boolean;
}

/**
 * Runs windows of seeded runs until two in a row agree on steps per CPU second within 5 %
 * and the process no longer spends much more CPU than wall time (the compiler's threads),
 * or until `maxSeconds`.
 */
export function warmUp(s: Scenario, checks: Checks, maxSeconds: number): WarmUp {
  const started = performance.now();
  let last = 0;
  let window = 0;
  for (;;) {
    const w = sample(s, checks, WINDOW_SECONDS, `warmup${window++}`);
    const seconds = (performance.now() - started) / 1000;
    const settled =
      w.cpuPerWall <= SETTLED_CPU_PER_WALL && Math.abs(w.stepsPerCpuSecond - last) <= SETTLED_WITHIN * last;
    if (settled || seconds >= maxSeconds) return { seconds, settled };
    last = w.stepsPerCpuSecond;
  }
}

/**
 * `warmupSeconds`: a fixed warm-up (the tests' short ones); absent, the warm-up runs until
 * the rate settles, up to `maxWarmupSeconds` (8 s).
 */
export function measureSpeed(
  s: Scenario,
  opts: { checks: Checks; seconds: number; repeats: number; warmupSeconds?: number; maxWarmupSeconds?: number },
): Speed {
  const warm: WarmUp =
    opts.warmupSeconds !== undefined
      ? { seconds: sample(s, opts.checks, opts.warmupSeconds, 'warmup').seconds, settled: false }
      : warmUp(s, opts.checks, opts.maxWarmupSeconds ?? 8);
  const samples: ReturnType<typeof sample>[] = [];
  for (let i = 0; i < opts.repeats; i++) samples.push(sample(s, opts.checks, opts.seconds, `bench${i}`));
  const mid = median(samples.map((x) => x.stepsPerSecond));
  const at = samples.find((x) => x.stepsPerSecond === mid) ?? samples[0];
  return {
    checks: opts.checks,
    samples: samples.map(({ violations: _v, cpuPerWall: _c, ...rest }) => rest),
    stepsPerSecond: mid,
    stepsPerCpuSecond: median(samples.map((x) => x.stepsPerCpuSecond)),
    schedulesPerSecond: at?.schedulesPerSecond ?? 0,
    stepsPerSchedule: at?.stepsPerSchedule ?? 0,
    violations: samples.reduce((a, x) => a + x.violations, 0),
    warmUp: warm,
  };
}

/** The median (lower middle for an even count, so it is always a measured value). */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}
