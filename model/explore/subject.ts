/**
 * What a search explores: something that runs once, deterministically, under a
 * strategy. The explorer only needs the outcome and, for the state cache and the
 * distinct-state counts, a way to look at the state mid-run; it never needs to know it is
 * running the tier.
 *
 * Invariant: the same strategy path gives the same run (the runtime is deterministic),
 * which is what lets a stateless search reproduce a state by replaying a prefix.
 */
import type { Gen, Op } from '../../src/ops.js';
import type { TierState } from '../../src/tier/state.js';
import type { Tier } from '../../src/tier/tier.js';
import { buildRun, runScenario } from '../run.js';
import type { Strategy } from '../rt/strategy.js';
import type { Runtime } from '../rt/runtime.js';
import type { Violation } from '../../src/check/violation.js';
import type { Scenario } from '../scenario/scenario.js';
import type { SimulatedWorld } from '../sim_engine/sim_world.js';
import { addThreads, type ThreadCounters } from './state/state_digest.js';
import { addValue, Hasher, valueDigest } from './state/digest_hash.js';
import type { Checker } from '../../src/check/checker.js';
import { CoverageChecker, type CoverageMark } from '../../src/check/checkers/coverage.js';
import { TableReader, TableWatch } from '../../src/check/table_watch.js';
import { trackReads } from './state/read_tracker.js';
import { compiledThreads, type ThreadCompilation } from './state/compile_threads.js';
import { tierDigest } from './state/tier_digest.js';
import { RecordNames, WorldOwned } from './state/world_names.js';
import { addLedgerRecords, addWorld } from './state/world_digest.js';
import { addCanonical, canonicalNames } from './state/canonical_value.js';
import type { SimRamRef } from '../ram/ram.js';

export interface SubjectRun {
  readonly violation: Violation | null;
  readonly steps: number;
  /** coverage marks the run reached (for the property report) */
  readonly coverage?: ReadonlySet<CoverageMark>;
}

/** What a thread observes, told to the strategy (thread_position.ts). */
export interface Observer {
  /** the world answered thread tid's op; `digest` is the result's */
  result(tid: number, digest: number): void;
  /** the running thread read shared state (read_tracker.ts) */
  read(where: number, value: number): void;
  /** the spawn being executed did not start its thread (a fault plan) */
  spawnFailed(): void;
}

/** The state of the run in progress, for the strategy; valid only during that run. */
export interface StateAccess {
  /** digest of the whole state, the threads as the strategy tracks them */
  digest(threads: ThreadCounters): number;
  /** set by the strategy to follow what threads observe */
  observer: Observer | null;
  /** where a snapshot of the run's whole state starts (present when the run is resumable) */
  roots?: () => readonly object[];
}

/** A run whose saved states can be written back and run on from (restore/). */
export interface ResumableRun {
  /** runs from the start, once */
  start(): SubjectRun;
  /** runs on from the state the run is in now (a saved state just written back) */
  resume(): SubjectRun;
}

export interface Subject {
  /** checkers run (footprints of unlock and wait then read device bytes) */
  readonly checks: boolean;
  /** spurious wakeups a run may inject (the scenario's budget); 0 when absent */
  readonly spuriousWakeups?: number;
  /** runs once; `attach` receives, before the first step, access to the run's state */
  run(strategy: Strategy, attach?: (access: StateAccess) => void): SubjectRun;
  /**
   * Optional: a run that can go on from a state saved during it (its threads' state is
   * all in fields: compile_threads.ts, 'resumable'). `attach` receives `roots`.
   */
  open?(strategy: Strategy, attach: (access: StateAccess) => void): ResumableRun;
}

/** A hand-written main thread instead of the engine's (tests build faulty ones). */
export type MainThread = (tier: Tier, world: SimulatedWorld) => Gen<void>;

/**
 * The tier under a strategy. With `attach` (a state-tracking search), the engine's
 * threads run instrumented (compile_threads.ts) so the digest sees their frames; a
 * hand-written main cannot be, so its run is digested by thread histories, with reads of
 * the tier's state tracked (read_tracker.ts). Both are sound; frames merge more.
 */
export function scenarioSubject(
  scenario: Scenario,
  checks = true,
  main?: MainThread,
  /** `main` is thread code compiled resumable (compiledModule(file, 'resumable')): it
   *  gets the resumable tier, and runs can go on from saved states */
  mainIsResumable = false,
): Subject {
  // a hand-written main is otherwise a native generator: its position cannot be saved
  const resumable = main === undefined || mainIsResumable;
  return {
    checks,
    spuriousWakeups: scenario.spuriousWakeups,
    ...(resumable ? { open: (strategy, attach) => openScenario(scenario, checks, strategy, attach, main) } : {}),
    run(strategy, attach) {
      if (attach === undefined) {
        const r = runScenario(scenario, {
          strategy,
          checks,
          guardReads: false,
          ...(main !== undefined ? { main } : {}),
        });
        return { violation: r.violation, steps: r.steps, coverage: r.coverage };
      }
      const view = new RunView(main === undefined);
      attach(view.access);
      const r = runScenario(scenario, {
        strategy,
        checks,
        guardReads: false,
        onCheckers: (checkers) => view.watchCheckers(checkers),
        main: watchedMain(scenario, view, 'frames', main),
      });
      return { violation: r.violation, steps: r.steps, coverage: r.coverage };
    },
  };
}

/**
 * The run's main thread, wrapped to show the view the tier and world the run uses: the
 * engine's threads compiled `mode`, or a hand-written `main` (given the tier compiled
 * resumable when `mode` is, since its own code then is too; the sources' tier otherwise).
 */
function watchedMain(scenario: Scenario, view: RunView, mode: ThreadCompilation, main?: MainThread): MainThread {
  return (tier, w) => {
    view.watch(tier, w);
    if (main !== undefined && mode !== 'resumable') return main(tier, w);
    const threads = compiledThreads(mode);
    const compiledTier = threads.tierOver(tier.st);
    if (main !== undefined) return main(compiledTier, w);
    return threads.engineMain(compiledTier, buildRun(scenario, w).plan);
  };
}

/** The engine's threads compiled resumable, under a strategy, kept to be resumed. */
function openScenario(
  scenario: Scenario,
  checks: boolean,
  strategy: Strategy,
  attach: (access: StateAccess) => void,
  main: MainThread | undefined,
): ResumableRun {
  const view = new RunView(true);
  let rt: Runtime | null = null;
  let coverage: CoverageChecker | undefined;
  view.access.roots = () => (rt === null ? [] : [rt]);
  attach(view.access);
  return {
    start() {
      const r = runScenario(scenario, {
        strategy,
        checks,
        guardReads: false,
        onRuntime: (x) => {
          rt = x;
        },
        onCheckers: (checkers) => {
          view.watchCheckers(checkers);
          coverage = checkers.find((c) => c instanceof CoverageChecker);
        },
        main: watchedMain(scenario, view, 'resumable', main),
      });
      return { violation: r.violation, steps: r.steps, coverage: r.coverage };
    },
    resume() {
      if (rt === null) throw new Error('internal error: a run resumed before it started');
      view.forget();
      const r = rt.runOn();
      // a copy: the checker's set is written back with the next saved state
      return {
        violation: r.violation,
        steps: r.steps,
        ...(coverage !== undefined ? { coverage: new Set(coverage.reached) } : {}),
      };
    },
  };
}

/**
 * The strategy's view of one tier run. Instrumented threads show their frames; otherwise
 * every result the world hands out is reported (and remembered as world-owned) and
 * threads' reads of the tier's state are tracked. The world's digest is cached until an
 * op runs.
 */
class RunView {
  private st: TierState | null = null;
  private world: SimulatedWorld | null = null;
  private worldDigest: number | null = null;
  private readonly worldOwned = new WeakSet<object>();
  /** instrumented runs: what the world handed out, named in digests (world_names.ts) */
  private readonly owned = new WorldOwned();
  private names: RecordNames | null = null;
  /** checkers whose memory is fields of an object (the refinement's reference state) */
  private stateful: readonly Checker[] = [];
  readonly access: StateAccess;

  constructor(private readonly instrumented: boolean) {
    this.access = { digest: (threads) => this.digest(threads), observer: null };
  }

  /**
   * Checkers that keep memory in fields are digested with the state (coverage marks
   * excepted: they never decide a verdict). Checkers built as closures keep what
   * state_digest.ts argues is a function of the state.
   */
  watchCheckers(checkers: readonly Checker[]): void {
    this.stateful = checkers.filter(
      (c) => !(c instanceof CoverageChecker) && Object.getPrototypeOf(c) !== Object.prototype,
    );
  }

  /** the state was written back: what was cached of it may be stale */
  forget(): void {
    this.worldDigest = null;
  }

  watch(tier: Tier, world: SimulatedWorld): void {
    this.st = tier.st;
    this.world = world;
    this.names = canonicalNames(
      new RecordNames(this.owned, (ref) => {
        const r = ref as SimRamRef;
        return world.ram.checkRead(r, r.layer, r.eid) === null;
      }),
    );
    const fails = world.spawnFails.bind(world);
    world.spawnFails = (name: string): boolean => {
      const failed = fails(name);
      if (failed) this.access.observer?.spawnFailed();
      return failed;
    };
    if (!this.instrumented) {
      const sink = {
        read: (where: number, value: number) => this.access.observer?.read(where, value),
        wrote: () => undefined,
      };
      // the tier's methods and threads reach the state as tier.st; the checkers keep the real one
      (tier as { st: TierState }).st = trackReads(tier.st, sink, this.worldOwned);
    }
    const exec = world.exec.bind(world);
    world.exec = this.instrumented
      ? (op: Op): unknown => {
          // results land in the thread's locals, which its frames show, by name
          this.worldDigest = null;
          const result = exec(op);
          this.owned.markResult(op.k, result);
          return result;
        }
      : (op: Op, tid?: number): unknown => {
          const result = exec(op);
          this.worldDigest = null;
          if (result !== null && typeof result === 'object') ownAll(result, this.worldOwned);
          if (tid !== undefined) this.access.observer?.result(tid, valueDigest(result));
          return result;
        };
  }

  private digest(threads: ThreadCounters): number {
    const st = this.st;
    const world = this.world;
    if (st === null || world === null) return 0;
    const running = threads.positions.current;
    // digesting reads the state: that is nobody's observation
    threads.positions.current = -1;
    const d = this.instrumented ? this.canonicalDigest(st, world, threads) : this.historyDigest(st, world, threads);
    threads.positions.current = running;
    return d;
  }

  /**
   * Instrumented threads: the canonical state (world_names.ts, world_digest.ts): the
   * world's records by name, in the order the walk meets them (tier, world, checkers,
   * threads), the ledger's live records last.
   */
  private canonicalDigest(st: TierState, world: SimulatedWorld, threads: ThreadCounters): number {
    const names = this.names;
    if (names === null) throw new Error('internal error: a digest before the run showed its world');
    names.reset();
    const tier = tierDigest(st, names);
    const h = new Hasher().num(tier.digest);
    addWorld(h, world, names);
    for (const c of this.stateful) addFields(h, c, CHECKER_SKIP, names);
    addThreads(h, threads, tier.places, names);
    addLedgerRecords(h, world, names);
    return h.digest();
  }

  /** Hand-written threads: positions are histories of what they observed, ids included. */
  private historyDigest(st: TierState, world: SimulatedWorld, threads: ThreadCounters): number {
    this.worldDigest ??= valueDigest(world);
    const h = new Hasher().num(valueDigest(st)).num(this.worldDigest);
    for (const c of this.stateful) addFields(h, c, CHECKER_SKIP, null);
    addThreads(h, threads, null);
    return h.digest();
  }
}

/** a checker's views of the tier and the world (digested on their own) */
const CHECKER_SKIP = new Set(['st', 'world', 'io', 'ctx']);

function addFields(h: Hasher, o: object, skip: ReadonlySet<string>, names: RecordNames | null): void {
  const rec = o as Record<string, unknown>;
  for (const k in rec) {
    const x = rec[k];
    if (skip.has(k) || wholeTableView(x)) continue;
    if (names !== null) addCanonical(h, x, names);
    else addValue(h, x);
  }
}

/**
 * A checker's watch of a slot table scanned whole at every look, or its reader: it holds
 * the table's rows (digested with the state they belong to) and nothing that changes what
 * the checker does next, so it is left out (it cost a fifth of a digest).
 */
function wholeTableView(x: unknown): boolean {
  return (x instanceof TableWatch && x.scansWhole) || (x instanceof TableReader && x.reportsAll);
}

/** a result and the objects inside it belong to the world (handles: the tier never looks in) */
function ownAll(v: object, owned: WeakSet<object>, depth = 0): void {
  if (owned.has(v) || depth > 3) return;
  owned.add(v);
  for (const x of Array.isArray(v) ? v : Object.values(v))
    if (x !== null && typeof x === 'object') ownAll(x as object, owned, depth + 1);
}
