/**
 * The pool behind the parallel search (model/explore/workers/pool.ts): with this thread as
 * slot 0, its tasks run here and a worker's run there; each slot runs its tasks in the
 * order given; a failing task rejects with its message and the pool closes cleanly.
 */
import { describe, expect, it } from 'vitest';
import { WorkerThreads } from '../../model/explore/workers/pool.js';

const MODULE = new URL('./pool_tasks.ts', import.meta.url).href;

describe('WorkerThreads with this thread as slot 0', () => {
  it('runs slot 0 here and slot 1 in a worker, each slot in order', async () => {
    const pool = new WorkerThreads(2, true);
    try {
      const here = [1, 2, 3].map((n) =>
        pool.run<{ main: boolean; seen: number[] }>(0, { module: MODULE, fn: 'where', arg: n }),
      );
      const there = [7, 8].map((n) =>
        pool.run<{ main: boolean; seen: number[] }>(1, { module: MODULE, fn: 'where', arg: n }),
      );
      const [h, t] = [await Promise.all(here), await Promise.all(there)];
      expect(h.map((r) => r.main)).toEqual([true, true, true]);
      expect(t.map((r) => r.main)).toEqual([false, false]);
      // slot 0 shares this thread's module: what it saw ends with 1, 2, 3 in that order
      expect(h[2]?.seen.slice(-3)).toEqual([1, 2, 3]);
      expect(t[1]?.seen).toEqual([7, 8]);
    } finally {
      await pool.close();
    }
  });

  it('rejects a failing task with its message, here and in a worker', async () => {
    const pool = new WorkerThreads(2, true);
    try {
      await expect(pool.run(0, { module: MODULE, fn: 'fails', arg: 'broken here' })).rejects.toThrow(/broken here/);
      await expect(pool.run(1, { module: MODULE, fn: 'fails', arg: 'broken there' })).rejects.toThrow(/broken there/);
      await expect(pool.run(0, { module: MODULE, fn: 'noSuchTask', arg: null })).rejects.toThrow(/exports no function/);
      await expect(pool.run(2, { module: MODULE, fn: 'where', arg: 0 })).rejects.toThrow(/no worker 2/);
    } finally {
      await pool.close();
    }
  });
});
