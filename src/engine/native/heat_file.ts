/**
 * The heat file: per-expert routing heat saved at shutdown and read at init, so the
 * next run starts hot. A missing file is a cold start; a malformed one (wrong shape,
 * wrong header, not numbers) is ignored with a message naming the problem: heat is
 * advice, never a reason to fail a run.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ModelShape } from '../../fixture/model_types.js';

const FORMAT = 'tierlab-heat';

export function readHeatFile(path: string, shape: ModelShape, problems: string[]): number[][] | null {
  if (!existsSync(path)) return null;
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as { format?: unknown; layers?: unknown; experts?: unknown; heat?: unknown };
    if (data.format !== FORMAT) throw new Error(`header is not ${FORMAT}`);
    if (data.layers !== shape.layers || data.experts !== shape.experts) {
      throw new Error(`shape ${String(data.layers)}x${String(data.experts)} does not match the model's ${shape.layers}x${shape.experts}`);
    }
    const heat = data.heat;
    if (!Array.isArray(heat) || heat.length !== shape.layers) throw new Error('heat is not one row per layer');
    for (const row of heat) {
      if (!Array.isArray(row) || row.length !== shape.experts || row.some((h) => !Number.isInteger(h) || h < 0 || h > 0xffffffff)) {
        throw new Error('a heat row is not one u32 per expert');
      }
    }
    return heat as number[][];
  } catch (e) {
    problems.push(`heat file ${path} ignored: ${(e as Error).message}`);
    return null;
  }
}

export function writeHeatFile(path: string, heat: readonly (readonly number[])[]): void {
  const body = { format: FORMAT, layers: heat.length, experts: heat[0]?.length ?? 0, heat };
  writeFileSync(path, JSON.stringify(body) + '\n');
}
