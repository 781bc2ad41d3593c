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
import { InputError } from '../../input/input_error.js';
import { TraceColumns } from './trace_columns.js';
import { scanTraceText } from './trace_scan.js';

/** The bytes of one log file, unpacked when it ends in .gz. */
function readBytes(file: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new InputError(file, `cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (!file.endsWith('.gz')) return bytes;
  try {
    return gunzipSync(bytes);
  } catch (e) {
    throw new InputError(file, `not a gzip file (${(e as Error).message})`);
  }
}

/** Text is decoded this many bytes at a time (cut at a line's end): a log may be larger than a string may be. */
const CHUNK = 32 << 20;

/** Every event of one file, in file order; appended to `into`. */
export function readTraceFile(file: string, into: TraceColumns = new TraceColumns()): TraceColumns {
  const bytes = readBytes(file);
  // the sink's lines are about 140 bytes: most logs fit without growing the columns again
  into.reserve(Math.ceil(bytes.length / 120));
  let line = 1;
  let at = 0;
  while (at < bytes.length) {
    let end = Math.min(at + CHUNK, bytes.length);
    if (end < bytes.length) {
      const nl = bytes.indexOf(10, end);
      end = nl < 0 ? bytes.length : nl + 1;
    }
    // latin1: every name and number of the schema is ASCII, and decoding it is the cheaper one
    line = scanTraceText(bytes.toString('latin1', at, end), file, line, into);
    at = end;
  }
  return into;
}

/** The logs the files make: one per file, or one of all (shards). */
export function readLogs(files: readonly string[], shards: boolean): { name: string; events: TraceColumns }[] {
  if (!shards) return files.map((f) => ({ name: f, events: readTraceFile(f) }));
  const all = new TraceColumns();
  for (const f of files) readTraceFile(f, all);
  return [{ name: files.join(' + '), events: all }];
}
