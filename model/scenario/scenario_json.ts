/**
 * The one parser for scenarios read from JSON: a bare scenario file
 * (properties/scenarios/*.json) or the scenario inside a counterexample. Used by
 * `--scenario`, `npm run replay`, `npm run mutants -- --replay` and the tests.
 *
 * Invariant: it returns a Scenario whose every field has the right type and range, or
 * throws an InputError naming the source and the JSON path of the first bad field. The
 * ranges are what the simulator can run in bounded time and memory (a size cap), not what
 * the tier accepts: a configuration the tier must refuse (topk above 32 rows per group)
 * is valid input, and refusing it is the tier's job.
 *
 * A missing fault site means no fault there, and a missing field of the protocol's later
 * features (LATER_KEYS) means that feature off (files written before they existed stay
 * readable). Nothing else is defaulted.
 */
import { FAULT_SITES, faultKey, type FaultPlan } from '../../src/engine/fault_sites.js';
import type { PreferPlan, ReplanPlan, ShutdownPoint } from '../../src/engine/driver.js';
import { LATER_FEATURES_OFF } from '../../src/engine/run_spec.js';
import { CARELESS_HABITS } from '../../src/engine/careless.js';
import { DEFAULT_LIMITS } from '../../src/check/limits.js';
import { JsonReader, type JsonObject } from '../../src/input/json_reader.js';
import type { ExpertFormat } from '../../src/tier/config.js';
import { HEAT_FILE_DEFECTS, type Scenario, type TrunkMatrix } from './scenario.js';

/**
 * Size caps: beyond them a run is a memory or time sink, not a test. `slots` (layers x
 * experts) and `routedPerRun` (tokens x layers x topk) keep every run well inside the
 * step limit (src/check/limits.ts), so that LIVE-STEPS means a livelock, never a long
 * scenario: at both caps together a quiet run takes about 127,000 steps (75,000 before
 * every call passed the lifecycle gate) and a few seconds (measured: 64 tokens x 64
 * layers x 16 experts, top-1, 8 devices, swaps every tick;
 * test/properties/scenario_json.test.ts runs that corner). At 8192 slots a warmstart
 * alone took 200,000 steps and 70 s.
 */
export const SCENARIO_LIMITS = {
  devices: 8,
  layers: 64,
  experts: 1024,
  slots: 1024,
  topk: 64,
  tokens: 4096,
  routedPerRun: 4096,
  ring: 64,
  loaders: 8,
  weightBytes: 64 << 20,
  denseBytes: 64 << 20,
  trunkMatrices: 64,
  period: 1 << 20,
  faultIndex: 1_000_000,
  spuriousWakeups: 1000,
  heat: 0xffffffff,
} as const;

const KEYS = [
  'devices',
  'layers',
  'experts',
  'topk',
  'ringCapacity',
  'budgetExperts',
  'capacityExperts',
  'expertFormat',
  'groupSize',
  'weightBytes',
  'scaleBytes',
  'ramCapacity',
  'loaders',
  'warmstart',
  'heatFile',
  'heatFileDefect',
  'streaming',
  'wantSwaps',
  'reclaims',
  'swapPeriod',
  'decayPeriod',
  'startTick',
  'routes',
  'noRam',
  'refillAfterToken',
  'shutdownAt',
  'denseBytes',
  'denseWhileGroupOpen',
  'initTwice',
  'runs',
  'faults',
  'spuriousWakeups',
] as const;

/** The later features' fields: each may be missing (the feature is then off). */
const LATER_KEYS = [
  'syncUploads',
  'evictCapacity',
  'evictedPoll',
  'replan',
  'prefer',
  'statsThread',
  'initRacer',
  'secondShutdown',
  'tierOff',
] as const;

export function parseScenario(data: unknown, source: string, at = ''): Scenario {
  const r = new JsonReader(source);
  const p = (k: string): string => (at === '' ? k : `${at}.${k}`);
  const o = r.object(data, at, KEYS, [...LATER_KEYS, 'trunk', 'careless', 'trunkRacer']);
  const L = SCENARIO_LIMITS;
  const devices = r.int(o.devices, p('devices'), 1, L.devices);
  const layers = r.int(o.layers, p('layers'), 1, L.layers);
  const experts = r.int(o.experts, p('experts'), 1, L.experts);
  if (layers * experts > L.slots)
    r.fail(p('experts'), `${layers} layers x ${experts} experts exceeds the cap of ${L.slots} slots`);
  const topk = r.int(o.topk, p('topk'), 1, Math.min(L.topk, experts));
  const perDevice = (key: string): readonly unknown[] => {
    const a = r.array(o[key], p(key));
    if (a.length !== devices) r.fail(p(key), `has ${a.length} entries for ${devices} devices`);
    return a;
  };
  const budgetExperts = perDevice('budgetExperts').map((b, d) =>
    b === 'auto' ? ('auto' as const) : r.int(b, `${p('budgetExperts')}[${d}]`, 0, layers * experts),
  );
  const capacityExperts = perDevice('capacityExperts').map((c, d) =>
    c === null ? null : r.int(c, `${p('capacityExperts')}[${d}]`, 0, layers * experts),
  );
  const three = (key: 'weightBytes' | 'scaleBytes'): [number, number, number] => {
    const a = r.intArray(o[key], p(key), 1, L.weightBytes);
    if (a.length !== 3) r.fail(p(key), `wants 3 sizes (gate, up, down), got ${a.length}`);
    return [a[0] ?? 0, a[1] ?? 0, a[2] ?? 0];
  };
  const routes = parseRoutes(r, o.routes, p('routes'), layers, experts, topk);
  const tokens = routes.length;
  const streaming = r.boolean(o.streaming, p('streaming'));
  const warmstart = r.oneOf(o.warmstart, p('warmstart'), ['none', 'plan', 'block'] as const);
  const later = parseLater(r, o, p, tokens, experts, topk);
  const { loaders, runs } = parseThreads(r, o, p, later, o.trunkRacer === true);
  return {
    ...later,
    devices,
    layers,
    experts,
    topk,
    ringCapacity: r.int(o.ringCapacity, p('ringCapacity'), 1, L.ring),
    budgetExperts,
    capacityExperts,
    expertFormat: parseFormat(r, o.expertFormat, p('expertFormat')),
    groupSize: r.int(o.groupSize, p('groupSize'), 0, 4096),
    weightBytes: three('weightBytes'),
    scaleBytes: three('scaleBytes'),
    ramCapacity: r.int(o.ramCapacity, p('ramCapacity'), 1, experts),
    loaders,
    warmstart,
    heatFile: parseHeat(r, o.heatFile, p('heatFile'), layers, experts),
    heatFileDefect: r.oneOf(o.heatFileDefect, p('heatFileDefect'), HEAT_FILE_DEFECTS),
    streaming,
    wantSwaps: r.boolean(o.wantSwaps, p('wantSwaps')),
    reclaims: r.boolean(o.reclaims, p('reclaims')),
    swapPeriod: r.int(o.swapPeriod, p('swapPeriod'), 1, L.period),
    decayPeriod: r.int(o.decayPeriod, p('decayPeriod'), 1, L.period),
    startTick: r.int(o.startTick, p('startTick'), 0, L.period),
    routes,
    noRam: parseNoRam(r, o.noRam, p('noRam'), layers, experts),
    refillAfterToken: r.int(o.refillAfterToken, p('refillAfterToken'), -1, Math.max(-1, tokens - 1)),
    shutdownAt: parseShutdownAt(r, o.shutdownAt, p('shutdownAt'), tokens, layers),
    denseBytes: r.int(o.denseBytes, p('denseBytes'), 0, L.denseBytes),
    denseWhileGroupOpen: r.boolean(o.denseWhileGroupOpen, p('denseWhileGroupOpen')),
    initTwice: r.boolean(o.initTwice, p('initTwice')),
    runs,
    faults: parseFaults(r, o.faults, p('faults')),
    spuriousWakeups: r.int(o.spuriousWakeups, p('spuriousWakeups'), 0, L.spuriousWakeups),
    ...parseOptional(r, o, p),
  };
}

/** Keys added after the first files were written: absent means none. */
function parseOptional(
  r: JsonReader,
  o: JsonObject,
  p: (k: string) => string,
): Pick<Scenario, 'trunk' | 'careless' | 'trunkRacer'> {
  const careless = o.careless === undefined ? [] : r.array(o.careless, p('careless'));
  return {
    ...(o.trunkRacer === undefined ? {} : { trunkRacer: r.boolean(o.trunkRacer, p('trunkRacer')) }),
    trunk: parseTrunk(r, o.trunk, p('trunk')),
    careless: careless.map((h, i) => r.oneOf(h, `${p('careless')}[${i}]`, CARELESS_HABITS)),
  };
}

/** The trunk matrices offered (absent: none beyond denseBytes, as files written before). */
function parseTrunk(r: JsonReader, v: unknown, at: string): TrunkMatrix[] {
  if (v === undefined) return [];
  const list = r.array(v, at);
  if (list.length > SCENARIO_LIMITS.trunkMatrices)
    r.fail(at, `${list.length} trunk matrices exceed the cap of ${SCENARIO_LIMITS.trunkMatrices}`);
  return list.map((m, i) => {
    const o = r.object(m, `${at}[${i}]`, ['weightBytes', 'scaleBytes']);
    return {
      weightBytes: r.int(o.weightBytes, `${at}[${i}].weightBytes`, 1, SCENARIO_LIMITS.denseBytes),
      scaleBytes: r.int(o.scaleBytes, `${at}[${i}].scaleBytes`, 0, SCENARIO_LIMITS.denseBytes),
    };
  });
}

/**
 * The loaders and the runs, which together say how many threads a run starts: main, and
 * per run the uploader and the loaders. Past the thread limit a legal scenario would be
 * reported as LIMIT-THREADS, a leak the tier does not have.
 */
function parseThreads(
  r: JsonReader,
  o: JsonObject,
  p: (k: string) => string,
  later: Later,
  trunkRacer: boolean,
): { loaders: number; runs: 1 | 2 } {
  const loaders = r.int(o.loaders, p('loaders'), 1, SCENARIO_LIMITS.loaders);
  const runs = r.int(o.runs, p('runs'), 1, 2) === 2 ? 2 : 1;
  // the last run's other callers: the stats thread, the init racer (and its uploader), a second shutdown
  const extra =
    (later.statsThread > 0 ? 1 : 0) + (later.initRacer ? 2 : 0) + (later.secondShutdown ? 1 : 0) + (trunkRacer ? 1 : 0);
  const threads = 1 + runs * (1 + loaders) + extra;
  if (threads > DEFAULT_LIMITS.maxThreads) {
    r.fail(
      p('loaders'),
      `${loaders} loaders in ${runs} runs make ${threads} threads, past the limit of ${DEFAULT_LIMITS.maxThreads}`,
    );
  }
  return { loaders, runs };
}

type Later = typeof LATER_FEATURES_OFF;

/** The later features' fields, each off when missing. */
function parseLater(
  r: JsonReader,
  o: JsonObject,
  p: (k: string) => string,
  tokens: number,
  experts: number,
  topk: number,
): Later {
  const d = LATER_FEATURES_OFF;
  const opt = <T>(k: (typeof LATER_KEYS)[number], off: T, read: (v: unknown, at: string) => T): T =>
    o[k] === undefined ? off : read(o[k], p(k));
  return {
    syncUploads: opt('syncUploads', d.syncUploads, (v, at) => r.boolean(v, at)),
    evictCapacity: opt('evictCapacity', d.evictCapacity, (v, at) => r.int(v, at, 1, 1024)),
    evictedPoll: opt('evictedPoll', d.evictedPoll, (v, at) => r.int(v, at, 0, 1024)),
    replan: opt('replan', d.replan, (v, at) => parseReplan(r, v, at, tokens)),
    prefer: opt('prefer', d.prefer, (v, at) => parsePrefer(r, v, at, experts, topk)),
    statsThread: opt('statsThread', d.statsThread, (v, at) => r.int(v, at, 0, 1024)),
    initRacer: opt('initRacer', d.initRacer, (v, at) => r.boolean(v, at)),
    secondShutdown: opt('secondShutdown', d.secondShutdown, (v, at) => r.boolean(v, at)),
    tierOff: opt('tierOff', d.tierOff, (v, at) => r.boolean(v, at)),
  };
}

function parseReplan(r: JsonReader, v: unknown, at: string, tokens: number): ReplanPlan | null {
  if (v === null) return null;
  const o = r.object(v, at, ['form', 'maxSwaps', 'prefill'], ['again']);
  if (tokens === 0) r.fail(at, 're-plan needs at least one token of prompt');
  const prefill = r.int(o.prefill, `${at}.prefill`, 1, tokens);
  const plan = {
    form: r.oneOf(o.form, `${at}.form`, ['layer', 'table'] as const),
    maxSwaps: r.int(o.maxSwaps, `${at}.maxSwaps`, 0, 1024),
    prefill,
  };
  // a second prompt must end within the run's tokens
  return o.again === undefined ? plan : { ...plan, again: r.int(o.again, `${at}.again`, 0, tokens - prefill) };
}

function parsePrefer(r: JsonReader, v: unknown, at: string, experts: number, topk: number): PreferPlan | null {
  if (v === null) return null;
  const o = r.object(v, at, ['window', 'keep']);
  return { window: r.int(o.window, `${at}.window`, topk, experts), keep: r.int(o.keep, `${at}.keep`, 0, topk) };
}

function parseRoutes(
  r: JsonReader,
  v: unknown,
  at: string,
  layers: number,
  experts: number,
  topk: number,
): number[][][] {
  const tokens = r.array(v, at);
  if (tokens.length > SCENARIO_LIMITS.tokens)
    r.fail(at, `${tokens.length} tokens exceed the cap of ${SCENARIO_LIMITS.tokens}`);
  if (tokens.length * layers * topk > SCENARIO_LIMITS.routedPerRun) {
    r.fail(
      at,
      `${tokens.length} tokens x ${layers} layers x top${topk} exceed the cap of ${SCENARIO_LIMITS.routedPerRun} routed experts`,
    );
  }
  return tokens.map((t, ti) => {
    const perLayer = r.array(t, `${at}[${ti}]`);
    if (perLayer.length !== layers) r.fail(`${at}[${ti}]`, `has ${perLayer.length} layers, the scenario ${layers}`);
    return perLayer.map((l, li) => {
      const path = `${at}[${ti}][${li}]`;
      const eids = r.intArray(l, path, 0, experts - 1);
      if (eids.length !== topk) r.fail(path, `routes ${eids.length} experts, topk is ${topk}`);
      if (new Set(eids).size !== eids.length) r.fail(path, `routes an expert twice: [${eids.join(',')}]`);
      return eids;
    });
  });
}

function parseHeat(r: JsonReader, v: unknown, at: string, layers: number, experts: number): number[][] | null {
  if (v === null) return null;
  const rows = r.array(v, at);
  if (rows.length !== layers) r.fail(at, `has ${rows.length} layers, the scenario ${layers}`);
  return rows.map((row, l) => {
    const heats = r.intArray(row, `${at}[${l}]`, 0, SCENARIO_LIMITS.heat);
    if (heats.length !== experts) r.fail(`${at}[${l}]`, `has ${heats.length} experts, the scenario ${experts}`);
    return heats;
  });
}

function parseNoRam(
  r: JsonReader,
  v: unknown,
  at: string,
  layers: number,
  experts: number,
): { layer: number; eid: number }[] {
  return r.array(v, at).map((k, i) => {
    const o: JsonObject = r.object(k, `${at}[${i}]`, ['layer', 'eid']);
    return {
      layer: r.int(o.layer, `${at}[${i}].layer`, 0, layers - 1),
      eid: r.int(o.eid, `${at}[${i}].eid`, 0, experts - 1),
    };
  });
}

function parseShutdownAt(r: JsonReader, v: unknown, at: string, tokens: number, layers: number): ShutdownPoint | null {
  if (v === null) return null;
  const phase = r.oneOf((v as { phase?: unknown } | null)?.phase, `${at}.phase`, [
    'plan',
    'warmstart',
    'fill',
    'decode',
  ] as const);
  const o = r.object(
    v,
    at,
    phase === 'decode' ? ['phase', 'token', 'layer', 'groupOpen', 'thread'] : ['phase', 'thread'],
  );
  const thread = r.oneOf(o.thread, `${at}.thread`, ['caller', 'own'] as const);
  if (phase !== 'decode') return { phase, thread };
  if (tokens === 0) r.fail(at, 'a decode shutdown point needs at least one token');
  return {
    phase,
    token: r.int(o.token, `${at}.token`, 0, tokens - 1),
    layer: r.int(o.layer, `${at}.layer`, 0, layers - 1),
    groupOpen: r.boolean(o.groupOpen, `${at}.groupOpen`),
    thread,
  };
}

function parseFormat(r: JsonReader, v: unknown, at: string): ExpertFormat {
  const f = r.int(v, at, 1, 8);
  if (f !== 1 && f !== 2 && f !== 4 && f !== 8)
    r.fail(at, `${f} is not a format (1 int8 per row, 2 int4 per row, 4 int4 grouped, 8 fp8 block)`);
  return f;
}

function parseFaults(r: JsonReader, v: unknown, at: string): FaultPlan {
  const keys = FAULT_SITES.map((s) => faultKey(s));
  if (typeof v !== 'object' || v === null || Array.isArray(v)) r.fail(at, 'expected an object of fault sites');
  const o = v as JsonObject;
  for (const k of Object.keys(o))
    if (!(keys as string[]).includes(k)) r.fail(at, `unknown fault site "${k}" (known: ${keys.join(', ')})`);
  const list = (k: (typeof keys)[number]): number[] => {
    if (!(k in o)) return [];
    const idx = r.intArray(o[k], `${at}.${k}`, 0, SCENARIO_LIMITS.faultIndex);
    if (new Set(idx).size !== idx.length) r.fail(`${at}.${k}`, 'names a call twice');
    return idx;
  };
  return {
    uploadFails: list('uploadFails'),
    issueFails: list('issueFails'),
    takeFails: list('takeFails'),
    loadFails: list('loadFails'),
    stageFails: list('stageFails'),
    allocFails: list('allocFails'),
    syncFails: list('syncFails'),
    spawnFails: list('spawnFails'),
  };
}
