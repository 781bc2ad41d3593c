/**
 * One mutant, start to verdict: scratch copy, patch, compile check, the properties CLI
 * (`--bail --quiet`) in the scratch copy, its report read back, the counterexample
 * measured (probe.ts) and copied under the report directory with its replay command.
 *
 * Invariant: only a property failure with a counterexample counts as a kill. A patch that
 * does not apply or compile, a crash, or a hang is stillborn, with the error.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { VERDICT_EXITS } from '../../src/check/exit_codes.js';
import { fileNamePart } from '../../src/input/paths.js';
import { runChild } from './child.js';
import { storedViewPath } from '../../properties/counterexample_view.js';
import { syntaxErrors, typeErrors } from './compile_check.js';
import { PatchError } from './patch.js';
import { lastLines, propertiesArgs, tsxCommand, type ReportSuite } from './properties_cli.js';
import { addCounts, type ViolationCounts } from '../../properties/types.js';
import type { MatrixCounts, MutantResult } from './result.js';
import { makeScratch, type Scratch } from './scratch.js';
import type { MutantEntry, RunSettings } from './types.js';

function base(
  entry: MutantEntry,
): Pick<MutantResult, 'id' | 'kind' | 'source' | 'title' | 'family' | 'expectedProperties'> {
  const m = entry.mutant;
  return {
    id: m.id,
    kind: entry.kind,
    source: entry.source,
    title: m.title,
    family: m.family,
    expectedProperties: m.expectedProperties,
  };
}

const EMPTY = {
  property: null,
  detail: null,
  asExpected: null,
  suite: null,
  runsToKill: null,
  secondsToKill: null,
  shrinks: null,
  choices: null,
  steps: null,
  counterexample: null,
  replay: null,
  violations: {},
  matrix: null,
  matrixRuns: 0,
  runs: null,
  error: null,
  equivalentReason: null,
} as const;

export function equivalentResult(entry: MutantEntry): MutantResult {
  return { ...base(entry), ...EMPTY, status: 'equivalent', wallSeconds: 0, equivalentReason: entry.equivalent ?? null };
}

function stillborn(entry: MutantEntry, error: string, wallSeconds = 0): MutantResult {
  return { ...base(entry), ...EMPTY, status: 'stillborn', wallSeconds, error };
}

/** "found after N runs (X s), K shrinks" from properties.md, for reports that lack the fields. */
function fromMarkdown(
  md: string,
  property: string,
  suite: string,
): { runs: number; seconds: number; shrinks: number } | null {
  const at = md.indexOf(`### ${property} (${suite})`);
  if (at < 0) return null;
  const m = /found after (\d+) runs \(([\d.]+) s\), (\d+) shrinks/.exec(md.slice(at));
  if (m === null) return null;
  return { runs: Number(m[1]), seconds: Number(m[2]), shrinks: Number(m[3]) };
}

export async function runMutant(entry: MutantEntry, s: RunSettings): Promise<MutantResult> {
  const m = entry.mutant;
  let scratch: Scratch;
  try {
    scratch = makeScratch(s.sourceDir ?? s.root, join(s.root, 'node_modules'), m);
  } catch (e) {
    if (e instanceof PatchError) return stillborn(entry, e.message);
    throw e;
  }
  try {
    const syntax = syntaxErrors(scratch.dir, scratch.patched);
    if (syntax !== null) return stillborn(entry, `does not compile: ${syntax}`);
    if (s.typecheck) {
      const types = await typeErrors(s.root, scratch.dir, scratch.patched);
      if (types !== null) return stillborn(entry, `does not type-check: ${types}`);
    }
    const reportDir = join(scratch.dir, 'report');
    const [node, tsx] = tsxCommand(s.root);
    const child = await runChild(node, [...tsx, ...propertiesArgs(s, reportDir)], {
      cwd: scratch.dir,
      env: { ...process.env, TIERLAB_MUTANT: m.id, FORCE_COLOR: '0' },
      timeoutMs: (s.seconds * 3 + 90) * 1000,
    });
    if (child.timedOut)
      return stillborn(
        entry,
        `the properties run hung past ${(s.seconds * 3 + 90).toFixed(0)} s (a loop with no yield?)`,
        child.wallSeconds,
      );
    const jsonPath = join(reportDir, 'properties.json');
    if (!existsSync(jsonPath) || child.rc === null || !VERDICT_EXITS.includes(child.rc)) {
      return stillborn(
        entry,
        `the properties run crashed (exit ${child.rc ?? child.signal}): ${lastLines(child.stderr || child.stdout, 4)}`,
        child.wallSeconds,
      );
    }
    const report = JSON.parse(readFileSync(jsonPath, 'utf8')) as { suites: ReportSuite[] };
    const violations: ViolationCounts = {};
    for (const suite of report.suites) addCounts(violations, suite.violations);
    const failing = report.suites.find((x) => x.failure !== null);
    if (failing === undefined || failing.failure === null) {
      if (Object.keys(violations).length > 0) {
        return stillborn(
          entry,
          `violations without a counterexample: ${JSON.stringify(violations)}`,
          child.wallSeconds,
        );
      }
      const runs = report.suites.reduce((a, x) => a + x.runs, 0);
      return { ...base(entry), ...EMPTY, status: 'survived', wallSeconds: child.wallSeconds, runs, violations };
    }
    const f = failing.failure;
    const md = existsSync(join(reportDir, 'properties.md'))
      ? readFileSync(join(reportDir, 'properties.md'), 'utf8')
      : '';
    const found = fromMarkdown(md, f.property, failing.suite);
    let runsToKill = 0;
    let secondsToKill = 0;
    for (const x of report.suites) {
      if (x === failing) break;
      runsToKill += x.runs;
      secondsToKill += x.seconds;
    }
    runsToKill += f.runsToFind ?? found?.runs ?? 0;
    secondsToKill += f.secondsToFind ?? found?.seconds ?? 0;

    // the counterexample: copied next to the report, measured in the mutated world
    // the replay command names the file as the child printed it: relative to its working directory
    const named = f.replay.replace(/^.*replay --\s*/, '').trim();
    const cxFile = named.length > 0 ? resolve(scratch.dir, named) : '';
    let counterexample: string | null = null;
    let replay: string | null = null;
    if (cxFile.length > 0 && existsSync(cxFile)) {
      const dir = join(s.outDir, 'mutants');
      mkdirSync(dir, { recursive: true });
      const copy = join(dir, fileNamePart(`${m.id}-${f.property}.json`));
      copyFileSync(cxFile, copy);
      counterexample = relative(s.root, copy);
      replay = `npm run mutants -- --replay ${counterexample}${s.replaySuffix ?? ''}`;
    }
    const probeArgs = [...tsx, 'mutants/lib/probe.ts', '--seed', String(s.seed)];
    if (cxFile.length > 0 && existsSync(cxFile)) probeArgs.push('--cx', cxFile);
    // the kill's lane diagram: the mutant's run, replayed once here and stored beside the copy
    if (counterexample !== null && replay !== null)
      probeArgs.push(
        '--view',
        storedViewPath(join(s.root, counterexample)),
        '--shown-as',
        counterexample,
        '--replay',
        replay,
      );
    if (s.matrixSeconds > 0) probeArgs.push('--matrix-seconds', String(s.matrixSeconds));
    const probe = await runChild(node, probeArgs, { cwd: scratch.dir, timeoutMs: (s.matrixSeconds * 3 + 600) * 1000 });
    let steps: number | null = f.steps ?? null;
    let matrix: MatrixCounts | null = null;
    let matrixRuns = 0;
    if (probe.rc === 0) {
      const p = JSON.parse(probe.stdout.trim().split('\n').pop() ?? '{}') as {
        steps?: number | null;
        matrix?: MatrixCounts | null;
        matrixRuns?: number;
      };
      steps = p.steps ?? steps;
      matrix = p.matrix ?? null;
      matrixRuns = p.matrixRuns ?? 0;
    }
    // a kill counts only if the counterexample needs the mutant: replayed on the
    // unmutated sources it must pass (else the sources themselves are broken)
    let unmutated: string | null = null;
    if (cxFile.length > 0 && existsSync(cxFile)) {
      // the time limit is a safety net for a hung replay, far above a replay's seconds on a busy machine
      const plain = await runChild(node, [...tsx, 'mutants/lib/probe.ts', '--cx', cxFile], {
        cwd: s.sourceDir ?? s.root,
        timeoutMs: 900_000,
      });
      // a replay that did not finish proves nothing either way: the kill is not counted
      if (plain.rc !== 0) unmutated = `(no verdict: the replay exited ${plain.rc})`;
      else {
        const p = JSON.parse(plain.stdout.trim().split('\n').pop() ?? '{}') as { replayedProperty?: string | null };
        if (p.replayedProperty !== null && p.replayedProperty !== undefined) unmutated = p.replayedProperty;
      }
    }
    return {
      ...base(entry),
      ...EMPTY,
      status: unmutated === null ? 'killed' : 'inconclusive',
      property: f.property,
      detail: f.detail,
      asExpected: entry.kind === 'catalogue' ? (m.expectedProperties as readonly string[]).includes(f.property) : null,
      suite: failing.suite,
      runsToKill,
      secondsToKill,
      wallSeconds: child.wallSeconds,
      shrinks: f.shrinks ?? found?.shrinks ?? null,
      choices: f.choices.length,
      steps,
      counterexample,
      replay,
      violations,
      matrix,
      matrixRuns,
      error:
        unmutated !== null
          ? unmutated.startsWith('(')
            ? `the counterexample could not be replayed on the unmutated sources ${unmutated}: not counted as a kill`
            : `the counterexample fails ${unmutated} on the unmutated sources too: a bug of the sources, not a kill`
          : probe.rc === 0
            ? null
            : `probe failed: ${lastLines(probe.stderr, 3)}`,
    };
  } finally {
    if (!s.keep) scratch.remove();
  }
}
