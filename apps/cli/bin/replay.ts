/** The process of `npm run replay`: apps/cli/replay.ts's main on this process's arguments. */
import { runCommand } from '../run_command.js';
await runCommand('replay', () => import('../replay.js'));
