/**
 * Compile-time check, run by `tsc` (npm test): each writer's report type is assignable to
 * the input type the HTML renderer reads, so a renamed or retyped field fails the build.
 */
import type { BenchReport } from '../../apps/cli/bench/bench_report.js';
import type { MutantsReport } from '../../mutants/lib/report.js';
import type { PropertiesReport } from '../../properties/report.js';
import type { BenchInput, MutantsInput, PropertiesInput } from '../../apps/report/report_inputs.js';

export const propertiesFits = (r: PropertiesReport): PropertiesInput => r;
export const mutantsFits = (r: MutantsReport): MutantsInput => r;
export const benchFits = (r: BenchReport): BenchInput => r;
