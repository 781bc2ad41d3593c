/**
 * A property violation found during a run: the property id and what went wrong.
 * Thrown by checkers (and by the runtime's own sync discipline), caught by the runtime,
 * which ends the run with it.
 */
export class Violation extends Error {
  constructor(
    readonly property: string,
    readonly detail: string,
  ) {
    super(`${property}: ${detail}`);
    this.name = 'Violation';
  }
}
