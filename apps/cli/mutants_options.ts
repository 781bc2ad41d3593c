/**
 * The options of `npm run mutants` (apps/cli/mutants.ts), read and checked before
 * anything slow starts: every bad value is one UsageError naming the option, in the order
 * the options are read. A strategy or suite the properties run would refuse is refused
 * here, since a mutant's properties run that refuses it would look like a dead mutant.
 */
import { SUITES, type Suite } from '../../properties/arbitraries.js';
import { STRATEGIES, type StrategyName } from '../../properties/types.js';
import { REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { resolveCommit } from '../../mutants/lib/scratch.js';
import {
  countOption,
  isOneOf,
  jobsOption,
  parseOrFail,
  secondsOption,
  seedOption,
  sharedOptions,
  shardOption,
  type ShardOption,
  usageError,
} from './cli_args.js';

// explicitly typed, so that control flow knows it never returns
export function fail(message: string): never {
  return usageError('mutants', message);
}

function parse(argv: readonly string[]) {
  return parseOrFail('mutants', argv, {
    options: {
      ...sharedOptions('seconds', 'jobs', 'shard', 'seed', 'strategy', 'runs', 'suite', 'out', 'full', 'catalogue-dir'),
      'catalogue-only': { type: 'boolean' },
      'operators-only': { type: 'boolean' },
      mutant: { type: 'string', multiple: true },
      'matrix-seconds': { type: 'string' },
      'include-equivalent': { type: 'boolean' },
      typecheck: { type: 'boolean' },
      keep: { type: 'boolean' },
      list: { type: 'boolean' },
      replay: { type: 'string' },
      'no-baseline': { type: 'boolean' },
      at: { type: 'string' },
      'baseline-seconds': { type: 'string' },
      tier: { type: 'string' },
      level: { type: 'string' },
      'in-process': { type: 'boolean' },
    },
    strict: true,
  }).values;
}

export interface MutantsOptions {
  readonly argv: readonly string[];
  readonly catalogue: boolean;
  readonly operators: boolean;
  readonly ids: readonly string[];
  readonly strategy: StrategyName | undefined;
  readonly suite: Suite | undefined;
  readonly seconds: number;
  readonly seed: number;
  readonly runs: number | undefined;
  readonly matrixSeconds: number;
  readonly jobs: number;
  readonly shard: ShardOption | null;
  readonly baselineSeconds: number;
  /** --at: the commit whose sources run, resolved; null: the working tree's */
  readonly commit: string | null;
  readonly replay: string | undefined;
  readonly full: boolean;
  readonly catalogueDir: string | undefined;
  readonly out: string | undefined;
  readonly list: boolean;
  readonly includeEquivalent: boolean;
  readonly typecheck: boolean;
  readonly keep: boolean;
  readonly baseline: boolean;
  /** which tier's catalogue: tierlab's own (ts), or the C tier's under the scheduler (c) */
  readonly tier: 'ts' | 'c';
  /** the C tier's: 2 judged by its event log too, 1 by its boundary only */
  readonly level: 1 | 2;
  /** the C tier's: runs in this process rather than in forked children */
  readonly inProcess: boolean;
}

export function readMutantsOptions(argv: readonly string[]): MutantsOptions {
  const values = parse(argv);
  if (values['catalogue-only'] === true && values['operators-only'] === true)
    fail('--catalogue-only and --operators-only exclude each other');
  const strategy = values.strategy;
  if (strategy !== undefined && !isOneOf(STRATEGIES, strategy)) {
    fail(`--strategy must be one of ${STRATEGIES.join(', ')}, got '${strategy}'`);
  }
  const suite = values.suite;
  if (suite !== undefined && !isOneOf(SUITES, suite)) fail(`no suite '${suite}'; known: ${SUITES.join(', ')}`);
  // every number is read before anything slow starts
  const seconds = secondsOption('mutants', values.seconds, 'seconds', 30);
  const seed = seedOption('mutants', values.seed, 20261129);
  const runs = values.runs !== undefined ? countOption('mutants', values.runs, 'runs', 1) : undefined;
  const matrixSeconds = secondsOption(
    'mutants',
    values['matrix-seconds'],
    'matrix-seconds',
    2,
    'no sampling pass, an empty kill matrix',
  );
  const jobs = jobsOption('mutants', values.jobs);
  const shard = shardOption('mutants', values.shard);
  const baselineSeconds = secondsOption(
    'mutants',
    values['baseline-seconds'],
    'baseline-seconds',
    Math.min(seconds, 3),
  );
  return {
    argv,
    catalogue: values['operators-only'] !== true,
    operators: values['catalogue-only'] !== true,
    ids: values.mutant ?? [],
    strategy,
    suite,
    seconds,
    seed,
    runs,
    matrixSeconds,
    jobs,
    shard,
    baselineSeconds,
    commit: commitOf(values.at),
    replay: values.replay,
    full: values.full === true,
    catalogueDir: values['catalogue-dir'],
    out: values.out,
    list: values.list === true,
    includeEquivalent: values['include-equivalent'] === true,
    typecheck: values.typecheck === true,
    keep: values.keep === true,
    baseline: values['no-baseline'] !== true,
    ...tierOptions(values),
  };
}

/** --tier c and its own options (apps/cli/ctier_mutants.ts). */
function tierOptions(values: ReturnType<typeof parse>) {
  const tier = values.tier ?? 'ts';
  if (tier !== 'ts' && tier !== 'c') fail(`--tier must be ts or c, got '${tier}'`);
  if (tier !== 'c' && (values.level !== undefined || values['in-process'] === true))
    fail('--level and --in-process are for --tier c');
  const level = values.level === undefined || values.level === '2' ? 2 : values.level === '1' ? 1 : 0;
  if (level === 0) fail(`--level must be 1 or 2, got '${values.level ?? ''}'`);
  if (tier === 'c' && values.strategy !== undefined && values.strategy !== 'random' && values.strategy !== 'pct')
    fail(`--tier c kills by random or pct schedules, not '${values.strategy}'`);
  return {
    tier: tier === 'c' ? ('c' as const) : ('ts' as const),
    level: level === 1 ? (1 as const) : (2 as const),
    inProcess: values['in-process'] === true,
  };
}

/** --at reaches git only as the commit it names */
function commitOf(at: string | undefined): string | null {
  if (at === undefined) return null;
  try {
    return resolveCommit(REPO_ROOT, at);
  } catch (e) {
    return fail(`--at: ${(e as Error).message}`);
  }
}
