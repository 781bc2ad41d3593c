/**
 * One measurement of the search on worker threads, in a process of its own: the bench
 * runs each in a fresh process so that every one starts with the same cold JIT (a row
 * measured in the bench's own thread, warmed by the sections before it, made one job
 * look faster than a user's `--jobs 1` and every worker row slower).
 *
 * `shared`: the stateless DPOR search of the scenario in `jobs` parts (jobsRow: one thread
 * in-process for 1, the shared tree on worker threads for more). `independent`: the same
 * whole search `jobs` times at once on as many workers (once in this thread for 1),
 * nothing shared: the machine's own ceiling for that many threads of this work (memory
 * and caches are shared too).
 * Prints one JobsRow as JSON on stdout.
 */
import { runTasks } from '../../../model/explore/workers/pool.js';
import { smallWarmstart } from '../../../properties/committed_scenarios.js';
import type { SearchPart } from '../../../properties/search_parts.js';
import { jobsRow, type JobsChildRequest, type JobsRow } from './exhaustive_bench.js';

async function independent(r: JobsChildRequest): Promise<JobsRow> {
  const scenario = smallWarmstart({ experts: r.experts, ramCapacity: r.experts, budgetExperts: [r.experts] });
  const request = {
    scenario,
    seed: 1,
    runs: Infinity,
    seconds: r.seconds,
    strategy: 'exhaustive',
    preemptions: Infinity,
  };
  const module = new URL('../../../properties/search_parts.ts', import.meta.url).href;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const tasks = Array.from({ length: r.jobs }, () => ({
    module,
    fn: 'searchPart',
    arg: { request, index: 0, count: 1 },
  }));
  const parts = await runTasks<SearchPart>(tasks, r.jobs);
  const wallSeconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const schedules = parts.reduce((a, p) => a + p.result.schedules, 0);
  return {
    label: r.label,
    jobs: r.jobs,
    complete: parts.every((p) => p.result.complete),
    schedules,
    states: null,
    wallSeconds,
    cpuSeconds: (used.user + used.system) / 1e6,
    schedulesPerSecond: schedules / Math.max(1e-9, wallSeconds),
    violations: [...new Set(parts.flatMap((p) => p.result.violations.map((v) => v.property)))],
  };
}

/** argv: the request as JSON (exhaustive_bench.ts childRow); prints the row. */
export async function main(argv: readonly string[]): Promise<0> {
  const r = JSON.parse(argv[0] ?? '{}') as JobsChildRequest;
  const row =
    r.mode === 'independent'
      ? await independent(r)
      : await jobsRow(
          smallWarmstart({ experts: r.experts, ramCapacity: r.experts, budgetExperts: [r.experts] }),
          r.label,
          r.jobs,
          r.seconds,
        );
  process.stdout.write(`${JSON.stringify(row)}\n`);
  return 0;
}
