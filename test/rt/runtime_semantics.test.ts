/** The runtime's sync semantics: Mesa condition variables, signal and broadcast, spurious wakeups, and the errors that end a run. */
import { describe, expect, it } from 'vitest';
import type { Gen } from '../../src/ops.js';
import { ChoicesStrategy } from '../../model/rt/strategy.js';
import { runBare } from './sim_harness.js';
import type { TraceRecord } from '../../model/rt/trace.js';
import type { WakeCause } from '../../model/rt/trace_event.js';

const LOCK = { k: 'lock' } as const;
const UNLOCK = { k: 'unlock' } as const;
const WAIT = { k: 'wait', cv: 'cv' } as const;

/** a waiter that counts its wakeups into `woken` and waits until `flag.go` */
function* waiter(flag: { go: boolean }, woken: string[], name: string): Gen<void> {
  yield LOCK;
  while (!flag.go) {
    yield WAIT;
    woken.push(name);
  }
  yield UNLOCK;
}

function spawn(name: string, body: () => Gen<void>) {
  return { k: 'spawn', name, body } as const;
}

/** switches to another thread at every choice point: every thread gets to park */
class Alternate {
  readonly name = 'alternate';
  readonly path: number[] = [];
  constructor(private readonly wakePick = 0) {}
  pick(n: number, kind: 'thread' | 'wake'): number {
    const o = kind === 'wake' ? this.wakePick % n : 1;
    this.path.push(o);
    return o;
  }
}

/** main parks three waiters, then sends `kick` and later releases everyone */
function* parkThenKick(kick: 'signal' | 'broadcast', woken: string[]): Gen<void> {
  const flag = { go: false };
  const tids: number[] = [];
  for (const n of ['a', 'b', 'c']) tids.push((yield spawn(n, () => waiter(flag, woken, n))) as number);
  for (let i = 0; i < 4; i++) {
    yield LOCK;
    yield UNLOCK;
  }
  yield LOCK;
  yield { k: kick, cv: 'cv' };
  yield UNLOCK;
  for (let i = 0; i < 6; i++) {
    yield LOCK;
    yield UNLOCK;
  }
  yield { k: 'mark', what: 'phase', detail: 'released' };
  yield LOCK;
  flag.go = true;
  yield { k: 'broadcast', cv: 'cv' };
  yield UNLOCK;
  for (const tid of tids) yield { k: 'join', tid };
}

/** wakeups of this cause recorded before the `phase released` mark */
function wakesBeforeRelease(records: readonly TraceRecord[], how: WakeCause): number {
  const end = records.findIndex((r) => r.event.k === 'mark' && r.event.detail === 'released');
  return records.slice(0, end).filter((r) => r.event.k === 'woken' && r.event.how === how).length;
}

describe('runtime: Mesa condition variables', () => {
  it('signal wakes exactly one waiter', () => {
    const woken: string[] = [];
    const { rt, outcome } = runBare(() => parkThenKick('signal', woken), new Alternate());
    expect(outcome.ok).toBe(true);
    expect(wakesBeforeRelease(rt.trace?.records ?? [], 'signal')).toBe(1);
    expect(woken.slice(0, 1).length).toBe(1);
  });

  it('the schedule chooses which waiter a signal wakes', () => {
    const first = new Set<string>();
    for (const pick of [0, 1, 2]) {
      const { rt } = runBare(() => parkThenKick('signal', []), new Alternate(pick));
      const rec = rt.trace?.records.find((r) => r.event.k === 'woken' && r.event.how === 'signal');
      first.add(rt.trace?.threadNames[rec?.tid ?? -1] ?? '?');
    }
    expect([...first].sort()).toEqual(['a', 'b', 'c']);
  });

  it('broadcast wakes every waiter', () => {
    const { rt, outcome } = runBare(() => parkThenKick('broadcast', []), new Alternate());
    expect(outcome.ok).toBe(true);
    expect(wakesBeforeRelease(rt.trace?.records ?? [], 'broadcast')).toBe(3);
  });

  it('a spurious wakeup returns from wait without a signal, and the while re-checks', () => {
    const woken: string[] = [];
    const flag = { go: false };
    const { rt, outcome } = runBare(
      function* () {
        const tid = (yield spawn('w', () => waiter(flag, woken, 'w'))) as number;
        for (let i = 0; i < 4; i++) {
          yield LOCK;
          yield UNLOCK;
        }
        yield LOCK;
        flag.go = true;
        yield { k: 'broadcast', cv: 'cv' };
        yield UNLOCK;
        yield { k: 'join', tid };
      },
      new SpuriousOnce(),
      { spuriousWakeups: 1 },
    );
    expect(outcome.ok).toBe(true);
    expect(rt.trace?.records.some((r) => r.event.k === 'woken' && r.event.how === 'spurious')).toBe(true);
    // woken twice: once spuriously (flag still false: waits again), once by the broadcast
    expect(woken).toEqual(['w', 'w']);
  });
});

describe('runtime: errors that end a run', () => {
  it('a deadlock names every blocked thread and what it waits on', () => {
    const { outcome } = runBare(function* () {
      yield spawn('stuck', function* () {
        yield LOCK;
        yield WAIT;
        yield UNLOCK;
      });
      yield LOCK;
      yield { k: 'wait', cv: 'cv_take' };
      yield UNLOCK;
    }, new ChoicesStrategy([]));
    expect(outcome.violation?.property).toBe('LIVE-DEADLOCK');
    expect(outcome.violation?.detail).toContain('main: waits on cv_take');
    expect(outcome.violation?.detail).toContain('stuck: waits on cv');
  });

  it('unlocking a mutex the thread does not hold is a sync-discipline violation', () => {
    const { outcome } = runBare(function* () {
      yield UNLOCK;
    }, new ChoicesStrategy([]));
    expect(outcome.violation?.property).toBe('SYNC-DISCIPLINE');
  });

  it('waiting without holding mx is a sync-discipline violation', () => {
    const { outcome } = runBare(function* () {
      yield WAIT;
    }, new ChoicesStrategy([]));
    expect(outcome.violation?.property).toBe('SYNC-DISCIPLINE');
  });

  it('ending while holding mx is a sync-discipline violation', () => {
    const { outcome } = runBare(function* () {
      yield LOCK;
    }, new ChoicesStrategy([]));
    expect(outcome.violation?.detail).toContain('ended holding mx');
  });

  it('a run past its step limit reports a livelock', () => {
    const { outcome } = runBare(
      function* () {
        for (;;) {
          yield LOCK;
          yield UNLOCK;
        }
      },
      new ChoicesStrategy([]),
      { maxSteps: 100 },
    );
    expect(outcome.violation?.property).toBe('LIVE-STEPS');
  });

  it('join waits for the joined thread to finish', () => {
    const order: string[] = [];
    const { outcome } = runBare(function* () {
      const tid = (yield spawn('child', function* () {
        yield LOCK;
        order.push('child');
        yield UNLOCK;
      })) as number;
      yield { k: 'join', tid };
      order.push('main');
    }, new ChoicesStrategy([]));
    expect(outcome.ok).toBe(true);
    expect(order).toEqual(['child', 'main']);
  });
});

/** lets the waiter park, then injects one spurious wakeup (listed after the runnable) */
class SpuriousOnce {
  readonly name = 'spurious-once';
  readonly path: number[] = [];
  private used = false;
  private calls = 0;
  pick(n: number): number {
    this.calls++;
    let o = 0;
    if (this.calls === 1)
      o = 1; // let w run: it locks and parks
    else if (!this.used && n >= 2 && this.calls >= 3) {
      o = n - 1;
      this.used = true;
    }
    this.path.push(o);
    return o;
  }
}
