/**
 * EnvironmentError: the machine refused something tierlab needs, through no fault of the
 * input: no space left or over quota in a folder it writes, a read-only file system, an
 * I/O error, a temporary directory that is not a writable folder. Every command turns it
 * into one line naming the folder and exit code 74 (src/check/exit_codes.ts).
 *
 * Invariants: the message is one line, "<where>: <problem>", where `where` is the folder
 * (or file) the machine refused; `environmentErrorOf` recognises a Node error of this
 * kind by its code, whatever call made it, so a full disk met anywhere (a report, a
 * scratch copy, a cache) reads the same.
 */

/** Error codes that say the machine, not tierlab or its input, failed. */
const ENVIRONMENT_CODES: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exceeded',
  EROFS: 'the file system is read-only',
  EIO: 'an I/O error',
  EMFILE: 'too many open files in this process',
  ENFILE: 'too many open files on this machine',
  EFBIG: 'the file is larger than this process may write',
};

export class EnvironmentError extends Error {
  readonly where: string;
  readonly problem: string;

  constructor(where: string, problem: string) {
    const oneLine = problem.replace(/\s*\n\s*/g, ' ');
    super(`${where}: ${oneLine}`);
    this.name = 'EnvironmentError';
    this.where = where;
    this.problem = oneLine;
  }
}

/** The words for a Node error code that means the environment failed, or null. */
export function environmentProblem(code: string | undefined): string | null {
  return code !== undefined && code in ENVIRONMENT_CODES ? `${ENVIRONMENT_CODES[code]} (${code})` : null;
}

/**
 * `e` as an EnvironmentError when it is one or a Node error of that kind (`where`: the
 * folder it happened in, default the error's own path), else null.
 */
export function environmentErrorOf(e: unknown, where?: string): EnvironmentError | null {
  if (e instanceof EnvironmentError) return e;
  const err = e as NodeJS.ErrnoException | null;
  const problem = environmentProblem(typeof err?.code === 'string' ? err.code : undefined);
  if (problem === null) return null;
  const path = where ?? err?.path ?? 'tierlab';
  return new EnvironmentError(path, `${problem}${err?.syscall !== undefined ? ` in ${err.syscall}` : ''}`);
}
