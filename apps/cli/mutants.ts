/**
 * `npm run mutants`: puts each known defect (mutants/catalogue/) and each generated
 * concurrency mutant (mutants/operators/) back into a scratch copy of the sources and runs
 * the property suite on it, in parallel child processes; a mutant is killed when a
 * property fails with a counterexample.
 *
 *   npm run mutants -- [--catalogue-only | --operators-only] [--mutant ID ...]
 *                      [--seconds S] [--jobs N] [--shard i/n] [--seed N] [--strategy NAME] [--runs N]
 *                      [--suite NAME] [--matrix-seconds S] [--include-equivalent]
 *                      [--typecheck] [--keep] [--out DIR] [--list] [--at REV]
 *                      [--no-baseline | --baseline-seconds S]
 *   npm run mutants -- --replay FILE [--full] [--at REV]
 *   npm run mutants -- --tier c [...]   the C tier's catalogue (apps/cli/ctier_mutants.ts)
 *
 * The sources are copied once at the start (a snapshot: the tree may change during a long
 * run; --at REV takes a commit's sources instead of the working tree's) and must pass a
 * short unmutated run first (the baseline).
 * Writes OUT/mutants.json and OUT/mutants.md (OUT: reports), counterexamples in
 * OUT/mutants/; the report is rewritten after every finished mutant, marked partial until
 * the run ends. --seconds is the budget of each mutant (default 30), not of the run.
 * Exits 1 when a catalogue mutant survives or is stillborn, 2 on bad arguments;
 * surviving operator mutants are reported, not failed on (some are equivalent;
 * mutants/equivalent.md says which and why). SIGINT or SIGTERM kills the running
 * children, removes the scratch copies, writes the report of what finished (marked
 * interrupted) and exits 130 or 143.
 *
 * --jobs N (default: every core) runs N mutants at once, each in its own child process
 * on its own scratch copy (a mutant patches the sources, which no two threads could
 * share). --shard i/n runs every n-th mutant of the selected list from the i-th (from 0)
 * and also writes OUT/shard.json; `npm run report -- merge DIR...` joins the shards.
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { SUITES } from '../../properties/arbitraries.js';
import { STRATEGIES } from '../../properties/types.js';
import { applyArguedEquivalence } from '../../mutants/lib/argued.js';
import { REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { killAllChildren } from '../../mutants/lib/child.js';
import { replayMutantCounterexample } from '../../mutants/lib/replay.js';
import type { MutantResult } from '../../mutants/lib/result.js';
import { buildMutantsReport, writeMutantsReport, type MutantsReport } from '../../mutants/lib/report.js';
import { htmlReportLine, writeHtmlReport } from '../report/write_report.js';
import { checkBaseline } from '../../mutants/lib/properties_cli.js';
import { equivalentResult, runMutant } from '../../mutants/lib/run_mutant.js';
import type { MutantEntry, RunSettings } from '../../mutants/lib/types.js';
import { makeSnapshot, removeAllScratches, resolveCommit } from '../../mutants/lib/scratch.js';
import { runPool } from '../../mutants/lib/pool.js';
import { selectMutants } from '../../mutants/lib/select.js';
import { summarize } from '../../mutants/lib/stats.js';
import { Progress } from './progress.js';
import {
  countOption,
  jobsOption,
  parseOrFail,
  reportUnexpectedErrors,
  runIdentity,
  secondsOption,
  seedOption,
  shardOption,
  usageError,
} from './cli_args.js';
import { writeShardFile } from '../report/shard_file.js';
import { prepareOutputDir, shownPath } from './output_dir.js';
import { ctierMutantReplay, ctierMutants } from './ctier_mutants.js';

reportUnexpectedErrors('mutants');
// explicitly typed, so that control flow knows it never returns
function fail(message: string): never {
  return usageError('mutants', message);
}

/** The commit (short) and the uncommitted source changes a run saw (git is optional). */
function sourcesAt(dir: string, commit: string | null): { commit: string; changed: string[] } {
  // not trimmed: a porcelain status line starts with a space when only the tree changed
  const git = (args: string[]): string | null => {
    const r = spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
    return r.status === 0 ? r.stdout : null;
  };
  if (commit !== null) return { commit: commit.slice(0, 7), changed: [] };
  const status = git(['status', '--porcelain', '--', 'src', 'model', 'properties']) ?? '';
  return {
    commit: git(['rev-parse', '--short', 'HEAD'])?.trim() ?? 'HEAD',
    changed: status
      .split('\n')
      .filter((l) => l.length > 3)
      .map((l) => l.slice(3)),
  };
}

const { values } = parseOrFail('mutants', {
  options: {
    'catalogue-only': { type: 'boolean' },
    'operators-only': { type: 'boolean' },
    mutant: { type: 'string', multiple: true },
    seconds: { type: 'string' },
    jobs: { type: 'string' },
    shard: { type: 'string' },
    seed: { type: 'string' },
    strategy: { type: 'string' },
    runs: { type: 'string' },
    suite: { type: 'string' },
    'matrix-seconds': { type: 'string' },
    'include-equivalent': { type: 'boolean' },
    typecheck: { type: 'boolean' },
    keep: { type: 'boolean' },
    out: { type: 'string' },
    list: { type: 'boolean' },
    replay: { type: 'string' },
    full: { type: 'boolean' },
    'catalogue-dir': { type: 'string' },
    'no-baseline': { type: 'boolean' },
    at: { type: 'string' },
    'baseline-seconds': { type: 'string' },
    tier: { type: 'string' },
    level: { type: 'string' },
    'in-process': { type: 'boolean' },
  },
  strict: true,
});

if (values.tier !== undefined && values.tier !== 'ts' && values.tier !== 'c')
  fail(`--tier must be ts or c, got '${values.tier}'`);
if (values.tier !== 'c' && (values.level !== undefined || values['in-process'] === true))
  fail('--level and --in-process are for --tier c');
if (values.tier === 'c') {
  if (values.replay !== undefined) await ctierMutantReplay(resolve(values.replay), values.full === true);
  const level = values.level === undefined || values.level === '2' ? 2 : values.level === '1' ? 1 : 0;
  if (level === 0) fail(`--level must be 1 or 2, got '${values.level ?? ''}'`);
  const strategy = values.strategy ?? 'random';
  if (strategy !== 'random' && strategy !== 'pct') fail(`--tier c kills by random or pct schedules, not '${strategy}'`);
  await ctierMutants({
    ids: values.mutant ?? [],
    runs: values.runs !== undefined ? countOption('mutants', values.runs, 'runs', 1) : 3000,
    seed: seedOption('mutants', values.seed, 20261129),
    level: level === 1 ? 1 : 2,
    strategy,
    fresh: values['in-process'] !== true,
    outDir: prepareOutputDir('mutants', 'out', values.out ?? join(REPO_ROOT, 'reports')),
  });
}

const root = REPO_ROOT;
if (values['catalogue-only'] === true && values['operators-only'] === true)
  fail('--catalogue-only and --operators-only exclude each other');
// checked here: a mutant's properties run that refuses them would look like a dead mutant
if (values.strategy !== undefined && !(STRATEGIES as readonly string[]).includes(values.strategy)) {
  fail(`--strategy must be one of ${STRATEGIES.join(', ')}, got '${values.strategy}'`);
}
if (values.suite !== undefined && !(SUITES as readonly string[]).includes(values.suite))
  fail(`no suite '${values.suite}'; known: ${SUITES.join(', ')}`);
// every number is read before anything slow starts
const seconds = secondsOption('mutants', values.seconds, 'seconds', 30);
const seed = seedOption('mutants', values.seed, 20261129);
const runs = values.runs !== undefined ? countOption('mutants', values.runs, 'runs', 1) : undefined;
const matrixSeconds = secondsOption(
  'mutants',
  values['matrix-seconds'],
  'matrix-seconds',
  2,
  'no sampling pass, an empty kill matrix',
);
const jobs = jobsOption('mutants', values.jobs);
const shard = shardOption('mutants', values.shard);
const baselineSeconds = secondsOption('mutants', values['baseline-seconds'], 'baseline-seconds', Math.min(seconds, 3));
// --at reaches git only as the commit it names
let commit: string | null = null;
if (values.at !== undefined) {
  try {
    commit = resolveCommit(root, values.at);
  } catch (e) {
    fail(`--at: ${(e as Error).message}`);
  }
}
// an interrupted run leaves no scratch copy and no child behind, and writes what finished
// (SIGINT: 130, SIGTERM: 143)
let writePartial: (signal: string) => void = () => {};
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => {
    killAllChildren();
    writePartial(signal);
    removeAllScratches();
    process.exit(code);
  });
}

if (values.replay !== undefined) {
  // replays on the working tree's sources, or on a commit's with --at
  const from = commit !== null ? makeSnapshot(root, commit) : null;
  const rc = await replayMutantCounterexample(
    root,
    resolve(values.replay),
    values.full === true,
    values['catalogue-dir'],
    from?.dir,
  );
  from?.remove();
  process.exit(rc);
}

const outDir = prepareOutputDir('mutants', 'out', values.out ?? join(root, 'reports'));
// one snapshot of the sources for the whole run: the tree may change under a long run
const snapshot = makeSnapshot(root, commit ?? undefined);
process.on('exit', () => snapshot.remove());
// what the snapshot holds, resolved now: HEAD may move during a long run
const sources = sourcesAt(root, commit);
let entries: MutantEntry[];
try {
  entries = await selectMutants(
    root,
    {
      catalogue: values['operators-only'] !== true,
      operators: values['catalogue-only'] !== true,
      ids: values.mutant ?? [],
      ...(values['catalogue-dir'] !== undefined ? { catalogueDir: resolve(values['catalogue-dir']) } : {}),
    },
    snapshot.dir,
  );
} catch (e) {
  fail((e as Error).message);
}

if (values.list === true) {
  for (const e of entries) {
    const tag = e.equivalent !== undefined ? `  [equivalent ${e.equivalent.slice(0, 2)}]` : '';
    process.stdout.write(`${e.mutant.id.padEnd(58)} ${e.mutant.title}${tag}\n`);
  }
  process.stdout.write(`${entries.length} mutants\n`);
  process.exit(0);
}

const settings: RunSettings = {
  root,
  sourceDir: snapshot.dir,
  ...(commit !== null ? { replaySuffix: ` --at ${sources.commit}` } : {}),
  outDir,
  seconds,
  seed,
  ...(values.strategy !== undefined ? { strategy: values.strategy } : {}),
  ...(runs !== undefined ? { runs } : {}),
  ...(values.suite !== undefined ? { suite: values.suite } : {}),
  matrixSeconds,
  typecheck: values.typecheck === true,
  keep: values.keep === true,
};
const runEquivalent = values['include-equivalent'] === true || (values.mutant?.length ?? 0) > 0;
// a shard takes every n-th mutant of the whole list (equivalent ones included, as results)
const mine = shard === null ? entries : entries.filter((_, i) => i % shard.count === shard.index);
const toRun = mine.filter((e) => runEquivalent || e.equivalent === undefined);
const skipped = mine.filter((e) => !runEquivalent && e.equivalent !== undefined).map(equivalentResult);

if (values['no-baseline'] !== true && toRun.length > 0) {
  process.stderr.write('baseline: the unmutated sources, a short run ...\n');
  const problem = await checkBaseline(settings, baselineSeconds);
  if (problem !== null)
    fail(`${problem}\n(no mutant can be judged against sources that fail; --no-baseline skips this check)`);
}

const startLoad = loadavg();
const started = performance.now();
const progress = new Progress();
let finished = 0;
const active = new Set<string>();
const status = (): string =>
  `[${finished}/${toRun.length}] ${((performance.now() - started) / 1000).toFixed(0)} s, running: ${[...active].join(', ')}`;
const ticker = setInterval(() => progress.update(status()), 1000);

function line(r: MutantResult): string {
  const head = `[${String(finished).padStart(String(toRun.length).length)}/${toRun.length}] ${r.id}`;
  if (r.status === 'killed') {
    return `${head}: killed by ${r.property}${r.asExpected === false ? ' (UNEXPECTED)' : ''} after ${r.runsToKill} runs, ${r.secondsToKill?.toFixed(2)} s (wall ${r.wallSeconds.toFixed(1)} s); ${r.choices} choices, ${r.steps} steps`;
  }
  if (r.status === 'survived') return `${head}: SURVIVED ${r.runs} runs (wall ${r.wallSeconds.toFixed(1)} s)`;
  if (r.status === 'inconclusive')
    return `${head}: INCONCLUSIVE (${r.property ?? ''}): ${r.error ?? ''}; ${r.replay ?? ''}`;
  return `${head}: ${r.status.toUpperCase()}: ${r.error ?? ''}`;
}

const args = process.argv.slice(2);
const date = new Date().toISOString();
/** Writes the report of the mutants finished so far (all of them when `complete`). */
function writeReport(results: readonly MutantResult[], complete: boolean, interrupted: string | null): MutantsReport {
  // survivors that mutants/equivalent.md shows equivalent by argument are reported as such
  const all = applyArguedEquivalence([...results, ...skipped], join(root, 'mutants/equivalent.md'));
  const report = buildMutantsReport(all, {
    date,
    command: `npm run mutants${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`,
    progress: {
      planned: toRun.length + skipped.length,
      finished: results.length + skipped.length,
      complete,
      interrupted,
    },
    // the scratch copies' paths are gone when the report is read
    settings: { ...settings, root: undefined, outDir: undefined, sourceDir: undefined, jobs },
    machine: { cores: cpus().length, loadAverageAtStart: startLoad },
    sources,
    wallSeconds: (performance.now() - started) / 1000,
  });
  writeMutantsReport(settings.outDir, report);
  return report;
}
function reportPath(): string {
  return shownPath(join(settings.outDir, 'mutants.md'));
}
const done: MutantResult[] = [];
writePartial = (signal) => {
  clearInterval(ticker);
  writeReport(done, false, signal);
  progress.done(
    `mutants: interrupted by ${signal}: ${done.length} of ${toRun.length} mutants finished; partial report in ${reportPath()}`,
  );
};
writeReport(done, false, null);

const results = await runPool(
  toRun,
  jobs,
  async (e) => {
    active.add(e.mutant.id);
    progress.update(status());
    try {
      return await runMutant(e, settings);
    } finally {
      active.delete(e.mutant.id);
    }
  },
  (r) => {
    finished++;
    done.push(r);
    writeReport(done, false, null);
    progress.done(line(r));
  },
);
clearInterval(ticker);
writePartial = () => {};
// the final report lists the mutants in the order they were selected, not as they finished
const final = writeReport(results, true, null);
const all = final.results;
if (shard !== null) {
  const { summary: _summary, results: _results, ...meta } = final;
  const mutants = entries.map((e) => e.mutant.id);
  writeShardFile(settings.outDir, {
    tool: 'mutants',
    index: shard.index,
    count: shard.count,
    command: runIdentity(args),
    mutants,
    meta,
    results: all,
  });
}
process.stderr.write(`${htmlReportLine(await writeHtmlReport(settings.outDir))}\n`);

const cat = summarize(all.filter((r) => r.kind === 'catalogue'));
const ops = summarize(all.filter((r) => r.kind === 'operator'));
const out: string[] = [''];
if (cat.total > 0) {
  out.push(
    `catalogue: ${cat.killed}/${cat.total} killed, ${cat.survived} survived, ${cat.stillborn} stillborn; ` +
      (cat.inconclusive > 0 ? `${cat.inconclusive} inconclusive; ` : '') +
      `seconds to kill median ${cat.secondsToKillMedian?.toFixed(2) ?? '-'}, worst ${cat.secondsToKillWorst?.toFixed(2) ?? '-'}; ` +
      `counterexample median ${cat.stepsMedian ?? '-'} steps, ${cat.choicesMedian ?? '-'} choices`,
  );
}
if (ops.total > 0) {
  out.push(
    `operators: ${ops.total} generated, ${ops.killed} killed, ${ops.equivalent} equivalent (by construction, or by argument in mutants/equivalent.md), ${ops.survived} survived, ${ops.stillborn} stillborn, ${ops.inconclusive} inconclusive` +
      (ops.score !== null ? `; score ${(100 * ops.score).toFixed(1)} %` : ''),
  );
}
out.push(`report in ${reportPath()}`, '');
process.stdout.write(out.join('\n'));
const catalogueBad = all.some((r) => r.kind === 'catalogue' && r.status !== 'killed');
process.exit(catalogueBad ? 1 : 0);
