/**
 * A defect of the native engine (mutants/native/README.md): find/replace patches on
 * native/ sources, the backends whose code they break, and the oracle runs that reach
 * the situation. The patches of every backend apply to the scratch copy together (each
 * must match exactly once); the library built is one backend's.
 */
import type { NativeBackend } from '../../src/engine/native/library_file.js';
import type { FindPatch } from './types.js';

export interface NativeDefect {
  /** the file name, without .ts */
  readonly id: string;
  readonly title: string;
  /** where the defect comes from, and what goes wrong */
  readonly history: string;
  readonly backends: readonly NativeBackend[];
  /** oracle runs (matrix row names, as --only matches them) that reach the situation */
  readonly runs: readonly string[];
  /** what should catch it */
  readonly caughtBy: string;
  /** environment the engine runs with (an upload mode that reaches the defect's code) */
  readonly env?: Readonly<Record<string, string>>;
  /** paths relative to the repository root, under native/ */
  readonly patches: readonly FindPatch[];
}
