/** The process of `npm run report`: apps/cli/report.ts's main on this process's arguments. */
import { runCommand } from '../run_command.js';
await runCommand('report', () => import('../report.js'));
