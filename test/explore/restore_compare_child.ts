/**
 * Run in a scratch copy of the sources with a mutant applied (restore_mutants.nightly.test.ts):
 * the DPOR search with its state cache on the named committed scenarios, replaying every
 * run and going on from saved states. Prints one JSON line per scenario with what each
 * search found, so the test compares them without importing the mutated sources.
 */
import { dporSearch } from '../../model/explore/dpor/search.js';
import { scenarioSubject } from '../../model/explore/subject.js';
import { committedScenario } from '../../properties/committed_scenarios.js';

for (const name of process.argv.slice(2)) {
  const [replayed, restored] = [false, true].map((restore) =>
    dporSearch(scenarioSubject(committedScenario(name)), {
      preemptions: Infinity,
      reduce: true,
      stateCache: true,
      countStates: true,
      stopOnViolation: false,
      restore,
    }),
  );
  const found = (r: NonNullable<typeof replayed>) => ({
    complete: r.complete,
    schedules: r.schedules,
    cached: r.cached,
    states: r.states,
    violatingSchedules: r.violatingSchedules,
    violations: r.violations.map((v) => [v.property, v.choices.join(',')]),
    dpor: r.dpor,
  });
  if (replayed === undefined || restored === undefined) throw new Error('two searches expected');
  console.log(
    JSON.stringify({
      name,
      replayed: found(replayed),
      restored: found(restored),
      failures: restored.restore?.failures ?? null,
      stepsPerState: [replayed, restored].map((r) => r.stepsExecuted / Math.max(1, r.states ?? 0)),
    }),
  );
}
