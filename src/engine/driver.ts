/**
 * The engine's use of the tier: init, warmstart, the decode loop, shutdown.
 *
 * Written once and run in both worlds: the simulator answers `route`, `cpuExpert` and
 * `combine` from a scenario and checks them; the real world runs the trunk and the
 * experts in native code. Either way the same tier code is driven the same way.
 *
 * The engine trusts the tier's contracts, as the seed engine does, and repairs nothing
 * the tier got wrong: the CPU computes exactly the experts whose mask bit is clear, and
 * after take exactly those of a group take reported lost. An expert the tier claimed
 * (mask bit set) whose output take neither returned nor reported lost is left missing,
 * and the combine check says so.
 *
 * Invariants the engine keeps (and the checkers verify):
 *  - `combine` receives the contributions in route order;
 *  - a RAM copy is freed only after the tier confirmed the expert resident and forgot
 *    the pointer (ownership-based free);
 *  - fill_wait is called only with no group open.
 *
 * Beside the decode thread, the engine may run other callers (engine_threads.ts): a
 * stats thread during decode and teardown, an init racing the final shutdown, a second
 * concurrent shutdown. With the tier never started (or off), the trunk is placed through
 * trunk_place and runs at DEAD; the second shutdown then starts before the placement, so
 * a shutdown at DEAD may find it under way and must wait for it.
 */
import {
  perform,
  type Contribution,
  type ExpertKey,
  type Gen,
  type InitResult,
  type RamRef,
  type RouteInfo,
  type Thread,
} from '../ops.js';
import type { Tier } from '../tier/tier.js';
import { chooseRoute, initRacer, secondShutdown, statsThread, trunkRacer } from './engine_threads.js';
import type { CarelessHabit } from './careless.js';
import { lmHeadIndex, trunkIndex, type TrunkPart } from './trunk_offers.js';

export interface DriverPlan {
  /** 'plan': plan_fill + loader threads + fill_wait; 'block': note_block in natural order */
  readonly warmstart: 'none' | 'plan' | 'block';
  readonly loaders: number;
  readonly tokens: number;
  readonly layers: number;
  /** fill_wait again after this token (between tokens, no group open); -1: never */
  readonly refillAfterToken: number;
  /** where the engine shuts the tier down early, as on an error or an interrupt (null:
   *  only at the end); the schedule decides where the other threads are by then */
  readonly shutdownAt: ShutdownPoint | null;
  /** run a resident dense GEMV while each group is in flight */
  readonly denseWhileGroupOpen: boolean;
  readonly streaming: boolean;
  readonly initTwice: boolean;
  /** careless habits within the contract (run_spec.ts) */
  readonly careless: readonly CarelessHabit[];
  readonly runs: 1 | 2;
  /** the int8 trunk: every trunk matrix through the tier (its device, or the CPU), with
   *  attention computed inside the layer's group window (native/MATH.md) */
  readonly trunkThroughTier: boolean;
  /** evicted_take after every token, at most this many (0: never) */
  readonly evictedPoll: number;
  readonly replan: ReplanPlan | null;
  readonly prefer: PreferPlan | null;
  /** rounds of the stats thread (0: none); it and the racers run in the last run only */
  readonly statsThread: number;
  readonly initRacer: boolean;
  readonly secondShutdown: boolean;
  /** the expert tier is never started: the trunk alone, through trunk_place */
  readonly tierOff: boolean;
  /** the first run's start is raced by a thread placing the trunk with trunk_place */
  readonly trunkRacer: boolean;
}

/**
 * Re-plan after the prompt: its first `prefill` tokens are counted per layer and expert;
 * the layer form calls replan after each layer's routing of the last prompt token, the
 * table form once after the prompt with the whole table; at most maxSwaps pairs a call.
 * stats_mark follows (the prefill/decode boundary). `again` (absent or 0: none) is a
 * second prompt of that many tokens right after the first (a follow-up request), counted
 * afresh and re-planned the same way, while the first prompt's pairs may still be pending.
 */
export interface ReplanPlan {
  readonly form: 'layer' | 'table';
  readonly maxSwaps: number;
  readonly prefill: number;
  readonly again?: number;
}

/** Where token `at` of a run stands in the prompts: outside them, inside, or at a last token. */
function promptAt(replan: ReplanPlan | null, at: number): 'decode' | 'prompt' | 'last' {
  if (replan === null) return 'decode';
  const again = replan.again ?? 0;
  if (at === replan.prefill - 1 || (again > 0 && at === replan.prefill + again - 1)) return 'last';
  return at < replan.prefill + again ? 'prompt' : 'decode';
}

/** Prefer-resident routing over the router's top-`window` candidates, the top `keep` kept. */
export interface PreferPlan {
  readonly window: number;
  readonly keep: number;
}

/**
 * Where an early shutdown happens, and who calls it: the thread that reaches the point
 * (the engine's exit path on the decode thread, possibly mid-token with its own group
 * open) or a thread of its own started there (a signal handler, a watchdog), which runs
 * concurrently with whatever the decode thread, the loaders and the uploader do next.
 *  - plan: before the warmstart plans (or, for note_block, before its first expert);
 *  - warmstart: while loaders and uploads are in flight (after layer 0 for note_block);
 *  - fill: just before fill_wait;
 *  - decode: at a token and layer, before the group is issued, or while it is open: a
 *    thread of its own starts right after the issue, the caller shuts down just before
 *    take (after the dense GEMVs and the CPU experts).
 */
export type ShutdownPoint =
  | { readonly phase: 'plan' | 'warmstart' | 'fill'; readonly thread: 'caller' | 'own' }
  | {
      readonly phase: 'decode';
      readonly token: number;
      readonly layer: number;
      readonly groupOpen: boolean;
      readonly thread: 'caller' | 'own';
    };

type Here =
  | { readonly phase: 'plan' | 'warmstart' | 'fill' }
  | { readonly phase: 'decode'; readonly token: number; readonly layer: number; readonly groupOpen: boolean };

/** The engine's run: which thread, if any, shut the tier down on its own; the other
 *  callers it started; the prompt's routing counts (re-plan). */
interface EngineRun {
  shutdownThread: number;
  /** the second shutdown's thread, once started (-1: not yet) */
  secondShutdown: number;
  readonly joins: number[];
  readonly counts: number[][];
}

function* maybeShutdown(tier: Tier, plan: DriverPlan, run: EngineRun, here: Here, only?: 'caller' | 'own'): Gen<void> {
  const at = plan.shutdownAt;
  if (at === null || at.phase !== here.phase || (only !== undefined && at.thread !== only)) return;
  if (at.phase === 'decode' && here.phase === 'decode') {
    if (at.token !== here.token || at.layer !== here.layer || at.groupOpen !== here.groupOpen) return;
  }
  if (at.thread === 'caller') {
    yield* tier.shutdown();
    return;
  }
  if (run.shutdownThread >= 0) return;
  run.shutdownThread = yield* perform({
    k: 'spawn',
    name: 'shutdown',
    body: function* () {
      yield* tier.shutdown();
    },
  });
}

export function* engineMain(tier: Tier, plan: DriverPlan): Gen<void> {
  for (let r = 0; r < plan.runs; r++) {
    // only the first run shuts down early; a second run starts from the first one's heat
    const runPlan = r === 0 ? plan : { ...plan, shutdownAt: null };
    yield* oneRun(tier, runPlan, r * plan.tokens, r === plan.runs - 1);
  }
}

const NEVER_STARTED: InitResult = { state: 'off', reason: 'the engine runs without the expert tier' };

function* spawned(name: string, body: Thread): Gen<number> {
  return yield* perform({ k: 'spawn', name, body });
}

function* oneRun(tier: Tier, plan: DriverPlan, firstToken: number, last: boolean): Gen<void> {
  const { layers, experts } = tier.st.cfg;
  const counts = Array.from({ length: layers }, () => new Array<number>(experts).fill(0));
  const run: EngineRun = { shutdownThread: -1, secondShutdown: -1, joins: [], counts };
  let started = NEVER_STARTED;
  // another thread places the trunk while the tier starts: its trunk_place is refused
  // while LIVE, while init's section is queued and while another placement is under way
  // or done; one that wins at DEAD is taken over (freed) by the init that follows
  let racer = -1;
  if (plan.trunkRacer && firstToken === 0) racer = yield* spawned('trunk-racer', () => trunkRacer(tier));
  if (!plan.tierOff) started = yield* tier.init();
  if (plan.initTwice && !plan.tierOff) {
    // a second init while active must change nothing; after a failed one it is a retry
    const again = yield* tier.init();
    if (started.state !== 'active') started = again;
  }
  if (started.state === 'off') yield { k: 'mark', what: 'tier-off', detail: started.reason };
  // the trunk works with the expert tier off: the engine places it itself, and a second
  // shutdown (another thread's exit path) may already race the placement, which it waits for
  if (started.state !== 'active' && tier.st.cfg.trunk.length > 0) {
    if (last && plan.secondShutdown) yield* startSecondShutdown(tier, run);
    yield* tier.trunkPlace();
  }
  // joined before the engine goes on: a placement after the final shutdown would be left
  if (racer >= 0) yield { k: 'join', tid: racer };
  if (started.state === 'active') {
    if (plan.warmstart === 'plan') yield* warmstartPlanned(tier, plan, run);
    if (plan.warmstart === 'block') yield* warmstartBlocking(tier, plan, run);
    if (plan.warmstart === 'none') yield* maybeShutdown(tier, plan, run, { phase: 'plan' });
  }
  if (last && plan.statsThread > 0) {
    const tid = yield* spawned('stats', () => statsThread(tier, plan.statsThread, plan.streaming));
    run.joins.push(tid);
  }
  for (let token = firstToken; token < firstToken + plan.tokens; token++) {
    for (let layer = 0; layer < plan.layers; layer++)
      yield* decodeLayer(tier, plan, run, token - firstToken, layer, token);
    if (plan.trunkThroughTier) yield* denseStep(tier, lmHeadIndex(plan.layers));
    yield { k: 'finishToken', token };
    if (token - firstToken === plan.refillAfterToken) yield* tier.fillWait();
    if (plan.replan !== null && promptAt(plan.replan, token - firstToken) === 'last') {
      yield* afterPrompt(tier, plan.replan, run);
      // the second prompt is counted afresh
      for (const row of run.counts) row.fill(0);
    }
    if (plan.evictedPoll > 0) yield* tier.evictedTake(plan.evictedPoll);
  }
  // the decode's hit rate, from the prefill/decode boundary on
  if (plan.replan !== null) yield* tier.stats();
  yield* exitPath(tier, plan, run, last);
}

/** The second shutdown's thread, started once: at the exit path, or racing a placement at DEAD. */
function* startSecondShutdown(tier: Tier, run: EngineRun): Gen<void> {
  if (run.secondShutdown >= 0) return;
  run.secondShutdown = yield* spawned('shutdown2', () => secondShutdown(tier));
  run.joins.push(run.secondShutdown);
}

/** The prompt is routed: the whole-table re-plan, then the prefill/decode boundary. */
function* afterPrompt(tier: Tier, replan: ReplanPlan, run: EngineRun): Gen<void> {
  if (replan.form === 'table')
    yield* tier.replan(
      -1,
      run.counts.map((row) => row.slice()),
      replan.maxSwaps,
    );
  yield* tier.statsMark();
}

/**
 * The exit path shuts down too, while a shutdown thread of its own may still be at it
 * (two concurrent calls: one does the work, the other waits for it and says 'already'),
 * an init may race it from a thread of its own (whose generation, if it won, the engine
 * shuts down once more), and a second shutdown may run beside it.
 */
function* exitPath(tier: Tier, plan: DriverPlan, run: EngineRun, last: boolean): Gen<void> {
  if (last && plan.initRacer) {
    const racer = yield* spawned('init-racer', () => initRacer(tier));
    run.joins.push(racer);
  }
  if (last && plan.secondShutdown) yield* startSecondShutdown(tier, run);
  yield* tier.shutdown();
  if (run.shutdownThread >= 0) yield { k: 'join', tid: run.shutdownThread };
  for (const tid of run.joins) yield { k: 'join', tid };
  if (last && plan.initRacer) yield* tier.shutdown();
}

function* warmstartPlanned(tier: Tier, plan: DriverPlan, run: EngineRun): Gen<void> {
  yield* maybeShutdown(tier, plan, run, { phase: 'plan' });
  const careless = (h: CarelessHabit): boolean => plan.careless.includes(h);
  let planned = yield* tier.planFill();
  // a careless engine asks again; what the second plan adds is handed over too
  if (careless('plan-twice')) {
    const more = yield* tier.planFill();
    planned = planned.concat(more);
  }
  const loaders: number[] = [];
  const n = Math.max(1, plan.loaders);
  for (let i = 0; i < n; i++) {
    const mine = planned.filter((_, j) => j % n === i);
    const again = careless('hand-over-twice') ? mine.slice(0, 1) : [];
    loaders.push(yield* perform({ k: 'spawn', name: `loader${i}`, body: () => loaderThread(tier, mine, again) }));
  }
  yield* maybeShutdown(tier, plan, run, { phase: 'warmstart' });
  for (const tid of loaders) yield { k: 'join', tid };
  yield* maybeShutdown(tier, plan, run, { phase: 'fill' });
  yield* tier.fillWait();
  if (careless('fill-wait-twice')) yield* tier.fillWait();
  if (careless('release-unplanned')) yield* releaseUnplanned(tier, planned);
  // ownership-based free: only what the tier confirms resident, after it forgot the pointer
  for (const key of planned) {
    if (yield* tier.releaseRam(key.layer, key.eid)) yield { k: 'freeRam', layer: key.layer, eid: key.eid };
  }
  const resident = yield* tier.residentCount();
  yield { k: 'mark', what: 'residency', detail: String(resident) };
}

/** A loader: hands its experts over, then (a careless one) hands `again` over a second time. */
function* loaderThread(tier: Tier, mine: readonly ExpertKey[], again: readonly ExpertKey[]): Gen<void> {
  // concat, not a spread: the searches compile thread code to ES5 without a spread helper
  for (const key of mine.concat(again)) {
    // materialize the RAM int8 copy the tier will stage from (a failed load hands over
    // null, and the tier gives the reservation back)
    const ram = yield* perform({ k: 'loadRam', layer: key.layer, eid: key.eid, why: 'warmstart' });
    yield* tier.notePlanned(key.layer, key.eid, ram);
  }
}

/** A careless engine hands back the RAM of an expert it never planned (the tier must say
 *  whether it is resident, and keep what it is not); the engine frees only what it may. */
function* releaseUnplanned(tier: Tier, planned: readonly ExpertKey[]): Gen<void> {
  const { layers, experts } = tier.st.cfg;
  for (let layer = 0; layer < layers; layer++) {
    for (let eid = 0; eid < experts; eid++) {
      if (planned.some((k) => k.layer === layer && k.eid === eid)) continue;
      if (yield* tier.releaseRam(layer, eid)) yield { k: 'freeRam', layer, eid };
      return;
    }
  }
}

function* warmstartBlocking(tier: Tier, plan: DriverPlan, run: EngineRun): Gen<void> {
  yield* maybeShutdown(tier, plan, run, { phase: 'plan' });
  const experts = tier.st.cfg.experts;
  for (let layer = 0; layer < plan.layers; layer++) {
    for (let eid = 0; eid < experts; eid++) {
      const ram = yield* perform({ k: 'ramOf', layer, eid });
      yield* tier.noteBlock(layer, eid, ram);
    }
    if (layer === 0) yield* maybeShutdown(tier, plan, run, { phase: 'warmstart' });
  }
  yield* maybeShutdown(tier, plan, run, { phase: 'fill' });
  yield* tier.fillWait();
}

/** RAM weights to compute an expert on the CPU: the lent copy, or a fresh one. */
function* ramForCpu(layer: number, eid: number, streaming: boolean): Gen<RamRef | null> {
  if (!streaming) {
    const ram = yield* perform({ k: 'ramOf', layer, eid });
    if (ram !== null) return ram;
  }
  return yield* perform({ k: 'loadRam', layer, eid, why: 'cpu' });
}

/** One trunk GEMV: on the device where the tier holds the matrix, else on the CPU. */
function* denseStep(tier: Tier, index: number): Gen<void> {
  if (!(yield* tier.denseMatmul(index))) yield { k: 'denseCpu', index };
}

/** The int8 trunk's attention, inside the layer's group window: its four projections
 *  through the tier, the scores and the KV cache in between on the CPU. */
function* attentionThroughTier(tier: Tier, token: number, layer: number): Gen<void> {
  const step = (part: TrunkPart) => denseStep(tier, trunkIndex(layer, part));
  yield* step('wq');
  yield* step('wk');
  yield* step('wv');
  yield { k: 'attention', token, layer };
  yield* step('wo');
}

/** One layer of one token; `at` is the token within this run, `token` the engine's step. */
function* decodeLayer(
  tier: Tier,
  plan: DriverPlan,
  run: EngineRun,
  at: number,
  layer: number,
  token: number,
): Gen<void> {
  yield* maybeShutdown(tier, plan, run, { phase: 'decode', token: at, layer, groupOpen: false });
  if (plan.trunkThroughTier) {
    // the norms of the layer's input, then the router, before the route is known
    yield { k: 'trunkBegin', token, layer };
    yield* denseStep(tier, trunkIndex(layer, 'router'));
  }
  const route = yield* routeOf(tier, plan, token, layer);
  const prompt = promptAt(plan.replan, at);
  if (plan.replan !== null && prompt !== 'decode') {
    const row = run.counts[layer];
    if (row !== undefined) for (const eid of route.eids) row[eid] = (row[eid] ?? 0) + 1;
    if (prompt === 'last' && plan.replan.form === 'layer')
      yield* tier.replan(layer, [(row ?? []).slice()], plan.replan.maxSwaps);
  }
  for (const eid of route.eids) {
    if (plan.streaming) {
      const ram = yield* perform({ k: 'loadRam', layer, eid, why: 'stream' });
      yield* tier.note(layer, eid, ram);
      if (ram !== null) yield { k: 'recycleRam', ram };
    } else {
      const ram = yield* perform({ k: 'ramOf', layer, eid });
      yield* tier.note(layer, eid, ram);
    }
  }
  const mask = yield* tier.issue(route);
  // a shutdown thread of its own starts as soon as the group is open, to race with the
  // dense GEMVs and the CPU experts; the caller's own exit path comes just before take
  yield* maybeShutdown(tier, plan, run, { phase: 'decode', token: at, layer, groupOpen: true }, 'own');
  if (plan.trunkThroughTier) yield* attentionThroughTier(tier, token, layer);
  if (plan.denseWhileGroupOpen) {
    for (let index = 0; index < tier.st.cfg.trunk.length; index++) yield* tier.denseMatmul(index);
  }
  const parts = new Array<Contribution | null>(route.eids.length).fill(null);
  yield* computeOnCpu(route, parts, (k) => mask[k] !== true, plan.streaming);
  yield* maybeShutdown(tier, plan, run, { phase: 'decode', token: at, layer, groupOpen: true }, 'caller');
  const taken = yield* tier.take(layer);
  route.eids.forEach((eid, k) => {
    const output = mask[k] === true ? taken.outputs.get(eid) : undefined;
    if (output !== undefined) parts[k] = { eid, output, where: 'gpu' };
  });
  // take reported a lost group: its experts are computed here, and only then
  if (!taken.ok) yield* computeOnCpu(route, parts, (k) => mask[k] === true && parts[k] === null, plan.streaming);
  const ordered: Contribution[] = [];
  for (const part of parts) if (part !== null) ordered.push(part);
  yield { k: 'combine', token, layer, parts: ordered };
}

/** The router's route, or with prefer-resident routing the engine's choice among its candidates. */
function* routeOf(tier: Tier, plan: DriverPlan, token: number, layer: number): Gen<RouteInfo> {
  const route = yield* perform({ k: 'route', token, layer });
  const cands = route.candidates;
  if (plan.prefer === null || cands === undefined) return route;
  const resident = yield* tier.prefer(layer, cands);
  const eids = chooseRoute(cands, resident, route.eids.length, plan.prefer.keep);
  return yield* perform({ k: 'routeChoose', token, layer, eids });
}

function* computeOnCpu(
  route: RouteInfo,
  parts: (Contribution | null)[],
  wanted: (k: number) => boolean,
  streaming: boolean,
): Gen<void> {
  for (let k = 0; k < route.eids.length; k++) {
    const eid = route.eids[k];
    if (eid === undefined || !wanted(k)) continue;
    const ram = yield* ramForCpu(route.layer, eid, streaming);
    const output = yield* perform({ k: 'cpuExpert', layer: route.layer, eid, ram, input: route.input });
    parts[k] = { eid, output, where: 'cpu' };
    if (streaming && ram !== null) yield { k: 'recycleRam', ram };
  }
}
