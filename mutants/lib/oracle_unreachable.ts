/**
 * Catalogue mutants the real oracle cannot kill, each with the reason: the situation
 * its defect needs is one the real engine cannot be made to reach (a schedule only the
 * simulator can force), or the real world does not model what goes wrong. `npm run
 * oracle-mutants` shows the reason in the kill table for a survivor listed here, and
 * fails on a survivor that is not; a listed mutant that is killed is reported as stale.
 */
export const ORACLE_UNREACHABLE: Readonly<Record<string, string>> = {};
