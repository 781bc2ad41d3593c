/**
 * Operator while-to-if: the loop around a condition-variable wait becomes an `if`.
 * Under Mesa semantics a woken waiter must re-check its predicate (another thread may
 * have run first, a broadcast wakes everyone, wakeups may be spurious), so the `if`
 * version goes on with a predicate that may be false again.
 */
import ts from 'typescript';
import { lineOf, syncKindOf, syncKindOfYield } from './ast.js';
import { snippet, type Operator, type OperatorSite } from './operator.js';

function waitsInBody(body: ts.Statement): boolean {
  if (ts.isBlock(body)) return body.statements.some((s) => syncKindOf(s) === 'wait');
  return ts.isExpressionStatement(body) && syncKindOfYield(body.expression) === 'wait';
}

export const whileToIf: Operator = {
  name: 'while-to-if',
  summary: 'turn the while around a wait into an if (no re-check after wakeup)',
  sites(sf) {
    const out: OperatorSite[] = [];
    const visit = (n: ts.Node): void => {
      if (ts.isWhileStatement(n) && waitsInBody(n.statement)) {
        const start = n.getStart(sf);
        out.push({
          line: lineOf(sf, n),
          what: `\`${snippet(n.getText(sf))}\` -> if`,
          patches: [{ file: sf.fileName, start, end: start + 'while'.length, expect: 'while', replace: 'if' }],
        });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
    return out;
  },
};
