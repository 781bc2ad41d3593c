/**
 * Operators remove-signal and remove-broadcast (ConMAn's "remove notify"): drop one
 * `yield SIGNAL_CV` / `yield BROADCAST_TAKE` (or an inline signal/broadcast op). A waiter
 * that needed that wakeup sleeps on: a lost wakeup, caught as deadlock or as a hang after
 * shutdown, unless another wakeup always follows on every path (then it is equivalent).
 */
import ts from 'typescript';
import { lineOf, removeStatement, syncKindOf, walk } from './ast.js';
import { snippet, type Operator, type OperatorSite } from './operator.js';

function removeNotify(kind: 'signal' | 'broadcast'): Operator {
  return {
    name: `remove-${kind}`,
    summary: `remove one ${kind} of a condition variable`,
    sites(sf) {
      const out: OperatorSite[] = [];
      walk(sf, (n) => {
        if (!ts.isExpressionStatement(n) || syncKindOf(n) !== kind) return;
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

export const removeSignal = removeNotify('signal');
export const removeBroadcast = removeNotify('broadcast');
