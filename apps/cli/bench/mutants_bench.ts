/**
 * Time to kill each catalogue mutant (mutants/catalogue/) under each strategy, through the
 * mutation runner exactly as people run it (`apps/cli/bin/mutants.ts --catalogue-only
 * --strategy S`), one strategy after another, reading back its mutants.json.
 *
 * Invariants: this file only drives that CLI and reads its report; it never applies a
 * mutant itself. When the CLI is absent the section says so and measures nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runChild } from '../../../mutants/lib/child.js';
import { EXIT } from '../../../src/check/exit_codes.js';
import { childTmp, scratchDir } from '../../../src/input/cleanup.js';
import { EnvironmentError } from '../../../src/input/environment_error.js';

export const MUTANTS_CLI = 'apps/cli/bin/mutants.ts';

export interface MutantCell {
  readonly status: string;
  readonly property: string | null;
  readonly runsToKill: number | null;
  readonly secondsToKill: number | null;
  readonly wallSeconds: number;
}

export interface MutantRow {
  readonly id: string;
  readonly title: string;
  /** strategy -> what happened */
  readonly byStrategy: Record<string, MutantCell>;
  /** the strategy with the least search seconds to kill (null: none killed it) */
  readonly firstKiller: string | null;
}

export interface MutantsSection {
  readonly available: boolean;
  readonly note: string;
  readonly secondsPerMutant: number;
  readonly jobs: number;
  readonly strategies: readonly string[];
  readonly rows: readonly MutantRow[];
  /** strategy -> wall seconds of its whole mutation run */
  readonly wallSeconds: Record<string, number>;
}

interface Report {
  results: {
    id: string;
    kind: string;
    title: string;
    status: string;
    property: string | null;
    runsToKill: number | null;
    secondsToKill: number | null;
    wallSeconds: number;
  }[];
}

export async function measureMutants(
  root: string,
  strategies: readonly string[],
  seconds: number,
  jobs: number,
  log: (s: string) => void,
): Promise<MutantsSection> {
  if (!existsSync(join(root, MUTANTS_CLI))) {
    return {
      available: false,
      note: `${MUTANTS_CLI} is not there: no mutant was run`,
      secondsPerMutant: seconds,
      jobs,
      strategies,
      rows: [],
      wallSeconds: {},
    };
  }
  const byId = new Map<string, { title: string; cells: Record<string, MutantCell> }>();
  const wall: Record<string, number> = {};
  for (const strategy of strategies) {
    const scratch = scratchDir(`bench-mutants-${strategy}-`);
    const out = scratch.dir;
    const started = performance.now();
    log(`mutants: --strategy ${strategy}, ${seconds} s per mutant, ${jobs} jobs ...`);
    try {
      await run(
        root,
        [
          MUTANTS_CLI,
          '--catalogue-only',
          '--strategy',
          strategy,
          '--seconds',
          String(seconds),
          '--jobs',
          String(jobs),
          '--matrix-seconds',
          '0',
          '--out',
          out,
        ],
        out,
      );
      const file = join(out, 'mutants.json');
      if (!existsSync(file)) throw new Error(`the mutation run wrote no ${file}`);
      const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
      for (const r of report.results.filter((x) => x.kind === 'catalogue')) {
        const row = byId.get(r.id) ?? { title: r.title, cells: {} };
        row.cells[strategy] = {
          status: r.status,
          property: r.property,
          runsToKill: r.runsToKill,
          secondsToKill: r.secondsToKill,
          wallSeconds: r.wallSeconds,
        };
        byId.set(r.id, row);
      }
    } finally {
      wall[strategy] = (performance.now() - started) / 1000;
      scratch.remove();
    }
  }
  const rows: MutantRow[] = [...byId.entries()].map(([id, r]) => {
    let first: string | null = null;
    let best = Infinity;
    for (const s of strategies) {
      const c = r.cells[s];
      if (c?.status === 'killed' && c.secondsToKill !== null && c.secondsToKill < best) {
        best = c.secondsToKill;
        first = s;
      }
    }
    return { id, title: r.title, byStrategy: r.cells, firstKiller: first };
  });
  rows.sort((a, b) => a.id.localeCompare(b.id));
  return {
    available: true,
    note: `${MUTANTS_CLI} --catalogue-only, per strategy`,
    secondsPerMutant: seconds,
    jobs,
    strategies,
    rows,
    wallSeconds: wall,
  };
}

/**
 * The mutation runner exits 1 when a catalogue mutant survives: a result, not an error.
 * Its temporary directory is inside `out`, so what it leaves when killed goes with `out`.
 */
async function run(root: string, args: readonly string[], out: string): Promise<void> {
  const r = await runChild(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), ...args], {
    cwd: root,
    env: { ...process.env, TMPDIR: childTmp(out) },
    timeoutMs: 24 * 3600 * 1000,
  });
  // the child's environment failure (a full temporary directory) is this command's too
  if (r.rc === EXIT.environment) {
    // its one line: "mutants: <folder>: <problem>"
    const said = (r.stderr.trim().split('\n').pop() ?? '').replace(/^[\w-]+: /, '');
    const at = said.indexOf(': ');
    throw at > 0 ? new EnvironmentError(said.slice(0, at), said.slice(at + 2)) : new EnvironmentError(out, said);
  }
  if (r.rc !== 0 && r.rc !== 1)
    throw new Error(
      `${args[0] ?? ''} exited with ${String(r.rc ?? r.signal)}: ${r.stderr.trim().split('\n').pop() ?? ''}`,
    );
}
