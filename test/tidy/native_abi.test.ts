/**
 * Tidy: the koffi binding says what the C header says. Every prototype the binding
 * declares (src/engine/native/binding.ts) must match a TL_API declaration of
 * native/include/tierlab.h (or the Vulkan header) in name, return type, and the type and
 * name of every parameter, and the tl_part struct must have the header's fields in the
 * header's order. A header function the binding does not bind is listed below with the
 * reason, so a new one is a decision, not an accident. koffi cannot check any of this:
 * it trusts the string, and a wrong one is memory corruption, not an error.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const HEADERS = ['native/include/tierlab.h', 'native/vulkan/tierlab_vulkan.h'];
const BINDING = 'src/engine/native/binding.ts';

/** Header functions the binding leaves alone on purpose. */
const UNBOUND: Record<string, string> = {
  tl_device_count: 'the tier is told its devices; the count is used by the C tests',
  tl_ram_load_mem: 'RAM copies are read from the fixture file (tl_ram_load_file)',
  tl_expert_cpu: 'the CPU reference computes from RAM copies (tl_expert_cpu_ram)',
};

interface Param {
  readonly type: string;
  readonly name: string;
}
interface Proto {
  readonly ret: string;
  readonly name: string;
  readonly params: readonly Param[];
}

/** Spaces normalised, `*` bound to the type: "const char *" -> "const char*". */
function normType(t: string): string {
  return t
    .replace(/\s+/g, ' ')
    .replace(/\s*\*\s*/g, '*')
    .trim();
}

function parseProto(text: string): Proto {
  const m = /^(.*?)\b(tl_\w+)\s*\((.*)\)\s*$/s.exec(text.replace(/\s+/g, ' ').trim());
  if (m === null) throw new Error(`not a prototype: ${text}`);
  const [, ret = '', name = '', args = ''] = m;
  const list = args.trim() === '' || args.trim() === 'void' ? [] : args.split(',');
  const params = list.map((a) => {
    const p = /^(.*?)(\w+)$/.exec(a.replace(/\b_(Out|Inout)_\b/g, '').trim());
    if (p === null) throw new Error(`unnamed parameter '${a}' in ${name}`);
    return { type: normType(p[1] ?? ''), name: p[2] ?? '' };
  });
  return { ret: normType(ret), name, params };
}

function headerPrototypes(): Map<string, Proto> {
  const out = new Map<string, Proto>();
  for (const file of HEADERS) {
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    for (const m of text.matchAll(/\bTL_API\s+([^;]*?\))\s*;/g)) {
      const p = parseProto(m[1] ?? '');
      out.set(p.name, p);
    }
  }
  return out;
}

function bindingPrototypes(): Proto[] {
  const text = readFileSync(BINDING, 'utf8');
  return [...text.matchAll(/'((?:const )?\w+ \*?tl_\w+\([^']*\))'/g)].map((m) => parseProto(m[1] ?? ''));
}

/**
 * Where koffi spells a type differently from C for the same bytes: an error buffer or a
 * completion array read as raw bytes, and a `T *const *` array passed as `T **`.
 */
function sameType(bound: string, header: string): boolean {
  if (bound === header) return true;
  if (bound === 'uint8_t*' && (header === 'char*' || header === 'tl_completion*')) return true;
  return bound.replace(/\*\*$/, '*const*') === header;
}

describe('tidy: the native binding matches the header', () => {
  const header = headerPrototypes();
  const bound = bindingPrototypes();

  it('finds the declarations it compares', () => {
    expect(header.size).toBeGreaterThan(25);
    expect(bound.length).toBeGreaterThan(25);
  });

  it('every bound function is declared with the same return type, parameter types and names', () => {
    const bad: string[] = [];
    for (const b of bound) {
      const h = header.get(b.name);
      if (h === undefined) {
        bad.push(`${b.name}: not declared in ${HEADERS.join(' or ')}`);
        continue;
      }
      if (!sameType(b.ret, h.ret)) bad.push(`${b.name}: returns ${b.ret}, header says ${h.ret}`);
      if (b.params.length !== h.params.length) {
        bad.push(`${b.name}: ${b.params.length} parameters, header has ${h.params.length}`);
        continue;
      }
      b.params.forEach((p, i) => {
        const q = h.params[i];
        if (q === undefined) return;
        if (!sameType(p.type, q.type) || p.name !== q.name) {
          bad.push(`${b.name} parameter ${i + 1}: '${p.type} ${p.name}', header says '${q.type} ${q.name}'`);
        }
      });
    }
    expect(bad).toEqual([]);
  });

  it('every header function is bound or listed as left alone, and the list is not stale', () => {
    const names = new Set(bound.map((b) => b.name));
    const missing = [...header.keys()].filter((n) => !names.has(n) && !(n in UNBOUND));
    const stale = Object.keys(UNBOUND).filter((n) => names.has(n) || !header.has(n));
    expect({ missing, stale }).toEqual({ missing: [], stale: [] });
  });

  it("tl_part has the header's fields in the header's order", () => {
    const h = /typedef struct tl_part \{([^}]*)\}/.exec(readFileSync(HEADERS[0] ?? '', 'utf8'));
    const fields = (h?.[1] ?? '')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .split(';')
      .flatMap((decl) => {
        const d = /^\s*(\w+)\s+(.*)$/s.exec(decl.trim());
        return d === null ? [] : (d[2] ?? '').split(',').map((n) => `${n.trim()}: ${d[1]}`);
      });
    const b = /koffi\.struct\('tl_part', \{([^}]*)\}/.exec(readFileSync(BINDING, 'utf8'));
    const boundFields = [...(b?.[1] ?? '').matchAll(/(\w+): '(\w+)'/g)].map((m) => `${m[1]}: ${m[2]}`);
    expect(fields.length).toBe(6);
    expect(boundFields).toEqual(fields);
  });
});
