/**
 * Runs inside a scratch copy whose fill_wait waits on `st.qn` (race.ts makes it): for
 * each strategy and seed, the property suites in the order `npm run properties` runs
 * them, each with the CLI's per-suite seed (seed + suite index) and a run cap, until the
 * first violation. Prints one JSON line per (strategy, seed): runs and seconds to find,
 * and what was found.
 *
 *   tsx apps/cli/bin/race_worker.ts --seeds N --strategies a,b --runs R [--first-seed S]
 *
 * Invariant: it measures search only (runs until the first violation, seconds to it);
 * shrinking the counterexample afterwards is not counted.
 */
import { parseArgs } from 'node:util';
import { SUITES } from '../../../properties/arbitraries.js';
import { checkSuite } from '../../../properties/runner.js';
import { STRATEGIES, type StrategyName } from '../../../properties/types.js';

/** One line per (strategy, seed); exits 0 (a bad argument is an error: race.ts reads its exit code). */
export function main(argv: readonly string[]): 0 {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      seeds: { type: 'string' },
      strategies: { type: 'string' },
      runs: { type: 'string' },
      'first-seed': { type: 'string' },
    },
    strict: true,
  });
  const seeds = Number(values.seeds ?? 20);
  const firstSeed = Number(values['first-seed'] ?? 1);
  const runsPerSuite = Number(values.runs ?? 1500);
  const strategies = (values.strategies ?? 'choices').split(',') as StrategyName[];
  for (const s of strategies) if (!STRATEGIES.includes(s)) throw new Error(`unknown strategy ${s}`);
  for (const strategy of strategies) {
    for (let seed = firstSeed; seed < firstSeed + seeds; seed++) {
      process.stdout.write(`${JSON.stringify(searchSeed(strategy, seed, runsPerSuite))}\n`);
    }
  }
  return 0;
}

/** The suites in order, until the first violation: runs and seconds to it, and what was found. */
function searchSeed(strategy: StrategyName, seed: number, runsPerSuite: number) {
  let runs = 0;
  let seconds = 0;
  let found: { property: string; suite: string } | null = null;
  for (const [i, suite] of SUITES.entries()) {
    const r = checkSuite({ suite, seed: seed + i, runs: runsPerSuite, strategy });
    if (r.failure !== null) {
      runs += r.failure.runsToFind;
      seconds += r.failure.secondsToFind;
      found = { property: r.failure.property, suite };
      break;
    }
    runs += r.runs;
    seconds += r.seconds;
  }
  return {
    strategy,
    seed,
    found: found !== null,
    runs,
    seconds,
    property: found?.property ?? null,
    suite: found?.suite ?? null,
  };
}
