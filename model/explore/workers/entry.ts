/**
 * The body of a worker thread of the pool (workers/pool.ts): it receives tasks (a module,
 * the name of an exported function, its argument), runs them one at a time and sends back
 * each result or the error that ended it. Modules are imported once and kept
 * (task_function.ts).
 *
 * Invariant: a task's argument and result cross the thread boundary by structured clone
 * (plain data: no functions, no class instances that need their prototype).
 */
import { parentPort } from 'node:worker_threads';
import { type ModuleCache, taskFunction } from './task_function.js';

interface TaskMessage {
  readonly id: number;
  readonly module: string;
  readonly fn: string;
  readonly arg: unknown;
}

const modules: ModuleCache = new Map();

const port = parentPort;
if (port === null) throw new Error('workers/entry.ts runs only as a worker thread');
port.on('message', (t: TaskMessage) => {
  void (async () => {
    try {
      const fn = await taskFunction(t.module, t.fn, modules);
      const result: unknown = await fn(t.arg);
      port.postMessage({ id: t.id, result });
    } catch (e) {
      port.postMessage({ id: t.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  })();
});
