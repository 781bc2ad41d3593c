/**
 * Committed scenarios that a default properties run (no --scenario, --suite or
 * --strategy, not sharded) also searches completely: DPOR with the state cache and no
 * preemption bound, about a second each. They hold races the random suites almost
 * never reach, because a race needs several choices in a row at one place:
 *
 *  - shutdown-racing: shutdown from a thread of its own during the first token, with a
 *    dense GEMV and one spurious wakeup. The teardown's wait for a caller still inside
 *    (the decode thread issuing or collecting a group, or a GEMV reading the trunk) is
 *    only reached when shutdown lands inside that window, and an `if` in place of a
 *    `while` differs only when a spurious wakeup comes there: the search finds both,
 *    sampled runs rarely do.
 *  - lifecycle-racing: init racing shutdown racing a reader. One device, two experts, no
 *    token: the engine starts the tier, a stats thread (one round of stats and
 *    is_resident) and a thread that calls init, then shuts down and, once the others are
 *    joined, shuts down again (the racer's init may have won). Every order of the gate's
 *    sections: the reader admitted or refused at the door, the init refused during the
 *    teardown or starting a new generation after it, the teardown's exclusive section
 *    waiting for the reader.
 *  - sync-shutdown-racing: synchronous uploads, one device, a blocking warmstart that
 *    makes two experts resident (a heat file makes the first the hotter), and one token of
 *    prompt whose re-plan (the layer form) swaps the colder for the routed one (pairing
 *    the hotter would be wrong); shutdown starts from a thread of its own at the start of
 *    that token, so it races the re-plan, the note, the issue that waits for the swap in
 *    flight, and the uploader's copy. Once stop is set, re-plan must leave its pairs
 *    pending, issue must stop waiting even with the copy unfinished and must build no
 *    group (PROTOCOL.md: `issue` after stop issues nothing). A sampled run needs shutdown
 *    to land between a caller's admission and its lock: the shutdown suite's runs killed
 *    issue's stop check removed only after 1,285 of them.
 *  - plan-shutdown-racing: a planned warmstart with shutdown started from a thread of its
 *    own just before plan_fill, so it races the plan, the loader and fill_wait: a plan
 *    made after stop must reserve nothing.
 *  - trunk-shutdown-racing: the expert tier never started, the engine placing its two
 *    trunk matrices at DEAD while a second shutdown starts: the shutdown finds nothing, or
 *    a placement under way (it must wait for it, woken by the placement's end), or the
 *    placed trunk (it frees it).
 *  - trunk-racer: a thread of its own calls trunk_place while the engine starts the tier,
 *    with one matrix that fits and one that fits nowhere: the placement is refused while
 *    init holds its section or once the tier is LIVE, or wins at DEAD and is then taken
 *    over and freed by init, which places its own.
 *  - trunk-racer-off: the same, with the uploader refused so init rolls back (freeing the
 *    trunk it placed, the matrix on the CPU left alone); the engine then places the trunk
 *    itself, racing the racer: one is refused while the other's placement is under way
 *    or done (a partial one: a matrix on the CPU is not a free offer).
 *
 * A mutation run is a default run, so every mutant meets these searches too.
 */
import { committedScenario } from './committed_scenarios.js';
import type { PlainScenarioRequest } from './search_parts.js';

export const SEARCHED_SCENARIOS = [
  'shutdown-racing',
  'lifecycle-racing',
  'sync-shutdown-racing',
  'plan-shutdown-racing',
  'trunk-shutdown-racing',
  'trunk-racer',
  'trunk-racer-off',
] as const;

/** The complete search of one committed scenario, with the run's seed, budget and property. */
export function searchedRequest(
  name: string,
  common: Pick<PlainScenarioRequest, 'seed' | 'seconds' | 'property'>,
): PlainScenarioRequest {
  return {
    ...common,
    scenario: committedScenario(name),
    runs: Number.POSITIVE_INFINITY,
    strategy: 'exhaustive',
    preemptions: Number.POSITIVE_INFINITY,
    reduction: true,
    stateCache: true,
  };
}
