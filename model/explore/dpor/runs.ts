/**
 * The runs of the one-thread DPOR search (dpor/search.ts): each from the start with a
 * strategy of its own, or, when the subject's threads are resumable and states are saved
 * (restore/), one run that is written back to the saved state nearest the frontier and
 * goes on from there, replaying only what lies between that state and the frontier.
 *
 * Invariant: a state saved at position q is written back only while the path's branches
 * at positions 0..q-1 are those it was saved on: the search backtracks up its path, and
 * the saved states above the frontier are dropped (restore/saved_states.ts).
 */
import { DporStrategy, RunStopped, type DporRunConfig } from './strategy.js';
import type { DporNode } from './node.js';
import type { ResumableRun, Subject, SubjectRun } from '../subject.js';

export type RunEnd = SubjectRun | 'sleep' | 'bound' | 'cached';

export interface RunDone {
  readonly strategy: DporStrategy;
  readonly outcome: RunEnd;
  /** events this run executed (a resumed run: from its saved state on) */
  readonly eventsRun: number;
  readonly expansions: number;
}

export class Runs {
  private strategy: DporStrategy | null = null;
  private open: ResumableRun | null = null;

  constructor(
    private readonly subject: Subject,
    private readonly stack: DporNode[],
    private readonly cfg: DporRunConfig,
  ) {}

  /** The next run, to the new branch at `frontier` (-1: the first run). */
  next(frontier: number): RunDone {
    const saves = this.cfg.saves;
    const from = saves !== null && this.open !== null ? saves.nearest(frontier) : null;
    if (from === null || this.strategy === null || this.open === null) return this.fromStart(frontier);
    from.snapshot.restore();
    const strategy = this.strategy;
    const open = this.open;
    strategy.continueAt(frontier);
    const events = strategy.eventsRun;
    const expansions = strategy.expansions;
    const outcome = ended(strategy, () => open.resume());
    return { strategy, outcome, eventsRun: strategy.eventsRun - events, expansions: strategy.expansions - expansions };
  }

  private fromStart(frontier: number): RunDone {
    const strategy = new DporStrategy(this.stack, frontier, this.cfg);
    const subject = this.subject;
    let outcome: RunEnd;
    if (this.cfg.saves !== null && subject.open !== undefined) {
      // the states saved so far belong to the run this one replaces
      this.cfg.saves.clear();
      const open = subject.open(strategy, (a) => strategy.attach(a));
      this.strategy = strategy;
      this.open = open;
      outcome = ended(strategy, () => open.start());
    } else {
      outcome = ended(strategy, () =>
        strategy.needsState ? subject.run(strategy, (a) => strategy.attach(a)) : subject.run(strategy),
      );
    }
    return { strategy, outcome, eventsRun: strategy.eventsRun, expansions: strategy.expansions };
  }
}

function ended(strategy: DporStrategy, run: () => SubjectRun): RunEnd {
  try {
    const r = run();
    strategy.finish();
    return r;
  } catch (e) {
    if (e instanceof RunStopped) return e.why;
    throw e;
  }
}
