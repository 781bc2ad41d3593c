/**
 * The on-disk cache of instrumented thread code (compile_threads.ts): a file compiles to
 * the same text from the cache as when compiled, a changed file is compiled again under a
 * new name, and a file the transform refuses is an error and never cached.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheFile, transpiled } from '../../model/explore/state/compile_threads.js';

const dir = mkdtempSync(join(tmpdir(), 'tierlab-compile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the compiled thread code cache', () => {
  it('gives what the compiler gave, and compiles a changed file again', () => {
    const file = join(dir, 'thread.ts');
    writeFileSync(file, 'export function* t(a: number) {\n  const b = a + 1;\n  yield b;\n}\n');
    const first = transpiled(file);
    expect(first).toMatch(/__fr/);
    expect(readFileSync(cacheFile(file), 'utf8')).toBe(first);
    expect(transpiled(file)).toBe(first);
    writeFileSync(file, 'export function* t(a: number) {\n  const b = a + 2;\n  yield b;\n}\n');
    const changed = transpiled(file);
    expect(changed).not.toBe(first);
    expect(changed).toMatch(/a \+ 2/);
    expect(readFileSync(cacheFile(file), 'utf8')).toBe(changed);
  });

  it('refuses a yield it cannot follow, with the file and line, and caches nothing', () => {
    const file = join(dir, 'nested.ts');
    writeFileSync(
      file,
      'declare function f(a: number, b: unknown): void;\nexport function* t(o: { x: number }) {\n  f(o.x, yield 1);\n}\n',
    );
    expect(() => transpiled(file)).toThrow(/cannot record the locals at .*nested\.ts:3/);
    expect(existsSync(cacheFile(file))).toBe(false);
  });
});
