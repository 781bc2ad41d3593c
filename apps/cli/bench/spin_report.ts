/**
 * The Spin comparison of reports/bench.md (spin_bench.ts): each configuration of the
 * anchor's growth table, tierlab's complete search beside Spin's in the same run (or the
 * anchor's published figures, with the reason Spin was not run), and Spin on the same model
 * with the lifecycle gate (the tier's protocol: the like-for-like ratios), the ratios, the
 * growth exponents, and each target of the issue beside what was measured, against both.
 */
import type { SpinRow, SpinSection } from './spin_bench.js';
import { MAX_WARM_UP_SEARCHES } from './warm_up.js';

const int = (x: number): string => Math.round(x).toLocaleString('en-US');
const ratio = (x: number | null): string => (x === null ? '-' : `${x.toFixed(2)} x`);
const us = (seconds: number, states: number): string => (states > 0 ? ((1e6 * seconds) / states).toFixed(1) : '-');

function line(r: SpinRow): string {
  const t = r.tierlab;
  const s = r.spin;
  const g = r.spinGate;
  const [aStates, aTransitions, aMs] = r.config.anchor;
  const spinStates = s?.states ?? aStates;
  const spinCpu = s?.searchCpuSeconds ?? aMs / 1000;
  return (
    `| ${r.label} | ${t.complete ? 'yes' : 'NO'} | ${int(t.states)} | ${s === null ? '-' : int(s.states)} | ${int(aStates)} | ` +
    `**${ratio(r.stateRatio)}** | ${int(t.stepsExecuted)} | ${s === null ? int(aTransitions) : int(s.transitions)} | ` +
    `${t.cpuSeconds.toFixed(2)} | ${t.wallSeconds.toFixed(2)} | ${(1000 * spinCpu).toFixed(1)} | ` +
    `${us(t.cpuSeconds, t.states)} | ${us(spinCpu, spinStates)} | **${ratio(r.perStateRatio)}** | ` +
    `${g === null ? '-' : int(g.states)} | **${ratio(r.gateStateRatio)}** | ` +
    `${g === null ? '-' : us(g.searchCpuSeconds, g.states)} | **${ratio(r.gatePerStateRatio)}** | ` +
    `${t.violations.join(', ') || 'none'} |`
  );
}

const mark = (ok: boolean): string => (ok ? 'met' : '**not met**');

function targets(x: SpinSection): string[] {
  const done = x.rows.filter((r) => r.tierlab.complete);
  const worst = (f: (r: SpinRow) => number | null): number | null =>
    done.reduce<number | null>((m, r) => {
      const v = f(r);
      return v === null ? m : m === null ? v : Math.max(m, v);
    }, null);
  const all = done.length === x.rows.length;
  const states = worst((r) => r.stateRatio);
  const perState = worst((r) => r.perStateRatio);
  const gateStates = worst((r) => r.gateStateRatio);
  const gatePerState = worst((r) => r.gatePerStateRatio);
  const big = x.rows.find((r) => r.config.experts === 6 && r.config.loaders === 3);
  const out = [
    `- distinct states within 2 x of Spin's on every row (${done.length} of ${x.rows.length} rows complete): beside the model with the gate, worst ${ratio(gateStates)}: ${mark(gateStates !== null && gateStates <= 2 && all)}; beside the anchor's model without it, worst ${ratio(states)}: ${mark(states !== null && states <= 2 && all)}`,
    `- growth exponent in experts at most 3: tierlab ${x.growthTierlab?.toFixed(2) ?? '-'} (Spin ${x.growthSpin?.toFixed(2) ?? '-'}, with the gate ${x.growthSpinGate?.toFixed(2) ?? '-'}): ${mark(x.growthTierlab !== null && x.growthTierlab <= 3)}`,
    `- CPU per distinct state at most 20 x Spin's: beside the model with the gate, worst ${ratio(gatePerState)}: ${mark(gatePerState !== null && gatePerState <= 20)}; beside the anchor's model, worst ${ratio(perState)}: ${mark(perState !== null && perState <= 20)}`,
  ];
  if (big !== undefined)
    out.push(
      `- six experts, three loaders, complete and unbounded in under 60 s: ${big.tierlab.complete ? 'complete' : 'INCOMPLETE'} in ${big.tierlab.wallSeconds.toFixed(1)} s wall (${big.tierlab.cpuSeconds.toFixed(1)} s CPU): ${mark(big.tierlab.complete && big.tierlab.wallSeconds < 60)}`,
    );
  return out;
}

/** What the rows' CPU leaves out, as Spin's leaves out compiling pan (spin_bench.ts, warmUpSearch). */
function warmUpText(w: SpinSection['warmUp']): string {
  if (w === undefined) return '';
  const us = w.usPerState.map((x) => x.toFixed(0)).join(', ');
  return ` Before the rows, tierlab's search ran e2-l2-r2 ${w.searches} times until its CPU a state settled (${w.settled ? 'it did' : `it did not, within ${MAX_WARM_UP_SEARCHES} searches`}: ${us} us), so that a row's CPU is the search's and not the JIT's, as Spin's leaves out compiling pan.`;
}

export function renderSpin(x: SpinSection): string[] {
  const spin =
    x.skipped !== null
      ? `Spin was not run (${x.skipped}); the Spin columns are the anchor's published figures.`
      : `${x.spinVersion ?? 'Spin'}, pan built with \`${x.compiler ?? 'cc'} -O2 -DSAFETY\` and run \`-m1000000 -w24\`, in this run.`;
  return [
    '## Beside Spin: the growth table',
    '',
    "The small warmstart configuration grown to e experts (budget for each), l loader threads and a ring of r slots; tierlab's complete search (DPOR and its state cache, no preemption bound) beside Spin on the anchor's independent Promela model of the same configuration. " +
      spin +
      " Transitions: tierlab's steps executed, Spin's stored + matched. Seconds: tierlab's search (CPU and wall), Spin's search (CPU, a timer around pan's search). " +
      "The anchor's model predates the lifecycle gate, which tierlab's tier passes at every entry point; the columns marked 'gate' are Spin on the same model with the gate added (apps/cli/bench/spin_model_gate.ts), the same protocol as tierlab's." +
      warmUpText(x.warmUp),
    '',
    '| config | complete | tierlab states | Spin states | anchor states | states ratio | tierlab transitions | Spin transitions | tierlab CPU s | tierlab wall s | Spin ms | tierlab us/state | Spin us/state | per-state ratio | Spin states, gate | states ratio, gate | Spin us/state, gate | per-state ratio, gate | violations |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...x.rows.map(line),
    '',
    'Targets (issue 33):',
    '',
    ...targets(x),
    '',
  ];
}
