/**
 * InputError: the one error bad input produces (a malformed scenario, counterexample,
 * fixture or option). Every CLI turns it into one line and exit code 2.
 *
 * Invariant: the message is one line, "<source>: <problem>", so a reader knows which
 * file (or option) to look at and what is wrong with it without a stack trace. Bad input
 * is an expected failure (a result), never an assertion.
 */
export class InputError extends Error {
  readonly source: string;
  readonly problem: string;

  constructor(source: string, problem: string) {
    const oneLine = problem.replace(/\s*\n\s*/g, ' ');
    super(`${source}: ${oneLine}`);
    this.name = 'InputError';
    this.source = source;
    this.problem = oneLine;
  }
}
