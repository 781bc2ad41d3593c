/**
 * The one reader of the files tierlab is handed (scenarios, counterexamples, reports,
 * shard files, a fixture's manifest and weights, defect manifests): every such file is a
 * regular file of a size checked before it is read, so nothing hangs and nothing grows
 * without bound.
 *
 * Invariants: the file is opened without blocking (a named pipe with no writer does not
 * wait) and judged by what the open descriptor is, so a symbolic link to /dev/zero, a
 * pipe, a socket or a directory is refused with one sentence before a byte is read; at
 * most `maxBytes` + 1 bytes are ever read (a file that says it is small but reads longer,
 * as /proc files do, is cut off and refused); a file of an expected size is read exactly
 * that long. Text is UTF-8: a UTF-16 file or one with NUL bytes is refused as such, never
 * read as garbage. Every problem is an InputError naming the file.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { InputError } from './input_error.js';

/** a scenario or a counterexample: a few kilobytes when written by tierlab, generous for hand edits */
export const MAX_SCENARIO_BYTES = 4 << 20;
/** a fixture's manifest.json: its tensor table names every tensor of a tiny model */
export const MAX_MANIFEST_BYTES = 16 << 20;
/** a report, a shard file or a defect manifest tierlab wrote itself */
export const MAX_REPORT_BYTES = 256 << 20;

export interface ReadLimit {
  /** what the file is, for messages: "a scenario", "the manifest" */
  readonly what: string;
  /** the most bytes it may have */
  readonly maxBytes: number;
  /** the bytes it must have (a fixture's weights: the manifest's size) */
  readonly exactBytes?: number;
}

/** What a file that is not a regular file is, in words. */
function kindOf(s: Stats): string {
  if (s.isDirectory()) return 'a directory';
  if (s.isFIFO()) return 'a named pipe';
  if (s.isCharacterDevice()) return 'a character device (such as /dev/zero)';
  if (s.isBlockDevice()) return 'a block device';
  if (s.isSocket()) return 'a socket';
  return 'not a regular file';
}

function openForReading(file: string, what: string): number {
  try {
    // O_NONBLOCK: opening a named pipe with no writer returns at once instead of waiting
    return openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'missing' : code === 'EACCES' ? 'permission denied' : (code ?? String(e));
    throw new InputError(file, `cannot read ${what} (${why})`);
  }
}

/** Reads up to `limit` bytes from the start of `fd` (fewer at the end of the file). */
function readUpTo(fd: number, limit: number): Buffer {
  const buf = Buffer.allocUnsafe(Math.max(1, Math.min(limit, 1 << 20)));
  const parts: Buffer[] = [];
  let total = 0;
  while (total < limit) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, limit - total), null);
    if (n === 0) break;
    parts.push(Buffer.from(buf.subarray(0, n)));
    total += n;
  }
  return Buffer.concat(parts, total);
}

/** The bytes of `file`: a regular file within the limit, or an InputError naming the problem. */
export function readInputBytes(file: string, limit: ReadLimit): Buffer {
  const fd = openForReading(file, limit.what);
  try {
    const s = fstatSync(fd);
    if (!s.isFile()) throw new InputError(file, `is ${kindOf(s)}, not a file (${limit.what} must be a regular file)`);
    if (limit.exactBytes !== undefined && s.size !== limit.exactBytes)
      throw new InputError(file, `is ${s.size} bytes, but ${limit.what} must be ${limit.exactBytes} bytes`);
    if (s.size > limit.maxBytes)
      throw new InputError(file, `is ${s.size} bytes, over the ${limit.maxBytes} bytes ${limit.what} may have`);
    const cap = limit.exactBytes ?? limit.maxBytes;
    const bytes = readUpTo(fd, cap + 1);
    if (bytes.length > cap)
      throw new InputError(file, `reads longer than the ${cap} bytes ${limit.what} may have (it grew while read?)`);
    if (limit.exactBytes !== undefined && bytes.length !== limit.exactBytes)
      throw new InputError(file, `read ${bytes.length} bytes of ${limit.exactBytes} (it shrank while read?)`);
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/** The encoding a text file's first bytes show, when it is not UTF-8. */
function notUtf8(bytes: Buffer): string | null {
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)))
    return 'is UTF-16 text (it starts with a UTF-16 byte order mark); save it as UTF-8';
  const nul = bytes.indexOf(0);
  if (nul >= 0) return `has a NUL byte at offset ${nul} (UTF-16 text, or not text at all); tierlab reads UTF-8 text`;
  return null;
}

/** The text of `file`: UTF-8 (a leading byte order mark dropped), or an InputError. */
export function readInputText(file: string, limit: ReadLimit): string {
  const bytes = readInputBytes(file, limit);
  const problem = notUtf8(bytes);
  if (problem !== null) throw new InputError(file, problem);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InputError(file, 'is not UTF-8 text');
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The JSON value in `file`, read as readInputText reads it; malformed JSON is an InputError. */
export function readInputJson(file: string, limit: ReadLimit): unknown {
  const text = readInputText(file, limit);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new InputError(file, `cannot read ${limit.what} (not valid JSON: ${(e as Error).message})`);
  }
}
