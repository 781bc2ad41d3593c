/** The process of `npm run oracle-mutants`: apps/cli/oracle_mutants.ts's main on this process's arguments. */
import { runCommand } from '../run_command.js';
await runCommand('oracle-mutants', () => import('../oracle_mutants.js'));
