/**
 * How many runs per suite the Stryker property test makes: TIERLAB_STRYKER_RUNS, or 300.
 * A value that is not an integer >= 1 is refused (thrown when the test file loads, so
 * Stryker's first run fails): `Number('abc')` would be NaN, fast-check would make no run,
 * every test would pass in milliseconds and no mutant could ever be killed.
 */
export const DEFAULT_STRYKER_RUNS = 300;

export function strykerRuns(value: string | undefined): number {
  // empty is unset, as for every variable (src/input/environment.mjs)
  if (value === undefined || value === '') return DEFAULT_STRYKER_RUNS;
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new Error(`TIERLAB_STRYKER_RUNS wants an integer >= 1 (runs per suite), got '${value}'`);
  return n;
}
