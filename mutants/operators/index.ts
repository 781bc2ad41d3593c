/**
 * The generic concurrency operators and the files they mutate: every operator applied to
 * every site of the tier's sources (src/tier/*.ts) and of the engine driver, one mutant
 * per site, id `op:NAME@FILE:LINE` (`#2`, `#3` when one line has several sites).
 *
 * Mutants are generated from the working tree's current text on every run, so they follow
 * the code; their span patches carry the text they expect, so a file that changed between
 * generation and application fails loudly.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MutantEntry } from '../lib/types.js';
import { parse } from './ast.js';
import { broadcastToSignal } from './broadcast_to_signal.js';
import { dropDecrement, dropIncrement } from './drop_counter.js';
import { dropLockPair } from './drop_lock_pair.js';
import { moveAfterUnlock, moveBeforeLock } from './move_out_of_section.js';
import type { Operator } from './operator.js';
import { removeBroadcast, removeSignal } from './remove_notify.js';
import { removeStopCheck } from './remove_stop_check.js';
import { swapStatements } from './swap_statements.js';
import { whileToIf } from './while_to_if.js';

export const OPERATORS: readonly Operator[] = [
  removeSignal,
  removeBroadcast,
  broadcastToSignal,
  whileToIf,
  dropLockPair,
  moveAfterUnlock,
  moveBeforeLock,
  dropIncrement,
  dropDecrement,
  removeStopCheck,
  swapStatements,
];

/** The files the operators mutate, relative to the repository root. */
export function operatorTargets(root: string): string[] {
  const tier = readdirSync(join(root, 'src/tier'))
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => `src/tier/${f}`);
  return [...tier, 'src/engine/driver.ts'];
}

export function generateOperatorMutants(root: string, files: readonly string[] = operatorTargets(root)): MutantEntry[] {
  const out: MutantEntry[] = [];
  const ids = new Map<string, number>();
  for (const file of files) {
    const sf = parse(file, readFileSync(join(root, file), 'utf8'));
    for (const op of OPERATORS) {
      for (const site of op.sites(sf)) {
        const base = `op:${op.name}@${file}:${site.line}`;
        const n = (ids.get(base) ?? 0) + 1;
        ids.set(base, n);
        const id = n === 1 ? base : `${base}#${n}`;
        out.push({
          kind: 'operator',
          source: `${file}:${site.line}`,
          ...(site.equivalent !== undefined ? { equivalent: site.equivalent } : {}),
          mutant: {
            id,
            title: site.what,
            history: `generated: ${op.summary}`,
            family: 'any',
            expectedProperties: [],
            patches: site.patches,
          },
        });
      }
    }
  }
  return out;
}
