/**
 * Applying a mutant's patches to source text, in memory.
 *
 * Invariant: a patch that does not apply fails loudly, naming the mutant, the file and
 * the text it looked for; it never silently does nothing. A `find` must match exactly
 * once (zero matches: the tier was refactored under the mutant; two or more: the mutant
 * is ambiguous). Several patches to one file apply in order, each to the text the
 * previous ones left; span patches to one file apply from the last span to the first so
 * that earlier offsets stay valid, and they may not overlap.
 */
import { isFindPatch, type FindPatch, type Mutant, type SpanPatch } from './types.js';

export class PatchError extends Error {
  constructor(
    readonly mutantId: string,
    readonly file: string,
    message: string,
  ) {
    super(`mutant '${mutantId}': ${file}: ${message}`);
    this.name = 'PatchError';
  }
}

function countOccurrences(text: string, find: string): number {
  if (find.length === 0) return Infinity;
  let n = 0;
  for (let at = text.indexOf(find); at >= 0; at = text.indexOf(find, at + 1)) n++;
  return n;
}

function preview(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > 80 ? `${one.slice(0, 77)}...` : one;
}

function applyFind(id: string, text: string, p: FindPatch): string {
  const n = countOccurrences(text, p.find);
  if (n !== 1) {
    throw new PatchError(
      id,
      p.file,
      `find text occurs ${n === Infinity ? 'everywhere (empty)' : n} times, want exactly once: "${preview(p.find)}"`,
    );
  }
  const at = text.indexOf(p.find);
  return text.slice(0, at) + p.replace + text.slice(at + p.find.length);
}

function applySpans(id: string, file: string, text: string, spans: readonly SpanPatch[]): string {
  const sorted = [...spans].sort((a, b) => b.start - a.start);
  let out = text;
  let lowest = Infinity;
  for (const p of sorted) {
    if (p.end > lowest)
      throw new PatchError(id, file, `span ${p.start}..${p.end} overlaps another span of the same mutant`);
    const found = out.slice(p.start, p.end);
    if (found !== p.expect) {
      throw new PatchError(id, file, `expected "${preview(p.expect)}" at offset ${p.start}, found "${preview(found)}"`);
    }
    out = out.slice(0, p.start) + p.replace + out.slice(p.end);
    lowest = p.start;
  }
  return out;
}

/**
 * Returns the patched text of every file the mutant touches.
 * `read` gives a file's current text (relative path); it throws if the file is missing.
 */
export function applyMutant(m: Mutant, read: (file: string) => string): Map<string, string> {
  if (m.patches.length === 0) throw new PatchError(m.id, '-', 'has no patches');
  const out = new Map<string, string>();
  const textOf = (file: string): string => {
    const have = out.get(file);
    if (have !== undefined) return have;
    try {
      return read(file);
    } catch (e) {
      throw new PatchError(m.id, file, `cannot read the file (${(e as Error).message})`);
    }
  };
  const spansByFile = new Map<string, SpanPatch[]>();
  for (const p of m.patches) {
    if (isFindPatch(p)) {
      out.set(p.file, applyFind(m.id, textOf(p.file), p));
    } else {
      const list = spansByFile.get(p.file) ?? [];
      list.push(p);
      spansByFile.set(p.file, list);
    }
  }
  for (const [file, spans] of spansByFile) {
    // span offsets refer to the original text: mixing them with find patches is a bug
    if (out.has(file)) throw new PatchError(m.id, file, 'mixes find patches and span patches in one file');
    out.set(file, applySpans(m.id, file, textOf(file), spans));
  }
  for (const [file, text] of out) {
    if (text === read(file)) throw new PatchError(m.id, file, 'the patch leaves the file unchanged');
  }
  return out;
}
