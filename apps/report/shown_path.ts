/**
 * A path as every command prints it: relative to the working directory when it lies inside
 * it (`reports/index.html`), absolute when it does not (a `--report` folder elsewhere).
 * One rule, so that a user can paste any path a command printed.
 */
import { isAbsolute, relative, resolve } from 'node:path';

export function shownPath(path: string): string {
  const rel = relative(process.cwd(), resolve(path));
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? resolve(path) : rel;
}
