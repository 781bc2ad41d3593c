/**
 * C counterpart of mutant unlocked-on-check (mutants/catalogue/unlocked-on-check.ts): the
 * gate's door for the expert entry points tests the lifecycle state with no lock held and
 * counts nobody, then the call locks mx. A caller descheduled between the test and the
 * lock resumes after a teardown into a destroyed mutex; the teardown never waited for it.
 */
import type { Mutant } from '../lib/types.js';

export const mutant: Mutant = {
  id: 'unlocked-on-check',
  title: "the gate's door tests the state with no lock held and counts nobody",
  history:
    'found in review of the seed engine tier: an entry point tested `on` unlocked, then locked a destroyed mutex',
  family: 'sync-object lifetime',
  expectedProperties: ['MEM-SYNC', 'SPEC-GATE', 'SYNC-DISCIPLINE', 'SAFE-NO-CRASH'],
  patches: [
    {
      file: 'native/tier/tt_gate.c',
      find: 'int tt_gate_enter(tt_tier *t, int kind, int *life) {\n  tt_gate *g = &t->gate;\n',
      replace:
        'int tt_gate_enter(tt_tier *t, int kind, int *life) {\n  tt_gate *g = &t->gate;\n' +
        '  if (kind == TT_GATE_EXPERT) {\n    *life = g->life;\n    return admits(g, kind);\n  }\n',
    },
    {
      file: 'native/tier/tt_gate.c',
      find: 'void tt_gate_leave(tt_tier *t, int kind, int arg) {\n  tt_gate *g = &t->gate;\n',
      replace:
        'void tt_gate_leave(tt_tier *t, int kind, int arg) {\n  tt_gate *g = &t->gate;\n' +
        '  if (kind == TT_GATE_EXPERT) return;\n',
    },
  ],
};
