/**
 * A bare runtime for semantics tests: threads that only use sync ops, a world that
 * answers nothing else, no checkers.
 */
import type { Gen, Op } from '../../src/ops.js';
import { Runtime } from '../../model/rt/runtime.js';
import { DEFAULT_LIMITS, type RunLimits } from '../../src/check/limits.js';
import type { Strategy } from '../../model/rt/strategy.js';

const nullWorld = {
  exec(op: Op): unknown {
    throw new Error(`no world for ${op.k}`);
  },
  duration(): number {
    return 0;
  },
  describe(op: Op): string {
    return op.k;
  },
};

export function runBare(main: () => Gen<void>, strategy: Strategy, limits: Partial<RunLimits> = {}) {
  const rt = new Runtime(nullWorld, strategy, [], { ...DEFAULT_LIMITS, spuriousWakeups: 0, ...limits }, true);
  const outcome = rt.run(main);
  return { rt, outcome };
}
