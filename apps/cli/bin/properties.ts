/** The process of `npm run properties`: apps/cli/properties.ts's main on this process's arguments. */
import { runCommand } from '../run_command.js';
await runCommand('properties', () => import('../properties.js'));
