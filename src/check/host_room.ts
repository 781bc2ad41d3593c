/**
 * Host storage holds its table (MEM-HOST): the slot table one slot record per (layer,
 * expert) and the ring one entry per ring slot, at the tier's record sizes. The native
 * tier indexes both by those counts, so an array allocated smaller is a heap overflow
 * there even when the simulated tier never touches the missing bytes.
 *
 * Invariant: checked at the allocation, against the configuration the world was built
 * from, never against what the tier computed.
 */
import type { HostArrayKind } from '../ops.js';
import { RING_ENTRY_BYTES, SLOT_BYTES } from '../tier/config.js';
import { Violation } from './violation.js';

export interface TableCounts {
  readonly layers: number;
  readonly experts: number;
  readonly ringCapacity: number;
}

export function requireTableRoom(c: TableCounts, what: HostArrayKind, bytes: number): void {
  const need = what === 'slots' ? c.layers * c.experts * SLOT_BYTES : c.ringCapacity * RING_ENTRY_BYTES;
  if (bytes < need) throw new Violation('MEM-HOST', `the ${what} array has ${bytes} bytes, its table needs ${need}`);
}
