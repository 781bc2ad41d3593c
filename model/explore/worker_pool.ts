/**
 * Runs independent tasks on worker threads, at most `jobs` at once, and returns their
 * results in task order: the machinery behind `--jobs N` (every core of one machine).
 * A task names an exported function of a module and its plain-data argument, so the
 * same task runs the same way in a worker, in the main thread (`jobs` 1: no worker at
 * all) or in another process (`--shard`), which is what makes the results identical.
 *
 * Invariant: a task that throws rejects the whole run with its error; no result is
 * silently dropped.
 */
import { Worker } from 'node:worker_threads';

export interface Task {
  /** the module's URL (import.meta.url-relative, as `new URL('./x.ts', import.meta.url).href`) */
  readonly module: string;
  /** an exported function of it, taking `arg` */
  readonly fn: string;
  readonly arg: unknown;
}

const BOOT = new URL('./worker_boot.mjs', import.meta.url);
const ENTRY = new URL('./worker_entry.ts', import.meta.url).href;

export async function runTasks<R>(tasks: readonly Task[], jobs: number): Promise<R[]> {
  if (jobs <= 1 || tasks.length <= 1) {
    const out: R[] = [];
    for (const t of tasks) {
      const m = (await import(t.module)) as Record<string, unknown>;
      const fn = m[t.fn];
      if (typeof fn !== 'function') throw new Error(`${t.module} exports no function '${t.fn}'`);
      out.push((await (fn as (a: unknown) => unknown)(t.arg)) as R);
    }
    return out;
  }
  const results = new Array<R>(tasks.length);
  let next = 0;
  const workers = Array.from(
    { length: Math.min(jobs, tasks.length) },
    () => new Worker(BOOT, { workerData: { entry: ENTRY } }),
  );
  try {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            const give = (): void => {
              const id = next++;
              const t = tasks[id];
              if (t === undefined) {
                resolve();
                return;
              }
              w.postMessage({ id, module: t.module, fn: t.fn, arg: t.arg });
            };
            w.on('message', (m: { id: number; result?: unknown; error?: string }) => {
              if (m.error !== undefined) {
                reject(new Error(`task ${m.id} failed in a worker: ${m.error}`));
                return;
              }
              results[m.id] = m.result as R;
              give();
            });
            w.on('error', reject);
            w.on('exit', (code) => {
              if (code !== 0) reject(new Error(`a worker thread exited with code ${code}`));
            });
            give();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results;
}
