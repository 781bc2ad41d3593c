/**
 * Going on from a saved state (model/explore/state/restore/): a run written back to a state
 * saved at a choice point goes on step for step as it went the first time, and as a run
 * replayed from the start goes; the DPOR search that restores instead of replaying
 * explores the same schedules, reaches the same states and finds the same violations,
 * with a few steps per state instead of tens (on a small configuration here; on the
 * committed ones nightly, restore.nightly.test.ts).
 */
import { resolve } from 'node:path';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { compiledModule, compiledThreads } from '../../model/explore/state/compile_threads.js';
import { dporSearch } from '../../model/explore/dpor/search.js';
import { Snapshot } from '../../model/explore/state/restore/snapshot.js';
import { type MainThread, type StateAccess, scenarioSubject } from '../../model/explore/subject.js';
import { buildRun, runScenario } from '../../model/run.js';
import { ChoicesStrategy, RandomStrategy, type Strategy } from '../../model/rt/strategy.js';
import type { SimThread } from '../../model/rt/thread.js';
import type { Scenario } from '../../model/scenario/scenario.js';
import { defaultScenario, mediumScenario, smallWarmstart } from '../../properties/committed_scenarios.js';
import { faultyWarmstart } from './faulty_fill_wait.js';
import { restoredLikeReplayed } from './restore_compare.js';

/** What the test keeps outside the run (a snapshot would write the strategy's fields back). */
interface Box {
  snapshot: Snapshot | null;
  logAt: number;
  readonly log: string[];
}

/** Fixed choices; every step logged; the state saved at the `saveAt`-th choice point. */
class SavingStrategy implements Strategy {
  readonly name = 'saving';
  readonly path: number[] = [];
  roots: (() => readonly object[]) | null = null;

  constructor(
    private readonly choices: readonly number[],
    private readonly saveAt: number,
    private readonly box: Box,
  ) {}

  pick(n: number): number {
    const c = (this.choices[this.path.length] ?? 0) % n;
    this.path.push(c);
    return c;
  }

  onStep(th: SimThread): void {
    this.box.log.push(`${th.tid} ${th.reacquire ? 'relock' : (th.pending?.k ?? 'start')}`);
  }

  atThreadChoice(): void {
    if (this.path.length !== this.saveAt || this.box.snapshot !== null || this.roots === null) return;
    this.box.snapshot = Snapshot.take(this.roots(), new Set<object>([this.box]));
    this.box.logAt = this.box.log.length;
  }
}

const scenarios: readonly [string, Scenario][] = [
  ['small warmstart', smallWarmstart()],
  ['medium', mediumScenario()],
  ['default', defaultScenario()],
];

describe('the thread code compiled again', () => {
  it('runs as the sources do, byte for byte, with frames recorded and as resumable generators', () => {
    for (const [label, scenario] of scenarios) {
      for (let seed = 0; seed < 10; seed++) {
        const traced = (main?: MainThread): string[] => {
          const r = runScenario(scenario, {
            strategy: new RandomStrategy(`compiled ${seed}`),
            traced: true,
            ...(main !== undefined ? { main } : {}),
          });
          return [...(r.trace?.lines() ?? []), r.violation?.message ?? 'ok'];
        };
        const sources = traced();
        for (const mode of ['frames', 'resumable'] as const) {
          const threads = compiledThreads(mode);
          const compiled = traced((tier, w) =>
            threads.engineMain(threads.tierOver(tier.st), buildRun(scenario, w).plan),
          );
          expect(compiled, `${label}, seed ${seed}, ${mode}`).toEqual(sources);
        }
      }
    }
  });
});

describe('a run written back to a saved state', () => {
  for (const [label, scenario] of scenarios) {
    it(`goes on as it went, and as a replay from the start goes: ${label}`, () => {
      const subject = scenarioSubject(scenario);
      const open = subject.open;
      if (open === undefined) throw new Error('the engine threads must be resumable');
      for (let seed = 0; seed < 6; seed++) {
        const rng = seedrandom(`restore ${seed}`);
        const choices = Array.from({ length: 400 }, () => Math.floor(rng() * 4));
        const box: Box = { snapshot: null, logAt: 0, log: [] };
        const strategy = new SavingStrategy(choices, 3 + seed * 4, box);
        const run = open.call(subject, strategy, (a: StateAccess) => {
          strategy.roots = a.roots ?? null;
        });
        const first = run.start();
        const firstLog = box.log.slice();
        expect(box.snapshot, `seed ${seed}: no state saved`).not.toBeNull();
        for (let again = 0; again < 2; again++) {
          box.snapshot?.restore();
          box.log.length = box.logAt;
          const resumed = run.resume();
          expect(box.log, `seed ${seed}, resumed ${again + 1}`).toEqual(firstLog);
          expect(resumed.steps).toBe(first.steps);
          expect(resumed.violation?.message).toBe(first.violation?.message);
        }
        const replayLog: string[] = [];
        const replayStrategy = new ChoicesStrategy(strategy.path);
        const replay = runScenario(scenario, {
          strategy: Object.assign(replayStrategy, {
            onStep: (th: SimThread) =>
              replayLog.push(`${th.tid} ${th.reacquire ? 'relock' : (th.pending?.k ?? 'start')}`),
          }),
        });
        expect(replayLog).toEqual(firstLog);
        expect(replay.violation?.message).toBe(first.violation?.message);
      }
    });
  }
});

describe('the DPOR search going on from saved states', () => {
  // three experts: the committed configurations' searches replayed from the start take a
  // minute and more each on two busy cores, and are restore.nightly.test.ts's
  const three = smallWarmstart({ experts: 3, ramCapacity: 3, budgetExperts: [3] });
  it('explores what the replaying search explores: small warmstart with three experts', () =>
    restoredLikeReplayed(three));

  it('finds the fill_wait race in hand-written thread code compiled resumable, as the replaying search does', () => {
    const tiny = smallWarmstart({ experts: 2, ramCapacity: 2, budgetExperts: [2], loaders: 1 });
    const file = resolve(import.meta.dirname, 'faulty_fill_wait.ts');
    const compiled = compiledModule(file, 'resumable').faultyWarmstart as typeof faultyWarmstart;
    const main = compiled(1) as MainThread;
    const stateless = { preemptions: Infinity, reduce: true, stopOnViolation: false };
    const restored = dporSearch(scenarioSubject(tiny, true, main, true), { ...stateless, restore: true });
    const replayed = dporSearch(scenarioSubject(tiny, true, faultyWarmstart(1)), stateless);
    expect(restored.restore?.saves ?? 0).toBeGreaterThan(0);
    expect(restored.schedules).toBe(replayed.schedules);
    expect(restored.violatingSchedules).toBe(replayed.violatingSchedules);
    expect(restored.violations.map((v) => [v.property, v.choices])).toEqual(
      replayed.violations.map((v) => [v.property, v.choices]),
    );
    expect(restored.violations.length).toBeGreaterThan(0);
  });
});
