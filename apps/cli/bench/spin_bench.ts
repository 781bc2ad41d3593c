/**
 * tierlab's complete search beside Spin's, on the growth table of the Spin anchor: the
 * small warmstart configuration (one device, a planned warmstart through loader threads,
 * budget for every expert, then shutdown) with 2-8 experts, 1-3 loaders and a ring of 1-4
 * slots. tierlab runs optimal DPOR with its state cache, no preemption bound; Spin runs
 * the anchor's independent Promela model of the same configuration (spin_model.ts) in the
 * same process's run (spin_run.ts), or is skipped with the reason when `spin` or a C
 * compiler is missing; each row also shows the anchor's published figures.
 *
 * Spin runs twice: on the anchor's model (which predates the lifecycle gate) and on the
 * same model with the gate (spin_model_gate.ts): tierlab's tier passes the gate at every
 * entry point, so the second is the same protocol, and its ratios are the like-for-like
 * ones; the first shows what the gate itself adds.
 *
 * Reported per row: distinct states, transitions (Spin's stored + matched; tierlab's
 * steps executed), search CPU and wall seconds, CPU time per distinct state, and the
 * ratios tierlab / Spin; over the rows of 2-8 experts (2 loaders, ring 2) the growth
 * exponent in experts (the slope of log states against log experts).
 *
 * Invariant: every tierlab row is the same deterministic search (same counts each run);
 * a search cut short by the time limit is reported as incomplete, and its counts are not
 * ratios of anything.
 */
import { dporSearch } from '../../../model/explore/dpor/search.js';
import { scenarioSubject } from '../../../model/explore/subject.js';
import { smallWarmstart } from '../../../properties/committed_scenarios.js';
import { MAX_WARM_UP_SEARCHES, SEARCH_SETTLED_WITHIN } from './warm_up.js';
import { runSpin, spinTools, type SpinResult } from './spin_run.js';

export interface SpinConfig {
  readonly experts: number;
  readonly loaders: number;
  readonly ring: number;
  /** the anchor's figures (Spin 6.5.2, gcc -O2, 2 shared cores): states, transitions, search ms */
  readonly anchor: readonly [number, number, number];
}

export const SPIN_TABLE: readonly SpinConfig[] = [
  { experts: 2, loaders: 2, ring: 2, anchor: [581, 1095, 1.1] },
  { experts: 3, loaders: 2, ring: 2, anchor: [1291, 2554, 2.2] },
  { experts: 4, loaders: 2, ring: 2, anchor: [3209, 6683, 3.8] },
  { experts: 6, loaders: 2, ring: 2, anchor: [10141, 21945, 14.8] },
  { experts: 8, loaders: 2, ring: 2, anchor: [21187, 46480, 30.1] },
  { experts: 4, loaders: 1, ring: 2, anchor: [461, 727, 1.0] },
  { experts: 4, loaders: 3, ring: 2, anchor: [9517, 23073, 18.1] },
  { experts: 4, loaders: 2, ring: 1, anchor: [2488, 5227, 3.4] },
  { experts: 4, loaders: 2, ring: 4, anchor: [3393, 6906, 4.5] },
  { experts: 3, loaders: 3, ring: 2, anchor: [3946, 9320, 7.3] },
  { experts: 6, loaders: 3, ring: 2, anchor: [64444, 166582, 105] },
];

export interface TierlabSearch {
  readonly complete: boolean;
  readonly states: number;
  readonly schedules: number;
  readonly stepsExecuted: number;
  readonly cpuSeconds: number;
  readonly wallSeconds: number;
  readonly violations: string[];
}

export interface SpinRow {
  readonly label: string;
  readonly config: SpinConfig;
  readonly tierlab: TierlabSearch;
  /** null: Spin was not run (the section says why) */
  readonly spin: SpinResult | null;
  /** Spin on the model with the lifecycle gate (null: not run) */
  readonly spinGate: SpinResult | null;
  /** tierlab / Spin (this run's Spin, else the anchor's): distinct states, CPU per state */
  readonly stateRatio: number | null;
  readonly perStateRatio: number | null;
  /** tierlab / Spin on the model with the gate (null: Spin not run) */
  readonly gateStateRatio: number | null;
  readonly gatePerStateRatio: number | null;
}

export interface SpinSection {
  readonly spinVersion: string | null;
  readonly skipped: string | null;
  readonly compiler: string | null;
  /** tierlab's warm-up before the rows (absent in reports written before it was measured) */
  readonly warmUp?: SearchWarmUp;
  readonly rows: SpinRow[];
  /** slope of log states on log experts, 2 loaders and ring 2 (null: a row incomplete) */
  readonly growthTierlab: number | null;
  readonly growthSpin: number | null;
  /** the same of Spin on the model with the gate (null: not run) */
  readonly growthSpinGate: number | null;
}

export const spinLabel = (c: SpinConfig): string => `e${c.experts}-l${c.loaders}-r${c.ring}`;

/** tierlab's complete search (DPOR + state cache, unbounded) of one configuration. */
export function tierlabSearch(c: SpinConfig, limitSeconds: number): TierlabSearch {
  const s = smallWarmstart({
    experts: c.experts,
    ramCapacity: c.experts,
    budgetExperts: [c.experts],
    loaders: c.loaders,
    ringCapacity: c.ring,
  });
  const cpu = process.cpuUsage();
  const r = dporSearch(scenarioSubject(s), {
    preemptions: Infinity,
    reduce: true,
    stateCache: true,
    countStates: true,
    maxSeconds: limitSeconds,
    stopOnViolation: false,
  });
  const used = process.cpuUsage(cpu);
  return {
    complete: r.complete,
    states: r.states ?? 0,
    schedules: r.schedules,
    stepsExecuted: r.stepsExecuted,
    cpuSeconds: (used.user + used.system) / 1e6,
    wallSeconds: r.seconds,
    violations: r.violations.map((v) => v.property),
  };
}

/** How tierlab's search was warmed up before the rows, and whether its cost had settled. */
export interface SearchWarmUp {
  readonly searches: number;
  readonly settled: boolean;
  /** CPU microseconds per distinct state of each warm-up search, in order */
  readonly usPerState: readonly number[];
}

/**
 * Searches e2-l2-r2 until its CPU per state settles (two searches in a row within 10 %), at
 * most 8 searches. Why: Spin's figure is pan's search, compiled before it runs; tierlab's
 * first searches run code the JIT has not optimized yet while its compiler threads count
 * in the process's CPU time (measured: 585-916 us CPU a state in the first e2-l2-r2 search
 * of a process, 157-270 us from the third, CPU 1.9 x wall at first). The first search also
 * compiles the thread code (state/compile_threads.ts).
 */
export function warmUpSearch(limitSeconds: number): SearchWarmUp {
  const usPerState: number[] = [];
  let last = 0;
  for (let i = 1; i <= MAX_WARM_UP_SEARCHES; i++) {
    const t = tierlabSearch({ experts: 2, loaders: 2, ring: 2, anchor: [0, 0, 0] }, limitSeconds);
    const us = (1e6 * t.cpuSeconds) / Math.max(1, t.states);
    usPerState.push(us);
    // the collector's threads stay in the CPU time (a search's garbage is its own cost)
    const settled = Math.abs(us - last) <= SEARCH_SETTLED_WITHIN * last;
    if (settled) return { searches: i, settled, usPerState };
    last = us;
  }
  return { searches: MAX_WARM_UP_SEARCHES, settled: false, usPerState };
}

/** least-squares slope of log y on log x */
export function growthExponent(points: readonly (readonly [number, number])[]): number | null {
  if (points.length < 2) return null;
  const xs = points.map(([x]) => Math.log(x));
  const ys = points.map(([, y]) => Math.log(y));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  xs.forEach((x, i) => {
    num += (x - mx) * ((ys[i] ?? 0) - my);
    den += (x - mx) ** 2;
  });
  return den === 0 ? null : num / den;
}

/** tierlab / Spin: distinct states, and CPU per distinct state (null: tierlab incomplete) */
function ratios(t: TierlabSearch, states: number, cpu: number): [number | null, number | null] {
  if (!t.complete) return [null, null];
  return [t.states / states, t.states > 0 && cpu > 0 ? t.cpuSeconds / t.states / (cpu / states) : null];
}

function rowOf(c: SpinConfig, t: TierlabSearch, spin: SpinResult | null, spinGate: SpinResult | null): SpinRow {
  const [aStates, , aMs] = c.anchor;
  const [stateRatio, perStateRatio] = ratios(t, spin?.states ?? aStates, spin?.searchCpuSeconds ?? aMs / 1000);
  const [gateStateRatio, gatePerStateRatio] =
    spinGate === null ? [null, null] : ratios(t, spinGate.states, spinGate.searchCpuSeconds);
  return {
    label: spinLabel(c),
    config: c,
    tierlab: t,
    spin,
    spinGate,
    stateRatio,
    perStateRatio,
    gateStateRatio,
    gatePerStateRatio,
  };
}

function growth(rows: readonly SpinRow[], of: (r: SpinRow) => number | null): number | null {
  const line = rows.filter((r) => r.config.loaders === 2 && r.config.ring === 2);
  const points = line.map((r) => [r.config.experts, of(r)] as const);
  if (points.some(([, y]) => y === null)) return null;
  return growthExponent(points as [number, number][]);
}

/** The whole table; `unexpected` is set when tierlab finds a violation (the tier is correct). */
export function measureSpin(
  limitSeconds: number,
  log: (s: string) => void,
  configs: readonly SpinConfig[] = SPIN_TABLE,
): { section: SpinSection; unexpected: boolean } {
  const tools = spinTools();
  const skipped = 'missing' in tools ? tools.missing : null;
  if (skipped !== null) log(`spin: not run (${skipped}); tierlab's rows beside the anchor's published figures`);
  const warm = warmUpSearch(limitSeconds);
  log(
    `spin: tierlab warmed up by ${warm.searches} searches of e2-l2-r2 (${warm.settled ? 'settled' : 'not settled'}: ` +
      `${warm.usPerState.map((x) => x.toFixed(0)).join(', ')} us CPU a state)`,
  );
  const rows: SpinRow[] = [];
  let unexpected = false;
  for (const c of configs) {
    log(`spin: ${spinLabel(c)} ...`);
    const spin = 'missing' in tools ? null : runSpin(tools, c.experts, c.loaders, c.ring);
    const spinGate = 'missing' in tools ? null : runSpin(tools, c.experts, c.loaders, c.ring, true);
    const t = tierlabSearch(c, limitSeconds);
    if (t.violations.length > 0) unexpected = true;
    const row = rowOf(c, t, spin, spinGate);
    const ratio = (x: number | null): string => (x === null ? '-' : `${x.toFixed(2)}x`);
    log(
      `  tierlab ${t.complete ? 'complete' : 'INCOMPLETE'}: ${t.states} states, ${t.cpuSeconds.toFixed(2)} s CPU; ` +
        `Spin ${spin === null ? `(anchor) ${c.anchor[0]}` : `${spin.states} states, ${spin.searchCpuSeconds.toFixed(4)} s`}; ` +
        `states ${ratio(row.stateRatio)}, per state ${ratio(row.perStateRatio)}` +
        (spinGate === null
          ? ''
          : `; Spin with the gate ${spinGate.states} states: ${ratio(row.gateStateRatio)}, ` +
            `per state ${ratio(row.gatePerStateRatio)}`),
    );
    rows.push(row);
  }
  const section: SpinSection = {
    spinVersion: 'missing' in tools ? null : tools.version,
    skipped,
    compiler: 'missing' in tools ? null : tools.cc,
    warmUp: warm,
    rows,
    growthTierlab: growth(rows, (r) => (r.tierlab.complete ? r.tierlab.states : null)),
    growthSpin: growth(rows, (r) => r.spin?.states ?? r.config.anchor[0]),
    growthSpinGate: growth(rows, (r) => r.spinGate?.states ?? null),
  };
  return { section, unexpected };
}
