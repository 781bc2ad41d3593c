/** The process of `npm run native-defects`: apps/cli/native_defects.ts's main on this process's arguments. */
import { runCommand } from '../run_command.js';
await runCommand('native-defects', () => import('../native_defects.js'));
