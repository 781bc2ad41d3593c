/**
 * The parts of `npm run bench -- --only ctier` on small inputs: the one-delay schedules the
 * exhaustive column searches, the stress program run to the end of a tiny budget (its
 * iterations counted from its own progress lines), plain and under ThreadSanitizer, and the table with the three
 * targets decided from the numbers it is given. Bounded by runs and iterations; the stress
 * program's watchdog is a safety net that a clean run of three iterations never meets.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { CTierCell, CTierRow, CTierSection } from '../../apps/cli/bench/ctier_bench.js';
import { renderCTier } from '../../apps/cli/bench/ctier_report.js';
import { runStress, type StressResult } from '../../apps/cli/bench/ctier_stress.js';
import { oneDelaySchedules } from '../../mutants/lib/ctier_kill_exhaustive.js';

const killed = (runs: number, seconds: number): CTierCell => ({ killed: true, runs, seconds, property: 'SPEC-FILL' });
const survived: CTierCell = { killed: false, runs: 100, seconds: 1, property: null };
const stress = (outcome: StressResult['outcome'], iterations: number): StressResult => ({
  outcome,
  iterations,
  seconds: 1,
  what: outcome === 'clean' ? '' : 'x',
});

function row(id: string, cells: CTierRow['cells'], s: StressResult | null, ratio: number | null): CTierRow {
  const k = Object.values(cells).filter((c) => c.killed);
  return {
    id,
    suite: 'general',
    cells,
    stress: s,
    tsan: s === null ? null : stress('clean', 10),
    fewestRuns: k.length > 0 ? Math.min(...k.map((c) => c.runs)) : null,
    fewestSeconds: k.length > 0 ? Math.min(...k.map((c) => c.seconds)) : null,
    stressRatio: ratio,
  };
}

describe('the C tier bench', () => {
  it('searches one delay deepest first, each option of each decision once, within the cap', () => {
    expect(oneDelaySchedules([2, 1, 3], 10)).toEqual([[0, 0, 1], [0, 0, 2], [1]]);
    expect(oneDelaySchedules([2, 1, 3], 2)).toEqual([
      [0, 0, 1],
      [0, 0, 2],
    ]);
    expect(oneDelaySchedules([1, 1], 10)).toEqual([]);
  });

  it('runs the stress program to the end of its budget and counts its iterations', async () => {
    const b = spawnSync('make', ['-s', '-C', 'native', 'build/tier/tier_stress'], { encoding: 'utf8' });
    expect(b.status, b.stderr).toBe(0);
    const r = await runStress('native/build/tier/tier_stress', { iterations: 3, sleepUs: 0, seed: 7 });
    expect(r).toMatchObject({ outcome: 'clean', iterations: 3, what: '' });
  });

  it('the stress program under ThreadSanitizer: clean on the unmutated tier', async () => {
    const b = spawnSync('make', ['-s', '-C', 'native', 'build/tier/tsan/tier_stress'], { encoding: 'utf8' });
    expect(b.status, b.stderr).toBe(0);
    const r = await runStress('native/build/tier/tsan/tier_stress', { iterations: 20, sleepUs: 20, seed: 7 });
    expect(r).toMatchObject({ outcome: 'clean', iterations: 20 });
  });

  it('renders the table and decides each target from the numbers', () => {
    const all = {
      random: killed(1, 0.01),
      pct: killed(2, 0.02),
      exhaustive: survived,
      'random-level1': killed(5, 0.1),
    };
    const speedRow = (perCpu: number) => ({
      label: 'judged at level 2',
      schedules: 10,
      steps: 100,
      seconds: 1,
      cpuSeconds: 1,
      schedulesPerSecond: perCpu,
      schedulesPerCpuSecond: perCpu,
      violations: 0,
    });
    const section = (perCpu: number, rows: CTierRow[]): CTierSection => ({
      speed: { scenario: 'small', rows: [speedRow(perCpu)] },
      control: {
        cells: { random: survived, pct: survived, exhaustive: survived, 'random-level1': survived },
        stress: stress('clean', 10),
        tsan: stress('clean', 10),
      },
      rows,
      options: {
        runs: 100,
        speedRuns: 10,
        perScenario: 20,
        stressIterations: 10,
        tsanIterations: 10,
        sleepUs: 50,
        seed: 1,
        ids: [],
      },
      buildSeconds: 3,
    });
    const good = renderCTier(section(1500, [row('a', all, stress('failed', 300), 300), row('b', all, null, null)]));
    const text = good.join('\n');
    expect(text).toMatch(/\| a \| general \| \*\*1 \/ 0\.010 s\*\* \| 2 \/ 0\.020 s \| survived 100 \|/);
    expect(text).toMatch(/\| b \| .* \| n\/a \(driver\) \| n\/a \(driver\) \| - \|/);
    expect(text).toMatch(/per core on the small configuration: met \(the slowest row, 1,500/);
    expect(text).toMatch(/under 10 s by at least one strategy: met \(2 of 2\)/);
    expect(text).toMatch(/100 x sooner in runs: met \(1 defects compared\)/);
    const slow = { ...all, random: survived, pct: survived, 'random-level1': killed(5, 12) };
    const bad = renderCTier(section(900, [row('c', slow, stress('hung', 3), 0.6)])).join('\n');
    expect(bad).toMatch(/per core on the small configuration: NOT met/);
    expect(bad).toMatch(/under 10 s by at least one strategy: NOT met: c/);
    expect(bad).toMatch(/NOT met: c \(0\.6 x: the stress test's 3 iterations, tierlab's 5 runs\)/);
  });
});
