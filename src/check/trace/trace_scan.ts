/**
 * The fast path of reading a log: the lines the C tier's NDJSON sink writes (one flat JSON
 * object a line, integer and plain string values, no spaces) scanned in place, character
 * by character, with no intermediate object, string or array per line: a long decode
 * writes millions of events, and JSON.parse with a check of every field was the largest
 * cost of a check. A line the scanner does not recognise (another layout, escapes,
 * spaces, an unknown key or name, anything malformed) goes to parseTraceLine
 * (trace_event.ts), which accepts any valid line and names what is wrong with a bad one.
 *
 * Invariant: for every line, the scanner returns exactly what parseTraceLine returns, or
 * hands the line over to it.
 */
import { FN_NAMES, EVENT_KINDS, LOCKS, SOURCES } from '../replay/schema.js';
import { FN_NONE, NUM_FIELDS, type TraceColumns } from './trace_columns.js';
import { parseTraceLine } from './trace_event.js';

// the stored numeric columns: every number of the schema
const INT_KEYS = NUM_FIELDS;
const STR_KEYS = ['src', 'lk', 'ev', 'fn'] as const;
const F = Object.fromEntries(INT_KEYS.map((k, i) => [k, i])) as Record<(typeof INT_KEYS)[number], number>;
/** fields whose absence reads -1 */
const MINUS_ONE = ['id', 'layer', 'eid', 'dev', 'part', 'vlayer', 'veid'].map((k) => F[k as keyof typeof F]);

function hashOf(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return (h ^ s.length) | 0;
}

function table(words: readonly string[], offset: number): Map<number, number> {
  const m = new Map<number, number>();
  words.forEach((w, i) => {
    if (m.has(hashOf(w))) throw new Error(`trace_scan: two names share a hash: ${w}`);
    m.set(hashOf(w), i + offset);
  });
  return m;
}

const KEYS = table([...INT_KEYS, ...STR_KEYS], 0);
const WORDS = new Map<number, string>();
for (const w of [...EVENT_KINDS, ...LOCKS, ...SOURCES, ...FN_NAMES]) WORDS.set(hashOf(w), w);

/** Per-line scratch: the integer fields, which were present, the string fields. */
const vals = new Float64Array(INT_KEYS.length);
const present = new Uint8Array(INT_KEYS.length);
const strs: (string | undefined)[] = [undefined, undefined, undefined, undefined];

/** Scans text[start, end) into the scratch; false when the line is not in the sink's layout. */
function scanLine(text: string, start: number, end: number): boolean {
  vals.fill(0);
  present.fill(0);
  strs.fill(undefined);
  if (text.charCodeAt(start) !== 123 || text.charCodeAt(end - 1) !== 125) return false;
  let i = start + 1;
  while (i < end - 1) {
    if (text.charCodeAt(i) !== 34) return false;
    let h = 0;
    let j = i + 1;
    for (; j < end; j++) {
      const c = text.charCodeAt(j);
      if (c === 34) break;
      if (c === 92) return false;
      h = (Math.imul(h, 31) + c) | 0;
    }
    const field = KEYS.get((h ^ (j - i - 1)) | 0);
    if (field === undefined || text.charCodeAt(j + 1) !== 58) return false;
    i = j + 2;
    if (field >= INT_KEYS.length) {
      i = scanWord(text, i, end, field - INT_KEYS.length);
    } else {
      i = scanInt(text, i, end, field);
    }
    if (i < 0) return false;
    const c = text.charCodeAt(i);
    if (c === 44) i++;
    else if (c !== 125 || i !== end - 1) return false;
  }
  return true;
}

function scanWord(text: string, i: number, end: number, which: number): number {
  if (text.charCodeAt(i) !== 34) return -1;
  let h = 0;
  let j = i + 1;
  for (; j < end; j++) {
    const c = text.charCodeAt(j);
    if (c === 34) break;
    if (c === 92) return -1;
    h = (Math.imul(h, 31) + c) | 0;
  }
  const w = WORDS.get((h ^ (j - i - 1)) | 0);
  if (w === undefined || w.length !== j - i - 1) return -1;
  strs[which] = w;
  return j + 1;
}

function scanInt(text: string, i: number, end: number, field: number): number {
  let neg = false;
  if (text.charCodeAt(i) === 45) (neg = true), i++;
  let n = 0;
  const from = i;
  for (; i < end; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) break;
    n = n * 10 + d;
  }
  if (i === from || i - from > 15) return -1;
  vals[field] = neg ? -n : n;
  present[field] = 1;
  return i;
}

const COLUMN = INT_KEYS.map((k) => (NUM_FIELDS as readonly string[]).indexOf(k));
const SRC_CODE = new Map<string, number>(SOURCES.map((w, i) => [w, i]));
const LK_CODE = new Map<string, number>(LOCKS.map((w, i) => [w, i]));
const EV_CODE = new Map<string, number>(EVENT_KINDS.map((w, i) => [w, i]));
const FN_CODE = new Map<string, number>(FN_NAMES.map((w, i) => [w, i]));

/** The scratch into a new row, when it has what every event must (else false: the slow path decides). */
function store(cols: TraceColumns, file: number, line: number): boolean {
  const [src, lk, ev, fn] = strs;
  if (src === undefined || lk === undefined || ev === undefined) return false;
  if (!present[F.seq] || !present[F.tid] || !present[F.value] || !present[F.value2] || (vals[F.seq] ?? 0) < 1)
    return false;
  const s = SRC_CODE.get(src);
  const l = LK_CODE.get(lk);
  const e = EV_CODE.get(ev);
  const f = fn === undefined ? FN_NONE : FN_CODE.get(fn);
  if (s === undefined || l === undefined || e === undefined || f === undefined) return false;
  if (src === 'tier' && (lk === 'mx' || lk === 'x') && !present[F.inflight]) return false;
  if (src === 'tier' && lk === 'mx' && !present[F.sec]) return false;
  if ((ev === 'call' || ev === 'ret') && fn === undefined) return false;
  for (const k of MINUS_ONE) if (!present[k]) vals[k] = -1;
  const r = cols.row();
  for (let k = 0; k < COLUMN.length; k++) {
    const c = COLUMN[k] ?? -1;
    const col = c >= 0 ? cols.num[c] : undefined;
    if (col !== undefined) col[r] = vals[k] ?? 0;
  }
  cols.src[r] = s;
  cols.lk[r] = l;
  cols.ev[r] = e;
  cols.fn[r] = f;
  cols.fileOf[r] = file;
  cols.line[r] = line;
  return true;
}

/** Every line of `text` (lines numbered from `firstLine`) into the columns; the next line's number. */
export function scanTraceText(text: string, file: string, firstLine: number, cols: TraceColumns): number {
  const fi = cols.fileIndex(file);
  let line = firstLine;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    let stop = end;
    if (stop > start && text.charCodeAt(stop - 1) === 13) stop--;
    if (stop > start && !(scanLine(text, start, stop) && store(cols, fi, line)))
      cols.push(parseTraceLine(text.slice(start, stop), file, line));
    start = end + 1;
    line++;
  }
  return line;
}
