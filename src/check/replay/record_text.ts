/**
 * A C tier run's records as people read them: one line per thing a thread did that
 * matters to the tier (its calls and returns, its sections of mx, its waits and wakeups,
 * the tier's decisions, the backend's calls), each line led by the thread's name. What only
 * the machinery sees (the scheduler's backend points, the gate's lock) is left out.
 *
 * Invariant: the lines are in the run's one order; the same records give the same text.
 */
import type { Rec, TierEvent } from './records.js';
import { FN_NAMES } from './schema.js';
import type { ReplayPlan } from './replay_plan.js';

const key = (layer: number, eid: number): string => (layer >= 0 ? `L${layer}E${eid}` : '');

function tierText(e: TierEvent): string | null {
  if (e.src === 'gate') return e.ev === 'gate_refuse' ? 'the gate refuses' : null;
  if (e.ev === 'call' || e.ev === 'ret' || e.ev === 'unlock' || e.ev === 'wait' || e.ev === 'wake') return null;
  const k = key(e.layer, e.eid);
  const v = e.vlayer >= 0 ? ` <- ${key(e.vlayer, e.veid)}` : '';
  const dev = e.dev >= 0 && e.src === 'backend' ? ` dev${e.dev}` : '';
  const what = e.src === 'backend' ? e.ev.replace(/^be_/, 'backend ') : e.ev;
  return `${what}${k !== '' ? ` ${k}` : ''}${v}${dev} (${e.value}${e.value2 !== 0 ? `, ${e.value2}` : ''})`;
}

function line(r: Rec, plan: ReplayPlan): string | null {
  switch (r.c) {
    case 'event':
      return tierText(r);
    case 'sched': {
      const role = plan.roles.get(r.obj) ?? 'other';
      if (role === 'other' || role === 'gmx' || role === 'gcv' || role === 'tmx') {
        if (r.op === 'create') return `creates ${plan.names.get(r.arg) ?? `thread${r.arg}`}`;
        if (r.op === 'join') return `joins ${plan.names.get(r.arg) ?? `thread${r.arg}`}`;
        return r.op === 'exit' ? 'ends' : null;
      }
      if (r.op === 'spurious' || r.op === 'timeout')
        return `wakes ${r.op === 'spurious' ? 'spuriously' : 'on a timeout'}`;
      return `${r.op} ${role}${r.op === 'signal' && r.arg >= 0 ? ` (wakes ${plan.names.get(r.arg) ?? r.arg})` : ''}`;
    }
    case 'engine':
      if (r.kind === 'call') return `> ${FN_NAMES[r.a[0] ?? -1] ?? '?'} ${key(r.a[1] ?? -1, r.a[2] ?? -1)}`.trimEnd();
      if (r.kind === 'ret') return `< ${FN_NAMES[r.a[0] ?? -1] ?? '?'} = ${r.a[1] ?? 0}`;
      if (r.kind === 'route') return `route t${r.a[0]} L${r.a[1]}`;
      if (r.kind === 'combine') return `combine t${r.a[0]} L${r.a[1]} (${r.a[2]} parts)`;
      return null;
    default:
      return null;
  }
}

/** The run's lines, the last `last` of them (all when undefined). */
export function recordLines(recs: readonly Rec[], plan: ReplayPlan, last?: number): string[] {
  const out: string[] = [];
  for (const r of recs) {
    const text = line(r, plan);
    if (text === null || !('tid' in r)) continue;
    const tid = r.tid;
    out.push(`${(plan.names.get(tid) ?? (tid < 0 ? 'harness' : `thread${tid}`)).padEnd(9)} ${text}`);
  }
  return last === undefined ? out : out.slice(-last);
}
