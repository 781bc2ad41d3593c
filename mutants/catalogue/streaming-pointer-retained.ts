/**
 * Mutant streaming-pointer-retained: in streaming mode the tier keeps the engine's RAM
 * pointer past `note` and copies the bytes at upload time. The engine has recycled that
 * RAM slot by then, so the copy reads a slot that holds another expert (or nothing).
 *
 * Two patches: note keeps the pointer, and the uploader re-stages from it just before it
 * uploads (the enqueue-time copy is dropped, as if it had never been made).
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
      file: 'src/tier/note.ts',
      find: '  slot.ram = null;\n',
      replace: '  slot.ram = ram;\n',
    },
    {
      file: 'src/tier/uploader.ts',
      find: '    yield UNLOCK;\n\n    if (victimTensors !== null) {\n',
      replace:
        '    const lent = st.cfg.streaming ? slot.ram : null;\n' +
        '    yield UNLOCK;\n' +
        '    let copy = entry.staging;\n' +
        '    if (lent !== null) {\n' +
        "      yield { k: 'unstage', staging: entry.staging };\n" +
        "      copy = (yield { k: 'stage', ram: lent, layer: entry.layer, eid: entry.eid }) as typeof entry.staging;\n" +
        '    }\n' +
        '    entry = { ...entry, staging: copy };\n\n' +
        '    if (victimTensors !== null) {\n',
    },
    {
      file: 'src/tier/uploader.ts',
      find: '    const entry = ringHead(st);\n',
      replace: '    let entry = ringHead(st);\n',
    },
  ],
};
