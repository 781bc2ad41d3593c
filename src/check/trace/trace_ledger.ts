/**
 * The backend's ledger as a free run's log tells it (native/tier/EVENTS.md, "Backend
 * events"): every device tensor, staging copy and host array from its allocation to its
 * free, and every device's open group. The fake backend records these under its own lock,
 * so their order in the log is the order they happened in; the engine adapter records one
 * `be_call` per engine call, which this ledger does not read.
 *
 * Invariant: `step` returns the first rule an event breaks (a use after free, a double
 * free, a second group on a busy device, a take with no group, a shutdown with something
 * alive, a misuse the backend itself caught), or null; state changes only when it holds.
 */
import type { TraceEvent } from './trace_event.js';

export class TraceLedger {
  private readonly tensors = new Map<number, number>();
  private readonly staging = new Map<number, number>();
  private readonly hosts = new Map<number, number>();
  /** where each id was freed (for the report of a use after free) */
  private readonly freedAt = new Map<number, number>();
  private readonly groups = new Set<number>();
  /** per device: the tensors its open group reads (from be_group_row), and the seq it opened at */
  private readonly reading = new Map<number, { ids: Set<number>; seq: number }>();

  step(e: TraceEvent): string | null {
    // id 0: the backend refused or failed the call (it made nothing), or did not know what it
    // was given (its own be_violation says so)
    if (e.id === 0 && e.ev !== 'be_group_open' && e.ev !== 'be_group_take' && e.ev !== 'be_shutdown') {
      return e.ev === 'be_violation' ? this.violation(e) : null;
    }
    switch (e.ev) {
      case 'be_alloc':
        return this.make(this.tensors, e, 'tensor');
      case 'be_upload':
        return this.tensors.has(e.id) ? null : this.gone(e, 'tensor', 'an upload into');
      case 'be_free':
        return this.underGroup(e) ?? this.drop(this.tensors, e, 'tensor');
      case 'be_group_row':
        return this.row(e);
      case 'be_stage':
        return this.make(this.staging, e, 'staging copy');
      case 'be_unstage':
        return this.drop(this.staging, e, 'staging copy');
      case 'be_host':
        return e.value2 === 1 ? this.make(this.hosts, e, 'host array') : this.drop(this.hosts, e, 'host array');
      case 'be_group_open':
        // value2: 1 opened, 0 the issue failed (nothing is open)
        if (e.value2 !== 1) return null;
        if (this.groups.has(e.dev))
          return `be_group_open: a second group on device ${e.dev}, whose group is still open`;
        this.groups.add(e.dev);
        if (this.reading.has(e.dev)) (this.reading.get(e.dev) as { seq: number }).seq = e.seq;
        return null;
      case 'be_group_take':
        // value2: 1 collected, 0 collected with a fault (closed all the same), -1 no group there
        if (e.value2 < 0 || !this.groups.delete(e.dev))
          return `be_group_take: device ${e.dev} has no open group to collect`;
        this.reading.delete(e.dev);
        return null;
      case 'be_violation':
        return this.violation(e);
      case 'be_shutdown':
        return this.shutdown(e);
      default:
        return null;
    }
  }

  /** A row of the group being issued on e.dev: its three tensors (gate id, up, down). */
  private row(e: TraceEvent): null {
    if (this.groups.has(e.dev)) return null;
    let r = this.reading.get(e.dev);
    if (r === undefined || e.part === 0) {
      r = { ids: new Set<number>(), seq: e.seq };
      this.reading.set(e.dev, r);
    }
    r.ids.add(e.id).add(e.value).add(e.value2);
    return null;
  }

  /** A tensor freed while the open group of its device reads it. */
  private underGroup(e: TraceEvent): string | null {
    const dev = e.dev;
    const r = this.reading.get(dev);
    if (r === undefined || !this.groups.has(dev) || !r.ids.has(e.id)) return null;
    return `be_free: tensor ${e.id} freed while device ${dev}'s group (opened at seq ${r.seq}) still reads it`;
  }

  private violation(e: TraceEvent): string {
    return `be_violation: the backend's own ledger caught a misuse (kind ${e.value}: ${VIOLATIONS[e.value] ?? 'another'})`;
  }

  private make(m: Map<number, number>, e: TraceEvent, what: string): string | null {
    const at = m.get(e.id);
    if (at !== undefined) return `${e.ev}: ${what} ${e.id} is allocated again while live (since seq ${at})`;
    m.set(e.id, e.seq);
    this.freedAt.delete(e.id);
    return null;
  }

  private drop(m: Map<number, number>, e: TraceEvent, what: string): string | null {
    if (!m.has(e.id)) return this.gone(e, what, 'a free of');
    m.delete(e.id);
    this.freedAt.set(e.id, e.seq);
    return null;
  }

  private gone(e: TraceEvent, what: string, act: string): string {
    const f = this.freedAt.get(e.id);
    const why = f !== undefined ? `freed at seq ${f} (a use after free)` : 'never allocated in this log';
    return `${e.ev}: ${act} ${what} ${e.id}, ${why}`;
  }

  /** The backend shuts down: nothing of the tier's may be alive (by the log and by the
   *  backend's own count); the next generation starts empty. */
  private shutdown(e: TraceEvent): string | null {
    const t = this.tensors.size;
    const s = this.staging.size;
    if (t !== 0 || s !== 0 || this.groups.size !== 0)
      return `be_shutdown: ${t} tensors, ${s} staging copies and ${this.groups.size} groups still alive (a leak at shutdown)`;
    if (e.value !== 0 || e.value2 !== 0)
      return `be_shutdown: the backend counts ${e.value} tensors and ${e.value2} staging copies alive (a leak at shutdown)`;
    this.hosts.clear();
    this.freedAt.clear();
    return null;
  }
}

const VIOLATIONS: Record<number, string> = {
  1: 'double free',
  2: 'use after free',
  3: 'free under an open group',
  4: "the wrong expert's bytes",
};
