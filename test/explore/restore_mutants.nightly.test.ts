/**
 * Going on from saved states finds what replaying finds on the tier's known defects: for
 * the catalogue mutants that the small or the medium configuration catches, a scratch
 * copy with the mutant applied runs the DPOR search with its state cache both ways
 * (restore_compare_child.ts), and the two agree on every schedule count, every state and
 * every violation with the choices that replay it. TIERLAB_RESTORE_MUTANTS=all compares
 * every catalogue mutant on both configurations (17 x 2 searches). Nightly (npm run
 * test:nightly): each comparison copies the sources and replays a search from the start,
 * a minute and more on two busy cores; restore.test.ts checks the unmutated tier.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { CAUGHT, restoreMatchesOnMutant } from './restore_mutants_case.js';

const ALL = process.env.TIERLAB_RESTORE_MUTANTS === 'all';
const IDS = ALL
  ? readdirSync(join(REPO_ROOT, 'mutants/catalogue'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.replace(/\.ts$/, ''))
  : [];
const CASES: readonly [string, string][] = ALL
  ? IDS.flatMap((id) => [[id, 'small-warmstart'] as [string, string], [id, 'medium'] as [string, string]])
  : CAUGHT;

describe('the DPOR search going on from saved states, on catalogue mutants', () => {
  for (const [id, scenario] of CASES)
    it(`finds what the replaying search finds: ${id} on ${scenario}`, () => restoreMatchesOnMutant(id, scenario));
});
