/**
 * How a mutation run talks to the properties CLI (apps/cli/properties.ts, run as
 * apps/cli/bin/properties.ts) in a scratch copy: the command line (`--bail --quiet`, a
 * time budget, pass-through options), the shape of the properties.json it writes, and the
 * baseline check that the unmutated sources pass before any mutant is judged.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runChild } from './child.js';
import type { ViolationCounts } from '../../properties/types.js';
import type { RunSettings } from './types.js';

export interface ReportSuite {
  suite: string;
  runs: number;
  seconds: number;
  violations: ViolationCounts;
  failure: null | {
    property: string;
    detail: string;
    choices: number[];
    replay: string;
    runsToFind?: number;
    secondsToFind?: number;
    shrinks?: number;
    steps?: number;
  };
}

/** `npx tsx`, without npx's own start-up: the tsx CLI run by this node. */
export function tsxCommand(root: string): [string, string[]] {
  return [process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs')]];
}

/** The last n meaningful lines of a child's output (no stack frames), for one-line errors. */
export function lastLines(text: string, n: number): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith('at ') && !l.startsWith('['))
    .slice(-n)
    .join(' | ');
}

export function propertiesArgs(s: RunSettings, reportDir: string): string[] {
  // one thread per mutant: the mutation run already keeps every core busy with mutants
  const args = [
    'apps/cli/bin/properties.ts',
    '--bail',
    '--quiet',
    '--jobs',
    '1',
    '--seconds',
    String(s.seconds),
    '--seed',
    String(s.seed),
    '--report',
    reportDir,
  ];
  // without --runs the CLI stops each suite at its default run count; a mutant budget is
  // time, so the run count is effectively unbounded unless asked
  args.push('--runs', String(s.runs ?? 1_000_000_000));
  if (s.strategy !== undefined) args.push('--strategy', s.strategy);
  if (s.suite !== undefined) args.push('--suite', s.suite);
  return args;
}

/**
 * The sources with no mutant must pass a short run first: if they already fail (someone's
 * edit in progress, or a real bug), every mutant would look killed. Returns null when
 * they pass, else what is wrong.
 */
export async function checkBaseline(s: RunSettings, seconds: number): Promise<string | null> {
  const dir = s.sourceDir ?? s.root;
  const reportDir = join(dir, 'baseline-report');
  const [node, tsx] = tsxCommand(s.root);
  const r = await runChild(node, [...tsx, ...propertiesArgs({ ...s, seconds }, reportDir)], {
    cwd: dir,
    env: { ...process.env, FORCE_COLOR: '0' },
    timeoutMs: (seconds * 3 + 90) * 1000,
  });
  if (r.rc === 0) return null;
  const jsonPath = join(reportDir, 'properties.json');
  if (existsSync(jsonPath)) {
    const report = JSON.parse(readFileSync(jsonPath, 'utf8')) as { suites: ReportSuite[] };
    const f = report.suites.find((x) => x.failure !== null)?.failure;
    if (f !== undefined && f !== null) return `the unmutated sources fail ${f.property}: ${f.detail}`;
  }
  return `the unmutated sources do not run (exit ${r.rc ?? r.signal}): ${lastLines(r.stderr || r.stdout, 4)}`;
}
