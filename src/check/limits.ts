/**
 * The bounds every run is held to, named once for both worlds (loom's max branches,
 * TigerBeetle's bounded loops): a run that passes one ends with a violation saying so.
 */
export interface RunLimits {
  maxSteps: number;
  maxThreads: number;
  /** spurious wakeups the scheduler may inject in one run */
  spuriousWakeups: number;
  /** steps allowed after shutdown starts before the run counts as hung */
  stepsAfterShutdown: number;
}

/**
 * Every tier call passes the lifecycle gate twice (in and out, four steps of gmx), which
 * about doubled a run's steps: the limits were doubled with it, so that LIVE-STEPS still
 * means a livelock, never a long scenario.
 */
export const DEFAULT_LIMITS: RunLimits = {
  maxSteps: 400_000,
  maxThreads: 16,
  spuriousWakeups: 2,
  stepsAfterShutdown: 200_000,
};
