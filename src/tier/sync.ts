/**
 * The sync facade the tier uses: constant op objects for the one mutex and the two
 * condition variables, so yielding them allocates nothing on the hot path.
 *
 * Mesa semantics (the world guarantees nothing more): a woken waiter re-acquires `mx`
 * and must re-check its predicate; `signal` wakes one waiter, `broadcast` all; spurious
 * wakeups happen. Every wait in the tier is therefore inside a `while`.
 */
import type { Op } from '../ops.js';

export const LOCK: Op = Object.freeze({ k: 'lock' });
export const UNLOCK: Op = Object.freeze({ k: 'unlock' });
/** uploader waits here for work */
export const WAIT_CV: Op = Object.freeze({ k: 'wait', cv: 'cv' });
/** everyone else waits here: ring space, an upload finished, a group taken, shutdown */
export const WAIT_TAKE: Op = Object.freeze({ k: 'wait', cv: 'cv_take' });
export const SIGNAL_CV: Op = Object.freeze({ k: 'signal', cv: 'cv' });
export const BROADCAST_TAKE: Op = Object.freeze({ k: 'broadcast', cv: 'cv_take' });
