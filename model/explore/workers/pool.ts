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
import { type ModuleCache, taskFunction } from './task_function.js';

export interface Task {
  /** the module's URL (import.meta.url-relative, as `new URL('../x.ts', import.meta.url).href`) */
  readonly module: string;
  /** an exported function of it, taking `arg` */
  readonly fn: string;
  readonly arg: unknown;
}

const BOOT = new URL('./boot.mjs', import.meta.url);
const ENTRY = new URL('./entry.ts', import.meta.url).href;

/** `onDone(done, total)`: after each task that finished (progress for people). */
export async function runTasks<R>(
  tasks: readonly Task[],
  jobs: number,
  onDone?: (done: number, total: number) => void,
): Promise<R[]> {
  if (jobs <= 1 || tasks.length <= 1) {
    const out: R[] = [];
    const modules: ModuleCache = new Map();
    for (const t of tasks) {
      out.push((await (await taskFunction(t.module, t.fn, modules))(t.arg)) as R);
      onDone?.(out.length, tasks.length);
    }
    return out;
  }
  let done = 0;
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
              onDone?.(++done, tasks.length);
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

/**
 * Worker threads kept for many tasks, each given one task at a time by its number: for a
 * caller that decides the next task from the last result (dpor/parallel.ts). With
 * `withThisThread`, slot 0 is this thread: its tasks run here, one per turn of the event
 * loop, between the messages of the others. A caller whose own work is light (handing
 * out the next task) then keeps `count` threads busy on `count` cores, where a worker of
 * its own would make `count + 1` threads share them.
 */
export class WorkerThreads {
  private readonly workers: (Worker | null)[];
  private readonly pending = new Map<number, { resolve: (r: unknown) => void; reject: (e: Error) => void }>();
  private readonly here: { id: number; task: Task }[] = [];
  private hereScheduled = false;
  private readonly modules: ModuleCache = new Map();
  private nextId = 0;
  private failure: Error | null = null;
  private closed = false;

  constructor(count: number, withThisThread = false) {
    this.workers = Array.from({ length: count }, (_, i) =>
      withThisThread && i === 0 ? null : new Worker(BOOT, { workerData: { entry: ENTRY } }),
    );
    for (const w of this.workers) {
      if (w === null) continue;
      w.on('message', (m: { id: number; result?: unknown; error?: string }) => {
        if (m.error !== undefined) this.settle(m.id, new Error(`task ${m.id} failed in a worker: ${m.error}`));
        else this.settle(m.id, null, m.result);
      });
      w.on('error', (e) => this.fail(e));
      w.on('exit', (code) => {
        if (code !== 0) this.fail(new Error(`a worker thread exited with code ${code}`));
      });
    }
  }

  get size(): number {
    return this.workers.length;
  }

  /** runs `task` on slot `index`; tasks given to one slot run one after the other, in order */
  run<R>(index: number, task: Task): Promise<R> {
    if (index < 0 || index >= this.workers.length) return Promise.reject(new Error(`no worker ${index}`));
    if (this.failure !== null) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      this.pending.set(id, { resolve: (r) => resolve(r as R), reject });
      const w = this.workers[index];
      if (w !== null && w !== undefined) {
        w.postMessage({ id, module: task.module, fn: task.fn, arg: task.arg });
        return;
      }
      this.here.push({ id, task });
      this.scheduleHere();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w?.terminate()));
  }

  private scheduleHere(): void {
    if (this.hereScheduled || this.here.length === 0) return;
    this.hereScheduled = true;
    // a macrotask, so that the other threads' reports are read between two of these
    setImmediate(() => {
      this.hereScheduled = false;
      const next = this.here.shift();
      if (next === undefined || this.closed) return;
      this.runHere(next.task).then(
        (r) => this.settle(next.id, null, r),
        (e: unknown) =>
          this.settle(next.id, new Error(`task ${next.id} failed: ${e instanceof Error ? e.message : String(e)}`)),
      );
      this.scheduleHere();
    });
  }

  private async runHere(t: Task): Promise<unknown> {
    return (await taskFunction(t.module, t.fn, this.modules))(t.arg);
  }

  private settle(id: number, error: Error | null, result?: unknown): void {
    const p = this.pending.get(id);
    this.pending.delete(id);
    if (error !== null) p?.reject(error);
    else p?.resolve(result);
  }

  private fail(e: Error): void {
    this.failure ??= e;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }
}
