/**
 * Operators drop-increment and drop-decrement: remove one update of a protocol counter:
 * `inflight++/--`, `qn++/--`, `heat++`, and `used[d] = used[d] +/- bytes` (or `+=`/`-=`).
 * Statistics counters (`st.counters.*`) are left alone: no property reads them, so every
 * such mutant would be equivalent by construction.
 */
import ts from 'typescript';
import { lineOf, removeStatement, walk } from './ast.js';
import { snippet, type Operator, type OperatorSite } from './operator.js';

const COUNTERS = new Set(['inflight', 'qn', 'heat', 'used']);

function counterName(e: ts.Expression): string | null {
  if (ts.isPropertyAccessExpression(e) && COUNTERS.has(e.name.text)) return e.name.text;
  if (
    ts.isElementAccessExpression(e) &&
    ts.isPropertyAccessExpression(e.expression) &&
    COUNTERS.has(e.expression.name.text)
  ) {
    return e.expression.name.text;
  }
  return null;
}

/** +1 for an increment, -1 for a decrement, 0 for anything else. */
function direction(e: ts.Expression): number {
  if (ts.isPostfixUnaryExpression(e) || ts.isPrefixUnaryExpression(e)) {
    if (counterName(e.operand) === null) return 0;
    if (e.operator === ts.SyntaxKind.PlusPlusToken) return 1;
    if (e.operator === ts.SyntaxKind.MinusMinusToken) return -1;
    return 0;
  }
  if (!ts.isBinaryExpression(e) || counterName(e.left) === null) return 0;
  const op = e.operatorToken.kind;
  if (op === ts.SyntaxKind.PlusEqualsToken) return 1;
  if (op === ts.SyntaxKind.MinusEqualsToken) return -1;
  if (op !== ts.SyntaxKind.EqualsToken || !ts.isBinaryExpression(e.right)) return 0;
  if (e.right.operatorToken.kind === ts.SyntaxKind.PlusToken) return 1;
  if (e.right.operatorToken.kind === ts.SyntaxKind.MinusToken) return -1;
  return 0;
}

function dropCounter(dir: 1 | -1): Operator {
  const name = dir > 0 ? 'drop-increment' : 'drop-decrement';
  return {
    name,
    summary: `remove one ${dir > 0 ? 'increment' : 'decrement'} of inflight, qn, used[] or heat`,
    sites(sf) {
      const out: OperatorSite[] = [];
      walk(sf, (n) => {
        if (!ts.isExpressionStatement(n) || direction(n.expression) !== dir) return;
        out.push({
          line: lineOf(sf, n),
          what: `remove \`${snippet(n.getText(sf))}\``,
          patches: [removeStatement(sf, n)],
        });
      });
      return out;
    },
  };
}

export const dropIncrement = dropCounter(1);
export const dropDecrement = dropCounter(-1);
