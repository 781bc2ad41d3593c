/**
 * The options of tierlab's commands: the table of the options several commands share, so
 * that each is spelt and read one way, and the readers that turn a value into a number, a
 * seed, a budget, a shard. Bad arguments are a UsageError: `runCommand` (run_command.ts)
 * prints it as one line naming the command and the problem on stderr, exit status 2.
 *
 * Invariants: a count is an integer in range (a fraction handed to fast-check never ends,
 * a zero checks nothing), a budget in seconds is positive, a seed is a 32-bit unsigned
 * integer (fast-check folds larger ones onto smaller ones), and an empty value
 * (`--runs=`) is refused rather than read as 0. `--jobs N` (worker threads or processes)
 * defaults to every core, and `--shard i/n` counts i from 0.
 */
import { cpus } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Bad arguments for `tool`: one line, exit 2 (the message may run over lines; it is printed as one). */
export class UsageError extends Error {
  readonly tool: string;

  constructor(tool: string, message: string) {
    super(message);
    this.name = 'UsageError';
    this.tool = tool;
  }
}

export function usageError(tool: string, message: string): never {
  throw new UsageError(tool, message);
}

/**
 * The options more than one command takes, each spelt and typed once (a command's own
 * options sit beside them in its parse). Values are read by the readers below; defaults
 * are the command's.
 */
export const SHARED_OPTIONS = {
  /** a 32-bit seed: seedOption */
  seed: { type: 'string' },
  /** runs per suite: countOption */
  runs: { type: 'string' },
  /** a budget in seconds: secondsOption */
  seconds: { type: 'string' },
  /** worker threads or processes: jobsOption */
  jobs: { type: 'string' },
  /** part i of n: shardOption */
  shard: { type: 'string' },
  /** a search strategy: one of STRATEGIES */
  strategy: { type: 'string' },
  /** a property suite: one of SUITES */
  suite: { type: 'string' },
  /** the report directory of `properties`, `oracle` and the kill tables */
  report: { type: 'string' },
  /** the report directory of `mutants`, `bench` and `report merge` */
  out: { type: 'string' },
  /** print no trace (the report has everything) */
  quiet: { type: 'boolean' },
  /** print a whole trace, not its last records */
  full: { type: 'boolean' },
  /** narrow to the runs (or sections) whose name holds TEXT */
  only: { type: 'string' },
  /** a native backend: NATIVE_BACKENDS */
  backend: { type: 'string' },
  /** device ids, comma-separated */
  devices: { type: 'string' },
  /** tokens per oracle run */
  tokens: { type: 'string' },
  /** a model directory */
  fixture: { type: 'string' },
  /** a native library file */
  lib: { type: 'string' },
  /** another catalogue of tier mutants */
  'catalogue-dir': { type: 'string' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

type SharedName = keyof typeof SHARED_OPTIONS;

/** The shared options a command takes, by name. */
export function sharedOptions<K extends SharedName>(...names: K[]): Pick<typeof SHARED_OPTIONS, K> {
  return Object.fromEntries(names.map((n) => [n, SHARED_OPTIONS[n]])) as Pick<typeof SHARED_OPTIONS, K>;
}

/** Whether `value` is one of a vocabulary's words (a strategy, a suite, a backend), as its type. */
export function isOneOf<T extends string>(words: readonly T[], value: string): value is T {
  return (words as readonly string[]).includes(value);
}

/** Words as a sentence lists them: `cpu, cuda or vulkan`. */
export function wordList(words: readonly string[], last: 'or' | 'and' = 'or'): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} ${last} ${words.at(-1) ?? ''}`;
}

/** the largest seed: fast-check reads seeds as 32-bit integers */
export const SEED_MAX = 0xffffffff;

function numberOf(tool: string, value: string, name: string, wants: string): number {
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isFinite(n)) usageError(tool, `--${name} wants ${wants}, got '${value}'`);
  return n;
}

/** an integer option in [min, max], or its default */
export function intOption(
  tool: string,
  value: string | undefined,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  const wants = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer in [${min}, ${max}]`;
  const n = numberOf(tool, value, name, wants);
  if (!Number.isSafeInteger(n) || n < min || n > max) usageError(tool, `--${name} wants ${wants}, got '${value}'`);
  return n;
}

/** a count of runs, jobs, repeats: an integer >= 1 (zero would check nothing) */
export function countOption(tool: string, value: string | undefined, name: string, fallback: number): number {
  return intOption(tool, value, name, 1, Number.MAX_SAFE_INTEGER, fallback);
}

/** a seed: an integer in [0, 2^32 - 1] */
export function seedOption(tool: string, value: string | undefined, fallback: number): number {
  return intOption(tool, value, 'seed', 0, SEED_MAX, fallback);
}

/** a budget in seconds: a positive number (zero would check nothing), or with `zeroMeans`
 *  (what 0 does, for the message) a number >= 0 */
export function secondsOption(
  tool: string,
  value: string | undefined,
  name: string,
  fallback: number,
  zeroMeans?: string,
): number {
  if (value === undefined) return fallback;
  const wants = zeroMeans === undefined ? 'a positive number of seconds' : `a number of seconds >= 0 (0: ${zeroMeans})`;
  const n = numberOf(tool, value, name, wants);
  if (n < 0 || (n === 0 && zeroMeans === undefined)) usageError(tool, `--${name} wants ${wants}, got '${value}'`);
  return n;
}

/** a positive number that is not a time (a size in GiB) */
export function positiveOption(tool: string, value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = numberOf(tool, value, name, 'a positive number');
  if (n <= 0) usageError(tool, `--${name} wants a positive number, got '${value}'`);
  return n;
}

/** parseArgs over `argv`, but an unknown or malformed option is a usage error, not a stack trace */
export function parseOrFail<T extends ParseArgsConfig>(
  tool: string,
  argv: readonly string[],
  config: T,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs<T>({ ...config, args: [...argv] });
  } catch (e) {
    return usageError(tool, (e as Error).message);
  }
}

/** The most jobs anyone asks for: more threads than this is a typo, not a machine. */
export const MAX_JOBS = 1024;

/** `--jobs N`: an integer in [1, MAX_JOBS], default every core of this machine. */
export function jobsOption(tool: string, value: string | undefined): number {
  return intOption(tool, value, 'jobs', 1, MAX_JOBS, Math.max(1, cpus().length));
}

/** Part `index` (0-based) of `count` parts of a run. */
export interface ShardOption {
  readonly index: number;
  readonly count: number;
}

/** `--shard i/n`: integers with 0 <= i < n (i counts from 0, as CI matrices do), or null. */
export function shardOption(tool: string, value: string | undefined): ShardOption | null {
  if (value === undefined) return null;
  const m = /^(\d+)\/(\d+)$/.exec(value);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (
    m === null ||
    !Number.isSafeInteger(index) ||
    !Number.isSafeInteger(count) ||
    count < 1 ||
    count > MAX_JOBS ||
    index >= count
  ) {
    usageError(tool, `--shard wants i/n with integers 0 <= i < n <= ${MAX_JOBS}, e.g. 0/4; got '${value}'`);
  }
  return { index, count };
}

/**
 * The arguments that identify a run across its shards: all but --shard, --jobs and where
 * the report goes (--report, --out), which differ from shard to shard.
 */
export function runIdentity(argv: readonly string[]): string {
  const skip = new Set(['--shard', '--jobs', '--report', '--out']);
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    const name = a.split('=')[0] ?? a;
    if (skip.has(name)) {
      if (!a.includes('=')) i++;
      continue;
    }
    kept.push(a);
  }
  return kept.join(' ');
}
