/**
 * The Promela model's threads (spin_model_parts.ts says what the model is): main (init,
 * plan_fill, the loaders, fill_wait, releaseRam, residentCount, shutdown), the uploader and
 * the loaders, each step one atomic sequence as tierlab runs one op and the code after it.
 *
 * Invariant: without the gate (`Dims.G`) the text is the anchor generator's, byte for byte;
 * with it, each call through the gate is wrapped in the gate's steps (spin_model_gate.ts).
 */
import { lines, s, type Dims } from './spin_model_parts.js';
import { BEGIN_TEARDOWN, exclusiveIn, exclusiveOut, gateEnter, gateLeave } from './spin_model_gate.js';

/** `text` in the model with the lifecycle gate, nothing without it */
const gated = (d: Dims, text: string): string => (d.G ? text : '');

/** main's first line (apart, so that the braces of each function's text balance) */
export const MAIN_HEAD = 'active proctype main() {';

/** main: init, plan_fill, the loaders, fill_wait */
export function mainStart(d: Dims): string {
  const { E, L } = d;
  return `  byte i;
  byte p;
  byte rel;
#ifdef DIGEST
  byte steps;
#endif
${gated(d, exclusiveIn(0))}  atomic { STEP; budget = BUDGET }
  atomic { STEP; spawned[UPL] = 1; uplive = 1 }
${gated(d, exclusiveOut(1) + gateEnter('MAIN'))}  atomic { mx == FREE -> mx = MAIN; STEP;
    i = 0;
    do
    :: i < NE && !stop && used < budget ->
       if
       :: !(resident[i] || queued[i] || planned[i]) -> used++; planned[i] = 1
       :: else -> skip
       fi;
       i++
    :: else -> break
    od;
    i = 0;
    assert(${s((i) => `planned[${i}]`, E, ' && ')})
  }
  atomic { quiescent(); mx = FREE; STEP }
${gated(d, gateLeave('MAIN'))}${lines((t) => `  atomic { STEP; spawned[${t}] = 1 }`, L)}
${lines((t) => `  atomic { ended[${t}] -> STEP }`, L)}

${gated(d, gateEnter('MAIN'))}  atomic { mx == FREE -> mx = MAIN; STEP; fill_wait_next() }
fw_wait:
  atomic { mx = FREE; RANK_TAKE(MAIN); wtk[MAIN] = 1; STEP; quiescent() }
fw_sleep:
  if
  :: atomic { !wtk[MAIN] && mx == FREE -> mx = MAIN; STEP; fill_wait_next() }
#if SPURIOUS > 0
  :: atomic { wtk[MAIN] && spur > 0 -> spur--; wtk[MAIN] = 0; UNRANK(MAIN); goto fw_sleep }
#endif
  fi;
fw_unlock:
  atomic { quiescent(); mx = FREE; STEP; i = 0 }
${gated(d, gateLeave('MAIN'))}`;
}

/** main: releaseRam, residentCount, shutdown, the frees */
export function mainEnd(d: Dims): string {
  const { E, L, R } = d;
  const branch = `
    if
    :: resident[i] -> goto rel_free
    :: else -> i++; if :: i < NE -> goto rel_lock :: else -> i = 0; goto count fi
    fi`;
  const gin = gated(d, gateEnter('MAIN'));
  const teardown = gated(d, BEGIN_TEARDOWN);
  return `rel_lock:
${gin}  atomic { mx == FREE -> mx = MAIN; STEP; if :: resident[i] -> sram[i] = 0 :: else -> skip fi }
${unlockThen(d, 'MAIN', branch)}rel_free:
  atomic { STEP; ram[i] = 0; i++; if :: i < NE -> goto rel_lock :: else -> i = 0; goto count fi }

count:
${gin}  atomic { mx == FREE -> mx = MAIN; STEP }
  atomic { quiescent(); mx = FREE; STEP }
${gated(d, gateLeave('MAIN'))}
${teardown}  atomic { mx == FREE -> mx = MAIN; STEP; if :: stop || !uplive -> goto already :: else -> stop = 1 fi }
  atomic { STEP; signal_cv() }
  atomic { STEP; broadcast_take() }
  atomic { quiescent(); mx = FREE; STEP }
  atomic { ended[UPL] -> STEP;
    assert(qn == 0 && inflight == 0 && !busy)
  }
${gated(d, exclusiveIn(2))}  atomic { mx == FREE -> mx = MAIN; STEP }
  atomic { quiescent(); mx = FREE; STEP }
  atomic { mx == FREE -> mx = MAIN; STEP }
  atomic { STEP; broadcast_take();
    i = 0;
    do
    :: i < NE ->
       if :: stens[i] -> rel = rel | (1 << i); stens[i] = 0 :: else -> skip fi;
       if :: resident[i] || queued[i] -> used-- :: else -> skip fi;
       resident[i] = 0; queued[i] = 0; sram[i] = 0;
       i++
    :: else -> break
    od;
    assert(${s((i) => `ring[${i}] == 0`, R, ' && ')});
    qn = 0; uplive = 0; sdone = 1; i = 0
  }
  atomic { quiescent(); mx = FREE; STEP;
    do :: i < NE && (rel & (1 << i)) == 0 -> i++ :: else -> break od }
free_next:
  if
  :: atomic { i < NE -> STEP; devp[i]--; p++;
       if
       :: p == 3 -> p = 0; i++; do :: i < NE && (rel & (1 << i)) == 0 -> i++ :: else -> break od
       :: else -> skip
       fi;
       goto free_next }
  :: atomic { i >= NE -> STEP; bdown = 1;
       assert(${s((i) => `devp[${i}]`, E)} == 0);
       assert(${s((i) => `stg[${i}]`, E)} == 0);
       assert(used == 0 && qn == 0 && inflight == 0 && NCHARGED == 0);
       assert(ended[UPL] && ${s((i) => `ended[${i}]`, L, ' && ')} && sdone && !uplive);
       i = 0; rel = 0${d.G ? ` }\n${exclusiveOut(0, '; ended[MAIN] = 1')}` : '; ended[MAIN] = 1 }\n'}  fi;
end_main:
  (0);
already:
  atomic { quiescent(); mx = FREE; STEP; ended[MAIN] = 1 }
end_main2:
  (0)
}
`;
}

/** the uploader */
export function uploader(): string {
  return `inline uploader_next() {
  if
  :: qn == 0 && !stop -> goto u_wait
  :: qn == 0 && stop -> goto u_exit
  :: qn > 0 ->
     e = ring[qh] - 1; ring[qh] = 0; qh = (qh + 1) % QCAP; qn--; busy = 1;
     goto u_space
  fi
}

active proctype uploader() {
  byte e;
#ifdef DIGEST
  byte steps;
#endif
  atomic { spawned[UPL] -> STEP }
  atomic { mx == FREE -> mx = UPL; STEP; uploader_next() }
u_wait:
  atomic { mx = FREE; RANK_CV(UPL); wcv[UPL] = 1; STEP; quiescent() }
u_sleep:
  if
  :: atomic { !wcv[UPL] && mx == FREE -> mx = UPL; STEP; uploader_next() }
#if SPURIOUS > 0
  :: atomic { wcv[UPL] && spur > 0 -> spur--; wcv[UPL] = 0; UNRANK(UPL); goto u_sleep }
#endif
  fi;
u_space:
  atomic { STEP; broadcast_take() }
  atomic { quiescent(); mx = FREE; STEP }
  atomic { assert(stg[e]); STEP; devp[e]++ }
  atomic { assert(stg[e]); STEP; devp[e]++ }
  atomic { assert(stg[e]); STEP; devp[e]++ }
  atomic { STEP; stg[e] = 0 }
  atomic { mx == FREE -> mx = UPL; STEP;
    stens[e] = 1; resident[e] = 1; queued[e] = 0; inflight--; busy = 0; e = 0 }
  atomic { STEP; broadcast_take(); uploader_next() }
u_exit:
  atomic { quiescent(); mx = FREE; STEP; ended[UPL] = 1 }
end_upl:
  (0)
}
`;
}

/** the loaders */
export function loader(d: Dims): string {
  const branch = `
    if
    :: e + NL < NE -> e = e + NL; goto l_load
    :: else -> e = 0; ended[_pid] = 1
    fi`;
  return `inline loader_next() {
  if
  :: qn == QCAP && !stop -> goto l_wait
  :: else ->
     if
     :: stop || resident[e] || queued[e] || stens[e] ->
        planned[e] = 0; used--; goto l_unlock
     :: !(stop || resident[e] || queued[e] || stens[e]) && qn == QCAP ->
        skips++; planned[e] = 0; used--; goto l_unlock
     :: else -> goto l_stage
     fi
  fi
}

/* loader i hands over planned[j] for j % NL == i (driver.ts warmstartPlanned) */
active [NL] proctype loader() {
  byte e = _pid - 2;
#ifdef DIGEST
  byte steps;
#endif
  atomic { spawned[_pid] -> STEP; if :: e >= NE -> e = 0; ended[_pid] = 1; goto end_loader :: else -> skip fi }
l_load:
  atomic { STEP; ram[e] = 1 }
${gated(d, gateEnter('_pid'))}  atomic { mx == FREE -> mx = _pid; STEP;
    if
    :: !planned[e] -> goto l_unlock
    :: else -> sram[e] = 1; loader_next()
    fi }
l_wait:
  atomic { mx = FREE; RANK_TAKE(_pid); wtk[_pid] = 1; STEP; quiescent() }
l_sleep:
  if
  :: atomic { !wtk[_pid] && mx == FREE -> mx = _pid; STEP; loader_next() }
#if SPURIOUS > 0
  :: atomic { wtk[_pid] && spur > 0 -> spur--; wtk[_pid] = 0; UNRANK(_pid); goto l_sleep }
#endif
  fi;
l_stage:
  atomic { assert(ram[e]); STEP; stg[e] = 1;
    planned[e] = 0; queued[e] = 1; ring[qt] = e + 1; qt = (qt + 1) % QCAP; qn++; inflight++ }
  atomic { STEP; signal_cv() }
l_unlock:
${unlockThen(d, '_pid', branch)}end_loader:
  (0)
}
`;
}

/**
 * mx's release followed by `branch`: in one step without the gate (the anchor's text);
 * with it, the release, then the gate's way out with the branch in gmx's release step.
 */
function unlockThen(d: Dims, who: string, branch: string): string {
  if (!d.G) return `  atomic { quiescent(); mx = FREE; STEP;${branch} }\n`;
  return `  atomic { quiescent(); mx = FREE; STEP }\n${gateLeave(who, `;${branch}`)}`;
}
