/**
 * How the benches decide that the JIT has warmed up before they measure: the thresholds
 * the warm-ups use (speed.ts `warmUp`, spin_bench.ts `warmUpSearch`) and the reports
 * print, in a file of their own so that a report says what the bench did without loading
 * the simulator.
 */

/** The speed warm-up's window, in seconds. */
export const WINDOW_SECONDS = 0.25;
/** How close two windows' steps per CPU second must be to call the rate settled. */
export const SETTLED_WITHIN = 0.05;
/** CPU seconds a wall second at most, once V8's compiler threads are done. */
export const SETTLED_CPU_PER_WALL = 1.15;

/** How close two warm-up searches' CPU per state must be to call it settled. */
export const SEARCH_SETTLED_WITHIN = 0.1;
/** The most warm-up searches before the growth table's rows. */
export const MAX_WARM_UP_SEARCHES = 8;
