// Types of mutants/stryker/exclusions.mjs (plain JavaScript: Stryker loads its plugins without tsx).
export interface Exclusion {
  readonly file: string;
  readonly line: string;
  readonly mutators: readonly string[];
  readonly why: string;
  readonly matches?: number;
}
export declare const EXCLUSIONS: readonly Exclusion[];
export declare function linesOf(code: string, line: string): number[];
export declare function staleExclusions(file: string, code: string): Exclusion[];
export declare const ignorer: { shouldIgnore(path: unknown): string | undefined };
