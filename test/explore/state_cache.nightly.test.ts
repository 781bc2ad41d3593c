/**
 * The state cache is sound on the largest toy program (two waiters and a signal, with a
 * spurious wakeup): every mode finds what plain DFS finds. Nightly (npm run test:nightly):
 * its plain DFS takes over half a minute on two busy cores; state_cache.test.ts checks the
 * other programs and the tier in npm test.
 */
import { describe } from 'vitest';
import { findsWhatDfsFinds, LARGEST } from './state_cache_programs.js';

describe('the state cache is sound, the largest toy program', () => findsWhatDfsFinds((label) => label === LARGEST));
