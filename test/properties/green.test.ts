/**
 * The correct tier holds every property over every suite, and the coverage marks say the
 * generators reach the hard situations: RUNS seeded schedules per suite (200: every mark
 * is reached ten times or more at this seed; green.nightly.test.ts runs 2000).
 */
import { describe } from 'vitest';
import { greenSuites } from './green_suites.js';

const RUNS = Number(process.env.TIERLAB_TEST_RUNS ?? 200);

describe('every property holds on the correct tier', () => greenSuites(RUNS));
