/**
 * The uploader thread (PROTOCOL.md, "uploader thread"), as a program of critical
 * sections:
 *  - head: waits on cv while the ring is empty and not stopping; leaves when stopping
 *    and the ring is empty; else pops the oldest entry and broadcasts cv_take (space);
 *  - a swap waits on cv_take while a group is open and not stopping; stopping with the
 *    group still open abandons it (the victim resident again with its tensors, the
 *    incoming expert not queued, one less in flight, broadcast; its staging copy freed
 *    outside); otherwise it takes the victim's tensors;
 *  - outside the lock: the victim's three tensors freed, the three parts uploaded to the
 *    home device in order until one fails (the parts already uploaded then freed), the
 *    staging copy freed;
 *  - finish, under the lock: a swap's victim into the eviction ring (its tensors are gone
 *    either way); resident with its tensors (a swap counted), or on failure
 *    ("device genuinely full") the charge given back and the home budget lowered to what
 *    is used; either way not queued, one less in flight, broadcast; then the head again.
 */
import { PARTS, type SpecIo, type Step } from './io.js';
import { recordEviction } from './replan.js';
import { home, slot, type SpecEntry, type SpecState } from './state.js';
import { UNLOCK, WAIT_CV, WAIT_TAKE, type SpecCall } from './call.js';

export class UploaderThread implements SpecCall {
  readonly family = 'SPEC-UPLOADER' as const;
  private pc: 'head' | 'swap' | 'abandoned' | 'upload' | 'ended' = 'head';
  private entry: SpecEntry | null = null;

  step(s: SpecState, io: SpecIo): Step {
    switch (this.pc) {
      case 'head':
        return this.head(s, io);
      case 'swap':
        return this.swap(s, io);
      case 'abandoned':
        io.op({ k: 'unstage', key: this.current() }, 'SPEC-UPLOADER');
        return this.head(s, io);
      case 'upload':
        this.upload(s, io);
        return this.head(s, io);
      default:
        return { returned: { fn: 'bool', value: true } };
    }
  }

  private current(): SpecEntry {
    if (this.entry === null) throw new Error('internal error: the uploader has no entry');
    return this.entry;
  }

  private head(s: SpecState, io: SpecIo): Step {
    // the entry before is done with (a swap, an abandon and an upload read it before
    // coming back here): kept, it would tell apart states the protocol does not
    this.entry = null;
    if (s.ring.length === 0 && !s.stop) {
      this.pc = 'head';
      return WAIT_CV;
    }
    const e = s.ring.shift();
    if (e === undefined) {
      this.pc = 'ended';
      return UNLOCK;
    }
    this.entry = e;
    io.op({ k: 'broadcast', cv: 'cv_take' }, 'SPEC-WAKEUP');
    if (e.victim !== null) return this.swap(s, io);
    this.pc = 'upload';
    return UNLOCK;
  }

  private swap(s: SpecState, io: SpecIo): Step {
    const e = this.current();
    const victim = e.victim;
    if (victim === null) throw new Error('internal error: a swap without a victim');
    if (s.issueOpen && !s.stop) {
      this.pc = 'swap';
      return WAIT_TAKE;
    }
    if (s.stop && s.issueOpen) {
      slot(s, victim).resident = true;
      slot(s, e).queued = false;
      s.inflight--;
      s.counters.swapsAbandoned++;
      io.op({ k: 'broadcast', cv: 'cv_take' }, 'SPEC-WAKEUP');
      this.pc = 'abandoned';
      return UNLOCK;
    }
    slot(s, victim).tensors = false;
    this.pc = 'upload';
    return UNLOCK;
  }

  /** The copies outside the lock, then the finish under it. */
  private upload(s: SpecState, io: SpecIo): void {
    const e = this.current();
    const dev = home(s, e.eid);
    if (e.victim !== null) for (const part of PARTS) io.op({ k: 'free', dev, key: e.victim, part }, 'SPEC-UPLOADER');
    let uploaded = 0;
    for (const part of PARTS) {
      if (!io.op({ k: 'upload', dev, key: e, part }, 'SPEC-UPLOADER')) break;
      uploaded++;
    }
    const ok = uploaded === PARTS.length;
    if (!ok) for (const part of PARTS.slice(0, uploaded)) io.op({ k: 'free', dev, key: e, part }, 'SPEC-UPLOADER');
    io.op({ k: 'unstage', key: e }, 'SPEC-UPLOADER');
    if (e.victim !== null) recordEviction(s, e.victim);
    const x = slot(s, e);
    if (ok) {
      x.tensors = true;
      x.resident = true;
      s.counters.uploads++;
      if (e.victim !== null) s.counters.swaps++;
    } else {
      s.used[dev] = (s.used[dev] ?? 0) - s.exp;
      s.budget[dev] = s.used[dev] ?? 0;
      s.counters.uploadFailures++;
    }
    x.queued = false;
    s.inflight--;
    io.op({ k: 'broadcast', cv: 'cv_take' }, 'SPEC-WAKEUP');
  }
}
