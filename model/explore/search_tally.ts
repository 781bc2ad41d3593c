/**
 * The bookkeeping every exhaustive search shares (search.ts, dpor/search.ts): counts of
 * schedules, stopped runs and steps, the first violation of each property with the
 * choices that replay it, the limits (schedules, seconds, first violation) and progress
 * reports, and the result.
 *
 * Invariant: `complete` is true only when no limit stopped the search.
 */
import type { FoundViolation, SearchOptions, SearchResult, SearchStats } from './search_types.js';
import type { SubjectRun } from './subject.js';

/** how often a search reports its progress, at most */
export const PROGRESS_MS = 2000;

export class SearchTally {
  readonly stats: SearchStats = {
    schedules: 0,
    blocked: 0,
    cached: 0,
    steps: 0,
    stepsExecuted: 0,
    nodes: 0,
    states: null,
    seconds: 0,
    maxChoices: 0,
  };
  readonly violations: FoundViolation[] = [];
  violatingSchedules = 0;
  stoppedBy: SearchResult['stoppedBy'] = null;
  private readonly started = performance.now();
  private readonly deadline: number;
  private lastProgress = performance.now();

  constructor(
    private readonly opts: SearchOptions,
    private readonly states: Set<number> | null,
  ) {
    this.deadline = opts.maxSeconds !== undefined ? this.started + opts.maxSeconds * 1000 : Infinity;
  }

  /** a run that stopped early: `cached` at a known state, else asleep or over the bound */
  stopped(why: 'cached' | 'blocked'): void {
    if (why === 'cached') this.stats.cached++;
    else this.stats.blocked++;
  }

  /** a schedule that ran to its end or to a violation; `path` replays it */
  schedule(outcome: SubjectRun, path: readonly number[]): void {
    const s = this.stats;
    s.schedules++;
    s.steps += outcome.steps;
    this.opts.onSchedule?.(outcome);
    const v = outcome.violation;
    if (v === null) return;
    this.violatingSchedules++;
    if (!this.violations.some((f) => f.property === v.property)) {
      this.violations.push({
        property: v.property,
        detail: v.detail,
        choices: [...path],
        steps: outcome.steps,
        atSchedule: s.schedules,
        seconds: (performance.now() - this.started) / 1000,
      });
    }
    if (this.opts.stopOnViolation !== false) this.stoppedBy = 'violation';
  }

  /** after run number `run`: whether a limit stops the search (and progress, now and then) */
  limitReached(run: number): boolean {
    if (this.stoppedBy === null && this.stats.schedules >= (this.opts.maxSchedules ?? Infinity))
      this.stoppedBy = 'schedules';
    if (this.stoppedBy === null && (run & 15) === 15 && performance.now() > this.deadline) this.stoppedBy = 'seconds';
    if (this.stoppedBy !== null) return true;
    // progress for people, every PROGRESS_MS or so (the clock is read every 16 runs): it
    // says how far the search got, and never changes what it does
    if (
      (run & 15) === 15 &&
      this.opts.onProgress !== undefined &&
      performance.now() - this.lastProgress >= PROGRESS_MS
    ) {
      this.lastProgress = performance.now();
      this.opts.onProgress(this.snapshot());
    }
    return false;
  }

  private snapshot(): SearchStats {
    this.stats.seconds = (performance.now() - this.started) / 1000;
    this.stats.states = this.states?.size ?? null;
    return this.stats;
  }

  result(reduce: boolean, stateCache: boolean): SearchResult {
    return {
      ...this.snapshot(),
      preemptions: this.opts.preemptions,
      reduce,
      stateCache,
      complete: this.stoppedBy === null,
      stoppedBy: this.stoppedBy,
      violations: this.violations,
      violatingSchedules: this.violatingSchedules,
      ...(this.opts.keepStates === true && this.states !== null ? { stateDigests: [...this.states] } : {}),
    };
  }
}
