/**
 * Where the mutex is held, read from the source: critical sections as runs of adjacent
 * statements of one statement list.
 *
 * A list's statements after `yield LOCK` and before `yield UNLOCK` run with mx held, and
 * so do nested blocks inside them; functions named `*Locked` (enqueueLocked,
 * lfruTickLocked, ...) are called with mx held, so their bodies start held. This is a
 * syntactic approximation, good for choosing mutation sites: a branch that unlocks and
 * returns (`if (...) { yield UNLOCK; return; }`) leaves the code after it held, as it is.
 */
import ts from 'typescript';
import { syncKindOf } from './ast.js';

/** Statements of one list that run with mx held, in order, with no lock op among them. */
export type CriticalRun = ts.Statement[];

function nestedLists(s: ts.Node, out: ts.NodeArray<ts.Statement>[]): void {
  ts.forEachChild(s, (c) => {
    if (ts.isFunctionLike(c)) return; // a closure is not run here
    if (ts.isBlock(c) || ts.isCaseClause(c) || ts.isDefaultClause(c)) {
      out.push(c.statements);
      return;
    }
    nestedLists(c, out);
  });
}

function visitList(stmts: readonly ts.Statement[], heldAtStart: boolean, runs: CriticalRun[]): void {
  let held = heldAtStart;
  let run: ts.Statement[] = [];
  const flush = (): void => {
    if (run.length > 0) runs.push(run);
    run = [];
  };
  for (const s of stmts) {
    const k = syncKindOf(s);
    if (k === 'lock' || k === 'unlock') {
      flush();
      held = k === 'lock';
      continue;
    }
    if (held) run.push(s);
    else flush();
    const inner: ts.NodeArray<ts.Statement>[] = [];
    nestedLists(s, inner);
    for (const list of inner) visitList(list, held, runs);
  }
  flush();
}

export function criticalRuns(sf: ts.SourceFile): CriticalRun[] {
  const runs: CriticalRun[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body !== undefined && ts.isBlock(n.body)) {
      const name = n.name !== undefined && ts.isIdentifier(n.name) ? n.name.text : '';
      visitList(n.body.statements, name.endsWith('Locked'), runs);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  // a function nested in another is visited twice (once as part of its parent's lists,
  // where nestedLists stops at it, and once on its own): no duplicates arise
  return runs;
}

/** `yield LOCK` and the next `yield UNLOCK` of the same statement list. */
export interface LockPair {
  readonly lock: ts.Statement;
  readonly unlock: ts.Statement;
}

export function lockPairs(lists: readonly ts.NodeArray<ts.Statement>[]): LockPair[] {
  const out: LockPair[] = [];
  for (const stmts of lists) {
    for (let i = 0; i < stmts.length; i++) {
      const lock = stmts[i];
      if (lock === undefined || syncKindOf(lock) !== 'lock') continue;
      for (let j = i + 1; j < stmts.length; j++) {
        const s = stmts[j];
        if (s === undefined) break;
        const k = syncKindOf(s);
        if (k === 'lock') break;
        if (k === 'unlock') {
          out.push({ lock, unlock: s });
          break;
        }
      }
    }
  }
  return out;
}
