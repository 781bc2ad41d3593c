/**
 * Traces of counterexamples found on mutants: each replays only with its mutant applied,
 * so each is replayed in a scratch copy of the sources with that mutant's patch (the
 * mutation run's own machinery, mutants/lib), by counterexample_replay.ts run as a script
 * there. Several at a time, one child process each, with a wall-clock limit.
 *
 * Invariant: every request gets an answer, a view or a one-line reason (the mutant is
 * not in the catalogue or the current sources any more, the patch no longer applies, the
 * child failed or ran out of time); nothing is dropped.
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { runChild } from '../../mutants/lib/child.js';
import { runPool } from '../../mutants/lib/pool.js';
import { lastLines, tsxCommand } from '../../mutants/lib/properties_cli.js';
import { makeScratch, type Scratch } from '../../mutants/lib/scratch.js';
import { allMutants } from '../../mutants/lib/select.js';
import type { MutantEntry } from '../../mutants/lib/types.js';
import { scratchDir } from '../../src/input/cleanup.js';
import type { CounterexampleView } from './report_inputs.js';

export interface MutantReplayRequest {
  /** the counterexample file on disk */
  readonly path: string;
  /** the name the page gives it */
  readonly shownAs: string;
  readonly mutant: string;
  readonly replay: string;
}

export type ReplayAnswer = { readonly view: CounterexampleView } | { readonly problem: string };

/** one replay: copying the sources and starting tsx take most of it */
const CHILD_TIMEOUT_MS = 120_000;

async function mutantsById(ids: readonly string[]): Promise<Map<string, MutantEntry | string>> {
  const out = new Map<string, MutantEntry | string>();
  let all: MutantEntry[];
  try {
    // the catalogue, and the operator mutants generated from the current sources
    all = await allMutants(REPO_ROOT);
  } catch (e) {
    for (const id of ids) out.set(id, `cannot list the mutants: ${(e as Error).message.split('\n')[0] ?? ''}`);
    return out;
  }
  for (const id of ids)
    out.set(id, all.find((e) => e.mutant.id === id) ?? `no mutant '${id}' in the catalogue or the current sources`);
  return out;
}

async function replayOne(
  req: MutantReplayRequest,
  entry: MutantEntry | string | undefined,
  workDir: string,
  index: number,
): Promise<ReplayAnswer> {
  if (entry === undefined || typeof entry === 'string')
    return { problem: `${req.shownAs}: cannot apply mutant ${req.mutant}: ${entry ?? 'unknown'}` };
  let scratch: Scratch;
  try {
    scratch = makeScratch(REPO_ROOT, join(REPO_ROOT, 'node_modules'), entry.mutant);
  } catch (e) {
    return {
      problem: `${req.shownAs}: mutant ${req.mutant} no longer applies to the sources: ${(e as Error).message.split('\n')[0] ?? ''}`,
    };
  }
  try {
    const out = join(workDir, `view-${index}.json`);
    const [node, tsx] = tsxCommand(REPO_ROOT);
    const script = 'apps/report/counterexample_replay.ts';
    const r = await runChild(node, [...tsx, script, resolve(req.path), out, req.shownAs, req.replay], {
      cwd: scratch.dir,
      timeoutMs: CHILD_TIMEOUT_MS,
    });
    if (r.timedOut)
      return { problem: `${req.shownAs}: the replay on mutant ${req.mutant} ran past ${CHILD_TIMEOUT_MS / 1000} s` };
    if (r.rc !== 0)
      return {
        problem: `${req.shownAs}: the replay on mutant ${req.mutant} failed: ${lastLines(r.stderr, 1) || `exit ${String(r.rc)}`}`,
      };
    return { view: JSON.parse(readFileSync(out, 'utf8')) as CounterexampleView };
  } catch (e) {
    return { problem: `${req.shownAs}: the replay on mutant ${req.mutant} failed: ${(e as Error).message}` };
  } finally {
    scratch.remove();
  }
}

/**
 * Replays every request on its mutant, `jobs` at a time; answers in request order. Each
 * replay copies the sources and starts a process (seconds): `onProgress` hears of each.
 */
export async function replayOnMutants(
  reqs: readonly MutantReplayRequest[],
  jobs: number = cpus().length,
  onProgress: (line: string) => void = () => {},
): Promise<ReplayAnswer[]> {
  if (reqs.length === 0) return [];
  onProgress(
    `replaying ${reqs.length} kill${reqs.length === 1 ? '' : 's'} on ${reqs.length === 1 ? 'its mutant' : 'their mutants'}, ${jobs} at a time`,
  );
  const entries = await mutantsById(reqs.map((r) => r.mutant));
  const work = scratchDir('report-');
  let done = 0;
  try {
    return await runPool(reqs, jobs, async (req, i) => {
      const started = performance.now();
      const a = await replayOne(req, entries.get(req.mutant), work.dir, i);
      done++;
      const took = ((performance.now() - started) / 1000).toFixed(1);
      onProgress(`[${done}/${reqs.length}] ${req.shownAs} ${'view' in a ? 'replayed' : 'not replayed'} (${took} s)`);
      return a;
    });
  } finally {
    work.remove();
  }
}
