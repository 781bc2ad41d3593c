/**
 * The heat file (PROTOCOL.md, "Heat file"): magic 0x51544831 ("QTH1"), then the layer
 * and expert counts (u32), then one u32 heat per expert in layer-major order, all little
 * endian. Read at init (halved on load), written at shutdown.
 *
 * A file of another shape (wrong magic, other counts, truncated, trailing bytes) is not
 * this model's heat: it is ignored whole and the warmstart plans in natural order, as
 * if there were no file. (The seed is silent; ignoring it whole never plans by a
 * neighbour's heat.)
 */
export const HEAT_MAGIC = 0x51544831;
const HEADER_BYTES = 12;

/** The heats of a well-formed file for this shape, or null (no file, or another shape). */
export function decodeHeat(bytes: Uint8Array | null, layers: number, experts: number): number[][] | null {
  if (bytes === null) return null;
  if (bytes.byteLength !== HEADER_BYTES + 4 * layers * experts) return null;
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (v.getUint32(0, true) !== HEAT_MAGIC || v.getUint32(4, true) !== layers || v.getUint32(8, true) !== experts)
    return null;
  const heat: number[][] = [];
  for (let l = 0; l < layers; l++) {
    const row: number[] = [];
    for (let e = 0; e < experts; e++) row.push(v.getUint32(HEADER_BYTES + 4 * (l * experts + e), true));
    heat.push(row);
  }
  return heat;
}

export function encodeHeat(heat: readonly (readonly number[])[], experts: number): Uint8Array {
  const layers = heat.length;
  const bytes = new Uint8Array(HEADER_BYTES + 4 * layers * experts);
  const v = new DataView(bytes.buffer);
  v.setUint32(0, HEAT_MAGIC, true);
  v.setUint32(4, layers, true);
  v.setUint32(8, experts, true);
  heat.forEach((row, l) => {
    for (let e = 0; e < experts; e++) v.setUint32(HEADER_BYTES + 4 * (l * experts + e), row[e] ?? 0, true);
  });
  return bytes;
}
