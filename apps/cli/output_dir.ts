/**
 * The directory a command writes its report to, made ready before the run starts: a run
 * of minutes must not end in a stack trace because `--report` names a file.
 *
 * Invariant: returns an existing directory this process has just written a file into, or
 * exits 2 with one line. Missing levels are made one at a time (Node's recursive mkdir
 * loops for ever under /proc).
 */
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { usageError } from './cli_args.js';

export function prepareOutputDir(tool: string, option: string, dir: string): string {
  const wanted = resolve(dir);
  const missing: string[] = [];
  let existing = wanted;
  while (!existsSync(existing)) {
    missing.unshift(existing);
    const up = dirname(existing);
    if (up === existing) break;
    existing = up;
  }
  if (!statSync(existing).isDirectory()) usageError(tool, `--${option} ${dir}: ${existing} is not a directory`);
  const probe = join(wanted, `.tierlab-write-check-${process.pid}`);
  try {
    for (const d of missing) mkdirSync(d);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (e) {
    usageError(
      tool,
      `--${option} ${dir}: cannot write there (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
  return wanted;
}

/** A path as the commands print it (apps/report/shown_path.ts: relative when inside the working directory). */
export { shownPath } from '../report/shown_path.js';
