/**
 * The function a pool task names (workers/pool.ts): an exported function of a module, found
 * the same way in a worker (workers/entry.ts) and in this thread.
 *
 * Modules are imported once per URL and the promise is kept, not only the module: import()
 * of a loaded module still asks the loader hooks, on another thread, every time, and tasks
 * that arrive while a module loads all wait on the one promise and so go on in the order
 * they came (two import() calls of one URL may settle in either order, and a worker's first
 * task carries what later ones need).
 */
export type TaskFunction = (arg: unknown) => unknown;

export type ModuleCache = Map<string, Promise<Record<string, unknown>>>;

export async function taskFunction(module: string, fn: string, cache: ModuleCache): Promise<TaskFunction> {
  let loading = cache.get(module);
  if (loading === undefined) {
    loading = import(module) as Promise<Record<string, unknown>>;
    cache.set(module, loading);
  }
  const f = (await loading)[fn];
  if (typeof f !== 'function') throw new Error(`${module} exports no function '${fn}'`);
  return f as TaskFunction;
}
