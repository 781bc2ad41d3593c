/**
 * Operator broadcast-to-signal (ConMAn's "notifyAll to notify"): a broadcast of `cv_take`
 * wakes one waiter instead of all. Several kinds of thread wait on `cv_take` (fill_wait,
 * note_block, note_planned, a parked swap, shutdown), so the one woken may be the wrong
 * one (on the gate's `gcv`: an exclusive section and a losing shutdown). The tier has no
 * SIGNAL_TAKE constant: the patch writes the op inline.
 */
import ts from 'typescript';
import { lineOf, replaceNode, syncKindOfYield, walk } from './ast.js';
import { snippet, type Operator, type OperatorSite } from './operator.js';

export const broadcastToSignal: Operator = {
  name: 'broadcast-to-signal',
  summary: 'turn a broadcast into a signal (wake one waiter, not all)',
  sites(sf) {
    const out: OperatorSite[] = [];
    walk(sf, (n) => {
      if (!ts.isYieldExpression(n) || syncKindOfYield(n) !== 'broadcast' || n.expression === undefined) return;
      const text = n.expression.getText(sf);
      const cv = /cv_take|TAKE/.test(text) ? 'cv_take' : /gcv|GCV/.test(text) ? 'gcv' : 'cv';
      out.push({
        line: lineOf(sf, n),
        what: `\`${snippet(n.getText(sf))}\` -> signal ${cv}`,
        patches: [replaceNode(sf, n.expression, `{ k: 'signal', cv: '${cv}' }`)],
      });
    });
    return out;
  },
};
