/**
 * What every tierlab command does with bad arguments: one line naming the command and
 * the problem on stderr, exit status 2. Also the options several commands share:
 * `--jobs N` (worker threads or processes, default every core) and `--shard i/n`.
 */
import { cpus } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';

export function usageError(tool: string, message: string): never {
  process.stderr.write(`${tool}: ${message}\n`);
  process.exit(2);
}

/** a non-negative number option, or its default */
export function nonNegativeOption(tool: string, value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) usageError(tool, `--${name} wants a non-negative number, got '${value}'`);
  return n;
}

/** parseArgs, but an unknown or malformed option is a usage error, not a stack trace */
export function parseOrFail<T extends ParseArgsConfig>(tool: string, config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (e) {
    return usageError(tool, (e as Error).message);
  }
}

/** The most jobs anyone asks for: more threads than this is a typo, not a machine. */
export const MAX_JOBS = 1024;

/** `--jobs N`: an integer in 1..MAX_JOBS, default every core of this machine. */
export function jobsOption(tool: string, value: string | undefined): number {
  if (value === undefined) return Math.max(1, cpus().length);
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1 || n > MAX_JOBS) usageError(tool, `--jobs wants an integer from 1 to ${MAX_JOBS}, got '${value}'`);
  return n;
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
  if (m === null || !Number.isSafeInteger(index) || !Number.isSafeInteger(count) || count < 1 || count > MAX_JOBS || index >= count) {
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
