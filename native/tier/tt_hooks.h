/*
 * Scheduling points of the C tier: a macro that defaults to nothing.
 *
 * Role: a deterministic scheduler, compiled in through a header passed with `-include`,
 * defines TT_YIELD before this file is read and gets a scheduling point at each place
 * the tier marks. The tier marks every backend entry (a backend call may block outside
 * the tier's lock, and the interleavings that matter happen there) and would mark any
 * atomic read or write outside its locks (it has none: every shared field is read and
 * written under `mx`, the gate's `gmx` or the trunk's `tmx`).
 * Invariant: the tier's behaviour does not depend on what TT_YIELD does; a plain build
 * compiles it away.
 */
#ifndef TT_HOOKS_H
#define TT_HOOKS_H

#ifndef TT_YIELD
/* site: a string literal naming the point ("be.upload", ...), for the scheduler's trace */
#define TT_YIELD(site) ((void)0)
#endif

#endif
