/**
 * A property violation found during a run: the property id and what went wrong.
 * Thrown by checkers, by the ledger and by the runtimes' own sync discipline; caught by
 * the runtime, which ends the run with it. The id must be catalogued (catalogue.ts).
 */
import { propertyInfo, type PropertyId, type PropertyKind } from './catalogue.js';

export class Violation extends Error {
  constructor(
    readonly property: PropertyId,
    readonly detail: string,
  ) {
    super(`${property}: ${detail}`);
    this.name = 'Violation';
  }

  get kind(): PropertyKind {
    return propertyInfo(this.property).kind;
  }
}
