/**
 * Tidy: the C tier's koffi binding (src/engine/native/ctier_binding.ts) says what the
 * tier's headers say. Every function it declares is a TT_API function of native/tier/
 * (tt.h, tt_events.h, engine_backend.h) with the same name and number of parameters, and
 * every struct it passes by value or fills (tt_config, tt_trunk_offer, tt_init_result,
 * tt_stats, tt_sink) has the header's fields in the header's order, arrays of the header's
 * lengths. koffi trusts these strings: a field out of place is memory corruption in the
 * tier, not an error.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const HEADERS = ['native/tier/tt.h', 'native/tier/tt_events.h', 'native/tier/engine_backend.h'];
const BINDING = 'src/engine/native/ctier_binding.ts';
const STRUCTS = ['tt_config', 'tt_trunk_offer', 'tt_init_result', 'tt_stats', 'tt_sink'];

const headers = HEADERS.map((f) => readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '')).join('\n');
const binding = readFileSync(BINDING, 'utf8');
const defines = new Map([...headers.matchAll(/#define (\w+) (\d+)/g)].map((m) => [m[1] ?? '', m[2] ?? '']));

/** name -> number of parameters, of a prototype's text */
function arity(text: string): [string, number] {
  const m = /\b(tt_\w+)\s*\(([^)]*)\)/.exec(text);
  if (m === null) throw new Error(`not a prototype: ${text}`);
  const args = (m[2] ?? '').trim();
  return [m[1] ?? '', args === '' || args === 'void' ? 0 : args.split(',').length];
}

/** A struct's fields in order, each "name" or "name[len]" (a header's #define resolved). */
function headerFields(name: string): string[] {
  const body = new RegExp(`typedef struct ${name} \\{([\\s\\S]*?)\\} ${name};`).exec(headers)?.[1];
  if (body === undefined) throw new Error(`no struct ${name} in the tier's headers`);
  return body
    .split(';')
    .map((d) => d.trim())
    .filter((d) => d !== '')
    .flatMap((d) => {
      const decl = d.replace(/^(const )?(unsigned )?\w+(\s*\(\*)?/, '').replace(/\*/g, '');
      if (/\(/.test(d)) return [/\(\*(\w+)\)/.exec(d)?.[1] ?? '?']; // a function pointer
      return decl.split(',').map((v) => {
        const m = /(\w+)\s*(?:\[(\w+)\])?/.exec(v.trim());
        const len = m?.[2];
        return len === undefined ? (m?.[1] ?? '?') : `${m?.[1]}[${defines.get(len) ?? len}]`;
      });
    });
}

function bindingFields(name: string): string[] {
  const body = new RegExp(`koffi\\.struct\\('${name}', \\{([\\s\\S]*?)\\}\\)`).exec(binding)?.[1];
  if (body === undefined) throw new Error(`the binding declares no struct ${name}`);
  return [...body.matchAll(/(\w+): (?:koffi\.array\('[\w ]+', (\d+)\)|'[^']*')/g)].map((m) =>
    m[2] === undefined ? (m[1] ?? '') : `${m[1]}[${m[2]}]`,
  );
}

describe('tidy: the C tier binding matches the tier headers', () => {
  it('every bound function is a TT_API function with the same number of parameters', () => {
    const declared = new Map([...headers.matchAll(/\bTT_API\s+([^;]*?\))\s*;/g)].map((m) => arity(m[1] ?? '')));
    const bound = [...binding.matchAll(/: '([^']*\btt_\w+\([^']*\))'/g)].map((m) => arity(m[1] ?? ''));
    expect(bound.length).toBeGreaterThan(15);
    for (const [name, n] of bound) expect([name, declared.get(name)]).toEqual([name, n]);
  });

  for (const name of STRUCTS) {
    it(`${name}: the header's fields, in order`, () => {
      expect(bindingFields(name)).toEqual(headerFields(name));
    });
  }
});
