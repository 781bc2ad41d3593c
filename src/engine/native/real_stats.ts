/**
 * What a real run measures besides its tokens: uploads started and landed (bytes, and
 * the engine clock's first-upload and last-landing times, for the uploader's bandwidth),
 * where the decode time goes, and every failure the engine reported (none is dropped).
 * Time buckets, in milliseconds of wall time on the JavaScript thread from the decode's
 * first route on (what came before, a warmstart's fill, is not the decode's):
 *   trunk       attention, router, combine and lm_head (native, on the host)
 *   cpuExperts  experts computed on the host (tl_expert_cpu_ram)
 *   gpuWait     waiting for a device group to finish (the take's completion)
 *   ffi         every other native call the real world makes (uploads, stage, issue, take,
 *               frees, RAM loads): the cost of driving the engine
 */
export type TimeBucket = 'trunk' | 'cpuExperts' | 'gpuWait' | 'ffi';

export class RealStats {
  uploads = 0;
  uploadBytes = 0;
  landed = 0;
  landedBytes = 0;
  /** engine clock (ns) at the first upload, and at the last landing seen */
  firstUploadNs = 0;
  lastLandedNs = 0;
  /** native completion waits that returned: the event-loop turns completions cost */
  completionWakeups = 0;
  readonly failures: string[] = [];
  nativeLedgerAtShutdown: { count: number; bytes: number } | null = null;
  /** the engine's RAM pool when the backend shut down: host memory, and how much is pinned */
  ramHostBytes = 0;
  ramPinnedBytes = 0;
  readonly ms: Record<TimeBucket, number> = { trunk: 0, cpuExperts: 0, gpuWait: 0, ffi: 0 };

  addTime(bucket: TimeBucket, ms: number): void {
    this.ms[bucket] += ms;
  }

  land(bytes: number, doneNs: number): void {
    this.landed++;
    this.landedBytes += bytes;
    if (doneNs > this.lastLandedNs) this.lastLandedNs = doneNs;
  }

  /** bytes landed over first upload to last landing (0 when nothing landed) */
  get uploadGBps(): number {
    const ns = this.lastLandedNs - this.firstUploadNs;
    return this.landed > 0 && ns > 0 ? this.landedBytes / ns : 0;
  }
}
