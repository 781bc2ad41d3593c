/**
 * A C tier counterexample written as a standalone C regression test
 * (`npm run replay -- FILE --export-c OUT.c`): the counterexample's scenario, fault plan,
 * heat file and schedule as C data, around the fixed part in native/tier/export/tx_body.h
 * (the engine driver, the checks, main). The test needs the scheduler's single header,
 * the tier's sources and the fake backend's; its header comment says how to build it.
 *
 * Invariants: the data is read from the harness's own words for the scenario
 * (export_words.ts), so the test runs what the harness ran; the schedule is the file's
 * choices as they are (the scheduler takes each modulo its options, so a tier without the
 * defect still runs a valid schedule); the same file gives the same text, byte for byte.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CounterexampleFile } from '../../properties/counterexample_file.js';
import { DEFAULT_LIMITS } from '../../src/check/limits.js';
import { describeScenario } from '../../model/scenario/scenario.js';
import { harnessScenario } from '../../model/ctier/harness_config.js';
import { readScenarioWords, type ScenarioWords } from './export_words.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const EXPORT_BODY = join(REPO_ROOT, 'native/tier/export/tx_body.h');
const DATA_MARK = '/* TX_DATA */';
const SITE_NAMES = ['UPLOAD', 'ISSUE', 'TAKE', 'LOAD', 'STAGE', 'ALLOC', 'SYNC', 'SPAWN'];

/** Numbers as C initializer lines of at most `per` numbers each. */
function numbers(v: readonly number[], per = 16): string {
  if (v.length === 0) return '0';
  const lines: string[] = [];
  for (let i = 0; i < v.length; i += per) lines.push(v.slice(i, i + per).join(', '));
  return lines.join(',\n    ');
}

function scenarioStruct(w: ScenarioWords, faultFree: boolean): string {
  const fields: string[] = [];
  for (const [name, v] of w.fixed) {
    if (name === 'magic' || name === 'version') continue;
    fields.push(v.length === 1 ? `.${name} = ${v[0]}` : `.${name} = {${v.join(', ')}}`);
  }
  fields.push(`.fault_free = ${faultFree ? 1 : 0}`);
  return `static const tx_scenario TX_SC = {\n    ${fields.join(',\n    ')}};`;
}

function trunkArray(w: ScenarioWords): string {
  const offers = w.trunk.map(
    (t) =>
      `{.layer = ${t.layer}, .weight_bytes = ${t.weightBytes}, .scale_bytes = ${t.scaleBytes}, .rows = 1, .cols = 1}`,
  );
  return [
    `#define TX_NTRUNK ${w.trunk.length}`,
    `static const tt_trunk_offer TX_TRUNK[] = {${offers.length > 0 ? `\n    ${offers.join(',\n    ')}` : '{0}'}};`,
  ].join('\n');
}

function routesArray(w: ScenarioWords): string {
  const rows = w.routes.map((r) => `{${r.length}, {${r.length > 0 ? r.join(', ') : '0'}}}`);
  return `static const tx_route TX_ROUTES[] = {\n    ${rows.length > 0 ? rows.join(',\n    ') : '{0, {0}}'}};`;
}

function noRamArray(w: ScenarioWords): string {
  const layers = w.fixed.get('layers')?.[0] ?? 0;
  const experts = w.fixed.get('experts')?.[0] ?? 0;
  const cells = new Array<number>(layers * experts).fill(0);
  for (const k of w.noRam) cells[k.layer * experts + k.eid] = 1;
  return `static const uint8_t TX_NO_RAM[] = {\n    ${numbers(cells, 32)}};`;
}

function faultArrays(w: ScenarioWords): string {
  const lines = w.faults.map((calls, i) => `static const uint32_t TX_FAULT_${SITE_NAMES[i]}[] = {${numbers(calls)}};`);
  const list = w.faults.map((calls, i) => `{${calls.length}, TX_FAULT_${SITE_NAMES[i]}}`);
  return [...lines, `static const tx_key_list TX_FAULTS[TX_SITES] = {\n    ${list.join(',\n    ')}};`].join('\n');
}

function dataSection(name: string, cx: CounterexampleFile): string {
  const hs = harnessScenario(cx.scenario);
  const w = readScenarioWords(hs.words);
  const heat = hs.heat !== null ? [...hs.heat] : [];
  return [
    '/* ---- the counterexample: scenario, fault plan, heat file, schedule ---- */',
    `static const char TX_NAME[] = ${JSON.stringify(name)};`,
    scenarioStruct(w, hs.faultFree),
    trunkArray(w),
    routesArray(w),
    noRamArray(w),
    faultArrays(w),
    `#define TX_HEAT_LEN ${heat.length}`,
    `static const unsigned char TX_HEAT[] = {\n    ${numbers(heat, 20)}};`,
    "/* the scheduler's choice at each decision, in order (0 past the end) */",
    `#define TX_SCHEDULE_LEN ${cx.choices.length}`,
    `static const uint32_t TX_SCHEDULE[] = {\n    ${numbers(cx.choices, 24)}};`,
    `#define TX_MAX_STEPS ${DEFAULT_LIMITS.maxSteps}`,
    `#define TX_SPURIOUS ${cx.scenario.spuriousWakeups}`,
  ].join('\n');
}

/** How to build and run the test, as its header says (the same commands the tests run). */
export const BUILD_LINES = [
  ' * Build, in an empty folder (T: the C tier, native/tier; H: the folder of the scheduler as',
  ' * one header, which `make -C native sched-header` writes as native/build/sched/tl_sched.h):',
  ' *   the tier, every T/tt_*.c, with the scheduler renaming its pthread calls:',
  ' *     cc -std=c11 -D_POSIX_C_SOURCE=200809L -I$H -include tl_sched.h -DTL_SCHED_INTERPOSE \\',
  " *        -DTL_SCHED_INTERPOSE_ONLY '-DTT_YIELD(site)=tl_sched_backend_enter((site), 0)' -c $T/tt_*.c",
  ' *   the fake backend, every T/fake_*.c, plain:  cc -std=c11 -D_POSIX_C_SOURCE=200809L -c $T/fake_*.c',
  ' *   this file:  cc -std=c11 -I$H -I$T THIS.c tt_*.o fake_*.o -pthread -lm -o regression',
  ' *   and run it:  ./regression',
  ' * It links nothing else: the tier, the fake backend it runs on, and the scheduler (this',
  ' * file defines TL_SCHED_IMPLEMENTATION).',
];

/** Words as comment lines of at most 100 columns. */
function wrapped(text: string): string[] {
  const lines: string[] = [];
  let line = ' *';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line.length + 1 + word.length > 100 && line !== ' *') {
      lines.push(line);
      line = ' *  ';
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

function headerComment(name: string, cx: CounterexampleFile): string {
  const found = cx.mutant !== null ? `on the defect ${cx.mutant}` : 'on the tier itself';
  // a comment's text must not end it
  const caught = (cx.detail.split('\n')[0] ?? '').slice(0, 300).replaceAll('*/', '* /');
  return [
    '/*',
    ...wrapped(`Regression test ${name}: a C tier counterexample (found ${found}) as a standalone test,`),
    ' * written by `npm run replay -- FILE --export-c OUT.c`.',
    ...wrapped(`It caught ${cx.property}: ${caught}`),
    ...wrapped(`Scenario: ${describeScenario(cx.scenario)}`),
    ` * Schedule: ${cx.choices.length} recorded choices of the deterministic scheduler (tl_sched).`,
    ' *',
    ' * The test runs the scenario on the tier with the fake backend, forcing the schedule,',
    ' * and checks what C sees at the boundary. Exit 1 and "FAIL: <what went wrong>" on the',
    ' * defect; exit 0 and "PASS" on a tier without it; exit 2 when the scheduler cannot run.',
    ' *',
    ...BUILD_LINES,
    ' */',
  ].join('\n');
}

/** The test's text. name: a C-safe name for the test (shown in its output). */
export function exportCTest(name: string, cx: CounterexampleFile): string {
  const body = readFileSync(EXPORT_BODY, 'utf8');
  // both markers are whole lines (the body's comment names them inside other lines)
  const start = body.indexOf('\n#define _GNU_SOURCE\n');
  const mark = body.indexOf(`\n${DATA_MARK}\n`);
  if (start < 0 || mark < start) throw new Error(`${EXPORT_BODY} has lost its markers`);
  return [
    headerComment(name, cx),
    body.slice(start + 1, mark).trimEnd(),
    '',
    dataSection(name, cx),
    body.slice(mark + DATA_MARK.length + 2).trimStart(),
  ].join('\n');
}
