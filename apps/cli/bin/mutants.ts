/** The process of `npm run mutants`: apps/cli/mutants.ts's main on this process's arguments. */
import { runCommand } from '../run_command.js';
await runCommand('mutants', () => import('../mutants.js'));
