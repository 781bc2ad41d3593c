/**
 * `npm run mutants -- --replay FILE`: a counterexample found on a mutant replays only
 * with that mutant applied. Reads the mutant id from the file, applies the mutant to a
 * scratch copy, and runs the replay CLI there on the file, output passed through.
 */
import { join } from 'node:path';
import { loadCounterexample } from '../../properties/counterexample_file.js';
import { runChild } from './child.js';
import { tsxCommand } from './properties_cli.js';
import { makeScratch } from './scratch.js';
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
  let cx;
  try {
    cx = loadCounterexample(file);
  } catch (e) {
    process.stderr.write(`mutants: ${(e as Error).message}\n`);
    return 2;
  }
  let mutant = null;
  if (cx.mutant !== null) {
    const [entry] = await selectMutants(
      root,
      {
        catalogue: true,
        operators: true,
        ids: [cx.mutant],
        ...(catalogueDir !== undefined ? { catalogueDir } : {}),
      },
      sources,
    );
    mutant = entry?.mutant ?? null;
    process.stderr.write(`applying mutant ${cx.mutant} to a scratch copy\n`);
  } else {
    process.stderr.write('this counterexample names no mutant: replaying on the unmodified sources\n');
  }
  const scratch = makeScratch(sources, join(root, 'node_modules'), mutant);
  try {
    const [node, tsx] = tsxCommand(root);
    const r = await runChild(node, [...tsx, 'src/cli/replay.ts', file, ...(full ? ['--full'] : [])], {
      cwd: scratch.dir,
      timeoutMs: 300_000,
      inherit: true,
    });
    return r.rc ?? 1;
  } finally {
    scratch.remove();
  }
}
