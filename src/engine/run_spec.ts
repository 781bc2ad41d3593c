/**
 * What one run asks of the tier and of the engine driver, in the vocabulary both worlds
 * share: the simulator's Scenario extends it (with the model's shape, the routes, the
 * fault plan and the schedule's budgets), the oracle's run spec is a subset of it.
 */
import type { CarelessHabit } from './careless.js';
import type { ShutdownPoint } from './driver.js';

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
  /** careless habits of the engine (absent: none) */
  readonly careless?: readonly CarelessHabit[];
}
