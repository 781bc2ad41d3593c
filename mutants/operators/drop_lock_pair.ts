/**
 * Operator drop-lock-pair (ConMAn's "remove synchronized block"): delete a `yield LOCK`
 * and the `yield UNLOCK` that closes it in the same block. The section then runs without
 * mx: a wait inside it, or an unlock on another path, breaks the sync discipline, and a
 * predicate checked without mx can lose a wakeup.
 */
import { lineOf, removeStatement, statementLists } from './ast.js';
import { lockPairs } from './critical.js';
import type { Operator } from './operator.js';

export const dropLockPair: Operator = {
  name: 'drop-lock-pair',
  summary: 'remove a LOCK and its UNLOCK (the critical section runs unlocked)',
  sites(sf) {
    return lockPairs(statementLists(sf)).map(({ lock, unlock }) => ({
      line: lineOf(sf, lock),
      what: `remove \`yield LOCK\` (line ${lineOf(sf, lock)}) and \`yield UNLOCK\` (line ${lineOf(sf, unlock)})`,
      patches: [removeStatement(sf, lock), removeStatement(sf, unlock)],
    }));
  },
};
