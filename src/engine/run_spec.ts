/**
 * What one run asks of the tier and of the engine driver, in the vocabulary both worlds
 * share: the simulator's Scenario extends it (with the model's shape, the routes, the
 * fault plan and the schedule's budgets), the oracle's run spec is a subset of it.
 */
import { ENGINE_DEFAULTS } from '../tier/config.js';
import type { CarelessHabit } from './careless.js';
import type { PreferPlan, ReplanPlan, ShutdownPoint } from './driver.js';

export type Warmstart = 'none' | 'plan' | 'block';

export interface RunSpec {
  /** per device, in experts (a whole number of exp_bytes), or 'auto' (free minus reserve) */
  readonly budgetExperts: readonly (number | 'auto')[];
  /** ring capacity (QCAP; 48 in the engine, small in scenarios so it fills) */
  readonly ringCapacity: number;
  /** the engine wants swaps; the backend decides (`reclaims`) */
  readonly wantSwaps: boolean;
  readonly streaming: boolean;
  readonly swapPeriod: number;
  readonly decayPeriod: number;
  /** a dense trunk matrix of this many bytes offered per device, placed before the
   *  experts (0: none) */
  readonly denseBytes: number;
  readonly warmstart: Warmstart;
  readonly loaders: number;
  /** fill_wait again after this token (-1: never) */
  readonly refillAfterToken: number;
  /** where the engine shuts the tier down early (null: only at the end) */
  readonly shutdownAt: ShutdownPoint | null;
  readonly denseWhileGroupOpen: boolean;
  /** call init a second time right after the first (it must change nothing) */
  readonly initTwice: boolean;
  /** 2: after the final shutdown, init again and run the warmstart and the decode again
   *  (the second run reads the heat file the first one saved) */
  readonly runs: 1 | 2;
  /** the LFRU tick the tier starts from (a run may start just before a decay period) */
  readonly startTick: number;
  /** synchronous uploads: issue first waits until nothing is in flight */
  readonly syncUploads: boolean;
  /** entries of the eviction ring */
  readonly evictCapacity: number;
  /** evicted_take after every token, at most this many (0: never) */
  readonly evictedPoll: number;
  /** re-plan after the prompt, then stats_mark (null: no re-plan) */
  readonly replan: ReplanPlan | null;
  /** prefer-resident routing (null: the router's route as it is) */
  readonly prefer: PreferPlan | null;
  /** a stats and serving thread: this many rounds of stats, is_resident and note during
   *  decode and teardown (0: none) */
  readonly statsThread: number;
  /** a thread of its own calls init while the engine shuts down at the end */
  readonly initRacer: boolean;
  /** a second thread calls shutdown at the end, concurrently with the engine's */
  readonly secondShutdown: boolean;
  /** the engine never starts the expert tier: the trunk alone, placed with trunk_place */
  readonly tierOff: boolean;
  /** a thread of its own calls trunk_place as the engine starts the tier (absent: none) */
  readonly trunkRacer?: boolean;
  /** careless habits of the engine (absent: none) */
  readonly careless?: readonly CarelessHabit[];
}

/** The later features of the protocol, all off: the seed threads' engine (files written
 *  before these fields existed read as this). */
export const LATER_FEATURES_OFF: Pick<
  RunSpec,
  | 'syncUploads'
  | 'evictCapacity'
  | 'evictedPoll'
  | 'replan'
  | 'prefer'
  | 'statsThread'
  | 'initRacer'
  | 'secondShutdown'
  | 'tierOff'
> = {
  syncUploads: false,
  evictCapacity: ENGINE_DEFAULTS.evictCapacity,
  evictedPoll: 0,
  replan: null,
  prefer: null,
  statsThread: 0,
  initRacer: false,
  secondShutdown: false,
  tierOff: false,
};
