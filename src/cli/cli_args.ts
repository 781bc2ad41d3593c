/**
 * What every tierlab command does with bad arguments: one line naming the command and
 * the problem on stderr, exit status 2.
 */
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
