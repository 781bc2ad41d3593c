/**
 * The upload section of reports/bench.md: the raw copies, the fill and its ratio to the
 * pinned copy, the per-op overheads, the decodes and where their time goes, and host
 * memory. Numbers as measured (bench.json has them unrounded).
 */
import type { UploadSection } from './upload.js';
import { uploadTargets } from './upload_targets.js';

const f2 = (x: number): string => x.toFixed(2);

export function renderUpload(u: UploadSection): string[] {
  const md: string[] = ['## Uploads at hardware speed', ''];
  md.push(
    `Backend ${u.backend} (\`${u.library}\`). Model: ${u.model.layers} layers x ${u.model.experts} experts, int4 grouped 64, ` +
      `tensors of ${f2(u.model.tensorMiB)} MiB, ${f2(u.model.expertGiB)} GiB of experts in all.`,
    '',
  );
  md.push('| what | GB/s | of pinned |', '|---|---|---|');
  md.push(`| raw copy, pinned (tl_copy_bandwidth, ${u.raw.reps} x 256 MiB) | ${f2(u.raw.pinnedGBps)} | 100 % |`);
  md.push(
    `| raw copy, pageable | ${f2(u.raw.pageableGBps)} | ${(100 * (u.raw.pageableGBps / u.raw.pinnedGBps)).toFixed(1)} % |`,
  );
  md.push(
    `| warmstart fill (plan_fill to the last landing, ${u.fill.uploads} uploads) | ${f2(u.fill.gbps)} | **${(100 * u.fill.ratioToPinned).toFixed(1)} %** |`,
    `| the same fill with no checker watching (what the checkers cost) | ${f2(u.fillUnchecked.gbps)} | ${(100 * u.fillUnchecked.ratioToPinned).toFixed(1)} % |`,
    `| the same fill again with every checker, JIT warm (the first fill of a process runs the code cold) | ${f2(u.fillWarm.gbps)} | **${(100 * u.fillWarm.ratioToPinned).toFixed(1)} %** |`,
    '',
    `Per expert, plan_fill to the last landing: ${u.perExpert.first.toFixed(1)} us in the first fill, ${u.perExpert.warmChecked.toFixed(1)} us warm with every checker, ${u.perExpert.unchecked.toFixed(1)} us with none` +
      `${u.perExpert.fills > 1 ? ` (medians of ${u.perExpert.fills} fills each)` : ''}.`,
    '',
  );
  md.push('Targets (issue 33):', '', ...uploadTargets(u), '');
  md.push(
    `The fill took ${u.fill.fillWaitMs.toFixed(1)} ms to fill_wait's return and ${u.fill.landedMs.toFixed(1)} ms to the last byte on the device ` +
      `(${(u.fill.bytes / 2 ** 30).toFixed(2)} GiB); ${(100 * u.fill.ratioToPageable).toFixed(0)} % of the pageable copy.`,
    '',
  );
  md.push(
    `Per-op overhead of the real world (tiny fixture): one upload op ${f2(u.perOp.uploadMicros)} us, one issue+take round trip ` +
      `${f2(u.perOp.issueTakeMicros)} us (best of ${u.perOp.rounds} rounds of ${u.perOp.samples}, after one to warm up; ` +
      `${f2(u.perOp.wakeupsPerRoundTrip)} completion wake-ups per round trip).`,
    '',
  );
  md.push(
    '| decode | tok/s | trunk ms | CPU experts ms | waiting on the device ms | other native calls ms | tier and JS ms |',
    '|---|---|---|---|---|---|---|',
  );
  for (const d of u.decode) {
    md.push(
      `| ${d.name} | ${f2(d.tokPerSec)} | ${d.ms.trunk.toFixed(0)} | ${d.ms.cpuExperts.toFixed(0)} | ${d.ms.gpuWait.toFixed(0)} | ${d.ms.ffi.toFixed(0)} | ${d.ms.other.toFixed(0)} |`,
    );
  }
  md.push(
    '',
    `Everything resident over CPU-only: ${f2(u.residentOverCpu)} x; tokens and hidden states ${u.identical ? 'bit-identical' : 'DIFFERENT'}.`,
    `Host memory at the end: RSS ${u.memory.rssMiB.toFixed(0)} MiB, JS heap ${u.memory.heapUsedMiB.toFixed(0)} MiB, array buffers ` +
      `${u.memory.arrayBuffersMiB.toFixed(0)} MiB (the trunk); the engine's RAM pool ${u.memory.ramHostMiB.toFixed(0)} MiB, ${u.memory.ramPinnedMiB.toFixed(0)} MiB pinned.`,
    '',
  );
  if (u.problems.length > 0) md.push('Problems:', '', ...u.problems.map((p) => `- ${p}`), '');
  return md;
}
