/**
 * C counterpart of mutant streaming-pointer-retained
 * (mutants/catalogue/streaming-pointer-retained.ts): in streaming mode the tier keeps the
 * engine's RAM pointer and copies at upload time: the engine recycled that RAM slot with
 * the next token, so the wrong expert's bytes, or freed ones, go to the device. Two
 * patches: note keeps the pointer, and the uploader stages again from it just before it
 * uploads (the copy made at note dropped).
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'streaming-pointer-retained',
  title: 'streaming mode keeps the RAM pointer and copies at upload time',
  history: 'reviewers of the streaming design: the RAM LRU recycles the slot with the next token',
  family: 'RAM lifetime',
  expectedProperties: ['MEM-RAM', 'MEM-UPLOAD-BYTES', 'SPEC-ENQUEUE'],
  patches: [
    {
      file: 'native/tier/tt_note.c',
      find: '  s->ram = NULL;\n  if (ram == NULL || s->resident',
      replace: '  s->ram = ram;\n  if (ram == NULL || s->resident',
    },
    {
      file: 'native/tier/tt_uploader.c',
      find: '    tt_unlock(t);\n    int ok = upload_unlocked(t, &e, victim, h);\n',
      replace:
        '    void *lent = g->cfg.streaming ? tt_slot_at(g, e.layer, e.eid)->ram : NULL;\n    tt_unlock(t);\n    if (lent != NULL) {\n      tt_be_unstage(t, e.staging);\n      e.staging = tt_be_stage(t, lent, e.layer, e.eid);\n    }\n    int ok = upload_unlocked(t, &e, victim, h);\n',
    },
  ],
};
