/**
 * A TypeScript transform that makes a generator's program point and locals readable:
 * every `yield e` of a generator function becomes `yield __fr.at(pp, [locals...], e)`
 * (`yield*` alike), and the body opens a frame on the running thread's frame stack and
 * closes it on the way out (frames.ts). `pp` numbers the yields of the function; the
 * locals are every parameter and every variable declared before the yield in an
 * enclosing block of the same function (later ones are still in their temporal dead
 * zone). A suspended generator sits at exactly one yield, and its locals can only change
 * while it runs, so the values recorded at that yield are its locals while suspended.
 *
 * What this does not see: temporaries of an expression a yield is nested in (`f(a, yield
 * x)` holds `a`'s value). The thread code yields at statement level or as the whole right
 * side of an assignment or call argument whose other parts are variables or constants;
 * compile_threads.ts refuses a yield nested after a call or property read it cannot see.
 *
 * Invariant: the transformed code computes exactly what the original does (the extra
 * calls return their last argument and touch nothing but the frame).
 */
import type ts from 'typescript';

/** the compiler's runtime, given by the caller (compile_threads.ts loads it only when it compiles) */
let TS: typeof ts;

const FRAME = '__fr';

export interface TransformProblem {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/** Transformer factory for one file; problems found are pushed onto `problems`. */
export function localsTransform(
  compiler: typeof ts,
  file: string,
  problems: TransformProblem[],
): ts.TransformerFactory<ts.SourceFile> {
  TS = compiler;
  return (ctx) => (sf) => {
    let fnIndex = 0;
    const visit = (node: ts.Node): ts.Node => {
      if (isGenerator(node) && node.body !== undefined && TS.isBlock(node.body)) {
        return instrument(ctx, node, functionId(file, fnIndex++), visit, (y) => checkPlacement(sf, file, y, problems));
      }
      return TS.visitEachChild(node, visit, ctx);
    };
    return TS.visitNode(sf, visit) as ts.SourceFile;
  };
}

/** One generator: its yields record (pp, locals), its body runs inside a frame. */
function instrument(
  ctx: ts.TransformationContext,
  fn: GeneratorLike,
  fid: number,
  visit: (n: ts.Node) => ts.Node,
  check: (y: ts.YieldExpression) => void,
): ts.Node {
  const f = ctx.factory;
  let pp = 0;
  const inner = (node: ts.Node): ts.Node => {
    // a nested generator is instrumented on its own; other functions cannot yield
    if (isGenerator(node)) return visit(node);
    if (TS.isFunctionLike(node)) return TS.visitEachChild(node, visit, ctx);
    if (!TS.isYieldExpression(node)) return TS.visitEachChild(node, inner, ctx);
    check(node);
    const names = localsAt(node, fn);
    const value =
      node.expression !== undefined
        ? (TS.visitNode(node.expression, inner) as ts.Expression)
        : f.createIdentifier('undefined');
    const call = f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier(FRAME), 'at'), undefined, [
      f.createNumericLiteral(pp++),
      f.createArrayLiteralExpression(names.map((n) => f.createIdentifier(n))),
      value,
    ]);
    return node.asteriskToken !== undefined
      ? f.createYieldExpression(node.asteriskToken, call)
      : f.createYieldExpression(undefined, call);
  };
  const body = fn.body as ts.Block;
  const stmts = body.statements.map((st) => TS.visitNode(st, inner) as ts.Statement);
  const registry = f.createPropertyAccessExpression(f.createIdentifier('globalThis'), '__tierlabFrames');
  const enter = f.createCallExpression(f.createPropertyAccessExpression(registry, 'enter'), undefined, [
    f.createNumericLiteral(fid),
  ]);
  const open = f.createVariableStatement(
    undefined,
    f.createVariableDeclarationList(
      [f.createVariableDeclaration(FRAME, undefined, undefined, enter)],
      TS.NodeFlags.Const,
    ),
  );
  const close = f.createExpressionStatement(
    f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier(FRAME), 'exit'), undefined, []),
  );
  const newBody = f.updateBlock(body, [
    open,
    f.createTryStatement(f.createBlock(stmts, true), undefined, f.createBlock([close], true)),
  ]);
  return replaceBody(f, fn, newBody);
}

/**
 * Every sibling evaluated before the yield, up to its statement, must be a value the
 * locals show (a name, a literal, `this`); anything else is reported.
 */
function checkPlacement(sf: ts.SourceFile, file: string, y: ts.YieldExpression, problems: TransformProblem[]): void {
  const report = (b: ts.Node): void => {
    const { line } = sf.getLineAndCharacterOfPosition(y.getStart(sf));
    problems.push({ file, line: line + 1, text: b.getText(sf) });
  };
  let child: ts.Node = y;
  for (let p = y.parent; p !== undefined && !TS.isStatement(p); child = p, p = p.parent) {
    if ((TS.isCallExpression(p) || TS.isNewExpression(p)) && p.expression !== child && !isStable(p.expression, true)) {
      // the callee may be a method of a local (loaders.push): a function, not state
      report(p.expression);
    }
    for (const b of evaluatedBefore(p, child)) if (!isStable(b, false)) report(b);
  }
}

/** The operands of `p` evaluated before its operand `child`. */
function evaluatedBefore(p: ts.Node, child: ts.Node): readonly ts.Node[] {
  const upTo = (list: readonly ts.Node[]): ts.Node[] => {
    const i = list.indexOf(child);
    return i < 0 ? [] : list.slice(0, i);
  };
  if (TS.isCallExpression(p) || TS.isNewExpression(p)) return upTo(p.arguments ?? []);
  if (TS.isArrayLiteralExpression(p)) return upTo(p.elements);
  if (TS.isObjectLiteralExpression(p)) return upTo(p.properties);
  if (TS.isConditionalExpression(p) && p.condition !== child) return [p.condition];
  if (TS.isElementAccessExpression(p) && p.argumentExpression === child) return [p.expression];
  // (a && yield x): reaching the yield fixes a's value, and the result is x's
  if (
    TS.isBinaryExpression(p) &&
    p.right === child &&
    !shortCircuit(p.operatorToken.kind) &&
    p.operatorToken.kind !== TS.SyntaxKind.EqualsToken
  ) {
    return [p.left];
  }
  return [];
}

/** the operators whose right side may not run (read when a file is compiled) */
const shortCircuit = (kind: ts.SyntaxKind): boolean =>
  kind === TS.SyntaxKind.AmpersandAmpersandToken ||
  kind === TS.SyntaxKind.BarBarToken ||
  kind === TS.SyntaxKind.QuestionQuestionToken;

type GeneratorLike = ts.FunctionDeclaration | ts.FunctionExpression | ts.MethodDeclaration;

function isGenerator(node: ts.Node): node is GeneratorLike {
  return (
    (TS.isFunctionDeclaration(node) || TS.isFunctionExpression(node) || TS.isMethodDeclaration(node)) &&
    node.asteriskToken !== undefined
  );
}

function replaceBody(f: ts.NodeFactory, fn: GeneratorLike, body: ts.Block): ts.Node {
  if (TS.isFunctionDeclaration(fn))
    return f.updateFunctionDeclaration(
      fn,
      fn.modifiers,
      fn.asteriskToken,
      fn.name,
      fn.typeParameters,
      fn.parameters,
      fn.type,
      body,
    );
  if (TS.isFunctionExpression(fn))
    return f.updateFunctionExpression(
      fn,
      fn.modifiers,
      fn.asteriskToken,
      fn.name,
      fn.typeParameters,
      fn.parameters,
      fn.type,
      body,
    );
  return f.updateMethodDeclaration(
    fn,
    fn.modifiers,
    fn.asteriskToken,
    fn.name,
    fn.questionToken,
    fn.typeParameters,
    fn.parameters,
    fn.type,
    body,
  );
}

/** A value that cannot change while the generator is suspended: a name (its value is
 *  recorded as a local), a literal, `this`; as a callee also a method of such a value. */
function isStable(n: ts.Node, callee: boolean): boolean {
  if (TS.isParenthesizedExpression(n) || TS.isAsExpression(n) || TS.isNonNullExpression(n))
    return isStable(n.expression, callee);
  if (TS.isShorthandPropertyAssignment(n)) return true;
  if (TS.isPropertyAssignment(n)) return isStable(n.initializer, false);
  if (TS.isIdentifier(n) || n.kind === TS.SyntaxKind.ThisKeyword) return true;
  if (
    TS.isLiteralExpression(n) ||
    n.kind === TS.SyntaxKind.TrueKeyword ||
    n.kind === TS.SyntaxKind.FalseKeyword ||
    n.kind === TS.SyntaxKind.NullKeyword
  )
    return true;
  if (callee && TS.isPropertyAccessExpression(n)) return isStable(n.expression, false);
  return false;
}

/** Names visible at `y`: parameters, and declarations before it in enclosing blocks. */
function localsAt(y: ts.Node, fn: GeneratorLike): string[] {
  const names: string[] = [];
  let child: ts.Node = y;
  for (let p: ts.Node | undefined = y.parent; p !== undefined; child = p, p = p.parent) {
    if (TS.isBlock(p) || TS.isSourceFile(p) || TS.isCaseClause(p) || TS.isDefaultClause(p)) {
      for (const s of p.statements) {
        if (s === child) break;
        if (TS.isVariableStatement(s)) for (const d of s.declarationList.declarations) bindingNames(d.name, names);
      }
    } else if (
      TS.isForStatement(p) &&
      child !== p.initializer &&
      p.initializer !== undefined &&
      TS.isVariableDeclarationList(p.initializer)
    ) {
      for (const d of p.initializer.declarations) bindingNames(d.name, names);
    } else if (
      (TS.isForOfStatement(p) || TS.isForInStatement(p)) &&
      child === p.statement &&
      TS.isVariableDeclarationList(p.initializer)
    ) {
      for (const d of p.initializer.declarations) bindingNames(d.name, names);
    } else if (TS.isCatchClause(p) && child === p.block && p.variableDeclaration !== undefined) {
      bindingNames(p.variableDeclaration.name, names);
    }
    if (p === fn) {
      for (const param of fn.parameters) bindingNames(param.name, names);
      break;
    }
  }
  return names.filter((n, i) => !n.startsWith('__') && names.indexOf(n) === i);
}

function bindingNames(n: ts.BindingName, out: string[]): void {
  if (TS.isIdentifier(n)) out.push(n.text);
  else for (const e of n.elements) if (!TS.isOmittedExpression(e)) bindingNames(e.name, out);
}

/** A stable number for the i-th generator function of a file. */
function functionId(file: string, i: number): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < file.length; k++) h = Math.imul(h ^ file.charCodeAt(k), 0x01000193);
  return (Math.imul(h ^ i, 0x5bd1e995) >>> 0) & 0x3fffffff;
}
