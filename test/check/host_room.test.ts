/**
 * MEM-HOST's table-room rule (src/check/host_room.ts): a host array as large as its table
 * passes, one byte less is a violation naming the array.
 */
import { describe, expect, it } from 'vitest';
import { requireTableRoom } from '../../src/check/host_room.js';
import { RING_ENTRY_BYTES, SLOT_BYTES } from '../../src/tier/config.js';

const counts = { layers: 3, experts: 5, ringCapacity: 4 };

describe('a host array holds its table', () => {
  it('accepts the exact size and more', () => {
    expect(() => requireTableRoom(counts, 'slots', 15 * SLOT_BYTES)).not.toThrow();
    expect(() => requireTableRoom(counts, 'ring', 4 * RING_ENTRY_BYTES + 8)).not.toThrow();
  });
  it('refuses one byte short, naming the array', () => {
    expect(() => requireTableRoom(counts, 'slots', 15 * SLOT_BYTES - 1)).toThrow(/slots array has 959 bytes/);
    expect(() => requireTableRoom(counts, 'ring', 4 * RING_ENTRY_BYTES - 1)).toThrow(/ring array has 127 bytes/);
  });
});
