/**
 * The folders of the project in layer order, lowest first: a file may import from its own
 * layer and from layers below it, never from one above. The top-level folders are the
 * stack, bottom to top: the product and its contracts (src/), the simulator (model/), the
 * properties, the mutants, the fixtures' generator, the applications (apps/: commands,
 * report rendering, the oracle's runs), the scripts and the tests. Inside src/ and model/,
 * the inner order below holds too.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['src/ops.ts', 'src/ops_text.ts', 'src/input'],
  ['src/tier', 'src/protocol_ref'],
  ['src/check'],
  ['src/engine', 'src/fixture', 'src/float64'],
  ['src/engine/native', 'model/rt', 'model/ram'],
  ['model/scenario'],
  ['model/sim_engine'],
  ['model'],
  ['model/explore'],
  ['properties'],
  ['mutants'],
  ['fixtures'],
  ['apps'],
  ['scripts'],
  ['test'],
];

/** The most specific folder of LAYERS that holds `path`. */
export function folderOf(path: string): string | null {
  let best: string | null = null;
  for (const layer of LAYERS) {
    for (const f of layer) {
      if ((path === f || path.startsWith(`${f}/`)) && (best === null || f.length > best.length)) best = f;
    }
  }
  return best;
}

export function layerOf(path: string): number {
  const f = folderOf(path);
  return f === null ? -1 : LAYERS.findIndex((l) => l.includes(f));
}

/**
 * Folders in one layer that must not import each other: the two worlds, and the tier and
 * its reference (the reference is written from the protocol, not from the tier: sharing
 * code would make the two agree by construction).
 */
export const APART: readonly (readonly [string, string])[] = [
  ['src/tier', 'src/protocol_ref'],
  ['src/engine/native', 'model/rt'],
  ['src/engine/native', 'model/ram'],
];
