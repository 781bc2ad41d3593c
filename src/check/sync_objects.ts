/**
 * MEM-SYNC: the lifetime of the tier's sync objects (mx, cv, cv_take), kept by the ledger
 * of either world like any other allocation. Init creates them (`syncInit`), teardown's
 * second half destroys them (`syncDestroy`); pthread gives no second chance, so:
 *  - a lock, unlock, wait, signal or broadcast on them after their destroy is a use after
 *    free (a caller that tested an `on` flag with no lock held resumes into a destroyed
 *    mutex);
 *  - initializing them while they are alive replaces the mutex others hold or wait on (a
 *    re-init accepted inside the teardown window);
 *  - destroying them while a thread holds mx, waits on cv or cv_take, or waits to take mx
 *    is undefined behaviour.
 * The gate's own gmx and gcv live outside the tier's state and are never destroyed.
 * Uses before the first create are not judged (hand-written threads of the tests lock mx
 * with no init; the tier never does).
 */
import { Violation } from './violation.js';

export type SyncLife = 'never' | 'alive' | 'destroyed';

export class SyncObjects {
  life: SyncLife = 'never';
  /** creates and destroys so far: odd while alive (a generation of the tier) */
  transitions = 0;

  created(): void {
    if (this.life === 'alive') {
      throw new Violation(
        'MEM-SYNC',
        'mx, cv and cv_take initialized again while alive: the mutex a thread holds or waits on is replaced',
      );
    }
    this.life = 'alive';
    this.transitions++;
  }

  /** `busy`: who still holds, waits on or waits for them (null: nobody) */
  destroyed(busy: string | null): void {
    if (this.life !== 'alive')
      throw new Violation(
        'MEM-SYNC',
        `mx, cv and cv_take destroyed while ${this.life === 'never' ? 'never created' : 'already destroyed'}`,
      );
    if (busy !== null) throw new Violation('MEM-SYNC', `mx, cv and cv_take destroyed while ${busy}`);
    this.life = 'destroyed';
    this.transitions++;
  }

  /** `who` does `what` ("locks mx") on one of them */
  use(who: string, what: string): void {
    if (this.life === 'destroyed')
      throw new Violation('MEM-SYNC', `${who} ${what} after mx, cv and cv_take were destroyed`);
  }
}

/** The runtime saw someone still using them at their destroy (`who`: the destroyer and the users). */
export function destroyedWhileBusy(who: string): Violation {
  return new Violation('MEM-SYNC', `mx, cv and cv_take destroyed while in use: ${who}`);
}
