/**
 * The options the two kill-table commands share (`npm run native-defects`, `npm run
 * oracle-mutants`): the model, the tokens per oracle run and the report directory, read
 * the same way by both, with the same messages.
 *
 * Invariant: the fixture is a directory that exists (resolved), and the tokens a positive
 * integer, before anything is built or run.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { sharedOptions, usageError } from '../cli_args.js';

/** The options both commands parse (each adds its own). */
export const KILL_OPTIONS = sharedOptions('fixture', 'devices', 'tokens', 'report', 'backend');

/** The model both run the oracle on by default: the fp8 fixture, whose matrix reaches the most. */
export const KILL_FIXTURE = 'fixtures/tiny-moe-fp8';

export interface KillCommon {
  /** --fixture as given (the kill table's setup names it) */
  readonly fixtureArg: string;
  /** --fixture resolved */
  readonly fixture: string;
  readonly tokens: number;
  readonly report: string;
}

export function readKillCommon(
  tool: string,
  values: { fixture?: string | undefined; tokens?: string | undefined; report?: string | undefined },
): KillCommon {
  const fixtureArg = values.fixture ?? KILL_FIXTURE;
  const fixture = resolve(fixtureArg);
  if (!existsSync(fixture)) usageError(tool, `--fixture ${fixtureArg}: no such model directory`);
  const tokensArg = values.tokens ?? '32';
  const tokens = Number(tokensArg);
  if (!Number.isInteger(tokens) || tokens < 1)
    usageError(tool, `--tokens wants a positive integer, got '${tokensArg}'`);
  return { fixtureArg, fixture, tokens, report: values.report ?? 'reports' };
}
