// FixtureError: the one error a bad model container produces.
// Invariant: the message is one line, "<file>: <problem>", so a reader knows which file
// to look at and what is wrong with it without a stack trace. A bad fixture is an
// expected failure (a result), never an assertion.

export class FixtureError extends Error {
  readonly file: string;
  readonly problem: string;

  constructor(file: string, problem: string) {
    const oneLine = problem.replace(/\s*\n\s*/g, " ");
    super(`${file}: ${oneLine}`);
    this.name = "FixtureError";
    this.file = file;
    this.problem = oneLine;
  }
}
