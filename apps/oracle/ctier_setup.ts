/**
 * The oracle's choice of tier (`--tier ts|c`): which library the C tier is loaded from,
 * what the reports are called, and where each row's event log goes.
 *
 * Invariants: the C tier's reports never overwrite the TypeScript tier's (they are
 * oracle-<backend>-ctier.*); the C tier library defaults to the one beside the engine
 * library the oracle loaded (the build and the GPU bundle put them side by side), so
 * `--lib` alone moves both; a missing or foreign library is one line (exit 2).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CTierError, CTierLib } from '../../src/engine/native/ctier_binding.js';
import type { OracleRunSpec } from './oracle_run.js';

export type OracleTier = 'ts' | 'c';

/** The C tier over `backend`'s engine: `explicit`, else libtierlab_ctier_<backend>.so beside `engineLib`. */
export function openCTier(
  backend: string,
  engineLib: string,
  explicit: string | undefined,
  fail: (message: string) => never,
): CTierLib {
  const path = explicit ?? join(dirname(engineLib), `libtierlab_ctier_${backend}.so`);
  try {
    return new CTierLib(path);
  } catch (e) {
    return fail(e instanceof CTierError ? e.message : String(e));
  }
}

/** The report's base name: oracle-<backend>, or oracle-<backend>-ctier for the C tier. */
export function reportName(backend: string, tier: OracleTier): string {
  return tier === 'c' ? `oracle-${backend}-ctier` : `oracle-${backend}`;
}

/** A file name for a row: its position and its name in lower-case words. */
function slug(index: number, spec: OracleRunSpec): string {
  const words = spec.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return `${String(index).padStart(2, '0')}-${words}.ndjson`;
}

/** The folder of the rows' event logs (emptied first: one oracle's logs at a time), and
 *  each row's file in it by the row's position in `specs`. */
export function eventsFolder(reportDir: string, name: string, specs: readonly OracleRunSpec[]) {
  const dir = join(reportDir, `${name}-events`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // by name: an arranged row runs a copy of its spec with the shutdown or refill placed
  const at = (spec: OracleRunSpec): number => specs.findIndex((s) => s.name === spec.name);
  return { dir, path: (spec: OracleRunSpec): string => join(dir, slug(at(spec), spec)) };
}
