/**
 * The heat file on disk, as bytes: the tier reads and writes its format (magic "QTH1",
 * the layer and expert counts, one u32 per expert; src/tier/heat_file.ts), the engine
 * only stores it. A missing file is a cold start; a file that cannot be read is noted
 * and treated as missing: heat is advice, never a reason to fail a run.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export function readHeatBytes(path: string, problems: string[]): Uint8Array | null {
  if (!existsSync(path)) return null;
  try {
    return new Uint8Array(readFileSync(path));
  } catch (e) {
    problems.push(`heat file ${path} ignored: ${(e as Error).message}`);
    return null;
  }
}

export function writeHeatBytes(path: string, bytes: Uint8Array): void {
  writeFileSync(path, bytes);
}
