#!/usr/bin/env node
/**
 * The short table scripts/gpu/remote.sh prints last: every step's status, and the
 * numbers the run is for, read back from what the steps wrote (their console output in
 * WORK/NAME.out, the benchmark's WORK/reports/bench-NAME/bench.json). Plain Node, no
 * dependencies (the GPU machine has only the Node the pack carries).
 *   node scripts/gpu/summary.mjs WORK
 * A number that is missing prints as "-" (its step failed or did not run); nothing is
 * made up.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const work = process.argv[2] ?? '/tmp/tl';
const text = (name) => (existsSync(join(work, `${name}.out`)) ? readFileSync(join(work, `${name}.out`), 'utf8') : '');
const grab = (name, re) => re.exec(text(name))?.slice(1) ?? null;
const f = (x, d = 2) => (x === undefined || x === null || Number.isNaN(Number(x)) ? '-' : Number(x).toFixed(d));
const steps = existsSync(join(work, 'steps.txt'))
  ? readFileSync(join(work, 'steps.txt'), 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' '))
  : [];
const rows = [];
const row = (what, result) => rows.push(`| ${what} | ${result} |`);

for (const [name, rc] of steps) {
  const out = text(name);
  const verdict = /(\d+) passed, (\d+) failed\s*$/m.exec(out) ?? /^(PASS|FAIL): .*$/m.exec(out);
  row(
    `step ${name}`,
    `${rc === '0' ? 'ok' : `FAILED (exit ${rc})`}${verdict !== null ? `: ${verdict[0].trim()}` : ''}`,
  );
}
const probe = grab('h2d', /h2d dev 0: pinned ([\d.]+) GB\/s, pageable ([\d.]+) GB\/s/);
if (probe !== null)
  row('raw copy, device 0 (cuda_h2d_probe, best of 5 x 256 MiB)', `pinned ${probe[0]} GB/s, pageable ${probe[1]} GB/s`);
for (const name of [
  'c-bench-cuda',
  'c-bench-vulkan-staged',
  'c-bench-vulkan-mapped',
  'c-bench-cpu-1thread',
  'c-bench-cpu',
]) {
  const up = grab(name, /staged uploads, first call to last completion: best ([\d.]+) GB\/s/);
  if (up === null) continue;
  const raw = grab(name, /pinned ([\d.]+) GB\/s, pageable ([\d.]+) GB\/s/);
  const mc = grab(name, /ratio uploads \/ memcpy: ([\d.]+)/);
  const rr = grab(name, /ratio uploads \/ raw pinned copy: ([\d.]+)/);
  row(
    `${name}: staged uploads (C, same run)`,
    `${up[0]} GB/s; raw pinned ${raw?.[0] ?? '-'} GB/s; ratio to pinned ${rr?.[0] ?? '-'}, to memcpy ${mc?.[0] ?? '-'}`,
  );
}
for (const [name] of steps.filter(([n]) => n.startsWith('bench-'))) {
  const file = join(work, 'reports', name, 'bench.json');
  if (!existsSync(file)) continue;
  const u = JSON.parse(readFileSync(file, 'utf8')).upload;
  if (u === undefined) continue;
  const [cpu, all] = u.decode;
  row(
    `${name}: warmstart fill, ${f(u.model.expertGiB)} GiB of ${f(u.model.tensorMiB)} MiB tensors`,
    `**${f(u.fill.gbps)} GB/s = ${f(100 * u.fill.ratioToPinned, 1)} % of pinned** (${f(u.raw.pinnedGBps)}; pageable ${f(u.raw.pageableGBps)}); ` +
      `fill_wait ${f(u.fill.fillWaitMs, 1)} ms, last landing ${f(u.fill.landedMs, 1)} ms`,
  );
  if (u.fillUnchecked !== undefined)
    row(
      `${name}: the same fill, no checker watching`,
      `${f(u.fillUnchecked.gbps)} GB/s = ${f(100 * u.fillUnchecked.ratioToPinned, 1)} % of pinned; last landing ${f(u.fillUnchecked.landedMs, 1)} ms`,
    );
  if (u.fillWarm !== undefined)
    row(
      `${name}: the same fill again, every checker, JIT warm`,
      `**${f(u.fillWarm.gbps)} GB/s = ${f(100 * u.fillWarm.ratioToPinned, 1)} % of pinned**; last landing ${f(u.fillWarm.landedMs, 1)} ms`,
    );
  row(
    `${name}: decode`,
    `CPU-only ${f(cpu?.tokPerSec)} tok/s, resident ${f(all?.tokPerSec)} tok/s (${f(u.residentOverCpu)} x), ${u.identical ? 'bit-identical' : 'DIFFERENT'}; ` +
      `resident ms: trunk ${f(all?.ms.trunk, 0)}, CPU experts ${f(all?.ms.cpuExperts, 0)}, device wait ${f(all?.ms.gpuWait, 0)}, ffi ${f(all?.ms.ffi, 0)}, tier/JS ${f(all?.ms.other, 0)}`,
  );
  row(
    `${name}: per op`,
    `upload ${f(u.perOp.uploadMicros)} us, issue+take ${f(u.perOp.issueTakeMicros)} us; ` +
      (u.perExpert !== undefined
        ? `per expert ${f(u.perExpert.first, 1)} us first fill, ${f(u.perExpert.warmChecked, 1)} us warm checked, ${f(u.perExpert.unchecked, 1)} us unchecked; `
        : '') +
      `RSS ${f(u.memory.rssMiB, 0)} MiB, RAM pool ${f(u.memory.ramHostMiB, 0)} MiB (${f(u.memory.ramPinnedMiB, 0)} pinned)`,
  );
  if (u.problems.length > 0) row(`${name}: problems`, u.problems.join('; '));
}
process.stdout.write(['', '| what | result |', '|---|---|', ...rows, ''].join('\n'));
