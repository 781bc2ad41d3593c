/**
 * The correct tier holds every property over every suite at the nightly size: 2000 seeded
 * schedules per suite (green.test.ts runs 200 in npm test), every coverage mark reached.
 */
import { describe } from 'vitest';
import { greenSuites } from './green_suites.js';

describe('every property holds on the correct tier, 2000 schedules a suite', () => greenSuites(2000));
