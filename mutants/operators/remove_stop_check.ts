/**
 * Operator remove-stop-check: one `st.stop` in the condition of an `if` or a loop becomes
 * `false`: the code no longer notices shutdown there (a waiter that sleeps through it,
 * an enqueue that accepts work nobody will do, an issue after stop).
 */
import ts from 'typescript';
import { lineOf, replaceNode, walk } from './ast.js';
import { snippet, type Operator, type OperatorSite } from './operator.js';

function conditionOf(n: ts.Node): ts.Expression | undefined {
  if (ts.isIfStatement(n) || ts.isWhileStatement(n) || ts.isDoStatement(n)) return n.expression;
  if (ts.isForStatement(n)) return n.condition;
  return undefined;
}

export const removeStopCheck: Operator = {
  name: 'remove-stop-check',
  summary: 'replace one `st.stop` in a condition with `false`',
  sites(sf) {
    const out: OperatorSite[] = [];
    walk(sf, (n) => {
      const cond = conditionOf(n);
      if (cond === undefined) return;
      walk(cond, (e) => {
        if (!ts.isPropertyAccessExpression(e) || e.name.text !== 'stop') return;
        out.push({
          line: lineOf(sf, e),
          what: `\`${snippet(cond.getText(sf))}\`: ${e.getText(sf)} -> false`,
          patches: [replaceNode(sf, e, 'false')],
        });
      });
    });
    return out;
  },
};
