/**
 * `npm run bench -- --only ctier`: the C tier (native/tier/) under tierlab's scheduler
 * against what C tier authors use today. Complete schedules per second on the small
 * configuration (ctier_speed.ts); then, per C counterpart of the catalogue
 * (mutants/ctier/), built once in a scratch copy with its harness and both stress
 * programs: runs and seconds to the first failure under tierlab's random, PCT and
 * exhaustive strategies at level 2 (the event log), random at level 1 (the boundary only,
 * what the stress test checks too), beside the stress test (real threads, random sleeps in
 * the fake backend's hooks) and the stress test under ThreadSanitizer (ctier_stress.ts).
 *
 * Invariants: tierlab's budgets are runs and its cells are seconds to the first failing
 * schedule, before shrinking; each mutant runs the scenarios of the suite aimed at its
 * defect (mutants/lib/ctier_suites.ts), the stress programs their one fixed workload. The
 * unmutated tier is run first the same way (the control): a failure there is reported and
 * makes the bench exit 1. The working tree is never written.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { committedScenario } from '../../../properties/committed_scenarios.js';
import { loadCatalogue } from '../../../mutants/lib/catalogue.js';
import { killCMutant, type CKill } from '../../../mutants/lib/ctier_kill.js';
import { killCMutantExhaustive } from '../../../mutants/lib/ctier_kill_exhaustive.js';
import { buildCTierScratchFor } from '../../../mutants/lib/ctier_scratch.js';
import { CTIER_SUITE } from '../../../mutants/lib/ctier_suites.js';
import type { Mutant } from '../../../mutants/lib/types.js';
import type { Suite } from '../../../properties/arbitraries.js';
import { CTierHarness } from '../../../src/engine/native/ctier_harness.js';
import { usageError } from '../cli_args.js';
import { measureCTierSpeed, type CTierSpeed } from './ctier_speed.js';
import { runStress, type StressResult } from './ctier_stress.js';

export interface CTierBenchOptions {
  readonly root: string;
  /** tierlab's budget per cell, in runs */
  readonly runs: number;
  readonly speedRuns: number;
  readonly perScenario: number;
  readonly stressIterations: number;
  readonly tsanIterations: number;
  readonly sleepUs: number;
  readonly seed: number;
  readonly ids: readonly string[];
  readonly log: (line: string) => void;
}

export interface CTierCell {
  readonly killed: boolean;
  readonly runs: number;
  readonly seconds: number;
  readonly property: string | null;
}

export const CTIER_STRATEGIES = ['random', 'pct', 'exhaustive', 'random-level1'] as const;
export type CTierColumn = (typeof CTIER_STRATEGIES)[number];

export interface CTierRow {
  readonly id: string;
  readonly suite: Suite;
  readonly cells: Readonly<Record<CTierColumn, CTierCell>>;
  /** null: the defect is in the harness's engine driver, which the stress program does not run */
  readonly stress: StressResult | null;
  readonly tsan: StressResult | null;
  /** the fewest runs any of tierlab's columns needed (null: none killed it) */
  readonly fewestRuns: number | null;
  /** the fewest seconds any of them needed */
  readonly fewestSeconds: number | null;
  /** stress (or TSan, the sooner) iterations / tierlab's fewest runs, where both found it */
  readonly stressRatio: number | null;
}

export interface CTierSection {
  readonly speed: CTierSpeed;
  readonly control: {
    readonly cells: Readonly<Record<CTierColumn, CTierCell>>;
    readonly stress: StressResult;
    readonly tsan: StressResult;
  };
  readonly rows: readonly CTierRow[];
  readonly options: Omit<CTierBenchOptions, 'log' | 'root'>;
  readonly buildSeconds: number;
}

/** make targets under native/, and the tree's objects a scratch copies for them */
const STRESS = 'build/tier/tier_stress';
const TSAN_STRESS = 'build/tier/tsan/tier_stress';
const TARGETS = ['build/libtierlab_ctier_sched.so', STRESS, TSAN_STRESS];
const OBJECTS = [join('native', 'build', 'tier', 'stress'), join('native', 'build', 'tsan', 'obj', 'tier')];

/** tierlab's runs a column on the unmutated tier */
const CONTROL_RUNS = 500;

function cell(k: CKill): CTierCell {
  return k.killed
    ? { killed: true, runs: k.runsToKill, seconds: k.secondsToKill, property: k.failure?.property ?? null }
    : { killed: false, runs: k.runs, seconds: k.seconds, property: null };
}

/** tierlab's four columns on one library; `suites` undefined: every suite in turn (the control) */
function tierlabCells(
  library: string,
  suites: readonly Suite[] | undefined,
  o: CTierBenchOptions,
): Record<CTierColumn, CTierCell> {
  const h = new CTierHarness(library);
  try {
    const base = {
      runs: o.runs,
      seed: o.seed,
      fresh: false,
      shrinkRuns: 0,
      ...(suites !== undefined ? { suites } : {}),
    };
    return {
      random: cell(killCMutant(h, { ...base, level: 2, strategy: 'random' })),
      pct: cell(killCMutant(h, { ...base, level: 2, strategy: 'pct' })),
      exhaustive: cell(killCMutantExhaustive(h, { ...base, level: 2, perScenario: o.perScenario })),
      'random-level1': cell(killCMutant(h, { ...base, level: 1, strategy: 'random' })),
    };
  } finally {
    h.close();
  }
}

async function stressPair(dir: string, o: CTierBenchOptions): Promise<{ stress: StressResult; tsan: StressResult }> {
  const common = { sleepUs: o.sleepUs, seed: o.seed };
  const stress = await runStress(join(dir, 'native', STRESS), { ...common, iterations: o.stressIterations });
  const tsan = await runStress(join(dir, 'native', TSAN_STRESS), { ...common, iterations: o.tsanIterations });
  return { stress, tsan };
}

/** the stress program runs the tier and the fake backend, never the harness's driver */
const stressExpresses = (m: Mutant): boolean => m.patches.some((p) => !p.file.startsWith('native/tier/harness/'));

function summarize(
  id: string,
  suite: Suite,
  cells: Record<CTierColumn, CTierCell>,
  s: StressResult | null,
  t: StressResult | null,
): CTierRow {
  const killed = CTIER_STRATEGIES.map((c) => cells[c]).filter((c) => c.killed);
  const fewestRuns = killed.length > 0 ? Math.min(...killed.map((c) => c.runs)) : null;
  const fewestSeconds = killed.length > 0 ? Math.min(...killed.map((c) => c.seconds)) : null;
  const found = [s, t].filter((x): x is StressResult => x !== null && x.outcome !== 'clean');
  const stressRuns = found.length > 0 ? Math.min(...found.map((x) => x.iterations)) : null;
  const stressRatio = stressRuns !== null && fewestRuns !== null ? stressRuns / fewestRuns : null;
  return { id, suite, cells, stress: s, tsan: t, fewestRuns, fewestSeconds, stressRatio };
}

async function oneMutant(m: Mutant, o: CTierBenchOptions): Promise<{ row: CTierRow; buildSeconds: number }> {
  const suite = CTIER_SUITE[m.id] ?? 'general';
  const scratch = buildCTierScratchFor(o.root, m, TARGETS, OBJECTS);
  try {
    const cells = tierlabCells(scratch.library, [suite], o);
    const pair = stressExpresses(m) ? await stressPair(scratch.dir, o) : null;
    return {
      row: summarize(m.id, suite, cells, pair?.stress ?? null, pair?.tsan ?? null),
      buildSeconds: scratch.buildSeconds,
    };
  } finally {
    scratch.remove();
  }
}

function logRow(o: CTierBenchOptions, r: CTierRow): void {
  const c = (x: CTierCell): string => (x.killed ? `${x.runs} runs ${x.seconds.toFixed(2)} s` : `survived ${x.runs}`);
  const s = (x: StressResult | null): string =>
    x === null ? 'n/a' : `${x.outcome} ${x.iterations} it ${x.seconds.toFixed(1)} s`;
  o.log(
    `  ${r.id}: random ${c(r.cells.random)}, pct ${c(r.cells.pct)}, exhaustive ${c(r.cells.exhaustive)}, ` +
      `level 1 ${c(r.cells['random-level1'])}; stress ${s(r.stress)}; tsan ${s(r.tsan)}`,
  );
}

/** The whole section; true in `unexpected` when the control failed. */
export async function measureCTier(o: CTierBenchOptions): Promise<{ section: CTierSection; unexpected: boolean }> {
  const all = (await loadCatalogue(join(o.root, 'mutants/ctier'))).map((e) => e.mutant);
  const unknown = o.ids.filter((id) => !all.some((m) => m.id === id));
  if (unknown.length > 0) usageError('bench', `--mutant: no C tier mutant ${unknown.join(', ')} (mutants/ctier/)`);
  // the tree's objects first: each scratch copy then rebuilds only what its patch touched
  execFileSync('make', ['-s', '-C', join(o.root, 'native'), ...TARGETS], { stdio: ['ignore', 'ignore', 'inherit'] });
  o.log(`ctier: the control (the unmutated C tier, its harness and stress programs built in a scratch copy) ...`);
  const control = buildCTierScratchFor(o.root, null, TARGETS, OBJECTS);
  let speed: CTierSpeed;
  let controlCells: Record<CTierColumn, CTierCell>;
  let controlStress: { stress: StressResult; tsan: StressResult };
  try {
    const h = new CTierHarness(control.library);
    try {
      o.log(`ctier: complete schedules per second on the small configuration, ${o.speedRuns} runs a row ...`);
      speed = measureCTierSpeed(h, committedScenario('small-warmstart'), o.speedRuns, o.seed);
    } finally {
      h.close();
    }
    // the control over every suite, as the mutants command's (a failure there voids every row)
    controlCells = tierlabCells(control.library, undefined, { ...o, runs: Math.min(o.runs, CONTROL_RUNS) });
    controlStress = await stressPair(control.dir, o);
  } finally {
    control.remove();
  }
  const ctl = summarize('control', 'general', controlCells, controlStress.stress, controlStress.tsan);
  logRow(o, ctl);
  const unexpected =
    ctl.fewestRuns !== null || controlStress.stress.outcome !== 'clean' || controlStress.tsan.outcome !== 'clean';
  const rows: CTierRow[] = [];
  let buildSeconds = control.buildSeconds;
  for (const m of all.filter((x) => o.ids.length === 0 || o.ids.includes(x.id))) {
    o.log(`ctier: ${m.id} ...`);
    const { row, buildSeconds: b } = await oneMutant(m, o);
    buildSeconds += b;
    logRow(o, row);
    rows.push(row);
  }
  const { log: _log, root: _root, ...options } = o;
  return {
    section: { speed, control: { cells: controlCells, ...controlStress }, rows, options, buildSeconds },
    unexpected,
  };
}
