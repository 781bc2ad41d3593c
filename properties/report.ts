/**
 * The property report: reports/properties.json (for tools) and reports/properties.md
 * (for people). Per property: its statement and whether any run violated it; per suite:
 * runs, steps and speed; per coverage mark: how often runs reached it.
 *
 * Invariant: `ok` says no property was violated; `complete` says every guarantee asked
 * for (PCT or exhaustive search on one scenario) was reached. A run that is ok but not
 * complete is INCOMPLETE, never "all held".
 */
import type { PropertyId } from '../src/check/catalogue.js';
import { join } from 'node:path';
import { COVERAGE_MARKS } from '../src/check/checkers/coverage.js';
import { describeScenario } from '../model/scenario/scenario.js';
import { PROPERTIES } from '../src/check/catalogue.js';
import { addCounts, type SuiteResult, type ViolationCounts } from './types.js';
import { writeReportFile } from '../src/input/report_file.js';

export interface PropertiesReport {
  readonly date: string;
  readonly seed: number;
  readonly strategy: string;
  readonly command: string;
  readonly ok: boolean;
  /** false when a PCT campaign or an exhaustive search was cut short by its budget */
  readonly complete: boolean;
  readonly totals: { runs: number; steps: number; seconds: number; stepsPerSecond: number; runsPerSecond: number };
  readonly properties: {
    id: string;
    family: string;
    statement: string;
    reason: string;
    violations: number;
    status: string;
  }[];
  readonly suites: (Omit<SuiteResult, 'failure'> & {
    failure: null | { property: PropertyId; detail: string; choices: number[]; replay: string };
  })[];
  readonly coverage: { mark: string; runs: number; percent: number }[];
}

export function buildReport(
  suites: readonly SuiteResult[],
  opts: { seed: number; strategy: string; command: string; replays: Map<SuiteResult, string> },
): PropertiesReport {
  const runs = suites.reduce((a, s) => a + s.runs, 0);
  const steps = suites.reduce((a, s) => a + s.steps, 0);
  const seconds = suites.reduce((a, s) => a + s.seconds, 0);
  const violations: ViolationCounts = {};
  for (const s of suites) addCounts(violations, s.violations);
  const coverage = COVERAGE_MARKS.map((mark) => {
    const n = suites.reduce((a, s) => a + (s.coverage[mark] ?? 0), 0);
    return { mark, runs: n, percent: runs > 0 ? (100 * n) / runs : 0 };
  });
  return {
    date: new Date().toISOString(),
    seed: opts.seed,
    strategy: opts.strategy,
    command: opts.command,
    ok: suites.every((s) => s.failure === null) && Object.keys(violations).length === 0,
    complete: suites.every((s) => s.guarantee === undefined || s.guarantee.complete),
    totals: {
      runs,
      steps,
      seconds,
      stepsPerSecond: seconds > 0 ? steps / seconds : 0,
      runsPerSecond: seconds > 0 ? runs / seconds : 0,
    },
    properties: PROPERTIES.map((p) => ({
      id: p.id,
      family: p.family,
      statement: p.statement,
      reason: p.reason,
      violations: violations[p.id] ?? 0,
      status: (violations[p.id] ?? 0) > 0 ? 'VIOLATED' : 'held',
    })),
    suites: suites.map((s) => ({
      ...s,
      failure:
        s.failure === null
          ? null
          : {
              property: s.failure.property,
              detail: s.failure.detail,
              choices: s.failure.choices,
              replay: opts.replays.get(s) ?? '',
            },
    })),
    coverage,
  };
}

/**
 * Writes DIR/NAME.json and DIR/NAME.md (NAME: `properties`, or a one-scenario run's own
 * name), each whole or not at all (the one report writer: a full disk leaves the previous
 * report as it was).
 */
export function writeReport(
  dir: string,
  report: PropertiesReport,
  suites: readonly SuiteResult[],
  name = 'properties',
): void {
  writeReportFile(join(dir, `${name}.json`), JSON.stringify(report, null, 2) + '\n');
  const md: string[] = [];
  const verdict = !report.ok
    ? 'VIOLATIONS FOUND'
    : report.complete
      ? 'all held'
      : 'INCOMPLETE (no violation, but a guarantee was cut short by its budget)';
  md.push(`# tierlab properties: ${verdict}`, '');
  md.push(`${report.date} - seed ${report.seed} - strategy ${report.strategy} - \`${report.command}\``, '');
  const t = report.totals;
  md.push(
    `${t.runs} runs, ${t.steps} simulated steps in ${t.seconds.toFixed(1)} s ` +
      `(${Math.round(t.stepsPerSecond).toLocaleString('en-US')} steps/s, ${Math.round(t.runsPerSecond)} schedules/s, every checker on).`,
    '',
  );
  md.push('## Properties', '', '| id | family | statement | status |', '|---|---|---|---|');
  for (const p of report.properties)
    md.push(
      `| ${p.id} | ${p.family} | ${p.statement} | ${p.status}${p.violations > 0 ? ` (${p.violations} runs)` : ''} |`,
    );
  md.push('', '## Suites', '', '| suite | runs | steps | seconds | result |', '|---|---|---|---|---|');
  for (const s of report.suites) {
    md.push(
      `| ${s.suite} | ${s.runs} | ${s.steps} | ${s.seconds.toFixed(1)} | ${s.failure === null ? 'pass' : `**${s.failure.property}**: ${s.failure.detail}<br>replay: \`${s.failure.replay}\``} |`,
    );
  }
  md.push(
    '',
    '## Coverage marks',
    '',
    'How many runs reached each hard-to-reach situation.',
    '',
    '| mark | runs | share |',
    '|---|---|---|',
  );
  for (const c of report.coverage) md.push(`| ${c.mark} | ${c.runs} | ${c.percent.toFixed(1)} % |`);
  const failing = suites.filter((s) => s.failure !== null);
  if (failing.length > 0) {
    md.push('', '## Counterexamples', '');
    for (const s of failing) {
      const f = s.failure;
      if (f === null) continue;
      md.push(
        `### ${f.property} (${s.suite})`,
        '',
        `- ${f.detail}`,
        `- scenario: ${describeScenario(f.scenario)}`,
        `- schedule: [${f.choices.join(',')}]`,
        `- found after ${f.runsToFind} runs (${f.secondsToFind.toFixed(2)} s), ${f.shrinks} shrinks`,
        '',
      );
    }
  }
  // the guarantees also go to the people's report (properties.json has them per suite);
  // each statement starts with its strategy
  const guarantees = suites.filter((r) => r.guarantee !== undefined);
  if (guarantees.length > 0)
    md.push('', '## Exploration guarantee', '', ...guarantees.map((r) => `- ${r.guarantee?.statement ?? ''}`), '');
  writeReportFile(join(dir, `${name}.md`), md.join('\n') + '\n');
}
