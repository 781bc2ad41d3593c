/**
 * The project's own protocol page (docs/PROTOCOL.md) keeps up with the code it describes:
 * every catalogued property is named there, and every section of it that a source file
 * of the tier or the reference cites (`PROTOCOL.md, "enqueue"`) is a heading there.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROPERTY_IDS } from '../../src/check/catalogue.js';

const page = readFileSync('docs/PROTOCOL.md', 'utf8');
const headings = [...page.matchAll(/^#{2,4} (.+)$/gm)].map((m) => m[1] ?? '');

/** the section names a source cites: PROTOCOL.md, "a", "b" (across line breaks and comment stars) */
function citedSections(text: string): string[] {
  const flat = text.replace(/\n\s*\*\s*/g, ' ');
  return [...flat.matchAll(/PROTOCOL\.md,((?:\s*"[^"]+",?)+)/g)].flatMap((m) =>
    [...(m[1] ?? '').matchAll(/"([^"]+)"/g)].map((q) => q[1] ?? ''),
  );
}

describe('docs/PROTOCOL.md', () => {
  it('names every catalogued property', () => {
    expect(PROPERTY_IDS.filter((id) => !page.includes(`\`${id}\``))).toEqual([]);
  });

  it('has every section the tier and the reference cite', () => {
    const cited = ['src/tier', 'src/protocol_ref'].flatMap((dir) =>
      readdirSync(dir)
        .filter((f) => f.endsWith('.ts'))
        .flatMap((f) => citedSections(readFileSync(join(dir, f), 'utf8')).map((s) => ({ file: `${dir}/${f}`, s }))),
    );
    expect(cited.length).toBeGreaterThan(10);
    const has = (s: string): boolean => headings.some((h) => h.startsWith(s) || h.split(', ').includes(s));
    expect(cited.filter((c) => !has(c.s)).map((c) => `${c.file}: "${c.s}"`)).toEqual([]);
  });
});
