/**
 * The catalogue is whatever files mutants/catalogue/ holds: a new file is picked up with
 * no other change, and a malformed one is refused with its path.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CATALOGUE_DIR, loadCatalogue } from '../../mutants/lib/catalogue.js';

const dirs: string[] = [];
function tempCatalogue(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tierlab-catalogue-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('catalogue discovery', () => {
  it('has one mutant per defect of the catalogue, id equal to the file name', async () => {
    const entries = await loadCatalogue();
    expect(entries.length).toBe(readdirSync(CATALOGUE_DIR).filter((f) => f.endsWith('.ts')).length);
    expect(entries.length).toBeGreaterThanOrEqual(17);
    for (const e of entries) expect(e.source).toBe(`mutants/catalogue/${e.mutant.id}.ts`);
  });

  it('picks up a new file dropped into the directory', async () => {
    const dir = tempCatalogue();
    cpSync(CATALOGUE_DIR, dir, { recursive: true });
    writeFileSync(
      join(dir, 'brand-new-defect.ts'),
      [
        'export const mutant = {',
        "  id: 'brand-new-defect',",
        "  title: 'fill_wait returns at once',",
        "  history: 'a test of discovery',",
        "  family: 'fill_wait residency',",
        "  expectedProperties: ['POST-FILL-WAIT'],",
        "  patches: [{ file: 'src/tier/fill_wait.ts', find: 'yield WAIT_TAKE;', replace: 'break;' }],",
        '};',
        '',
      ].join('\n'),
    );
    const before = await loadCatalogue();
    const after = await loadCatalogue(dir);
    expect(after.length).toBe(before.length + 1);
    expect(after.map((e) => e.mutant.id)).toContain('brand-new-defect');
  });

  it('refuses a file whose id differs from its name, naming the file', async () => {
    const dir = tempCatalogue();
    writeFileSync(
      join(dir, 'one-name.ts'),
      "export default { id: 'other-name', title: 't', history: 'h', family: 'f', expectedProperties: [], patches: [{ file: 'a', find: 'b', replace: 'c' }] };\n",
    );
    await expect(loadCatalogue(dir)).rejects.toThrow(
      /one-name\.ts: id 'other-name' must equal the file name 'one-name'/,
    );
  });

  it('refuses an unknown property id', async () => {
    const dir = tempCatalogue();
    writeFileSync(
      join(dir, 'typo.ts'),
      "export default { id: 'typo', title: 't', history: 'h', family: 'f', expectedProperties: ['MEM-DEVISE'], patches: [{ file: 'a', find: 'b', replace: 'c' }] };\n",
    );
    await expect(loadCatalogue(dir)).rejects.toThrow(/typo\.ts: unknown property 'MEM-DEVISE'/);
  });
});
