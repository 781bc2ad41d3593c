/** One jobs measurement of the exhaustive bench in a process of its own: jobs_child.ts's main. */
import { runCommand } from '../run_command.js';
await runCommand('bench', () => import('../bench/jobs_child.js'));
