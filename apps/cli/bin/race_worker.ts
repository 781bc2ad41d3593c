/** The race bench's worker process (apps/cli/bench/race.ts starts it in a scratch copy): race_worker.ts's main. */
import { runCommand } from '../run_command.js';
await runCommand('bench', () => import('../bench/race_worker.js'));
