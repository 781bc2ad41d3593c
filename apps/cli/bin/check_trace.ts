/** The process of `npm run check-trace`: apps/cli/check_trace.ts's main on this process's arguments. */
import { runCommand } from '../run_command.js';
await runCommand('check-trace', () => import('../check_trace.js'));
