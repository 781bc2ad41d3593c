/** Tasks for the worker pool's tests (worker_pool.test.ts): plain functions of plain data. */
import { isMainThread } from 'node:worker_threads';

const seen: number[] = [];

/** which thread ran it, and every number this thread was given so far, in order */
export function where(n: number): { main: boolean; seen: number[] } {
  seen.push(n);
  return { main: isMainThread, seen: [...seen] };
}

export function fails(why: string): never {
  throw new Error(why);
}
