/**
 * The heat file as the protocol defines it (PROTOCOL.md, "Heat file"), written
 * independently of the tier: magic 0x51544831 ("QTH1"), the layer and expert counts as
 * u32, then one u32 heat per expert in layer-major order, little endian.
 *
 * Choice where the seed is silent: a file of another shape (other magic, other counts,
 * a length that is not exactly header plus counts) carries no heat for this model and
 * is ignored whole.
 */
const MAGIC = 0x51544831;

export function writeHeatFile(heat: readonly (readonly number[])[], experts: number): Uint8Array {
  const out = new Uint8Array(12 + 4 * heat.length * experts);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, heat.length, true);
  view.setUint32(8, experts, true);
  let at = 12;
  for (const row of heat) {
    for (let e = 0; e < experts; e++) {
      view.setUint32(at, row[e] ?? 0, true);
      at += 4;
    }
  }
  return out;
}

/** The heats a file holds for a model of this shape, or null when it holds none. */
export function readHeatFile(file: Uint8Array | null, layers: number, experts: number): number[][] | null {
  if (file === null || file.byteLength < 12) return null;
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const ok =
    view.getUint32(0, true) === MAGIC &&
    view.getUint32(4, true) === layers &&
    view.getUint32(8, true) === experts &&
    file.byteLength === 12 + 4 * layers * experts;
  if (!ok) return null;
  return Array.from({ length: layers }, (_, l) =>
    Array.from({ length: experts }, (_, e) => view.getUint32(12 + 4 * (l * experts + e), true)),
  );
}
