/**
 * Mutant init-queues-behind-teardown (later defect (c)): the exclusive entry raises
 * `want_x` and waits for the callers inside before it checks the state. An init that
 * arrives during a teardown queues first; the teardown's own exclusive entry then finds
 * a section queued and refuses, so shutdown returns with the gate stuck at TEARING_DOWN
 * and every tensor still allocated.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'init-queues-behind-teardown',
  title: 'the exclusive entry queues before it checks the state it may leave',
  history: 'found in review of the seed engine tier: shutdown returned with the state stuck at TEARING_DOWN',
  family: 'nothing left after shutdown',
  expectedProperties: ['POST-SHUTDOWN', 'POST-SHUTDOWN-RETURN', 'SPEC-GATE'],
  patches: [
    {
      file: 'src/tier/gate.ts',
      find:
        '  if (g.state !== from || g.wantX > 0 || g.x > 0) {\n' +
        '    yield GUNLOCK;\n' +
        '    return { admitted: false, found, deadTrunk: [] };\n' +
        '  }\n' +
        '  g.wantX++;\n' +
        '  while (g.live > 0) yield WAIT_GCV;\n',
      replace:
        '  if (g.wantX > 0 || g.x > 0) {\n' +
        '    yield GUNLOCK;\n' +
        '    return { admitted: false, found, deadTrunk: [] };\n' +
        '  }\n' +
        '  g.wantX++;\n' +
        '  while (g.live > 0) yield WAIT_GCV;\n' +
        '  if (g.state !== from) {\n' +
        '    g.wantX--;\n' +
        '    yield GUNLOCK;\n' +
        '    return { admitted: false, found, deadTrunk: [] };\n' +
        '  }\n',
    },
  ],
};
