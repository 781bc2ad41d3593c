/**
 * The simulator's part of reports/bench.md: speed with every checker, without the
 * refinement and with none, the cost as scenarios grow, and issue 33's first target beside
 * what was measured (each line says met or not met; the figures are per CPU second, the
 * simulator's own speed on a shared machine).
 *
 * Invariant: a target line is printed only from figures this run measured; a figure the
 * run did not measure (no scaling section, no experts rows) says so instead of a verdict.
 */
import type { Flatness } from './flatness.js';
import type { Speed } from './speed.js';
import { SETTLED_CPU_PER_WALL, SETTLED_WITHIN, WINDOW_SECONDS } from './warm_up.js';

export interface ScalingRow {
  readonly dimension: string;
  readonly value: number;
  readonly on: Speed;
  readonly off: Speed;
}

export interface SpeedReport {
  scenario: string;
  on: Speed;
  noRefinement?: Speed;
  off: Speed;
  checkerCost: number;
  refinementCost?: number;
}

/** Issue 33, target 1: steps per CPU second, checked and unchecked, and what the checkers may cost. */
export const SPEED_TARGETS = { checkedPerCpuSecond: 1e6, uncheckedPerCpuSecond: 3e6, checkerCost: 2 } as const;
/** A checked step "does not grow with the experts" where the largest row's step costs at most this much more. */
export const GROWTH_TOLERANCE = 1.25;

const int = (x: number): string => Math.round(x).toLocaleString('en-US');
const mark = (ok: boolean): string => (ok ? 'met' : '**not met**');

/** Target 1's lines on the default scenario (also logged by the bench as it runs). */
export function speedTargets(s: SpeedReport): string[] {
  const t = SPEED_TARGETS;
  const on = s.on.stepsPerCpuSecond;
  const off = s.off.stepsPerCpuSecond;
  const cost = off / Math.max(1, on);
  return [
    `- checked, at least ${int(t.checkedPerCpuSecond)} steps per CPU second: ${int(on)} (${(on / t.checkedPerCpuSecond).toFixed(2)} of it): ${mark(on >= t.checkedPerCpuSecond)}`,
    `- unchecked, at least ${int(t.uncheckedPerCpuSecond)}: ${int(off)} (${(off / t.uncheckedPerCpuSecond).toFixed(2)} of it): ${mark(off >= t.uncheckedPerCpuSecond)}`,
    `- every checker together at most ${t.checkerCost} x the unchecked step (per CPU second, off / on): ${cost.toFixed(2)} x: ${mark(cost <= t.checkerCost)}`,
  ];
}

/** What a speed measurement ran, in the table's words (the HTML report's too). */
function checksName(x: Speed): string {
  return x.checks === true ? 'all on' : x.checks === 'no-refinement' ? 'all but the refinement' : 'off';
}

/** The section's measurements in the table's order: all on, all but the refinement (where measured), off. */
function measurements(s: SpeedReport): Speed[] {
  return [s.on, ...(s.noRefinement !== undefined ? [s.noRefinement] : []), s.off];
}

/** How long each measurement warmed the JIT up, and whether its rate had settled (speed.ts). */
export function warmUpLine(s: SpeedReport): string {
  const parts = measurements(s).map((x) => {
    const w = x.warmUp;
    const name = checksName(x);
    if (w === undefined) return `${name} not recorded`;
    return `${name} ${w.seconds.toFixed(1)} s${w.settled ? '' : ' (not settled)'}`;
  });
  const how = `two ${WINDOW_SECONDS} s windows within ${100 * SETTLED_WITHIN} %, CPU at most ${SETTLED_CPU_PER_WALL} x wall`;
  return `warm-up until the rate settles (${how}): ${parts.join(', ')}`;
}

/**
 * Target 1's last line: a checked step's cost from the fewest experts to the most, from the
 * rounds in turn (flatness.ts) where the run measured them, else from the scaling rows
 * (one sample each, which the machine's load can move past the tolerance).
 */
export function growthTarget(scaling: readonly ScalingRow[] | undefined, flat?: Flatness): string {
  const experts = (scaling ?? []).filter((r) => r.dimension === 'experts').sort((a, b) => a.value - b.value);
  const first = experts[0];
  const last = experts[experts.length - 1];
  if (flat === undefined && (first === undefined || last === undefined || first === last))
    return '- a checked step that does not grow with the experts: not measured (run the scaling section)';
  const from = flat?.fewest ?? first?.value ?? 0;
  const to = flat?.most ?? last?.value ?? 0;
  const a = flat?.fewestPerCpuSecond ?? first?.on.stepsPerCpuSecond ?? 0;
  const b = flat?.mostPerCpuSecond ?? last?.on.stepsPerCpuSecond ?? 0;
  const how =
    flat === undefined
      ? 'one sample each'
      : `best of ${flat.rounds} rounds of ${flat.secondsPerRound.toFixed(2)} s each, the two in turn`;
  const growth = a / Math.max(1, b);
  return (
    `- a checked step that does not grow with the experts (at most ${GROWTH_TOLERANCE} x from ${from} to ${to} experts): ` +
    `${int(a)} to ${int(b)} steps per CPU second (${how}), a step ${growth.toFixed(2)} x: ${mark(growth <= GROWTH_TOLERANCE)}`
  );
}

export function renderSpeed(
  s: SpeedReport | undefined,
  scaling: readonly ScalingRow[] | undefined,
  flat?: Flatness,
): string[] {
  const md: string[] = [];
  if (s !== undefined) {
    md.push(
      '## Simulator speed',
      '',
      `Scenario: ${s.scenario}; seeded random schedules; median of ${s.on.samples.length} samples.`,
      '',
      '| checkers | steps/s | steps per CPU second | schedules/s | steps per schedule | samples (steps/s) |',
      '|---|---|---|---|---|---|',
    );
    for (const x of measurements(s)) {
      md.push(
        `| ${checksName(x)} | ${int(x.stepsPerSecond)} | ${int(x.stepsPerCpuSecond)} | ${int(x.schedulesPerSecond)} | ${x.stepsPerSchedule.toFixed(0)} | ${x.samples.map((y) => int(y.stepsPerSecond)).join(', ')} |`,
      );
    }
    md.push('', `${warmUpLine(s)}.`);
    md.push(
      '',
      `The checkers cost ${((s.checkerCost - 1) * 100).toFixed(0)} % (steps/s off / on = ${s.checkerCost.toFixed(2)}).`,
    );
    if (s.refinementCost !== undefined)
      md.push(
        `The refinement alone costs ${((s.refinementCost - 1) * 100).toFixed(0)} % (steps/s without it / with it = ${s.refinementCost.toFixed(2)}).`,
      );
    md.push('', 'Targets (issue 33):', '', ...speedTargets(s), growthTarget(scaling, flat), '');
  }
  if (scaling !== undefined) {
    md.push('## Cost as scenarios grow', '', 'The default scenario with one dimension grown at a time.', '');
    md.push(
      '| grown | value | steps per schedule | steps/s (checkers on) | per CPU second (on) | schedules/s (on) | steps/s (off) | per CPU second (off) | schedules/s (off) |',
      '|---|---|---|---|---|---|---|---|---|',
    );
    for (const x of scaling) {
      md.push(
        `| ${x.dimension} | ${x.value} | ${x.on.stepsPerSchedule.toFixed(0)} | ${int(x.on.stepsPerSecond)} | ${int(x.on.stepsPerCpuSecond)} | ${int(x.on.schedulesPerSecond)} | ` +
          `${int(x.off.stepsPerSecond)} | ${int(x.off.stepsPerCpuSecond)} | ${int(x.off.schedulesPerSecond)} |`,
      );
    }
    md.push('');
  }
  return md;
}
