/**
 * `npm run properties -- --tier c [--level 1|2] [--fresh]`: the property suites on the C
 * tier (native/tier/) under tierlab's scheduler (properties/ctier/), with the options the
 * TypeScript tier's run takes where they mean the same (--runs per suite, --seed, --suite,
 * --property, --strategy choices|random|pct|exhaustive, --depth, --scenario FILE, --report,
 * --bail, --quiet, --full). A failure is shrunk, saved as a counterexample of the C tier
 * and printed with its records and its one-line replay (`npm run replay -- FILE`).
 *
 * Level 2 (the default) judges the tier by its event log too (the refinement against the
 * reference); level 1 by what crosses its boundary only. --fresh runs every schedule in a
 * forked child (a tier that may crash). Exit codes as every command's (src/check/exit_codes.ts).
 */
import { describeScenario } from '../../model/scenario/scenario.js';
import { replayCTier } from '../../model/ctier/replay_ctier.js';
import { saveCounterexample } from '../../properties/counterexample_file.js';
import { checkCTier } from '../../properties/ctier/ctier_runner.js';
import type { CTierRequest } from '../../properties/ctier/ctier_shared.js';
import { buildReport, writeReport } from '../../properties/report.js';
import type { SuiteResult } from '../../properties/types.js';
import { propertyInfo, PROPERTIES, type PropertyId } from '../../src/check/catalogue.js';
import { EXIT, exitForViolations, type ExitCode } from '../../src/check/exit_codes.js';
import { CTierHarness } from '../../src/engine/native/ctier_harness.js';
import { Progress } from './progress.js';
import { ensureHarnessBuilt } from './ctier_build.js';
import type { PropertiesOptions } from './properties_options.js';

/** Runs the suites (or the one scenario) on the C tier; returns the verdict's exit code. */
export function ctierProperties(o: PropertiesOptions): ExitCode {
  ensureHarnessBuilt();
  const h = new CTierHarness();
  const progress = new Progress();
  const results: SuiteResult[] = [];
  const replays = new Map<SuiteResult, string>();
  const labels = o.given !== null ? (['scenario'] as const) : o.suites;
  // one scenario's exhaustive search runs to its end unless --runs caps it
  const runs = Number.isFinite(o.runs) ? o.runs : 100_000;
  try {
    for (const [i, label] of labels.entries()) {
      progress.update(`[${i + 1}/${labels.length}] ${label} (C tier, level ${o.level}) ...`);
      const req: CTierRequest = {
        suite: label,
        ...(o.given !== null ? { scenario: o.given } : {}),
        seed: o.seed + i,
        runs,
        ...(o.seconds !== undefined ? { seconds: o.seconds / labels.length } : {}),
        ...(o.property !== undefined ? { property: o.property } : {}),
        strategy: o.strategy,
        ...(o.depth !== undefined ? { depth: o.depth } : {}),
        level: o.level,
        fresh: o.fresh,
        onProgress: (n) => progress.update(`[${i + 1}/${labels.length}] ${label} (C tier): ${n} runs ...`),
      };
      const r = checkCTier(h, req);
      results.push(r);
      progress.done(
        `[${i + 1}/${labels.length}] ${label.padEnd(11)} ${String(r.runs).padStart(6)} runs ${r.seconds.toFixed(1).padStart(6)} s  ` +
          `${r.failure === null ? (Object.keys(r.violations).length > 0 ? 'VIOLATIONS' : 'ok') : `FAIL ${r.failure.property}`}`,
      );
      if (r.guarantee !== undefined) progress.done(`  ${r.guarantee.statement}`);
      if (r.failure === null) continue;
      replays.set(r, reportFailure(o, r));
      if (o.bail) break;
    }
  } finally {
    h.close();
  }
  return finish(o, results, replays);
}

/** Saves, prints and returns the replay command of a suite's counterexample. */
function reportFailure(o: PropertiesOptions, r: SuiteResult): string {
  const f = r.failure;
  if (f === null) return '';
  const file = saveCounterexample(`${o.reportDir}/counterexamples`, {
    property: f.property,
    detail: f.detail,
    mutant: o.mutant,
    scenario: f.scenario,
    choices: f.choices,
    tier: 'c',
    level: o.level,
  });
  const replay = `npm run replay -- ${file}`;
  if (o.quiet) return replay;
  const again = replayCTier(f.scenario, f.choices, o.level, { fresh: o.fresh, ...(o.full ? {} : { last: 80 }) });
  process.stdout.write(
    [
      '',
      `VIOLATED ${f.property} (C tier, level ${o.level}): ${propertyInfo(f.property)?.statement ?? ''}`,
      `  ${f.detail}`,
      `  scenario: ${describeScenario(f.scenario)}`,
      `  schedule (${f.choices.length} choices): [${f.choices.join(',')}]  -> ${f.steps} steps`,
      `  found after ${f.runsToFind} runs in ${f.secondsToFind.toFixed(2)} s; ${f.shrinks} shrinks (${r.strategy})`,
      '',
      ...again.lines.map((l) => `  ${l}`),
      '',
      `  replay: ${replay}`,
      '',
    ].join('\n'),
  );
  return replay;
}

function finish(o: PropertiesOptions, results: SuiteResult[], replays: Map<SuiteResult, string>): ExitCode {
  const command = `npm run properties -- ${o.argv.join(' ')}`;
  const report = buildReport(results, { seed: o.seed, strategy: o.strategy, command, replays });
  writeReport(o.reportDir, report, results);
  const t = report.totals;
  const verdict = !report.ok ? 'FAIL' : report.complete ? 'PASS' : 'INCOMPLETE';
  process.stdout.write(
    `\n${verdict} (C tier, level ${o.level}): ${t.runs} runs, ${Math.round(t.runsPerSecond)} schedules/s; ` +
      `${PROPERTIES.length} properties; report in ${o.reportDir}/properties.md\n`,
  );
  const violated = new Set<PropertyId>();
  for (const r of results) {
    for (const id of Object.keys(r.violations)) if (PROPERTIES.some((p) => p.id === id)) violated.add(id as PropertyId);
    if (r.failure !== null) violated.add(r.failure.property);
  }
  if (violated.size > 0) return exitForViolations(violated) || EXIT.safety;
  return report.complete ? EXIT.ok : EXIT.incomplete;
}
