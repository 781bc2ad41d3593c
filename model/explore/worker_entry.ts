/**
 * The body of a worker thread of the pool (worker_pool.ts): it receives tasks (a module,
 * the name of an exported function, its argument), runs them one at a time and sends back
 * each result or the error that ended it. Modules are imported once and kept.
 *
 * Invariant: a task's argument and result cross the thread boundary by structured clone
 * (plain data: no functions, no class instances that need their prototype).
 */
import { parentPort } from 'node:worker_threads';

interface TaskMessage {
  readonly id: number;
  readonly module: string;
  readonly fn: string;
  readonly arg: unknown;
}

/** imported modules by URL: import() itself would go through the loader hooks every time */
const modules = new Map<string, Record<string, unknown>>();

async function moduleOf(url: string): Promise<Record<string, unknown>> {
  let m = modules.get(url);
  if (m === undefined) {
    m = (await import(url)) as Record<string, unknown>;
    modules.set(url, m);
  }
  return m;
}

const port = parentPort;
if (port === null) throw new Error('worker_entry.ts runs only as a worker thread');
port.on('message', (t: TaskMessage) => {
  void (async () => {
    try {
      const m = modules.get(t.module) ?? (await moduleOf(t.module));
      const fn = m[t.fn];
      if (typeof fn !== 'function') throw new Error(`${t.module} exports no function '${t.fn}'`);
      const result: unknown = await (fn as (a: unknown) => unknown)(t.arg);
      port.postMessage({ id: t.id, result });
    } catch (e) {
      port.postMessage({ id: t.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  })();
});
