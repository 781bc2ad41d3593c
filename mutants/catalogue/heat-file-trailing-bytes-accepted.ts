/**
 * Mutant heat-file-trailing-bytes-accepted: the heat file reader checks that the file is
 * long enough for this model's counts, not that it is exactly that long, so a file with
 * bytes after the last heat (another writer's, a partial append) is taken as this model's
 * heat. The protocol's reader ignores any file of another shape whole.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'heat-file-trailing-bytes-accepted',
  title: 'the heat file reader accepts trailing bytes',
  history: 'a blind spot of the generators: heat files were never made with trailing bytes',
  family: 'refinement',
  expectedProperties: ['SPEC-INIT', 'SPEC-HEAT-FILE', 'SPEC-PLAN', 'SPEC-STATE'],
  patches: [
    {
      file: 'src/tier/heat_file.ts',
      find: 'if (bytes.byteLength !== HEADER_BYTES + 4 * layers * experts) return null;',
      replace: 'if (bytes.byteLength < HEADER_BYTES + 4 * layers * experts) return null;',
    },
  ],
};
