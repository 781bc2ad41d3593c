/**
 * One counterexample exported, built with and without its defect (build.ts) and run:
 * what the test and scripts/export_c_catalogue.ts both ask. Each binary runs once, in the
 * caller's temporary folder (its heat file lives there for the run); its verdict is its exit
 * status and its FAIL or PASS line, never a time.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Mutant } from '../../mutants/lib/types.js';
import type { CounterexampleFile } from '../../properties/counterexample_file.js';
import { type BaseObjects, buildDefect, compileTest, link } from './build.js';
import { exportCTest } from './export_c.js';

const exec = promisify(execFile);

export interface Ran {
  readonly code: number;
  readonly out: string;
  /** the FAIL or PASS line */
  readonly verdict: string;
}

export interface BothRuns {
  readonly defect: Ran;
  readonly fixed: Ran;
}

export async function runBinary(path: string, cwd: string): Promise<Ran> {
  let code = 0;
  let out = '';
  try {
    out = (await exec(path, [], { cwd, timeout: 120_000 })).stdout;
  } catch (e) {
    const err = e as { code?: number; stdout?: string };
    code = typeof err.code === 'number' ? err.code : -1;
    out = err.stdout ?? '';
  }
  const verdict = out.split('\n').find((l) => l.startsWith('FAIL: ') || l === 'PASS') ?? '';
  return { code, out, verdict };
}

/** name: the test's (a file name without .c); mutant: the defect the counterexample was found on. */
export async function exportAndRun(
  dir: string,
  base: BaseObjects,
  name: string,
  cx: CounterexampleFile,
  mutant: Mutant,
): Promise<BothRuns> {
  const source = join(dir, `${name}.c`);
  writeFileSync(source, exportCTest(name, cx));
  const test = await compileTest(source);
  const withDefect = await link(test, await buildDefect(dir, base, mutant), join(dir, `${name}.defect`));
  const without = await link(test, [...base.tier.values(), ...base.fake], join(dir, `${name}.fixed`));
  return { defect: await runBinary(withDefect, dir), fixed: await runBinary(without, dir) };
}
