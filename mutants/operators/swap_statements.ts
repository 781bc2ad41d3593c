/**
 * Operator swap-statements: two adjacent statements inside one critical section change
 * places (an order violation: publish before initialise, count before check, ...).
 *
 * Skipped, because the result would not compile or would be another operator: a pair
 * where one declares a name the other uses, a jump (return, continue, break, throw), a
 * trace mark, a lock op (moving across one is move-after-unlock / move-before-lock), two
 * identical statements. Pairs that provably commute are still listed, marked equivalent
 * with the rule that shows it (./commute.ts), and not run unless asked.
 */
import ts from 'typescript';
import { isTraceMark, lineOf } from './ast.js';
import { swapEquivalence } from './commute.js';
import { criticalRuns } from './critical.js';
import { snippet, type Operator, type OperatorSite } from './operator.js';

function declaredNames(s: ts.Statement): string[] {
  if (!ts.isVariableStatement(s)) return [];
  const names: string[] = [];
  const collect = (b: ts.BindingName): void => {
    if (ts.isIdentifier(b)) names.push(b.text);
    else for (const el of b.elements) if (!ts.isOmittedExpression(el)) collect(el.name);
  };
  for (const d of s.declarationList.declarations) collect(d.name);
  return names;
}

function mentions(s: ts.Statement, names: readonly string[], sf: ts.SourceFile): boolean {
  const text = s.getText(sf);
  return names.some((n) => new RegExp(`\\b${n}\\b`).test(text));
}

function isJump(s: ts.Statement): boolean {
  return ts.isReturnStatement(s) || ts.isContinueStatement(s) || ts.isBreakStatement(s) || ts.isThrowStatement(s);
}

export const swapStatements: Operator = {
  name: 'swap-statements',
  summary: 'swap two adjacent statements inside a critical section',
  sites(sf) {
    const out: OperatorSite[] = [];
    for (const run of criticalRuns(sf)) {
      for (let i = 0; i + 1 < run.length; i++) {
        const a = run[i];
        const b = run[i + 1];
        if (a === undefined || b === undefined) continue;
        if (isTraceMark(a) || isTraceMark(b) || isJump(a) || isJump(b)) continue;
        if (mentions(b, declaredNames(a), sf) || mentions(a, declaredNames(b), sf)) continue;
        const at = a.getText(sf);
        const bt = b.getText(sf);
        if (at === bt) continue;
        const equivalent = swapEquivalence(a, b);
        const start = a.getStart(sf);
        const end = b.getEnd();
        const between = sf.text.slice(a.getEnd(), b.getStart(sf));
        out.push({
          line: lineOf(sf, a),
          what: `swap \`${snippet(at)}\` and \`${snippet(bt)}\``,
          patches: [{ file: sf.fileName, start, end, expect: sf.text.slice(start, end), replace: bt + between + at }],
          ...(equivalent !== null ? { equivalent } : {}),
        });
      }
    }
    return out;
  },
};
