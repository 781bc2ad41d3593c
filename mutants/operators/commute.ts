/**
 * When swapping two adjacent statements of a critical section cannot change behaviour,
 * decided syntactically and conservatively (unsure means "may differ").
 *
 * Three rules (mutants/equivalent.md gives the argument for each):
 *  - E1: neither statement has a scheduling point (a yield other than a trace mark) and
 *    they commute: neither writes a name the other mentions, and every call in them is
 *    known not to write shared state. No thread can observe the order: mx is held across
 *    both, and in the simulator they even run in one atomic step.
 *  - E2: one is a signal or broadcast, the other has no scheduling point: the woken thread
 *    must re-take mx before it looks at anything, and mx is held until after both.
 *  - E3: both are signals or broadcasts (of the held mx's condition variables).
 *  - E4: one only declares locals from immutable data (no yield, pure calls, no mutable
 *    field of the tier state or of a slot), and the other does not mention them: where it
 *    is evaluated, under mx or not, before or after a wait, it computes the same values.
 *    The same rule makes moving such a statement across a lock op equivalent.
 * Names: `x` for a variable, `.x` for a property, so `slot.planned` and a local `planned`
 * are told apart.
 */
import ts from 'typescript';
import { isTraceMark, syncKindOf, walk } from './ast.js';

/** Calls that read only their arguments (or allocate): safe to reorder. */
const PURE_CALLS = new Set([
  'slotOf',
  'admits',
  'allocFootprint',
  'map',
  'slice',
  'indexOf',
  'includes',
  'floor',
  'ceil',
  'max',
  'min',
  'String',
  'Error',
  'RangeError',
  'Array',
  'from',
]);
/** Methods that write the object they are called on (and only it). */
const MUTATING_METHODS = new Set([
  'push',
  'pop',
  'shift',
  'unshift',
  'splice',
  'sort',
  'fill',
  'set',
  'delete',
  'clear',
]);

/** Fields of the tier state and of a slot that change after init (see src/tier/state.ts). */
const MUTABLE_FIELDS = new Set([
  'heat',
  'resident',
  'queued',
  'planned',
  'tensors',
  'ram',
  'budget',
  'used',
  'ring',
  'qh',
  'qt',
  'qn',
  'inflight',
  'stop',
  'uploaderTid',
  'issueOpen',
  'tick',
  'groups',
  'shutdownDone',
  'dense',
  'counters',
]);

function isFresh(e: ts.Expression): boolean {
  return ts.isNewExpression(e) || ts.isArrayLiteralExpression(e) || ts.isObjectLiteralExpression(e);
}

function lastName(e: ts.Expression): string | null {
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return `.${e.name.text}`;
  if (ts.isElementAccessExpression(e)) return lastName(e.expression);
  if (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e)) return lastName(e.expression);
  return null;
}

interface Effects {
  /** a scheduling point (a yield that is not a trace mark), or a call we cannot vouch for */
  opaque: boolean;
  writes: Set<string>;
  /** names the statement declares (a write no other statement can have seen yet) */
  declares: Set<string>;
  names: Set<string>;
  /** texts of the jumps out of the statement (return, break, continue, throw) */
  jumps: Set<string>;
}

function isAssignment(k: ts.SyntaxKind): boolean {
  return k >= ts.SyntaxKind.FirstAssignment && k <= ts.SyntaxKind.LastAssignment;
}

export function effectsOf(s: ts.Statement): Effects {
  const fx: Effects = { opaque: false, writes: new Set(), declares: new Set(), names: new Set(), jumps: new Set() };
  if (isTraceMark(s)) return fx;
  walk(s, (n) => {
    if (ts.isIdentifier(n))
      fx.names.add(ts.isPropertyAccessExpression(n.parent) && n.parent.name === n ? `.${n.text}` : n.text);
    if (ts.isYieldExpression(n)) {
      const markOnly =
        n.asteriskToken === undefined &&
        n.expression !== undefined &&
        ts.isObjectLiteralExpression(n.expression) &&
        /k: '(call|ret|mark)'/.test(n.expression.getText());
      if (!markOnly) fx.opaque = true;
    }
    if (ts.isBinaryExpression(n) && isAssignment(n.operatorToken.kind)) {
      const w = lastName(n.left);
      if (w === null) fx.opaque = true;
      else fx.writes.add(w);
    }
    if (
      (ts.isPostfixUnaryExpression(n) || ts.isPrefixUnaryExpression(n)) &&
      (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken)
    ) {
      const w = lastName(n.operand);
      if (w === null) fx.opaque = true;
      else fx.writes.add(w);
    }
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) {
      fx.writes.add(n.name.text);
      fx.declares.add(n.name.text);
    }
    if (ts.isReturnStatement(n) || ts.isBreakStatement(n) || ts.isContinueStatement(n) || ts.isThrowStatement(n)) {
      fx.jumps.add(n.getText().replace(/\s+/g, ' '));
    }

    if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
      const callee = n.expression;
      const name = (lastName(callee) ?? '').replace(/^\./, '');
      if (MUTATING_METHODS.has(name) && ts.isPropertyAccessExpression(callee)) {
        // a method that writes its receiver: a write of that name, unless it was just made
        if (!isFresh(callee.expression)) {
          const target = lastName(callee.expression);
          if (target === null) fx.opaque = true;
          else fx.writes.add(target);
        }
      } else if (!PURE_CALLS.has(name)) {
        fx.opaque = true;
      }
    }
  });
  return fx;
}

function isNotify(s: ts.Statement): boolean {
  const k = syncKindOf(s);
  return k === 'signal' || k === 'broadcast';
}

/** E4: declares locals only, from immutable data (see the rule at the top). */
export function isLocalOnly(s: ts.Statement): boolean {
  if (!ts.isVariableStatement(s)) return false;
  const f = effectsOf(s);
  if (f.opaque || f.jumps.size > 0) return false;
  if ([...f.writes].some((w) => !f.declares.has(w))) return false;
  return ![...f.names].some((n) => n.startsWith('.') && MUTABLE_FIELDS.has(n.slice(1)));
}

const E4 =
  'E4: declares locals from immutable data only, and the other statement does not use them: same values wherever it runs';

/** Why moving `s` across a lock op is equivalent; null when it may not be. */
export function moveEquivalence(s: ts.Statement): string | null {
  return isLocalOnly(s) ? E4 : null;
}

/** Why swapping a and b (adjacent, mx held across both) is equivalent; null when it may not be. */
export function swapEquivalence(a: ts.Statement, b: ts.Statement): string | null {
  if (isNotify(a) && isNotify(b))
    return 'E3: two notifications under one critical section: nobody woken runs before the unlock';
  const fa = effectsOf(a);
  const fb = effectsOf(b);
  const uses = (f: Effects, names: Set<string>): boolean => [...names].some((n) => f.names.has(n));
  if ((isLocalOnly(a) && !uses(fb, fa.declares)) || (isLocalOnly(b) && !uses(fa, fb.declares))) return E4;
  if ((isNotify(a) && !fb.opaque) || (isNotify(b) && !fa.opaque)) {
    return 'E2: a notification and a statement without a scheduling point, both under mx: the woken thread must re-take mx first';
  }
  if (isNotify(a) || isNotify(b) || fa.opaque || fb.opaque) return null;
  for (const w of fa.writes) if (fb.names.has(w)) return null;
  for (const w of fb.writes) if (fa.names.has(w)) return null;
  // a jump in one skips the other's effects when it is taken: fine only if the other
  // writes nothing but the names it declares, or both jump the same way and write nothing
  const onlyDeclares = (f: Effects): boolean => [...f.writes].every((w) => f.declares.has(w));
  if (fa.jumps.size > 0 && fb.jumps.size > 0) {
    const same = fa.jumps.size === fb.jumps.size && [...fa.jumps].every((j) => fb.jumps.has(j));
    if (!same || fa.writes.size > 0 || fb.writes.size > 0) return null;
  } else if (fa.jumps.size > 0 && !onlyDeclares(fb)) {
    return null;
  } else if (fb.jumps.size > 0 && !onlyDeclares(fa)) {
    return null;
  }
  return 'E1: no scheduling point in either, and neither writes a name the other mentions: they commute under mx';
}
