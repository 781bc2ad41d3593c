/**
 * One line of a free run's event log (native/tier/EVENTS.md: NDJSON, one tt_event a
 * line), read into a flat record the trace check walks. A free run is a run with real
 * threads and no scheduler: the log is the only record of it.
 *
 * Invariants: a line is accepted only whole: a JSON object with `seq`, `src`, `lk`, `tid`,
 * `ev`, `value`, `value2` of the schema's types and names, and, for a tier event under
 * `mx` or an exclusive section, the protocol variables it must carry; anything else is an
 * InputError naming the file and line. Fields a kind does not carry read -1 (keys,
 * devices, parts, ids) or 0 (counters), as the C side fills them.
 */
import { InputError } from '../../input/input_error.js';
import { EVENT_KINDS, LOCKS, SOURCES, type EventKind, type LockName, type Source } from '../replay/schema.js';

export interface TraceEvent {
  readonly seq: number;
  readonly src: Source;
  readonly lk: LockName;
  readonly tid: number;
  readonly ev: EventKind;
  /** the entry point of a call or ret ('' otherwise) */
  readonly fn: string;
  readonly sec: number;
  /** the seq of the thread's last locked event (events outside the tier's locks; 0: none) */
  readonly after: number;
  readonly id: number;
  readonly layer: number;
  readonly eid: number;
  readonly dev: number;
  readonly part: number;
  readonly vlayer: number;
  readonly veid: number;
  readonly value: number;
  readonly value2: number;
  readonly inflight: number;
  readonly qn: number;
  readonly waiters: number;
  readonly tick: number;
  readonly flags: number;
  readonly vflags: number;
  readonly used: number;
  readonly budget: number;
  readonly life: number;
  readonly live: number;
  /** the expert's heat (tier events about one expert); the gate's want_x and x (gate events) */
  readonly heat: number;
  readonly want_x: number;
  readonly x: number;
  /** where the line came from, for a divergence's report */
  readonly file: string;
  readonly line: number;
}

const KINDS = new Set<string>(EVENT_KINDS);
const SRCS = new Set<string>(SOURCES);
const LKS = new Set<string>(LOCKS);
/** the variables every tier event under mx (or an exclusive section) carries */
const SNAPSHOT = ['inflight', 'qn', 'waiters', 'tick', 'flags'] as const;

type Obj = Record<string, unknown>;

function bad(file: string, line: number, problem: string): never {
  throw new InputError(`${file}:${line}`, problem);
}

function int(o: Obj, k: string, file: string, line: number, absent: number): number {
  const v = o[k];
  if (v === undefined) return absent;
  if (typeof v !== 'number' || !Number.isInteger(v)) bad(file, line, `"${k}" must be an integer, got ${String(v)}`);
  return v;
}

function word(o: Obj, k: string, set: ReadonlySet<string>, file: string, line: number): string {
  const v = o[k];
  if (typeof v !== 'string') bad(file, line, `"${k}" must be a string, got ${v === undefined ? 'nothing' : String(v)}`);
  if (!set.has(v)) bad(file, line, `"${k}" is "${v}", not a name of the schema`);
  return v;
}

/** Parses one line; throws an InputError naming `file:line` on anything malformed. */
export function parseTraceLine(text: string, file: string, line: number): TraceEvent {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    bad(file, line, `not a JSON object: ${text.length > 60 ? `${text.slice(0, 60)}...` : text}`);
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) bad(file, line, 'not a JSON object');
  const r = o as Obj;
  for (const k of ['seq', 'tid', 'value', 'value2'])
    if (r[k] === undefined) bad(file, line, `missing "${k}" (every event has seq, src, lk, tid, ev, value, value2)`);
  const seq = int(r, 'seq', file, line, 0);
  if (seq < 1) bad(file, line, `"seq" must be at least 1, got ${seq}`);
  const src = word(r, 'src', SRCS, file, line) as Source;
  const lk = word(r, 'lk', LKS, file, line) as LockName;
  const ev = word(r, 'ev', KINDS, file, line) as EventKind;
  if (src === 'tier' && (lk === 'mx' || lk === 'x'))
    for (const k of SNAPSHOT) if (r[k] === undefined) bad(file, line, `a tier event under ${lk} must carry "${k}"`);
  if (src === 'tier' && lk === 'mx' && r.sec === undefined) bad(file, line, 'a tier event under mx must carry "sec"');
  const fn = r.fn;
  if ((ev === 'call' || ev === 'ret') && typeof fn !== 'string') bad(file, line, `a ${ev} must name its "fn"`);
  return {
    seq,
    src,
    lk,
    tid: int(r, 'tid', file, line, 0),
    ev,
    fn: typeof fn === 'string' ? fn : '',
    sec: int(r, 'sec', file, line, 0),
    after: int(r, 'after', file, line, 0),
    id: int(r, 'id', file, line, -1),
    layer: int(r, 'layer', file, line, -1),
    eid: int(r, 'eid', file, line, -1),
    dev: int(r, 'dev', file, line, -1),
    part: int(r, 'part', file, line, -1),
    vlayer: int(r, 'vlayer', file, line, -1),
    veid: int(r, 'veid', file, line, -1),
    value: int(r, 'value', file, line, 0),
    value2: int(r, 'value2', file, line, 0),
    inflight: int(r, 'inflight', file, line, 0),
    qn: int(r, 'qn', file, line, 0),
    waiters: int(r, 'waiters', file, line, 0),
    tick: int(r, 'tick', file, line, 0),
    flags: int(r, 'flags', file, line, 0),
    vflags: int(r, 'vflags', file, line, 0),
    used: int(r, 'used', file, line, 0),
    budget: int(r, 'budget', file, line, 0),
    life: int(r, 'life', file, line, 0),
    live: int(r, 'live', file, line, 0),
    heat: int(r, 'heat', file, line, 0),
    want_x: int(r, 'want_x', file, line, 0),
    x: int(r, 'x', file, line, 0),
    file,
    line,
  };
}

/** The event as a reader names it: `seq 35 (log.ndjson:12) thread 2 dequeue L0E0`. */
export function describeEvent(e: TraceEvent): string {
  const key = e.layer >= 0 && e.eid >= 0 ? ` L${e.layer}E${e.eid}` : '';
  const fn = e.fn !== '' ? ` ${e.fn}` : '';
  const victim = e.vlayer >= 0 ? ` <- L${e.vlayer}E${e.veid}` : '';
  const dev = e.dev >= 0 && key === '' ? ` dev${e.dev}` : '';
  return `seq ${e.seq} (${e.file}:${e.line}) thread ${e.tid} ${e.ev}${fn}${key}${victim}${dev}`;
}
