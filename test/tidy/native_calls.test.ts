/**
 * Tidy: no call cycle between the engine's C files. A file depends on another when it
 * calls a function the other defines (not static); the dependency graph of the library
 * sources (native/src and each backend folder, not the tests) must have no cycle, so
 * each file can be read, tested and replaced from the leaves up. The rule is the C half
 * of "no import cycle": C has no imports to follow, so calls stand in for them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles } from './graph.js';

const FOLDERS = ['native/src', 'native/cpu', 'native/cuda', 'native/vulkan'];

function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
}

function cFiles(): { path: string; text: string }[] {
  return FOLDERS.flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => /\.(c|cu)$/.test(f))
      .map((f) => ({ path: join(dir, f), text: withoutComments(readFileSync(join(dir, f), 'utf8')) })),
  );
}

/** Functions a file defines with external linkage: a definition at column 0, not static. */
function definitions(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^(?!static\b)(?:TL_API\s+)?[A-Za-z_][\w \t*]*?\b(\w+)\s*\([^;{]*\)\s*\{/gm)) {
    if (m[1] !== undefined) out.push(m[1]);
  }
  return out;
}

describe('tidy: the C sources', () => {
  const files = cFiles();
  // each backend is linked with native/src alone: a name resolves in the caller's own
  // folder first, then in the shared sources
  const definedIn = new Map<string, string>();
  for (const f of files) for (const name of definitions(f.text)) definedIn.set(`${dirname(f.path)}:${name}`, f.path);
  const resolve = (from: string, name: string): string | undefined =>
    definedIn.get(`${dirname(from)}:${name}`) ?? definedIn.get(`native/src:${name}`);

  function calls(f: { path: string; text: string }): string[] {
    const to = new Set<string>();
    for (const m of f.text.matchAll(/\b(\w+)\s*\(/g)) {
      const where = m[1] === undefined ? undefined : resolve(f.path, m[1]);
      if (where !== undefined && where !== f.path) to.add(where);
    }
    return [...to];
  }

  it('finds the files and the functions it follows', () => {
    expect(files.length).toBeGreaterThan(30);
    expect(resolve('native/vulkan/vk_device.c', 'tl_fail')).toBe('native/src/errors.c');
    expect(resolve('native/vulkan/vk_device.c', 'vk_result_str')).toBe('native/vulkan/vk_errors.c');
  });

  it('no call cycle between files', () => {
    expect(cycles(files.map((f) => [f.path, calls(f)] as const))).toEqual([]);
  });
});
