/**
 * A 53-bit digest of a simulated run's state: what the state cache compares and what
 * the distinct-state counts count (the numbers model checkers such as TLC and Spin
 * report).
 *
 * What it covers, and why that is the whole state:
 *  - the tier's state and the simulated world, read reflectively: every own field of
 *    every object reachable from them (arrays in order, maps and sets by key or
 *    order-free), except functions and the constant inputs (`scenario`, `cfg`,
 *    `faultPlan`). A field someone adds later is covered without touching this file.
 *    With instrumented threads the state is canonical: the world's records (tensors,
 *    staging copies, host arrays, RAM references) are folded by name, not by id, slot or
 *    allocation order (world_names.ts), and what of the world nothing observes is left
 *    out (world_digest.ts says what and why);
 *  - the runtime: each thread's scheduling state, whether it is re-taking mx, the cv it
 *    waits on and its rank in that queue, the mx owner and the spurious wakeups spent;
 *  - each thread's position (thread_position.ts): a hash of its history standing in for
 *    its program counter and locals;
 *  - the checkers' own memory is a function of the above: the accounting checker keeps
 *    the largest budget seen at a release (the budget init set: budgets only shrink after
 *    init, and a release always comes first), the postcondition checker whether `issue`
 *    was called (the decode thread's history), the coverage checker only marks.
 * Left out on purpose: virtual time and step counts. Nothing the tier or a checker decides
 * reads time; step counts only feed the LIVE-STEPS and LIVE-SHUTDOWN limits (100 000
 * steps and more), which an exhaustive search never comes near.
 *
 * Invariant: equal states give equal digests (same fields, same traversal); unequal
 * states collide only by hash accident (2^-53 per pair).
 */
import { ThreadState, type SimThread } from '../../rt/thread.js';
import type { ThreadPositions } from './thread_position.js';
import { addFrames } from './frames.js';
import type { Hasher } from './digest_hash.js';
import type { RecordNames } from './world_names.js';

/** What the digest knows about the threads (kept by the exploring strategy). */
export interface ThreadCounters {
  /** every thread the strategy has seen, by tid */
  readonly threads: readonly (SimThread | undefined)[];
  readonly positions: ThreadPositions;
  /** a waiting thread's place in its cv queue (0: woken first) */
  queueRank(tid: number): number;
  /** tids holding mx and gmx (-1: free) and spurious wakeups injected so far */
  readonly mxOwner: number;
  readonly gmxOwner: number;
  readonly spuriousUsed: number;
}

/**
 * The threads' part of the digest. With `places` (the tier's objects by path, frames.ts)
 * a thread is its instrumented frames; without, its history hash (thread_position.ts).
 */
export function addThreads(
  h: Hasher,
  th: ThreadCounters,
  places: ReadonlyMap<object, number> | null,
  names: RecordNames | null = null,
): void {
  const view = places === null ? null : { places, seen: new Map<object, number>(), names };
  for (let tid = 0; tid < th.threads.length; tid++) {
    const t = th.threads[tid];
    if (t === undefined || !th.positions.exists(tid)) continue;
    h.add(tid).add(t.state).bool(t.reacquire);
    if (t.reacquire) h.add(t.relock === 'mx' ? 1 : 2);
    if (view !== null) addFrames(h, th.positions.frames[tid] ?? [], view);
    else th.positions.addTo(h, tid);
    if (t.state === ThreadState.CvWait)
      h.add(t.waitingOn === 'cv' ? 1 : t.waitingOn === 'gcv' ? 3 : 2).add(th.queueRank(tid));
  }
  h.add(th.mxOwner).add(th.gmxOwner).add(th.spuriousUsed);
}
