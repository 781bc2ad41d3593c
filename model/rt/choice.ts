/**
 * A choice point: the strategy chooses one of several options (which thread moves, which
 * waiter a signal wakes). The context it may look at is filled in place, so a choice
 * allocates nothing; every choice is counted.
 */
import type { RunState } from './run_state.js';
import type { DecisionKind } from './strategy.js';
import type { SimThread } from './thread.js';

/** Asks the strategy to choose among `options` (n > 1); the context is filled in place. */
export function decide(
  run: RunState,
  kind: DecisionKind,
  options: SimThread[],
  runnable: number,
  current: number,
  currentCanMove: boolean,
): number {
  const ctx = run.ctx;
  ctx.options = options;
  ctx.runnable = runnable;
  ctx.current = current;
  ctx.currentCanMove = currentCanMove;
  ctx.mxOwner = run.mxOwner;
  ctx.gmxOwner = run.gmxOwner;
  ctx.step = run.steps;
  run.decisions++;
  return run.strategy.pick(options.length, kind, ctx);
}
