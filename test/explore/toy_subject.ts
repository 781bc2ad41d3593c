/**
 * Tiny hand-written programs for exhaustive-search tests: a bare runtime, a world that
 * keeps one shared counter, and threads whose steps are engine ops with known footprints
 * (model/explore/footprint.ts): `ramOf` reads the counter (RAM read), `loadRam` sets it to
 * the op's eid (RAM write), `combine` touches only the outputs (OUT write), `route`
 * touches nothing. So tests can count interleavings by hand and build a lost update.
 */
import type { Gen, Op, Thread } from '../../src/ops.js';
import { DEFAULT_LIMITS } from '../../src/check/limits.js';
import { Runtime } from '../../model/rt/runtime.js';
import type { Checker } from '../../src/check/checker.js';
import type { Strategy } from '../../model/rt/strategy.js';
import { Violation } from '../../src/check/violation.js';
import type { StateAccess, Subject } from '../../model/explore/subject.js';
import { addThreads } from '../../model/explore/state/state_digest.js';
import { Hasher, valueDigest } from '../../model/explore/state/digest_hash.js';
import { BROADCAST_TAKE, LOCK, UNLOCK, WAIT_TAKE } from '../../src/tier/sync.js';
import { GLOCK, GUNLOCK } from '../../src/tier/gate.js';

export class CounterWorld {
  counter = 0;
  exec(op: Op, _tid?: number): unknown {
    if (op.k === 'ramOf') return this.counter;
    if (op.k === 'loadRam') this.counter = op.eid;
    return undefined;
  }
  duration(): number {
    return 1;
  }
  describe(op: Op): string {
    return op.k;
  }
}

export const readCounter: Op = { k: 'ramOf', layer: 0, eid: 0 };
export const writeCounter = (v: number): Op => ({ k: 'loadRam', layer: 0, eid: v });
export const output: Op = { k: 'combine', token: 0, layer: 0, parts: [] };
export const nothing: Op = { k: 'route', token: 0, layer: 0 };

/** main spawns every body, in order, and ends with its last spawn. */
export function spawner(bodies: readonly Thread[]): Thread {
  return function* main(): Gen<void> {
    for (const [i, body] of bodies.entries()) yield { k: 'spawn', name: `t${i}`, body };
  };
}

/** A thread that yields the given ops, one step each. */
export function steps(ops: readonly Op[]): Thread {
  return function* (): Gen<void> {
    for (const op of ops) yield op;
  };
}

/** A thread that increments the counter without holding a lock: read, then write. */
export function racyIncrement(): Thread {
  return function* (): Gen<void> {
    const v = (yield readCounter) as number;
    yield writeCounter(v + 1);
  };
}

/** The increment under mx: read and write in one critical section. */
export function lockedIncrement(): Thread {
  return function* (): Gen<void> {
    yield LOCK;
    const v = (yield readCounter) as number;
    yield writeCounter(v + 1);
    yield UNLOCK;
  };
}

/** The increment under the gate's gmx, a mutex of its own. */
export function gateIncrement(): Thread {
  return function* (): Gen<void> {
    yield GLOCK;
    const v = (yield readCounter) as number;
    yield writeCounter(v + 1);
    yield GUNLOCK;
  };
}

/** Waits under mx on cv_take until the counter is at least `v` (Mesa: re-checks after each wakeup). */
export function waitFor(v: number): Thread {
  return function* (): Gen<void> {
    yield LOCK;
    while (((yield readCounter) as number) < v) yield WAIT_TAKE;
    yield UNLOCK;
  };
}

/** Sets the counter under mx and wakes cv_take: one waiter (`signal`, the scheduler picks) or all. */
export function setAndWake(v: number, how: 'signal' | 'broadcast'): Thread {
  return function* (): Gen<void> {
    yield LOCK;
    yield writeCounter(v);
    yield how === 'signal' ? { k: 'signal', cv: 'cv_take' } : BROADCAST_TAKE;
    yield UNLOCK;
  };
}

/**
 * How a toy run's state is digested for the state cache: `history` is the real thing
 * (thread_position.ts: each thread's ops and the results it got back); `op-count` names a
 * thread by how many ops it executed, the unsound program counter the digest used
 * before (kept here to show that the cache tests catch such a merge).
 */
export type ToyDigest = 'history' | 'op-count';

export interface ToyOptions {
  readonly expectCounter?: number;
  /** a final counter value that is a violation */
  readonly forbidCounter?: number;
  readonly spuriousWakeups?: number;
  readonly digest?: ToyDigest;
}

export function toySubject(main: Thread, expectCounter?: number, spuriousWakeups = 0): Subject {
  return toy(main, { expectCounter, spuriousWakeups });
}

export function toy(main: Thread, o: ToyOptions): Subject {
  const spuriousWakeups = o.spuriousWakeups ?? 0;
  return {
    checks: false,
    spuriousWakeups,
    run(strategy: Strategy, attach) {
      const world = new CounterWorld();
      const checkers: Checker[] = [
        {
          atEnd() {
            if (o.expectCounter !== undefined && world.counter !== o.expectCounter) {
              throw new Violation('COMP-EXACT-ONCE', `counter ${world.counter}, want ${o.expectCounter}`);
            }
            if (o.forbidCounter !== undefined && world.counter === o.forbidCounter) {
              throw new Violation('COMP-EXACT-ONCE', `counter ${world.counter}: an update was lost`);
            }
          },
        },
      ];
      if (attach !== undefined) {
        const opsOf: number[] = [];
        const access: StateAccess = {
          observer: null,
          digest(threads) {
            const h = new Hasher().add(world.counter);
            if (o.digest === 'op-count') {
              for (let t = 0; t < threads.threads.length; t++)
                h.add(t)
                  .add(threads.threads[t]?.state ?? -1)
                  .add(opsOf[t] ?? 0);
              return h.add(threads.mxOwner).digest();
            }
            addThreads(h, threads, null);
            return h.digest();
          },
        };
        const exec = world.exec.bind(world);
        world.exec = (op: Op, tid?: number): unknown => {
          const result = exec(op);
          if (tid !== undefined) {
            opsOf[tid] = (opsOf[tid] ?? 0) + 1;
            access.observer?.result(tid, valueDigest(result));
          }
          return result;
        };
        attach(access);
      }
      const rt = new Runtime(world, strategy, checkers, { ...DEFAULT_LIMITS, spuriousWakeups });
      const r = rt.run(main);
      return { violation: r.violation, steps: r.steps };
    },
  };
}
