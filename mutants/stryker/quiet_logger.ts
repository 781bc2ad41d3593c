/**
 * A logger for Stryker's instrumenter that says nothing: the exclusions test and the
 * score composer instrument sources only to list the mutants, and want no output from it.
 */
export const QUIET_LOGGER = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  trace: () => undefined,
  fatal: () => undefined,
  isDebugEnabled: () => false,
  isTraceEnabled: () => false,
  isInfoEnabled: () => false,
  isWarnEnabled: () => false,
  isErrorEnabled: () => false,
  isFatalEnabled: () => false,
};
