/**
 * Reading a JSON report that someone else wrote: parse it and check the fields the
 * renderer will read, so that a truncated file, a report of another version or a file
 * that is not a report at all becomes one line naming the file and the field, not a
 * crash deep inside a section. The file is read by the one reader (src/input/read_file.ts):
 * a regular file of a bounded size, UTF-8.
 */
import { InputError } from '../../src/input/input_error.js';
import { MAX_REPORT_BYTES, readInputJson } from '../../src/input/read_file.js';

export type FieldType =
  | 'string'
  | 'number'
  | 'boolean'
  | 'array'
  | 'object'
  | 'string?'
  | 'number?'
  | 'object?'
  | 'array?';

export type Shape = Readonly<Record<string, FieldType>>;

export class ReportInputError extends Error {}

function typeOk(v: unknown, t: FieldType): boolean {
  const nullable = t.endsWith('?');
  if (nullable && (v === null || v === undefined)) return true;
  const base = nullable ? t.slice(0, -1) : t;
  if (base === 'array') return Array.isArray(v);
  if (base === 'object') return typeof v === 'object' && v !== null && !Array.isArray(v);
  return typeof v === base;
}

/**
 * Throws ReportInputError naming the file, the path inside it (`suites[2].failure`) and
 * the first field that does not fit.
 */
export function checkShape(value: unknown, shape: Shape, file: string, path = ''): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ReportInputError(`${file}: ${path === '' ? 'the file' : path} is not a JSON object`);
  const o = value as Record<string, unknown>;
  for (const [k, t] of Object.entries(shape)) {
    const v = o[k];
    if (!typeOk(v, t))
      throw new ReportInputError(
        `${file}: ${path === '' ? '' : path + '.'}${k} should be ${t.replace('?', ' or null')}, is ${v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v}`,
      );
  }
}

/** Checks every element of an array field. */
export function checkEach(items: readonly unknown[], shape: Shape, file: string, path: string): void {
  items.forEach((x, i) => checkShape(x, shape, file, `${path}[${i}]`));
}

export function readJson(file: string): unknown {
  try {
    return readInputJson(file, { what: 'a report', maxBytes: MAX_REPORT_BYTES });
  } catch (e) {
    if (e instanceof InputError) throw new ReportInputError(e.message);
    throw e;
  }
}
