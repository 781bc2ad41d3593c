/**
 * Operators move-after-unlock and move-before-lock (ConMAn's "shift critical region"):
 * the last statement of a critical section moves just past its `yield UNLOCK`, or the
 * first moves just before its `yield LOCK`. Trace marks are skipped (they are records,
 * not behaviour) and so are jumps (return, continue, break, throw).
 *
 * Note on the model: code between two yields runs atomically in the simulator, so a
 * statement moved right after an unlock still runs before any other thread moves; only
 * the checkers that run at the unlock see the difference. A statement moved before a
 * lock is different: the lock can block, and other threads run in between.
 */
import ts from 'typescript';
import { indentOf, isTraceMark, lineOf, statementLists, syncKindOf } from './ast.js';
import { moveEquivalence } from './commute.js';
import { snippet, type Operator, type OperatorSite } from './operator.js';

function movable(s: ts.Statement): boolean {
  if (syncKindOf(s) !== null || isTraceMark(s)) return false;
  return !(ts.isReturnStatement(s) || ts.isContinueStatement(s) || ts.isBreakStatement(s) || ts.isThrowStatement(s));
}

function equivalence(s: ts.Statement): { equivalent?: string } {
  const why = moveEquivalence(s);
  return why === null ? {} : { equivalent: why };
}

export const moveAfterUnlock: Operator = {
  name: 'move-after-unlock',
  summary: 'move the last statement of a critical section past its UNLOCK',
  sites(sf) {
    const out: OperatorSite[] = [];
    for (const stmts of statementLists(sf)) {
      stmts.forEach((unlock, j) => {
        if (syncKindOf(unlock) !== 'unlock') return;
        let i = j - 1;
        while (i >= 0 && stmts[i] !== undefined && isTraceMark(stmts[i] as ts.Statement)) i--;
        const s = stmts[i];
        if (s === undefined || !movable(s)) return;
        const text = s.getText(sf);
        out.push({
          line: lineOf(sf, s),
          what: `move \`${snippet(text)}\` after the UNLOCK on line ${lineOf(sf, unlock)}`,
          patches: [
            { file: sf.fileName, start: s.getStart(sf), end: s.getEnd(), expect: text, replace: '' },
            {
              file: sf.fileName,
              start: unlock.getEnd(),
              end: unlock.getEnd(),
              expect: '',
              replace: `\n${indentOf(sf, unlock)}${text}`,
            },
          ],
          ...equivalence(s),
        });
      });
    }
    return out;
  },
};

export const moveBeforeLock: Operator = {
  name: 'move-before-lock',
  summary: 'move the first statement of a critical section before its LOCK',
  sites(sf) {
    const out: OperatorSite[] = [];
    for (const stmts of statementLists(sf)) {
      stmts.forEach((lock, j) => {
        if (syncKindOf(lock) !== 'lock') return;
        let i = j + 1;
        while (i < stmts.length && stmts[i] !== undefined && isTraceMark(stmts[i] as ts.Statement)) i++;
        const s = stmts[i];
        if (s === undefined || !movable(s)) return;
        const text = s.getText(sf);
        const at = lock.getStart(sf);
        out.push({
          line: lineOf(sf, s),
          what: `move \`${snippet(text)}\` before the LOCK on line ${lineOf(sf, lock)}`,
          patches: [
            { file: sf.fileName, start: s.getStart(sf), end: s.getEnd(), expect: text, replace: '' },
            { file: sf.fileName, start: at, end: at, expect: '', replace: `${text}\n${indentOf(sf, lock)}` },
          ],
          ...equivalence(s),
        });
      });
    }
    return out;
  },
};
