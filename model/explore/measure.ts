/**
 * The quiet schedule (option 0 everywhere: no preemption), counting the threads that
 * moved: PCT's bound takes n (threads) and k (steps) from this run of a scenario.
 *
 * k is a measurement, not a proof: another schedule can take more steps (more waits,
 * more wakeups); pct_campaign.ts handles runs longer than the measured k.
 */
import { ChoicesStrategy } from '../rt/strategy.js';
import type { SimThread } from '../rt/thread.js';

export class CountingQuietStrategy extends ChoicesStrategy {
  /** 1 + the largest tid that moved */
  threads = 0;
  constructor() {
    super([]);
  }
  onStep(th: SimThread): void {
    if (th.tid + 1 > this.threads) this.threads = th.tid + 1;
  }
}
