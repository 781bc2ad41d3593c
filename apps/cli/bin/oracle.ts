/** The process of `npm run oracle`: apps/cli/oracle.ts's main on this process's arguments. */
import { runCommand } from '../run_command.js';
await runCommand('oracle', () => import('../oracle.js'));
