/**
 * What the reference keeps between its steps is folded into the state (the refinement
 * checker's memory, model/explore/subject.ts), so it must keep nothing dead: the uploader
 * reference drops its entry when it comes back to its head, where nothing reads it again,
 * and keeps it while a swap, an abandon or an upload still reads it.
 */
import { describe, expect, it } from 'vitest';
import { valueDigest } from '../../model/explore/state/digest_hash.js';
import { InitCall } from '../../src/protocol_ref/init.js';
import type { Step } from '../../src/protocol_ref/io.js';
import { NoteCall } from '../../src/protocol_ref/note.js';
import { newSpecState, type SpecState } from '../../src/protocol_ref/state.js';
import { UploaderThread } from '../../src/protocol_ref/uploader.js';
import { config, ScriptIo } from '../protocol_ref/script_io.js';

function steps(call: { step: (s: SpecState, io: ScriptIo) => Step }, s: SpecState, n: number): Step[] {
  const io = new ScriptIo();
  return Array.from({ length: n }, () => call.step(s, io));
}

/** an active reference with experts `eids` noted (each queued for the uploader) */
function queued(...eids: number[]): SpecState {
  const s = newSpecState(config());
  steps(new InitCall(), s, 12);
  for (const eid of eids) steps(new NoteCall({ layer: 0, eid }, true), s, 2);
  return s;
}

describe('the uploader reference folds what it will still read', () => {
  it('comes back to its head holding no entry: after an upload, as if it had never had one', () => {
    const s = queued(0);
    const worked = new UploaderThread();
    expect(steps(worked, s, 2)).toEqual([{ release: 'unlock' }, { release: 'wait-cv' }]);
    const fresh = new UploaderThread();
    expect(steps(fresh, queued(), 1)).toEqual([{ release: 'wait-cv' }]);
    expect(valueDigest(worked)).toBe(valueDigest(fresh));
  });

  it('keeps the entry it will upload: two entries fold apart, and one dropped there breaks the next step', () => {
    const a = new UploaderThread();
    const b = new UploaderThread();
    const s = queued(0, 1);
    steps(a, s, 1);
    const t = queued(1);
    steps(b, t, 1);
    expect(valueDigest(a)).not.toBe(valueDigest(b));
    // the unsound variant: the entry dropped while the upload still reads it
    (a as unknown as { entry: null }).entry = null;
    expect(() => steps(a, s, 1)).toThrow(/no entry/);
  });
});
