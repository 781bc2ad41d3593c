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

/**
 * imported modules by URL: import() itself would go through the loader hooks every time.
 * The promise is kept, not only the module: tasks that arrive while it loads all wait on
 * the one promise and so go on in the order they came (two import() calls of one URL may
 * settle in either order, and a worker's first task carries what later ones need).
 */
const loaded = new Map<string, Record<string, unknown>>();
const loading = new Map<string, Promise<Record<string, unknown>>>();

function moduleOf(url: string): Promise<Record<string, unknown>> {
  let p = loading.get(url);
  if (p === undefined) {
    p = import(url).then((m: Record<string, unknown>) => {
      loaded.set(url, m);
      return m;
    });
    loading.set(url, p);
  }
  return p;
}

const port = parentPort;
if (port === null) throw new Error('worker_entry.ts runs only as a worker thread');
port.on('message', (t: TaskMessage) => {
  void (async () => {
    try {
      const m = loaded.get(t.module) ?? (await moduleOf(t.module));
      const fn = m[t.fn];
      if (typeof fn !== 'function') throw new Error(`${t.module} exports no function '${t.fn}'`);
      const result: unknown = await (fn as (a: unknown) => unknown)(t.arg);
      port.postMessage({ id: t.id, result });
    } catch (e) {
      port.postMessage({ id: t.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  })();
});
