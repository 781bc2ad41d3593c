/**
 * Runs async jobs with at most `jobs` in flight, in order of submission; results keep
 * that order. Each mutant's work is one or two child processes, so the parallelism is
 * over processes (and cores), not threads.
 */
export async function runPool<T, R>(
  items: readonly T[],
  jobs: number,
  work: (item: T, index: number) => Promise<R>,
  onDone?: (r: R, index: number) => void,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      const item = items[i] as T;
      const r = await work(item, i);
      results[i] = r;
      onDone?.(r, i);
    }
  };
  const n = Math.max(1, Math.min(jobs, items.length));
  await Promise.all(Array.from({ length: n }, () => worker()));
  return results;
}
