/**
 * The fill_wait race of DEFECTS.md (#1360) as a benchmark: how many schedules and
 * seconds each strategy needs to find it when fill_wait waits on `st.qn` instead of
 * `st.inflight`, median over seeds.
 *
 * The defect goes into a scratch copy of the sources (src/, model/, properties/ and apps/
 * copied to a temporary directory, node_modules linked), never into the working tree; the
 * patch must match exactly once, so a rewrite of fill_wait makes this fail loudly instead
 * of measuring an unmutated tier. race_worker.ts (run by apps/cli/bin/race_worker.ts)
 * does the measuring inside the copy.
 */
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { atExitStop, scratchDir } from '../../../src/input/cleanup.js';
import { median } from './speed.js';

export const RACE_FILE = 'src/tier/fill_wait.ts';
export const RACE_FIND = 'while (st.inflight > 0 && !st.stop) yield WAIT_TAKE;';
export const RACE_REPLACE = 'while (st.qn > 0 && !st.stop) yield WAIT_TAKE;';

export interface RaceSeed {
  readonly strategy: string;
  readonly seed: number;
  readonly found: boolean;
  readonly runs: number;
  readonly seconds: number;
  readonly property: string | null;
  readonly suite: string | null;
}

export interface RaceRow {
  readonly strategy: string;
  readonly seeds: number;
  readonly found: number;
  readonly medianRuns: number | null;
  readonly medianSeconds: number | null;
  readonly worstRuns: number | null;
  readonly worstSeconds: number | null;
  readonly properties: Record<string, number>;
  readonly perSeed: readonly RaceSeed[];
}

/** The worker that measures the race, run inside the scratch copy (copied there with the sources). */
export const RACE_WORKER = 'apps/cli/bin/race_worker.ts';

/** A scratch copy of the sources with the race put back; returns its directory. */
export function raceScratch(root: string): string {
  // a scratch folder of the one clean-up registry: a signal or an error removes it
  const dir = scratchDir('race-').dir;
  for (const p of ['src', 'model', 'properties', 'apps', 'package.json', 'tsconfig.json'])
    cpSync(join(root, p), join(dir, p), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const file = join(dir, RACE_FILE);
  const text = readFileSync(file, 'utf8');
  const at = text.indexOf(RACE_FIND);
  if (at < 0 || text.indexOf(RACE_FIND, at + 1) >= 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${RACE_FILE} no longer holds exactly one '${RACE_FIND}': update apps/cli/bench/race.ts`);
  }
  writeFileSync(file, text.slice(0, at) + RACE_REPLACE + text.slice(at + RACE_FIND.length));
  return dir;
}

export async function measureRace(
  root: string,
  strategies: readonly string[],
  seeds: number,
  runsPerSuite: number,
): Promise<RaceRow[]> {
  const dir = raceScratch(root);
  try {
    const out = await runWorker(root, dir, [
      '--seeds',
      String(seeds),
      '--strategies',
      strategies.join(','),
      '--runs',
      String(runsPerSuite),
    ]);
    const lines = out.split('\n').filter((l) => l.startsWith('{'));
    const all = lines.map((l) => JSON.parse(l) as RaceSeed);
    return strategies.map((strategy) => {
      const mine = all.filter((r) => r.strategy === strategy);
      const hits = mine.filter((r) => r.found);
      const properties: Record<string, number> = {};
      for (const h of hits) if (h.property !== null) properties[h.property] = (properties[h.property] ?? 0) + 1;
      return {
        strategy,
        seeds: mine.length,
        found: hits.length,
        medianRuns: hits.length > 0 ? median(hits.map((h) => h.runs)) : null,
        medianSeconds: hits.length > 0 ? median(hits.map((h) => h.seconds)) : null,
        worstRuns: hits.length > 0 ? Math.max(...hits.map((h) => h.runs)) : null,
        worstSeconds: hits.length > 0 ? Math.max(...hits.map((h) => h.seconds)) : null,
        properties,
        perSeed: mine,
      };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runWorker(root: string, dir: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), RACE_WORKER, ...args], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    // killed with this process however it ends (its folder is removed then)
    const unregister = atExitStop(() => child.kill('SIGKILL'));
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (rc) => {
      unregister();
      if (rc === 0) resolve(out);
      else reject(new Error(`race worker exited with ${String(rc)}`));
    });
  });
}
