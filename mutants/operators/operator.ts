/**
 * The shape of a concurrency mutation operator: given a parsed source file, every site it
 * applies to, each site one mutant (a set of span patches on that file).
 *
 * Operators are pure functions of the source text: the same text gives the same sites in
 * the same order, so a mutant id (`op:NAME@FILE:LINE`) names the same change every run
 * until the source changes.
 */
import type ts from 'typescript';
import type { SpanPatch } from '../lib/types.js';

export interface OperatorSite {
  /** 1-based line of the site (what the mutant id names) */
  readonly line: number;
  /** what the mutant does, in a few words, with the code it touches */
  readonly what: string;
  readonly patches: readonly SpanPatch[];
  /** equivalent by construction, and why (see mutants/equivalent.md) */
  readonly equivalent?: string;
}

export interface Operator {
  readonly name: string;
  /** one line: the operator in ConMAn's terms */
  readonly summary: string;
  sites(sf: ts.SourceFile): OperatorSite[];
}

/** The statement's text on one line, shortened, for titles. */
export function snippet(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > 70 ? `${one.slice(0, 67)}...` : one;
}
