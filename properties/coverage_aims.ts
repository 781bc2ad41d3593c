/**
 * The coverage marks of the later protocol (PROTOCOL.md's last section) and the suite
 * aimed at each: every mark must stay at AIM_SHARE or more of that suite's runs, or the
 * suite's green result says little about the situation (`test/properties/coverage_aims.test.ts`
 * holds each, over a fixed number of seeded runs). A mark may also be reached by other
 * suites; only its aimed suite is held to the share.
 */
import type { Suite } from './arbitraries.js';
import type { CoverageMark } from '../src/check/checkers/coverage.js';

/** the least share of its suite's runs a mark must reach */
export const AIM_SHARE = 0.05;

export const COVERAGE_AIMS: Readonly<Partial<Record<Suite, readonly CoverageMark[]>>> = {
  gate: [
    // the lifecycle gate: an exclusive section waiting for callers inside, a take refused
    // at the door with its group open, the trunk at DEAD and its shutdown
    'exclusive-waited-for-callers',
    'take-refused-with-group-open',
    'trunk-at-dead',
    'dead-shutdown-freed-trunk',
    'dead-shutdown-waited-for-placement',
    // concurrent init and shutdown, a second shutdown
    'init-refused-busy',
    'init-won-after-teardown',
    'shutdown-lost-and-waited',
    // the stats reader, during decode and during the teardown
    'reader-beside-decode',
    'reader-refused-in-teardown',
    // the backend's tensor cache: a trunk shape placed again in a later generation
    'trunk-shape-placed-again',
  ],
  replan: [
    // re-plan: pairs started, left pending, started by a decode tick
    'replan-swap',
    'replan-pending',
    'replan-started-by-tick',
    // the eviction ring: reported, and full
    'evicted-reported',
    'evicted-dropped',
    // synchronous uploads, prefer-resident routing, stats after the prefill mark
    'sync-issue-waited',
    'prefer-chose-resident',
    'stats-after-mark',
  ],
  drain: [
    // a second re-plan meeting the first one's pending pairs; pairs left pending
    'replan-over-pending',
    'replan-pending',
  ],
  lifecycle: [
    // a second init while live, and generations after the first: computed on, and trunk
    // shapes placed again where the shape cache held one
    'second-init-while-active',
    'init-after-shutdown',
    'computed-in-later-generation',
    'trunk-shape-placed-again',
  ],
};
