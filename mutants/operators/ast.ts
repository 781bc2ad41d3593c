/**
 * Small helpers over the TypeScript AST for the concurrency operators: what a sync op
 * statement looks like in the tier's source, where a statement sits, and how to remove
 * one without breaking the syntax around it.
 *
 * The tier yields sync ops as constants from src/tier/sync.ts (`yield LOCK;`,
 * `yield BROADCAST_TAKE;`) and, for the lifecycle gate's own mutex, src/tier/gate.ts
 * (`yield GLOCK;`, `yield BROADCAST_GCV;`); an inline op object (`yield { k: 'broadcast',
 * cv: 'cv_take' }`) is recognised too, so a refactor between the two styles keeps every
 * site visible. A section of gmx is a critical section like one of mx: the operators and
 * their equivalence rules treat both alike.
 */
import ts from 'typescript';
import type { SpanPatch } from '../lib/types.js';

export type SyncKind = 'lock' | 'unlock' | 'wait' | 'signal' | 'broadcast';

const CONSTANTS: Record<string, SyncKind> = {
  LOCK: 'lock',
  UNLOCK: 'unlock',
  WAIT_CV: 'wait',
  WAIT_TAKE: 'wait',
  SIGNAL_CV: 'signal',
  BROADCAST_TAKE: 'broadcast',
  GLOCK: 'lock',
  GUNLOCK: 'unlock',
  WAIT_GCV: 'wait',
  BROADCAST_GCV: 'broadcast',
};

export function parse(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
}

/** The op object literal's `k` value, if the expression is `{ k: '...' , ... }`. */
function literalKind(e: ts.Expression): string | null {
  if (!ts.isObjectLiteralExpression(e)) return null;
  for (const p of e.properties) {
    if (
      ts.isPropertyAssignment(p) &&
      ts.isIdentifier(p.name) &&
      p.name.text === 'k' &&
      ts.isStringLiteral(p.initializer)
    ) {
      return p.initializer.text;
    }
  }
  return null;
}

/** The sync op a `yield X` expression yields (not `yield*`), or null. */
export function syncKindOfYield(e: ts.Node): SyncKind | null {
  if (!ts.isYieldExpression(e) || e.asteriskToken !== undefined || e.expression === undefined) return null;
  const x = e.expression;
  if (ts.isIdentifier(x)) return CONSTANTS[x.text] ?? null;
  const k = literalKind(x);
  return k === 'lock' || k === 'unlock' || k === 'wait' || k === 'signal' || k === 'broadcast' ? k : null;
}

/** The sync op a statement `yield X;` yields, or null. */
export function syncKindOf(s: ts.Statement): SyncKind | null {
  return ts.isExpressionStatement(s) ? syncKindOfYield(s.expression) : null;
}

/** `yield { k: 'call' | 'ret' | 'mark', ... }`: trace records, never behaviour. */
export function isTraceMark(s: ts.Statement): boolean {
  if (!ts.isExpressionStatement(s) || !ts.isYieldExpression(s.expression) || s.expression.expression === undefined)
    return false;
  const k = literalKind(s.expression.expression);
  return k === 'call' || k === 'ret' || k === 'mark';
}

export function lineOf(sf: ts.SourceFile, node: ts.Node): number {
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

/** A statement whose parent holds a list of statements (so it can vanish without a trace). */
export function inStatementList(s: ts.Statement): boolean {
  const p = s.parent;
  return ts.isBlock(p) || ts.isSourceFile(p) || ts.isCaseClause(p) || ts.isDefaultClause(p) || ts.isModuleBlock(p);
}

/** Removes a statement: gone from a list, or an empty block where a statement is required. */
export function removeStatement(sf: ts.SourceFile, s: ts.Statement): SpanPatch {
  const start = s.getStart(sf);
  const end = s.getEnd();
  return { file: sf.fileName, start, end, expect: sf.text.slice(start, end), replace: inStatementList(s) ? '' : '{}' };
}

export function replaceNode(sf: ts.SourceFile, node: ts.Node, replace: string): SpanPatch {
  const start = node.getStart(sf);
  const end = node.getEnd();
  return { file: sf.fileName, start, end, expect: sf.text.slice(start, end), replace };
}

/** Every statement list in the file (blocks, the file itself, switch clauses). */
export function statementLists(sf: ts.SourceFile): ts.NodeArray<ts.Statement>[] {
  const out: ts.NodeArray<ts.Statement>[] = [sf.statements];
  const visit = (n: ts.Node): void => {
    if (ts.isBlock(n) || ts.isCaseClause(n) || ts.isDefaultClause(n) || ts.isModuleBlock(n)) out.push(n.statements);
    ts.forEachChild(n, visit);
  };
  ts.forEachChild(sf, visit);
  return out;
}

export function walk(node: ts.Node, fn: (n: ts.Node) => void): void {
  fn(node);
  ts.forEachChild(node, (c) => walk(c, fn));
}

/** The name of the function a node is in (for `*Locked` helpers: called with mx held). */
export function enclosingFunctionName(n: ts.Node): string | null {
  for (let p: ts.Node | undefined = n.parent; p !== undefined; p = p.parent) {
    if ((ts.isFunctionDeclaration(p) || ts.isMethodDeclaration(p)) && p.name !== undefined && ts.isIdentifier(p.name))
      return p.name.text;
    if (ts.isFunctionLike(p)) return null;
  }
  return null;
}

/** The indentation of the line a node starts on. */
export function indentOf(sf: ts.SourceFile, node: ts.Node): string {
  const start = node.getStart(sf);
  const lineStart = sf.text.lastIndexOf('\n', start - 1) + 1;
  const m = /^[ \t]*/.exec(sf.text.slice(lineStart, start));
  return m?.[0] ?? '';
}
