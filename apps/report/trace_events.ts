/**
 * Trace text -> typed events: the one place that reads the words a trace record holds.
 *
 * The grammar is the runtime's (model/rt/runtime.ts `record(...)`: sync ops, wakeups,
 * spawn/join/ends, `>`/`<` call marks, `#` marks, `!!` violations) and the simulated
 * world's `describe()` (model/sim_engine/sim_world.ts: backend and engine ops, `-> result`,
 * `FAILED`). That text is pinned byte for byte by the determinism guarantees, so matching
 * it here is stable.
 *
 * Invariant: every record parses to some event. Text this parser does not know becomes a
 * plain `op` (drawn as an op with its text), never an error and never dropped.
 */

export type CvName = 'cv' | 'cv_take';

export type TraceEvent =
  | { readonly kind: 'lock' }
  | { readonly kind: 'unlock' }
  | { readonly kind: 'wait'; readonly cv: CvName }
  | { readonly kind: 'signal'; readonly cv: CvName; readonly noWaiter: boolean }
  | { readonly kind: 'broadcast'; readonly cv: CvName; readonly waiting: number }
  | { readonly kind: 'woken'; readonly how: 'signal' | 'broadcast' | 'spurious'; readonly by: string | null }
  | { readonly kind: 'retake' }
  | { readonly kind: 'spawn'; readonly name: string; readonly tid: number }
  | { readonly kind: 'join'; readonly name: string }
  | { readonly kind: 'end' }
  | { readonly kind: 'call'; readonly fn: string; readonly arg: string | null }
  | { readonly kind: 'ret'; readonly fn: string; readonly value: string | null }
  | { readonly kind: 'mark'; readonly what: string; readonly detail: string | null }
  | { readonly kind: 'violation'; readonly property: string; readonly detail: string }
  | {
      readonly kind: 'op';
      /** the op's first word (`upload`, `issue`, ...) */
      readonly name: string;
      /** backend (device, staging, heat file), engine (route, RAM, CPU experts), or unknown */
      readonly family: 'backend' | 'engine' | 'other';
      /** the op without its result */
      readonly what: string;
      /** what it returned (`t3`, `s1`, `[0 2]`, `FAILED`), when the text says */
      readonly result: string | null;
      /** an injected or real failure (the text says FAILED) */
      readonly failed: boolean;
    };

/** first words of sim_world.describe(): which side of the world an op belongs to */
const BACKEND_OPS = new Set([
  'stage',
  'unstage',
  'upload',
  'uploadDense',
  'free',
  'input',
  'issue',
  'take',
  'denseGemv',
  'memInfo',
  'hostAlloc',
  'hostFree',
  'syncInit',
  'readHeat',
  'writeHeat',
  'backendShutdown',
]);
const ENGINE_OPS = new Set([
  'route',
  'ramOf',
  'loadRam',
  'freeRam',
  'recycle',
  'cpu',
  'combine',
  'finishToken',
  'trunkBegin',
  'attention',
  'denseCpu',
]);

function cvOf(s: string): CvName | null {
  return s === 'cv' || s === 'cv_take' ? s : null;
}

export function parseTraceText(text: string): TraceEvent {
  if (text === 'lock') return { kind: 'lock' };
  if (text === 'unlock') return { kind: 'unlock' };
  if (text === 'ends') return { kind: 'end' };
  if (text === 'wakes, re-takes mx') return { kind: 'retake' };
  let m = /^wait (\S+)$/.exec(text);
  if (m !== null) {
    const cv = cvOf(m[1] ?? '');
    if (cv !== null) return { kind: 'wait', cv };
  }
  m = /^signal (\S+)( \(no waiter\))?$/.exec(text);
  if (m !== null) {
    const cv = cvOf(m[1] ?? '');
    if (cv !== null) return { kind: 'signal', cv, noWaiter: m[2] !== undefined };
  }
  m = /^broadcast (\S+) \((\d+) waiting\)$/.exec(text);
  if (m !== null) {
    const cv = cvOf(m[1] ?? '');
    if (cv !== null) return { kind: 'broadcast', cv, waiting: Number(m[2]) };
  }
  m = /^woken \((signalled|broadcast) by (.+)\)$/.exec(text);
  if (m !== null) return { kind: 'woken', how: m[1] === 'signalled' ? 'signal' : 'broadcast', by: m[2] ?? null };
  if (text === 'woken (spurious)') return { kind: 'woken', how: 'spurious', by: null };
  m = /^spawn (.+) -> thread (\d+)$/.exec(text);
  if (m !== null) return { kind: 'spawn', name: m[1] ?? '', tid: Number(m[2]) };
  m = /^join (.+)$/.exec(text);
  if (m !== null) return { kind: 'join', name: m[1] ?? '' };
  m = /^> (\S+)(?: (.*))?$/.exec(text);
  if (m !== null) return { kind: 'call', fn: m[1] ?? '', arg: m[2] ?? null };
  m = /^< (\S+)(?: = (.*))?$/.exec(text);
  if (m !== null) return { kind: 'ret', fn: m[1] ?? '', value: m[2] ?? null };
  m = /^# (\S+)(?: (.*))?$/.exec(text);
  if (m !== null) return { kind: 'mark', what: m[1] ?? '', detail: m[2] ?? null };
  m = /^!! ([A-Z][A-Z0-9-]*): (.*)$/s.exec(text);
  if (m !== null) return { kind: 'violation', property: m[1] ?? '', detail: m[2] ?? '' };
  return parseOp(text);
}

/** A backend or engine op as sim_world.describe() prints it; unknown words stay a plain op. */
function parseOp(text: string): TraceEvent {
  const name = /^\S*/.exec(text)?.[0] ?? '';
  const family = BACKEND_OPS.has(name) ? 'backend' : ENGINE_OPS.has(name) ? 'engine' : 'other';
  const arrow = text.indexOf(' -> ');
  let what = text;
  let result: string | null = null;
  if (arrow >= 0) {
    what = text.slice(0, arrow);
    result = text.slice(arrow + 4);
  } else if (text.endsWith(' FAILED')) {
    // `issue dev0 [E1 E2] FAILED`, `take dev1 FAILED`: the failure is the result
    what = text.slice(0, -' FAILED'.length);
    result = 'FAILED';
  }
  return { kind: 'op', name, family, what, result, failed: /\bFAILED\b/.test(result ?? '') };
}

/** One line for people: the op and, apart, what it returned. */
export function describeEvent(e: TraceEvent, text: string): { op: string; result: string | null } {
  switch (e.kind) {
    case 'op':
      return { op: e.what, result: e.result };
    case 'ret':
      return { op: `return from ${e.fn}`, result: e.value };
    case 'spawn':
      return { op: `spawn ${e.name}`, result: `thread ${e.tid}` };
    default:
      return { op: text, result: null };
  }
}
