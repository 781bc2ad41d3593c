/**
 * The C tier's part of reports/bench.md (ctier_bench.ts's section): the speed rows, then
 * one row per catalogue defect with tierlab's columns beside the stress test's, and the
 * issue's three targets checked against the numbers measured (each line says met or NOT
 * met, with the figure that decides it).
 */
import type { CTierCell, CTierColumn, CTierRow, CTierSection } from './ctier_bench.js';
import type { StressResult } from './ctier_stress.js';

const int = (x: number): string => Math.round(x).toLocaleString('en-US');
const sec = (x: number): string => (x < 0.1 ? x.toFixed(3) : x.toFixed(2));

function cellText(c: CTierCell, best: boolean): string {
  const t = c.killed ? `${int(c.runs)} / ${sec(c.seconds)} s` : `survived ${int(c.runs)}`;
  return best ? `**${t}**` : t;
}

function stressText(x: StressResult | null): string {
  if (x === null) return 'n/a (driver)';
  if (x.outcome === 'clean') return `not found in ${int(x.iterations)} (${x.seconds.toFixed(1)} s)`;
  return `${x.outcome}: ${int(x.iterations)} / ${x.seconds.toFixed(1)} s`;
}

const COLUMNS: readonly CTierColumn[] = ['random', 'pct', 'exhaustive', 'random-level1'];

function rowLine(r: CTierRow): string {
  const cells = COLUMNS.map((c) => cellText(r.cells[c], r.cells[c].killed && r.cells[c].runs === r.fewestRuns));
  const prop = COLUMNS.map((c) => r.cells[c].property).find((p) => p !== null) ?? '-';
  const ratio =
    r.stressRatio === null ? '-' : `${r.stressRatio < 10 ? r.stressRatio.toFixed(1) : int(r.stressRatio)} x`;
  return `| ${r.id} | ${r.id.startsWith('control') ? 'every suite' : r.suite} | ${cells.join(' | ')} | ${prop} | ${stressText(r.stress)} | ${stressText(r.tsan)} | ${ratio} |`;
}

const stressRuns = (r: CTierRow): number =>
  Math.min(...[r.stress, r.tsan].filter((x) => x !== null && x.outcome !== 'clean').map((x) => x?.iterations ?? 0));

function targets(x: CTierSection): string[] {
  const perCore = Math.min(...x.speed.rows.filter((r) => r.complete === undefined).map((r) => r.schedulesPerCpuSecond));
  const slow = x.rows.filter((r) => r.fewestSeconds === null || r.fewestSeconds >= 10).map((r) => r.id);
  const compared = x.rows.filter((r) => r.stressRatio !== null);
  const short = compared
    .filter((r) => (r.stressRatio ?? 0) < 100)
    .map(
      (r) =>
        `${r.id} (${(r.stressRatio ?? 0).toFixed(1)} x: the stress test's ${stressRuns(r)} iterations, tierlab's ${r.fewestRuns ?? '-'} runs)`,
    );
  return [
    `- At least 1,000 complete schedules per second per core on the small configuration: ${perCore >= 1000 ? 'met' : 'NOT met'} (the slowest row, ${int(perCore)} per CPU second).`,
    `- Every defect found in under 10 s by at least one strategy: ${slow.length === 0 ? `met (${x.rows.length} of ${x.rows.length})` : `NOT met: ${slow.join(', ')}`}.`,
    `- Where the stress test (or TSan) finds a defect at all, tierlab at least 100 x sooner in runs: ${compared.length === 0 ? 'nothing to compare (the stress test found none)' : short.length === 0 ? `met (${compared.length} defects compared)` : `NOT met: ${short.join(', ')}`}.`,
  ];
}

export function renderCTier(x: CTierSection): string[] {
  const o = x.options;
  const md = ['## The C tier under the scheduler, beside the stress test', ''];
  md.push(
    `Complete schedules of ${x.speed.scenario}; one thread, so schedules per CPU second is the rate per core.`,
    '',
    '| run | schedules | steps per schedule | seconds | CPU seconds | schedules/s | per CPU second | violations |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const r of x.speed.rows) {
    const label =
      r.complete === undefined ? r.label : `${r.label} (${r.complete ? 'complete' : 'INCOMPLETE at the budget'})`;
    md.push(
      `| ${label} | ${int(r.schedules)} | ${(r.steps / Math.max(1, r.schedules)).toFixed(0)} | ${sec(r.seconds)} | ${sec(r.cpuSeconds)} | ${int(r.schedulesPerSecond)} | ${int(r.schedulesPerCpuSecond)} | ${r.violations} |`,
    );
  }
  md.push(
    '',
    `Per catalogue defect (mutants/ctier/): runs / seconds to the first failing schedule (before shrinking), at most ${int(o.runs)} runs a cell, seed ${o.seed}, on the scenarios of the suite aimed at the defect. ` +
      `random, pct and exhaustive judge the tier by its event log (level 2); random-level1 by its boundary only (what the stress test checks too). ` +
      `exhaustive: each scenario searched within one delay (every schedule that leaves the quiet one at one decision), at most ${o.perScenario} schedules a scenario, then the next. ` +
      `The stress test: native/tier/stress/tier_stress.c, real threads, sleeps of up to ${o.sleepUs} us in the fake backend's hooks, at most ${int(o.stressIterations)} iterations (${int(o.tsanIterations)} under TSan), iterations / seconds to its first failure; a hang is seen by a watchdog. ` +
      "The ratio: the stress test's iterations (the sooner of plain and TSan) over tierlab's fewest runs. The fewest runs in bold.",
    '',
    '| defect | suite | random | pct | exhaustive | random-level1 | property | stress test | stress test under TSan | stress / tierlab runs |',
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  md.push(rowLine({ ...summarizeControl(x), id: 'control (unmutated)' }));
  for (const r of x.rows) md.push(rowLine(r));
  md.push(
    '',
    ...targets(x),
    '',
    `Scratch builds (harness and both stress programs, per defect): ${x.buildSeconds.toFixed(0)} s in all.`,
    '',
  );
  return md;
}

function summarizeControl(x: CTierSection): CTierRow {
  return {
    id: 'control',
    suite: 'general',
    cells: x.control.cells,
    stress: x.control.stress,
    tsan: x.control.tsan,
    fewestRuns: null,
    fewestSeconds: null,
    stressRatio: null,
  };
}
