/**
 * `npm run mutants -- --replay FILE`: a counterexample found on a mutant replays only
 * with that mutant applied, and a fixed bug's counterexample (properties/replays/) with
 * its regression patch applied, which puts the bug back. Applies the mutant or the patch
 * to a scratch copy (scratch.ts, patch.ts: the one patcher) and runs the replay CLI there
 * on the file, output passed through. The replay tests use the same scratch replay.
 *
 * Invariant: with a mutant or a regression patch applied the replay is strict (`replay
 * --strict`): a schedule that no longer reproduces the property the file names fails
 * (exit 2, one line saying so), never "no violation" and exit 0.
 */
import { basename, join } from 'node:path';
import { EXIT } from '../../src/check/exit_codes.js';
import { loadCounterexample, type CounterexampleFile, type Regression } from '../../properties/counterexample_file.js';
import { runChild, type ChildResult } from './child.js';
import { tsxCommand } from './properties_cli.js';
import { PatchError } from './patch.js';
import { makeScratch } from './scratch.js';
import { selectMutants } from './select.js';
import type { Mutant } from './types.js';

/** The regression patch of a fixed bug's file as a mutant: one find/replace, named after the file. */
export function regressionMutant(file: string, cx: CounterexampleFile, regression: Regression): Mutant {
  return {
    id: `regression:${basename(file)}`,
    title: `the bug ${basename(file)} records, put back`,
    history: cx.detail,
    family: 'regression',
    expectedProperties: [cx.property],
    patches: [regression],
  };
}

/**
 * Runs the replay CLI on `file` (an absolute path) in a scratch copy of `sources` with
 * `mutant` applied (null: none), and removes the copy. Throws PatchError, before copying
 * anything, when the mutant does not apply.
 */
export async function replayInScratch(
  root: string,
  sources: string,
  file: string,
  mutant: Mutant | null,
  opts: { readonly full: boolean; readonly inherit: boolean },
): Promise<ChildResult> {
  const scratch = makeScratch(sources, join(root, 'node_modules'), mutant);
  try {
    const [node, tsx] = tsxCommand(root);
    const flags = [...(opts.full ? ['--full'] : []), ...(mutant !== null ? ['--strict'] : [])];
    return await runChild(node, [...tsx, 'apps/cli/bin/replay.ts', file, ...flags], {
      cwd: scratch.dir,
      timeoutMs: 300_000,
      inherit: opts.inherit,
    });
  } finally {
    scratch.remove();
  }
}

/** The mutant a counterexample file names, or its regression patch (null: neither); a string says why not. */
async function mutantOfFile(
  root: string,
  file: string,
  cx: CounterexampleFile,
  sources: string,
  catalogueDir: string | undefined,
): Promise<Mutant | null | string> {
  if (cx.regression !== null) {
    const what = `the regression patch of ${basename(file)} to ${cx.regression.file}`;
    process.stderr.write(`applying ${what} in a scratch copy: the bug it records, put back\n`);
    return regressionMutant(file, cx, cx.regression);
  }
  if (cx.mutant === null) {
    process.stderr.write('this file names no mutant and no regression patch: replaying the sources as they are\n');
    return null;
  }
  const dir = catalogueDir !== undefined ? { catalogueDir } : {};
  const sel = { catalogue: true, operators: true, ids: [cx.mutant], ...dir };
  try {
    const [entry] = await selectMutants(root, sel, sources);
    process.stderr.write(`applying mutant ${cx.mutant} to a scratch copy\n`);
    return entry?.mutant ?? null;
  } catch (e) {
    // a mutant the catalogue no longer has, or an operator site that moved
    return `mutant: ${(e as Error).message}`;
  }
}

/** Returns the replay's exit status (1: the violation reproduced, as for `npm run replay`). */
export async function replayMutantCounterexample(
  root: string,
  file: string,
  full: boolean,
  catalogueDir?: string,
  /** where the sources come from (a snapshot of a commit); default the working tree */
  sources: string = root,
): Promise<number> {
  let cx: CounterexampleFile;
  try {
    cx = loadCounterexample(file);
  } catch (e) {
    process.stderr.write(`mutants: ${(e as Error).message}\n`);
    return EXIT.badInput;
  }
  const mutant = await mutantOfFile(root, file, cx, sources, catalogueDir);
  if (typeof mutant === 'string') {
    process.stderr.write(`mutants: ${file}: ${mutant}\n`);
    return EXIT.badInput;
  }
  let rc: number | null;
  try {
    rc = (await replayInScratch(root, sources, file, mutant, { full, inherit: true })).rc;
  } catch (e) {
    if (!(e instanceof PatchError)) throw e;
    const what = cx.regression !== null ? 'its regression patch' : 'the mutant';
    process.stderr.write(`mutants: ${file}: ${what} does not apply to these sources: ${e.message}\n`);
    return EXIT.badInput;
  }
  // no status: the replay was killed (its deadline), which no replay should reach
  return rc ?? EXIT.internal;
}
