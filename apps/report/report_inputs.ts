/**
 * The data the HTML report is drawn from: the parts of each JSON report the renderer
 * reads (properties.json, mutants.json, oracle-<backend>.json, bench.json, Stryker's
 * mutation.json) and one replayed counterexample. Plain data only: the renderer never
 * runs the simulator; the loader and the replay glue fill these in.
 *
 * These are subsets of the writers' own types (properties/report.ts, mutants/lib/result.ts,
 * apps/oracle/oracle_report.ts, apps/cli/bench/bench_report.ts);
 * test/report/inputs_match_writers.test.ts keeps them assignable, so a writer that renames
 * a field fails the type check instead of drawing an empty section.
 */
import type { CounterexampleView } from '../../properties/counterexample_view.js';

/** One counterexample, replayed with its trace on (what a lane diagram draws). */
export type { CounterexampleView };

export interface PropertiesInput {
  readonly date: string;
  readonly seed: number;
  readonly strategy: string;
  readonly command: string;
  readonly ok: boolean;
  /** every guarantee asked for was reached; ok and not complete is INCOMPLETE */
  readonly complete: boolean;
  readonly totals: {
    readonly runs: number;
    readonly steps: number;
    readonly seconds: number;
    readonly stepsPerSecond: number;
    readonly runsPerSecond: number;
  };
  readonly properties: readonly {
    readonly id: string;
    readonly family: string;
    readonly statement: string;
    readonly violations: number;
    readonly status: string;
  }[];
  readonly suites: readonly {
    readonly suite: string;
    readonly strategy: string;
    readonly runs: number;
    readonly steps: number;
    readonly seconds: number;
    readonly violations: Record<string, number>;
    readonly failure: null | {
      readonly property: string;
      readonly detail: string;
      readonly choices: readonly number[];
      readonly replay: string;
    };
    readonly guarantee?: { readonly statement: string; readonly complete: boolean };
  }[];
  readonly coverage: readonly { readonly mark: string; readonly runs: number; readonly percent: number }[];
}

export type MutantStatusInput = 'killed' | 'survived' | 'stillborn' | 'equivalent' | 'inconclusive';

export interface MutantInput {
  readonly id: string;
  readonly kind: string;
  readonly source: string;
  readonly title: string;
  readonly status: MutantStatusInput;
  readonly property: string | null;
  readonly detail: string | null;
  readonly asExpected: boolean | null;
  readonly suite: string | null;
  readonly runsToKill: number | null;
  readonly secondsToKill: number | null;
  readonly steps: number | null;
  readonly choices: number | null;
  readonly counterexample: string | null;
  readonly replay: string | null;
  readonly matrix: Record<string, number> | null;
  readonly matrixRuns: number;
  readonly runs: number | null;
  readonly error: string | null;
  readonly equivalentReason: string | null;
}

export interface MutantsInput {
  readonly date: string;
  readonly command: string;
  readonly settings: Record<string, unknown>;
  readonly sources: { readonly commit: string; readonly changed: readonly string[] };
  readonly wallSeconds: number;
  readonly results: readonly MutantInput[];
}

export interface OracleRunInput {
  readonly name: string;
  readonly pass: boolean;
  readonly tokensMatched: number;
  readonly tokens: number;
  readonly firstDivergence: number;
  readonly hiddenBitIdentical: boolean;
  readonly residentAtEnd: number;
  readonly hitRate: number;
  readonly uploads: number;
  readonly uploadFailures: number;
  readonly swaps: number;
  readonly uploadGBps: number;
  readonly tokPerSec: number;
  readonly problem: string | null;
  readonly notes: readonly string[];
  /** experts resident after each generated token (not written by every oracle yet) */
  readonly residencyByToken?: readonly number[];
}

export interface OracleInput {
  readonly date: string;
  readonly backend: string;
  /** the tier inside the engine (absent in reports written before the C tier ran there: ts) */
  readonly tier?: 'ts' | 'c';
  readonly devices: readonly number[];
  readonly fixture: string;
  readonly library: string;
  readonly tokens: number;
  readonly ok: boolean;
  readonly validationMessages: number | null;
  readonly runs: readonly OracleRunInput[];
  /** a plain host-to-device copy of one large buffer on the same backend, GB/s (optional) */
  readonly rawCopyGBps?: number;
}

export interface SpeedInput {
  /** every checker, none, or every checker but the refinement */
  readonly checks: boolean | 'no-refinement';
  readonly stepsPerSecond: number;
  readonly stepsPerCpuSecond: number;
  readonly schedulesPerSecond: number;
  readonly stepsPerSchedule: number;
  readonly samples: readonly { readonly stepsPerSecond: number }[];
}

export interface BenchInput {
  readonly date: string;
  readonly command: string;
  readonly machine: {
    readonly cores: number;
    readonly node: string;
    readonly loadAverageAtStart: readonly number[];
    readonly loadAverageAtEnd: readonly number[];
  };
  readonly speed?: {
    readonly scenario: string;
    readonly on: SpeedInput;
    readonly off: SpeedInput;
    readonly checkerCost: number;
    /** every checker but the refinement, and what the refinement costs on top (on / this) */
    readonly noRefinement?: SpeedInput;
    readonly refinementCost?: number;
  };
  readonly scaling?: readonly {
    readonly dimension: string;
    readonly value: number;
    readonly on: SpeedInput;
    readonly off: SpeedInput;
  }[];
  readonly exhaustive?: {
    readonly scenario: string;
    readonly rows: readonly {
      readonly label: string;
      readonly preemptions: number | null;
      readonly reduction: boolean;
      readonly stateCache: boolean;
      readonly complete: boolean;
      readonly schedules: number;
      readonly states: number | null;
      readonly seconds: number;
      readonly violations: readonly string[];
    }[];
    readonly reductionFactor: number | null;
  };
  readonly race?: {
    readonly file: string;
    readonly change: string;
    readonly seeds: number;
    readonly runsPerSuite: number;
    readonly rows: readonly {
      readonly strategy: string;
      readonly seeds: number;
      readonly found: number;
      readonly medianRuns: number | null;
      readonly medianSeconds: number | null;
      readonly worstRuns: number | null;
      readonly worstSeconds: number | null;
    }[];
  };
  readonly mutants?: {
    readonly available: boolean;
    readonly note: string;
    readonly secondsPerMutant: number;
    readonly jobs: number;
    readonly strategies: readonly string[];
    readonly rows: readonly {
      readonly id: string;
      readonly byStrategy: Record<
        string,
        {
          readonly status: string;
          readonly property: string | null;
          readonly runsToKill: number | null;
          readonly secondsToKill: number | null;
        }
      >;
      readonly firstKiller: string | null;
    }[];
    readonly wallSeconds: Record<string, number>;
  };
}

/** Stryker's score, computed from reports/stryker/mutation.json. */
export interface StrykerInput {
  readonly file: string;
  readonly mutants: number;
  readonly killed: number;
  readonly timeout: number;
  readonly survived: number;
  readonly noCoverage: number;
  /** errors and ignored mutants: not counted in the score */
  readonly excluded: number;
  /** (killed + timeout) / (killed + timeout + survived + no coverage), null when none counts */
  readonly score: number | null;
  /** per source file: detected (killed, timeout) and undetected (survived, no coverage) */
  readonly byFile: readonly {
    readonly file: string;
    readonly detected: number;
    readonly undetected: number;
    readonly score: number | null;
  }[];
}

/** Everything one report directory holds, as loaded. */
export interface ReportInputs {
  readonly dir: string;
  readonly properties: PropertiesInput | null;
  /** the reports of one-scenario searches (properties-<scenario>.json), each under its name */
  readonly scenarioRuns: readonly { readonly name: string; readonly report: PropertiesInput }[];
  readonly mutants: MutantsInput | null;
  readonly oracles: readonly OracleInput[];
  readonly bench: BenchInput | null;
  readonly stryker: StrykerInput | null;
  /** replayed counterexamples, by the file name the reports give */
  readonly counterexamples: ReadonlyMap<string, CounterexampleView>;
  /** property id -> one-line statement (the catalogue) */
  readonly statements: Readonly<Record<string, string>>;
  /** what could not be read or replayed: one line each, shown on the page */
  readonly problems: readonly string[];
}
