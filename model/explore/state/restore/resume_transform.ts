/**
 * A TypeScript transform, run after the ES5 generator transform, that lets a snapshot
 * read and write a generator function's variables: every `__generator(this, body)` the
 * ES5 output returns gets two more arguments, a function returning the enclosing
 * function's parameters and `var`s as an array and one assigning them from such an
 * array (resumable_generator.ts keeps both). The generator transform hoists every
 * variable of a generator body into `var`s of the enclosing function, so these are all
 * of its locals; functions declared there cannot change and are left out.
 *
 * Invariant: the added functions only read and assign the names they list; the code
 * computes what it computed before.
 */
import type ts from 'typescript';

type GeneratorFunction = ts.FunctionDeclaration | ts.FunctionExpression;

export function resumeTransform(compiler: typeof ts): ts.TransformerFactory<ts.SourceFile> {
  const TS = compiler;
  return (ctx) => (sf) => {
    const visit = (node: ts.Node): ts.Node => {
      const isFn = TS.isFunctionDeclaration(node) || TS.isFunctionExpression(node);
      if (!isFn || node.body === undefined || generatorCall(TS, node.body) === null)
        return TS.visitEachChild(node, visit, ctx);
      // nested generators (the body's own functions) first, then this one's call
      const body = TS.visitEachChild(node.body, visit, ctx);
      return withBody(TS, ctx.factory, node, withLocalsAccess(ctx.factory, body, localNames(TS, node)));
    };
    return TS.visitNode(sf, visit) as ts.SourceFile;
  };
}

/** The body with its final `return __generator(this, body)` given the two access functions. */
function withLocalsAccess(f: ts.NodeFactory, body: ts.Block, names: readonly ts.Identifier[]): ts.Block {
  const last = body.statements[body.statements.length - 1] as ts.ReturnStatement;
  const call = last.expression as ts.CallExpression;
  const fn = (params: ts.ParameterDeclaration[], statements: ts.Statement[]): ts.Expression =>
    f.createFunctionExpression(
      undefined,
      undefined,
      undefined,
      undefined,
      params,
      undefined,
      f.createBlock(statements),
    );
  // the declared identifiers themselves: the compiler's generated names (_a, e_1) print right only so
  const getter = fn([], [f.createReturnStatement(f.createArrayLiteralExpression([...names]))]);
  const values = f.createIdentifier('__v');
  const setter = fn(
    [f.createParameterDeclaration(undefined, undefined, values)],
    names.map((n, i) => f.createExpressionStatement(f.createAssignment(n, f.createElementAccessExpression(values, i)))),
  );
  const withAccess = f.updateCallExpression(call, call.expression, undefined, [...call.arguments, getter, setter]);
  return f.updateBlock(body, [...body.statements.slice(0, -1), f.updateReturnStatement(last, withAccess)]);
}

function withBody(TS: typeof ts, f: ts.NodeFactory, node: GeneratorFunction, body: ts.Block): ts.Node {
  const { asteriskToken, typeParameters, parameters, type } = node;
  return TS.isFunctionDeclaration(node)
    ? f.updateFunctionDeclaration(
        node,
        node.modifiers,
        asteriskToken,
        node.name,
        typeParameters,
        parameters,
        type,
        body,
      )
    : f.updateFunctionExpression(
        node,
        node.modifiers,
        asteriskToken,
        node.name,
        typeParameters,
        parameters,
        type,
        body,
      );
}

/** The `__generator(...)` call a function body ends by returning, or null. */
function generatorCall(TS: typeof ts, body: ts.Block): ts.CallExpression | null {
  const last = body.statements[body.statements.length - 1];
  if (last === undefined || !TS.isReturnStatement(last) || last.expression === undefined) return null;
  const call = last.expression;
  if (!TS.isCallExpression(call) || !TS.isIdentifier(call.expression)) return null;
  return TS.idText(call.expression) === '__generator' ? call : null;
}

/** The function's parameters and the names its top-level `var` statements declare. */
function localNames(TS: typeof ts, fn: GeneratorFunction): ts.Identifier[] {
  const names: ts.Identifier[] = [];
  const add = (b: ts.BindingName): void => {
    if (TS.isIdentifier(b)) names.push(b);
    else for (const e of b.elements) if (!TS.isOmittedExpression(e)) add(e.name);
  };
  for (const p of fn.parameters) add(p.name);
  for (const st of fn.body?.statements ?? [])
    if (TS.isVariableStatement(st)) for (const d of st.declarationList.declarations) add(d.name);
  return names;
}
