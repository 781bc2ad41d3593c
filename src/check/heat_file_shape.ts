/**
 * What kind of heat file a run's init read, told from its bytes and the model's shape
 * alone (never from the scenario that made it): the coverage marks of the heat file's
 * input space say which kinds the generators really reach.
 *
 * Kinds, as the protocol's reader must tell them apart (PROTOCOL.md, "Heat file"):
 *  - well-formed: this model's magic, counts and length;
 *  - empty: no bytes at all; short-header: fewer than the 12 header bytes;
 *  - bad-magic: not "QTH1";
 *  - other-model-same-size: the length this model's file would have, but the counts of
 *    another model (the dangerous one: a reader that checks only the length takes it);
 *  - other-shape: other counts and a length that matches them;
 *  - truncated / trailing-bytes: this model's counts, fewer or more bytes than they need.
 */
const MAGIC = 0x51544831;
const HEADER = 12;

export const HEAT_FILE_KINDS = [
  'well-formed',
  'empty',
  'short-header',
  'bad-magic',
  'other-model-same-size',
  'other-shape',
  'truncated',
  'trailing-bytes',
] as const;
export type HeatFileKind = (typeof HEAT_FILE_KINDS)[number];

export function heatFileKind(bytes: Uint8Array, layers: number, experts: number): HeatFileKind {
  if (bytes.byteLength === 0) return 'empty';
  if (bytes.byteLength < HEADER) return 'short-header';
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (v.getUint32(0, true) !== MAGIC) return 'bad-magic';
  const want = HEADER + 4 * layers * experts;
  const ours = v.getUint32(4, true) === layers && v.getUint32(8, true) === experts;
  if (!ours) return bytes.byteLength === want ? 'other-model-same-size' : 'other-shape';
  if (bytes.byteLength < want) return 'truncated';
  if (bytes.byteLength > want) return 'trailing-bytes';
  return 'well-formed';
}
