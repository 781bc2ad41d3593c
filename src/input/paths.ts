/**
 * Paths built from untrusted text (an option, an environment variable, a JSON field, a
 * mutant's patch): they may only name places inside the folder they are meant for.
 *
 * Invariants: `fileNamePart` returns a name with no separator and no leading dot, so it
 * can only name an entry of the directory it is joined to; `inside` returns the resolved
 * path only when it lies within `root` (never `root` itself), else throws an InputError.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { InputError } from './input_error.js';

/** `text` made safe as (part of) one file name: anything but [A-Za-z0-9._-] becomes '_'. */
export function fileNamePart(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, (dots) => '_'.repeat(dots.length));
}

/** `path` (relative to `root`, or absolute) resolved, if it lies inside `root`. */
export function inside(root: string, path: string, source: string): string {
  const full = resolve(root, path);
  const rel = relative(resolve(root), full);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new InputError(source, `${JSON.stringify(path)} leaves ${root}`);
  }
  return full;
}
