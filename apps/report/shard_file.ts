/**
 * Shard reports: what `--shard i/n` writes next to its ordinary report (DIR/shard.json),
 * and how `npm run report -- merge DIR...` reads and checks a set of them before joining.
 *
 * A shard file holds the shard's raw results, not its summary: for properties, per suite
 * the request and its units of runs (properties/parallel_runs.ts) or its parts of one
 * exhaustive search (properties/search_parts.ts); for mutants, the mutant results and the
 * run's settings. `key` is what every shard of one run must share (the requests, or the
 * settings and the full mutant list), so that shards of different runs never join.
 *
 * Invariant: a set of shards joins only when it is complete and consistent: one tool, one
 * key, one n, each index 0..n-1 exactly once. Anything else is an error naming the shard.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_REPORT_BYTES, readInputJson } from '../../src/input/read_file.js';
import { writeReportFile } from '../../src/input/report_file.js';
import type { MutantResult } from '../../mutants/lib/result.js';
import type { MutantsReport } from '../../mutants/lib/report.js';
import type { PlainRequest, UnitResult } from '../../properties/parallel_runs.js';
import type { PlainScenarioRequest, SearchPart } from '../../properties/search_parts.js';
import type { Suite } from '../../properties/arbitraries.js';

export const SHARD_FORMAT = 'tierlab-shard';
export const SHARD_FILE = 'shard.json';

/** One suite (or the one scenario) of a properties shard. */
export type PropertiesShardLabel =
  | { readonly label: Suite | 'scenario'; readonly request: PlainRequest; readonly units: readonly UnitResult[] }
  | { readonly label: 'scenario'; readonly request: PlainScenarioRequest; readonly parts: readonly SearchPart[] };

export interface PropertiesShard {
  readonly tool: 'properties';
  readonly index: number;
  readonly count: number;
  /** the command's options other than --shard, --jobs and --report */
  readonly command: string;
  readonly seed: number;
  readonly strategy: string;
  readonly labels: readonly PropertiesShardLabel[];
}

export interface MutantsShard {
  readonly tool: 'mutants';
  readonly index: number;
  readonly count: number;
  readonly command: string;
  /** every mutant of the whole run, in order (the shards split this list) */
  readonly mutants: readonly string[];
  readonly meta: Omit<MutantsReport, 'summary' | 'results'>;
  readonly results: readonly MutantResult[];
}

export type Shard = PropertiesShard | MutantsShard;

/** The run's identity: what every shard of it shares. */
export function shardKey(s: Shard): string {
  if (s.tool === 'mutants') return JSON.stringify([s.tool, s.count, s.command, s.mutants]);
  return JSON.stringify([s.tool, s.count, s.command, s.labels.map((l) => [l.label, l.request])]);
}

export function writeShardFile(dir: string, shard: Shard): string {
  const file = join(dir, SHARD_FILE);
  writeReportFile(file, `${JSON.stringify({ format: SHARD_FORMAT, version: 1, ...shard })}\n`);
  return file;
}

/** Reads DIR/shard.json, or throws an Error whose message names the problem and the file. */
export function readShardFile(dir: string): Shard {
  const file = join(dir, SHARD_FILE);
  if (!existsSync(file)) throw new Error(`${file}: no shard report (run with --shard i/n and --report/--out ${dir})`);
  const data = readInputJson(file, { what: 'a shard report', maxBytes: MAX_REPORT_BYTES });
  const d = data as Record<string, unknown> | null;
  if (d === null || typeof d !== 'object' || d.format !== SHARD_FORMAT)
    throw new Error(`${file}: not a tierlab shard report (format is not '${SHARD_FORMAT}')`);
  if (d.tool !== 'properties' && d.tool !== 'mutants') throw new Error(`${file}: unknown tool '${String(d.tool)}'`);
  const { index, count } = d;
  if (
    typeof index !== 'number' ||
    typeof count !== 'number' ||
    !Number.isInteger(index) ||
    !Number.isInteger(count) ||
    index < 0 ||
    index >= count
  ) {
    throw new Error(`${file}: malformed shard numbers (index ${String(index)}, count ${String(count)})`);
  }
  if (typeof d.command !== 'string') throw new Error(`${file}: no command`);
  const body = d.tool === 'properties' ? d.labels : d.results;
  if (!Array.isArray(body)) throw new Error(`${file}: no ${d.tool === 'properties' ? 'labels' : 'results'} list`);
  if (d.tool === 'mutants' && !Array.isArray(d.mutants)) throw new Error(`${file}: no mutant list`);
  return d as unknown as Shard;
}

/** Checks that the shards are one whole run: same tool, key and n; every index once. */
export function checkShardSet(dirs: readonly string[], shards: readonly Shard[]): void {
  const first = shards[0];
  if (first === undefined) throw new Error('merge wants at least one shard directory');
  const key = shardKey(first);
  const seen = new Map<number, string>();
  shards.forEach((s, i) => {
    const dir = dirs[i] ?? '?';
    if (s.tool !== first.tool)
      throw new Error(`${dir}: a ${s.tool} shard, but ${dirs[0] ?? '?'} is a ${first.tool} shard`);
    if (s.count !== first.count)
      throw new Error(`${dir}: shard of ${s.count}, but ${dirs[0] ?? '?'} is a shard of ${first.count}`);
    if (shardKey(s) !== key)
      throw new Error(`${dir}: a shard of another run (its options or inputs differ from ${dirs[0] ?? '?'}'s)`);
    const other = seen.get(s.index);
    if (other !== undefined) throw new Error(`${dir}: shard ${s.index}/${s.count} twice (also in ${other})`);
    seen.set(s.index, dir);
  });
  const missing = Array.from({ length: first.count }, (_, i) => i).filter((i) => !seen.has(i));
  if (missing.length > 0)
    throw new Error(
      `shards missing: ${missing.map((i) => `${i}/${first.count}`).join(', ')} (every shard of the run is needed)`,
    );
}
