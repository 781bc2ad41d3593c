/**
 * Builds exported C regression tests the way their header says (export_c.ts,
 * BUILD_LINES): the tier's sources (native/tier/tt_*.c) compiled once with the scheduler's
 * renaming, the fake backend (native/tier/fake_*.c) once plain, and per test only the test
 * itself and the one or two tier files a defect's patch touches. Two compilers at a time
 * (the machine's two cores); everything lives in one temporary folder the caller removes.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../mutants/lib/catalogue.js';
import { runPool } from '../../mutants/lib/pool.js';
import type { Mutant } from '../../mutants/lib/types.js';

const run = promisify(execFile);
const TIER = join(REPO_ROOT, 'native/tier');
const HEADER_DIR = join(REPO_ROOT, 'native/build/sched');
const STD = ['-std=c11', '-D_POSIX_C_SOURCE=200809L', '-O1', '-Wall', '-Wextra'];
/** the tier as it is and every exported test compile clean; a defect's patch may leave a variable unused */
const STRICT = [...STD, '-Werror'];
/** the scheduler renames the tier's pthread calls; TT_YIELD marks each backend entry */
const RENAMED = [
  `-I${HEADER_DIR}`,
  '-include',
  'tl_sched.h',
  '-DTL_SCHED_INTERPOSE',
  '-DTL_SCHED_INTERPOSE_ONLY',
  '-DTT_YIELD(site)=tl_sched_backend_enter((site), 0)',
];

export interface BaseObjects {
  /** by source file name (tt_note.c): its object */
  readonly tier: ReadonlyMap<string, string>;
  readonly fake: readonly string[];
}

async function cc(args: readonly string[]): Promise<void> {
  try {
    await run('nice', ['-n', '10', 'cc', ...args], { maxBuffer: 1 << 22 });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`cc ${args.join(' ')}\n${err.stderr ?? err.message}`);
  }
}

/** The tier and the fake backend, unedited, compiled into dir. */
export async function buildBase(dir: string): Promise<BaseObjects> {
  const files = readdirSync(TIER).filter((f) => f.endsWith('.c'));
  const tierSrc = files.filter((f) => f.startsWith('tt_'));
  const fakeSrc = files.filter((f) => f.startsWith('fake_'));
  const jobs = [...tierSrc.map((f) => [f, true] as const), ...fakeSrc.map((f) => [f, false] as const)];
  await runPool(jobs, 2, ([f, renamed]) =>
    cc([...STRICT, ...(renamed ? RENAMED : []), '-c', join(TIER, f), '-o', join(dir, `${f}.o`)]),
  );
  return {
    tier: new Map(tierSrc.map((f) => [f, join(dir, `${f}.o`)])),
    fake: fakeSrc.map((f) => join(dir, `${f}.o`)),
  };
}

/** The tier's objects with a defect's patched files in place of their originals. */
export async function buildDefect(dir: string, base: BaseObjects, m: Mutant): Promise<string[]> {
  const texts = new Map<string, string>();
  for (const p of m.patches) {
    if (!('find' in p)) throw new Error(`${m.id}: a span patch; the C catalogue's are find/replace`);
    const text = texts.get(p.file) ?? readFileSync(join(REPO_ROOT, p.file), 'utf8');
    if (!text.includes(p.find)) throw new Error(`${m.id}: its patch no longer applies to ${p.file}`);
    texts.set(p.file, text.replace(p.find, p.replace));
  }
  const objects = new Map(base.tier);
  for (const [file, text] of texts) {
    const name = basename(file);
    const src = join(dir, `${m.id}-${name}`);
    writeFileSync(src, text);
    const obj = `${src}.o`;
    // the patched copy lives apart: its quoted includes are the tier's own folder's
    await cc([...STD, ...RENAMED, `-I${TIER}`, '-c', src, '-o', obj]);
    objects.set(name, obj);
  }
  return [...objects.values(), ...base.fake];
}

/** The scheduler's implementation as an object of its own, for tests compiled with TX_SCHED_ELSEWHERE. */
export async function buildSchedImpl(dir: string): Promise<string> {
  const src = join(dir, 'tl_sched_impl.c');
  writeFileSync(src, '#define _GNU_SOURCE\n#define TL_SCHED_IMPLEMENTATION\n#include "tl_sched.h"\n');
  await cc([...STRICT, `-I${HEADER_DIR}`, '-c', src, '-o', `${src}.o`]);
  return `${src}.o`;
}

/**
 * The exported test compiled once (an object), then linked against the given tier objects.
 * schedImpl: link this object for the scheduler (buildSchedImpl) instead of compiling the
 * test's own copy; absent, the test is compiled exactly as its header says.
 */
export async function compileTest(source: string, schedImpl?: string): Promise<string[]> {
  const obj = `${source}.o`;
  const elsewhere = schedImpl !== undefined ? ['-DTX_SCHED_ELSEWHERE'] : [];
  await cc([...STRICT, ...elsewhere, `-I${HEADER_DIR}`, `-I${TIER}`, '-c', source, '-o', obj]);
  return schedImpl !== undefined ? [obj, schedImpl] : [obj];
}

export async function link(testObjects: readonly string[], objects: readonly string[], out: string): Promise<string> {
  await cc([...testObjects, ...objects, '-pthread', '-lm', '-o', out]);
  return out;
}
