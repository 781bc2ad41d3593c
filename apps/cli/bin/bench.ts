/** The process of `npm run bench`: apps/cli/bench.ts's main on this process's arguments. */
import { runCommand } from '../run_command.js';
await runCommand('bench', () => import('../bench.js'));
