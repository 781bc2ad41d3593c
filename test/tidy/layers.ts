/**
 * The folders of the project in layer order, lowest first: a file may import from its own
 * layer and from layers below it, never from one above. The shared contracts (src/ops.ts,
 * src/check) sit below both worlds; the simulator (model/) and the real world
 * (src/engine/native) sit side by side above them and never import each other; the apps
 * (properties, mutants, the oracle, the CLIs, the tests) come last.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['src/ops.ts', 'src/ops_text.ts', 'src/input'],
  ['src/tier', 'src/spec'],
  ['src/check'],
  ['src/engine', 'src/fixture'],
  ['src/engine/native', 'model/rt', 'model/ram'],
  ['model/scenario'],
  ['model/sim_engine'],
  ['model'],
  ['model/explore'],
  ['properties'],
  ['mutants'],
  ['src/oracle', 'src/report'],
  ['fixtures'],
  ['src/cli', 'scripts'],
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
 * its reference (the spec is written from the protocol, not from the tier: sharing code
 * would make the two agree by construction).
 */
export const APART: readonly (readonly [string, string])[] = [
  ['src/tier', 'src/spec'],
  ['src/engine/native', 'model/rt'],
  ['src/engine/native', 'model/ram'],
];
