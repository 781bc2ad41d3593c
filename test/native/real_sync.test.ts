/**
 * The real run's mutex and condition variable (src/engine/native/real_sync.ts): a free
 * mutex is taken at once, without a promise (the runtime then goes on without a turn of
 * the microtask queue); a held one makes the next locker wait, in order, until it is
 * handed over; a sleeper releases the mutex and, woken, takes it again; the discipline's
 * violations stay violations.
 */
import { describe, expect, it } from 'vitest';
import { RealCondVar, RealMutex, RealThread } from '../../src/engine/native/real_sync.js';
import { Violation } from '../../src/check/violation.js';
import { ThreadState } from '../../src/check/checker.js';

const a = new RealThread(0, 'a');
const b = new RealThread(1, 'b');
const c = new RealThread(2, 'c');

describe('the real run mutex', () => {
  it('is taken at once when free, with no promise', () => {
    const m = new RealMutex();
    expect(m.lock(a)).toBeUndefined();
    expect(m.owner).toBe(a.tid);
    m.unlock(a);
    expect(m.owner).toBe(-1);
  });

  it('makes the next lockers wait while held, and hands it over in their order', async () => {
    const m = new RealMutex();
    expect(m.lock(a)).toBeUndefined();
    const order: string[] = [];
    const bLocks = m.lock(b)?.then(() => order.push(`b owns ${m.owner}`));
    const cLocks = m.lock(c)?.then(() => order.push(`c owns ${m.owner}`));
    expect(bLocks).toBeInstanceOf(Promise);
    expect(cLocks).toBeInstanceOf(Promise);
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(m.owner).toBe(a.tid);
    m.unlock(a);
    await bLocks;
    expect(order).toEqual(['b owns 1']);
    m.unlock(b);
    await cLocks;
    expect(order).toEqual(['b owns 1', 'c owns 2']);
  });

  it('reports a relock and an unlock by a thread that does not hold it', () => {
    const m = new RealMutex();
    expect(m.lock(a)).toBeUndefined();
    expect(() => m.lock(a)).toThrow(Violation);
    expect(() => m.unlock(b)).toThrow(/b unlocks mx it does not hold/);
  });
});

describe('the real run condition variable', () => {
  it('releases the mutex while its sleeper waits; woken, the sleeper takes it again', async () => {
    const m = new RealMutex();
    const cv = new RealCondVar('cv');
    expect(m.lock(a)).toBeUndefined();
    const woken = cv.sleep(m, a);
    expect(m.owner).toBe(-1);
    expect(a.state).toBe(ThreadState.CvWait);
    expect(m.lock(b)).toBeUndefined();
    cv.signal();
    await woken;
    expect(a.state).toBe(ThreadState.Ready);
    const again = m.lock(a);
    expect(again).toBeInstanceOf(Promise);
    m.unlock(b);
    await again;
    expect(m.owner).toBe(a.tid);
  });
});
