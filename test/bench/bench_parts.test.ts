/** The benchmark's parts on small inputs: each measures what it says and reports it in the JSON the report reads. */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderMarkdown, type BenchReport } from '../../apps/cli/bench/bench_report.js';
import {
  reductionFactor,
  repeatedRow,
  type ExhaustiveRow,
  type ExhaustiveSection,
} from '../../apps/cli/bench/exhaustive_bench.js';
import { measureRace, raceScratch, RACE_FILE, RACE_REPLACE, RACE_WORKER } from '../../apps/cli/bench/race.js';
import { grownScenarios } from '../../apps/cli/bench/scaling.js';
import { measureSpeed, median } from '../../apps/cli/bench/speed.js';
import { runScenario } from '../../model/run.js';
import { ChoicesStrategy } from '../../model/rt/strategy.js';
import { defaultScenario } from '../../properties/committed_scenarios.js';

/** an exhaustive section with these rows and no jobs rows */
function exhaustiveSection(rows: ExhaustiveRow[], reduction: number | null, medium: ExhaustiveRow): ExhaustiveSection {
  return {
    scenario: 's',
    rows,
    reductionFactor: reduction,
    jobsScenario: 'j',
    jobs: [],
    jobsSpeedup: null,
    steadyScenario: 't',
    steadySeconds: 30,
    steady: [],
    steadySpeedup: null,
    ceiling: [],
    ceilingSpeedup: null,
    mediumScenario: 'm',
    medium,
  };
}

describe('bench parts', () => {
  it('every grown scenario is valid and passes under the quiet schedule', () => {
    const grown = grownScenarios(defaultScenario());
    expect(new Set(grown.map((g) => g.dimension))).toEqual(new Set(['experts', 'devices', 'loaders', 'tokens']));
    for (const g of grown) {
      const r = runScenario(g.scenario, { strategy: new ChoicesStrategy([]) });
      expect(r.violation, `${g.dimension}=${g.value}`).toBeNull();
      if (g.dimension === 'tokens') expect(g.scenario.routes).toHaveLength(g.value);
    }
  });

  it('measures speed with and without checkers', () => {
    const s = measureSpeed(defaultScenario(), { checks: true, seconds: 0.05, repeats: 3, warmupSeconds: 0.01 });
    expect(s.samples).toHaveLength(3);
    expect(s.stepsPerSecond).toBeGreaterThan(0);
    expect(s.violations).toBe(0);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2);
  });

  it('puts the race into a scratch copy, never into the working tree', () => {
    const dir = raceScratch(process.cwd());
    try {
      expect(readFileSync(join(dir, RACE_FILE), 'utf8')).toContain(RACE_REPLACE);
      expect(readFileSync(RACE_FILE, 'utf8')).not.toContain(RACE_REPLACE);
      // the worker runs inside the copy: it must be there
      expect(existsSync(join(dir, RACE_WORKER))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("measures the race in its worker: one seed, a few runs a suite, each strategy's row", async () => {
    const rows = await measureRace(process.cwd(), ['random'], 1, 5);
    expect(rows.map((r) => [r.strategy, r.seeds])).toEqual([['random', 1]]);
  });

  it('computes the reduction factor only from finished searches and renders the tables', () => {
    const row = (label: string, reduction: boolean, schedules: number, complete = true): ExhaustiveRow => ({
      label,
      preemptions: 2,
      reduction,
      stateCache: false,
      complete,
      schedules,
      sleepBlocked: 0,
      cachedStops: 0,
      states: 10,
      stepsExecuted: 100,
      seconds: 1,
      stepsPerSecond: 100,
      statesPerSecond: 10,
      stepsPerState: 10,
      violations: [],
    });
    expect(reductionFactor([row('p', false, 100), row('r', true, 25)])).toBe(4);
    expect(reductionFactor([row('p', false, 100, false), row('r', true, 25)])).toBeNull();
    const report: BenchReport = {
      date: 'd',
      command: 'c',
      machine: { cores: 2, node: 'v20', loadAverageAtStart: [1, 1, 1], loadAverageAtEnd: [1, 1, 1] },
      exhaustive: exhaustiveSection([row('plain', false, 100), row('sleep', true, 25)], 4, row('medium', true, 7)),
      mutants: {
        available: false,
        note: 'no mutation runner',
        secondsPerMutant: 1,
        jobs: 1,
        strategies: [],
        rows: [],
        wallSeconds: {},
      },
    };
    const md = renderMarkdown(report);
    expect(md).toMatch(/Reduction factor of sleep sets on the same bound: 4.00 x/);
    expect(md).toMatch(/no mutation runner/);
    expect(md).toMatch(/## Exhaustive search of the medium configuration\n\nScenario: m\./);
  });

  it('reports a short search as its median run with every run, and refuses runs that count differently', () => {
    const run = (seconds: number, states = 10): ExhaustiveRow => ({
      label: 'short',
      preemptions: null,
      reduction: true,
      stateCache: true,
      complete: true,
      schedules: 3,
      sleepBlocked: 0,
      cachedStops: 1,
      states,
      stepsExecuted: 30,
      seconds,
      stepsPerSecond: 30 / seconds,
      statesPerSecond: states / seconds,
      stepsPerState: 3,
      violations: [],
    });
    const again = [run(0.8), run(0.9)];
    const r = repeatedRow(run(1.4), () => again.shift() as ExhaustiveRow);
    expect(r.seconds).toBe(0.9);
    expect(r.statesPerSecond).toBeCloseTo(10 / 0.9);
    expect(r.runs).toEqual([1.4, 0.8, 0.9]);
    const md = renderMarkdown({
      date: 'd',
      command: 'c',
      machine: { cores: 2, node: 'v20', loadAverageAtStart: [1, 1, 1], loadAverageAtEnd: [1, 1, 1] },
      exhaustive: exhaustiveSection([r], null, run(2)),
    });
    expect(md).toMatch(/\| 0\.90 \(1\.40, 0\.80, 0\.90\) \|/);
    expect(md).toMatch(/a short search run that many times \(the same counts each time\): the row is the median run/);
    // a long or unfinished search runs once
    expect(repeatedRow(run(6), () => run(1)).runs).toBeUndefined();
    expect(repeatedRow({ ...run(1), complete: false }, () => run(1)).runs).toBeUndefined();
    expect(() => repeatedRow(run(1), () => run(1, 11))).toThrow(/counted differently/);
  });
});
