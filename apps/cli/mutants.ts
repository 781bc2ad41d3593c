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
 * mutants/equivalent.md says which and why). SIGINT, SIGTERM or SIGHUP, once or more,
 * kills the running children, writes the report of what finished (marked interrupted),
 * removes the scratch copies and exits 130, 143 or 129 (src/input/cleanup.ts: the
 * children and the copies are the registry's, so an error removes them too).
 *
 * --jobs N (default: every core) runs N mutants at once, each in its own child process
 * on its own scratch copy (a mutant patches the sources, which no two threads could
 * share). --shard i/n runs every n-th mutant of the selected list from the i-th (from 0)
 * and also writes OUT/shard.json; `npm run report -- merge DIR...` joins the shards.
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { applyArguedEquivalence } from '../../mutants/lib/argued.js';
import { REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { checkBaseline } from '../../mutants/lib/properties_cli.js';
import { runPool } from '../../mutants/lib/pool.js';
import { replayMutantCounterexample } from '../../mutants/lib/replay.js';
import { buildMutantsReport, writeMutantsReport, type MutantsReport } from '../../mutants/lib/report.js';
import type { MutantResult } from '../../mutants/lib/result.js';
import { equivalentResult, runMutant } from '../../mutants/lib/run_mutant.js';
import { makeSnapshot, type Scratch } from '../../mutants/lib/scratch.js';
import { selectMutants } from '../../mutants/lib/select.js';
import { summarize } from '../../mutants/lib/stats.js';
import type { MutantEntry, RunSettings } from '../../mutants/lib/types.js';
import type { ExitCode } from '../../src/check/exit_codes.js';
import { onInterrupt } from '../../src/input/cleanup.js';
import { writeShardFile } from '../report/shard_file.js';
import { htmlReportLine, progressTo, writeHtmlReport } from '../report/write_report.js';
import { runIdentity } from './cli_args.js';
import { ctierMutants } from './ctier_mutants.js';
import { fail, readMutantsOptions, type MutantsOptions } from './mutants_options.js';
import { prepareOutputDir, shownPath } from './output_dir.js';
import { Progress } from './progress.js';

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

export async function main(argv: readonly string[]): Promise<ExitCode> {
  const o = readMutantsOptions(argv);
  // the C tier's catalogue under the scheduler (apps/cli/ctier_mutants.ts)
  if (o.tier === 'c') return ctierMutants(o);
  // an interrupted run writes what finished (`onSignal`, set once there is something to
  // write); the registry has killed the children first and removes the copies after
  const state = { onSignal: (_signal: string): void => {} };
  const removeHandlers = onInterrupt((signal) => state.onSignal(signal));
  try {
    if (o.replay !== undefined) {
      // replays on the working tree's sources, or on a commit's with --at
      const from = o.commit !== null ? makeSnapshot(REPO_ROOT, o.commit) : null;
      const rc = await replayMutantCounterexample(REPO_ROOT, resolve(o.replay), o.full, o.catalogueDir, from?.dir);
      from?.remove();
      return rc as ExitCode;
    }
    const outDir = prepareOutputDir('mutants', 'out', o.out ?? join(REPO_ROOT, 'reports'));
    // one snapshot of the sources for the whole run: the tree may change under a long run
    const snapshot = makeSnapshot(REPO_ROOT, o.commit ?? undefined);
    try {
      return await judge(o, outDir, snapshot, state);
    } finally {
      snapshot.remove();
    }
  } finally {
    removeHandlers();
  }
}

/** The mutants selected, judged on the snapshot (or listed with --list). */
async function judge(
  o: MutantsOptions,
  outDir: string,
  snapshot: Scratch,
  state: { onSignal: (signal: string) => void },
): Promise<ExitCode> {
  // what the snapshot holds, resolved now: HEAD may move during a long run
  const sources = sourcesAt(REPO_ROOT, o.commit);
  let entries: MutantEntry[];
  try {
    entries = await selectMutants(
      REPO_ROOT,
      {
        catalogue: o.catalogue,
        operators: o.operators,
        ids: o.ids,
        ...(o.catalogueDir !== undefined ? { catalogueDir: resolve(o.catalogueDir) } : {}),
      },
      snapshot.dir,
    );
  } catch (e) {
    fail((e as Error).message);
  }
  if (o.list) return listMutants(entries);
  // a run of no mutant would pass having checked nothing (an empty --catalogue-dir)
  if (entries.length === 0) fail('no mutant selected: nothing to judge');
  const settings: RunSettings = {
    root: REPO_ROOT,
    sourceDir: snapshot.dir,
    ...(o.commit !== null ? { replaySuffix: ` --at ${sources.commit}` } : {}),
    outDir,
    seconds: o.seconds,
    seed: o.seed,
    ...(o.strategy !== undefined ? { strategy: o.strategy } : {}),
    ...(o.runs !== undefined ? { runs: o.runs } : {}),
    ...(o.suite !== undefined ? { suite: o.suite } : {}),
    matrixSeconds: o.matrixSeconds,
    typecheck: o.typecheck,
    keep: o.keep,
  };
  const runEquivalent = o.includeEquivalent || o.ids.length > 0;
  // a shard takes every n-th mutant of the whole list (equivalent ones included, as results)
  const shard = o.shard;
  const mine = shard === null ? entries : entries.filter((_, i) => i % shard.count === shard.index);
  const toRun = mine.filter((e) => runEquivalent || e.equivalent === undefined);
  const skipped = mine.filter((e) => !runEquivalent && e.equivalent !== undefined).map(equivalentResult);
  if (o.baseline && toRun.length > 0) {
    process.stderr.write('baseline: the unmutated sources, a short run ...\n');
    const problem = await checkBaseline(settings, o.baselineSeconds);
    if (problem !== null)
      fail(`${problem}\n(no mutant can be judged against sources that fail; --no-baseline skips this check)`);
  }
  const run = new MutantsRun(o, settings, sources, toRun, skipped);
  const all = await run.judgeAll(state);
  if (shard !== null) run.writeShard(entries, shard);
  process.stderr.write(
    `${htmlReportLine(await writeHtmlReport(settings.outDir, { onProgress: progressTo('mutants') }))}\n`,
  );
  process.stdout.write(summaryLines(all, run.reportPath()));
  return all.some((r) => r.kind === 'catalogue' && r.status !== 'killed') ? 1 : 0;
}

function listMutants(entries: readonly MutantEntry[]): ExitCode {
  for (const e of entries) {
    const tag = e.equivalent !== undefined ? `  [equivalent ${e.equivalent.slice(0, 2)}]` : '';
    process.stdout.write(`${e.mutant.id.padEnd(58)} ${e.mutant.title}${tag}\n`);
  }
  process.stdout.write(`${entries.length} mutants\n`);
  return 0;
}

/** One line per set: the catalogue's kills, the operators' score; where the report is. */
function summaryLines(all: readonly MutantResult[], reportPath: string): string {
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
  out.push(`report in ${reportPath}`, '');
  return out.join('\n');
}

/** A run over the mutants to judge: the pool, the progress lines and the report rewritten as they finish. */
class MutantsRun {
  private readonly progress = new Progress();
  private readonly started = performance.now();
  private readonly startLoad = loadavg();
  private readonly date = new Date().toISOString();
  private readonly done: MutantResult[] = [];
  private readonly active = new Set<string>();
  private finished = 0;
  private final: MutantsReport | null = null;

  constructor(
    private readonly o: MutantsOptions,
    private readonly settings: RunSettings,
    private readonly sources: { commit: string; changed: string[] },
    private readonly toRun: readonly MutantEntry[],
    private readonly skipped: readonly MutantResult[],
  ) {}

  reportPath(): string {
    return shownPath(join(this.settings.outDir, 'mutants.md'));
  }

  /** Runs every mutant (the report rewritten after each); the results in the order they were selected. */
  async judgeAll(state: { onSignal: (signal: string) => void }): Promise<readonly MutantResult[]> {
    const ticker = setInterval(() => this.progress.update(this.status()), 1000);
    state.onSignal = (signal) => {
      clearInterval(ticker);
      this.writeReport(this.done, false, signal);
      this.progress.done(
        `mutants: interrupted by ${signal}: ${this.done.length} of ${this.toRun.length} mutants finished; partial report in ${this.reportPath()}`,
      );
    };
    this.writeReport(this.done, false, null);
    try {
      const results = await runPool(
        this.toRun,
        this.o.jobs,
        (e) => this.judgeOne(e),
        (r) => this.onFinished(r),
      );
      // the final report lists the mutants in the order they were selected, not as they finished
      this.final = this.writeReport(results, true, null);
      return this.final.results;
    } finally {
      clearInterval(ticker);
      state.onSignal = () => {};
    }
  }

  /** The shard file: this shard's results beside the whole run's list, for `report merge`. */
  writeShard(entries: readonly MutantEntry[], shard: { index: number; count: number }): void {
    if (this.final === null) return;
    const { summary: _summary, results, ...meta } = this.final;
    writeShardFile(this.settings.outDir, {
      tool: 'mutants',
      index: shard.index,
      count: shard.count,
      command: runIdentity(this.o.argv),
      mutants: entries.map((e) => e.mutant.id),
      meta,
      results,
    });
  }

  private async judgeOne(e: MutantEntry): Promise<MutantResult> {
    this.active.add(e.mutant.id);
    this.progress.update(this.status());
    try {
      return await runMutant(e, this.settings);
    } finally {
      this.active.delete(e.mutant.id);
    }
  }

  private onFinished(r: MutantResult): void {
    this.finished++;
    this.done.push(r);
    this.writeReport(this.done, false, null);
    this.progress.done(this.line(r));
  }

  private status(): string {
    return `[${this.finished}/${this.toRun.length}] ${((performance.now() - this.started) / 1000).toFixed(0)} s, running: ${[...this.active].join(', ')}`;
  }

  private line(r: MutantResult): string {
    const n = this.toRun.length;
    const head = `[${String(this.finished).padStart(String(n).length)}/${n}] ${r.id}`;
    if (r.status === 'killed') {
      return `${head}: killed by ${r.property}${r.asExpected === false ? ' (UNEXPECTED)' : ''} after ${r.runsToKill} runs, ${r.secondsToKill?.toFixed(2)} s (wall ${r.wallSeconds.toFixed(1)} s); ${r.choices} choices, ${r.steps} steps`;
    }
    if (r.status === 'survived') return `${head}: SURVIVED ${r.runs} runs (wall ${r.wallSeconds.toFixed(1)} s)`;
    if (r.status === 'inconclusive')
      return `${head}: INCONCLUSIVE (${r.property ?? ''}): ${r.error ?? ''}; ${r.replay ?? ''}`;
    return `${head}: ${r.status.toUpperCase()}: ${r.error ?? ''}`;
  }

  /** Writes the report of the mutants finished so far (all of them when `complete`). */
  private writeReport(results: readonly MutantResult[], complete: boolean, interrupted: string | null): MutantsReport {
    // survivors that mutants/equivalent.md shows equivalent by argument are reported as such
    const all = applyArguedEquivalence([...results, ...this.skipped], join(REPO_ROOT, 'mutants/equivalent.md'));
    const args = this.o.argv;
    const report = buildMutantsReport(all, {
      date: this.date,
      command: `npm run mutants${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`,
      progress: {
        planned: this.toRun.length + this.skipped.length,
        finished: results.length + this.skipped.length,
        complete,
        interrupted,
      },
      // the scratch copies' paths are gone when the report is read
      settings: { ...this.settings, root: undefined, outDir: undefined, sourceDir: undefined, jobs: this.o.jobs },
      machine: { cores: cpus().length, loadAverageAtStart: this.startLoad },
      sources: this.sources,
      wallSeconds: (performance.now() - this.started) / 1000,
    });
    writeMutantsReport(this.settings.outDir, report);
    return report;
  }
}
