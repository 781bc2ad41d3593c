/**
 * Reads free runs' event logs from disk for `npm run check-trace`: NDJSON files, plain or
 * gzip (by the `.gz` ending, through node:zlib), one event a line (blank lines allowed).
 * Each file is a log of its own unless the files are shards of one log, then they merge
 * into one order by seq (src/check/trace/trace_order.ts).
 *
 * Invariant: a file that cannot be read or unpacked, or a line that is not an event of
 * the schema, is one InputError naming the file (and the line): nothing half-read is
 * checked.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { InputError } from '../../src/input/input_error.js';
import { parseTraceLine, type TraceEvent } from '../../src/check/trace/trace_event.js';

/** The text of one log file, unpacked when it ends in .gz. */
function readText(file: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new InputError(file, `cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (!file.endsWith('.gz')) return bytes.toString('utf8');
  try {
    return gunzipSync(bytes).toString('utf8');
  } catch (e) {
    throw new InputError(file, `not a gzip file (${(e as Error).message})`);
  }
}

/** Every event of one file, in file order; appended to `into`. */
export function readTraceFile(file: string, into: TraceEvent[] = []): TraceEvent[] {
  const text = readText(file);
  let line = 1;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end > start && !(end === start + 1 && text.charCodeAt(start) === 13))
      into.push(parseTraceLine(text.slice(start, end), file, line));
    start = end + 1;
    line++;
  }
  return into;
}

/** The logs the files make: one per file, or one of all (shards). */
export function readLogs(files: readonly string[], shards: boolean): { name: string; events: TraceEvent[] }[] {
  if (!shards) return files.map((f) => ({ name: f, events: readTraceFile(f) }));
  const all: TraceEvent[] = [];
  for (const f of files) readTraceFile(f, all);
  return [{ name: files.join(' + '), events: all }];
}
