/**
 * `npm run mutants -- --replay FILE`: a counterexample found on a mutant replays only
 * with that mutant applied. Reads the mutant id from the file, applies the mutant to a
 * scratch copy, and runs the replay CLI there on the file, output passed through.
 */
import { join } from 'node:path';
import { EXIT } from '../../src/check/exit_codes.js';
import { loadCounterexample, type CounterexampleFile } from '../../properties/counterexample_file.js';
import { runChild } from './child.js';
import { tsxCommand } from './properties_cli.js';
import { PatchError } from './patch.js';
import { makeScratch, type Scratch } from './scratch.js';
import { selectMutants } from './select.js';

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
  let mutant = null;
  if (cx.mutant !== null) {
    const sel = { catalogue: true, operators: true, ids: [cx.mutant], ...(catalogueDir !== undefined ? { catalogueDir } : {}) };
    try {
      const [entry] = await selectMutants(root, sel, sources);
      mutant = entry?.mutant ?? null;
    } catch (e) {
      // a mutant the catalogue no longer has, or an operator site that moved
      process.stderr.write(`mutants: ${file}: mutant: ${(e as Error).message}\n`);
      return EXIT.badInput;
    }
    process.stderr.write(`applying mutant ${cx.mutant} to a scratch copy\n`);
  } else {
    process.stderr.write('this counterexample names no mutant: replaying on the unmodified sources\n');
  }
  let scratch: Scratch;
  try {
    scratch = makeScratch(sources, join(root, 'node_modules'), mutant);
  } catch (e) {
    if (!(e instanceof PatchError)) throw e;
    process.stderr.write(`mutants: ${file}: the mutant does not apply to these sources: ${e.message}\n`);
    return EXIT.badInput;
  }
  try {
    const [node, tsx] = tsxCommand(root);
    const r = await runChild(node, [...tsx, 'src/cli/replay.ts', file, ...(full ? ['--full'] : [])], {
      cwd: scratch.dir,
      timeoutMs: 300_000,
      inherit: true,
    });
    // no status: the replay was killed (its deadline), which no replay should reach
    return r.rc ?? EXIT.internal;
  } finally {
    scratch.remove();
  }
}
