/**
 * How a command runs as a process: its entry point (apps/cli/bin/<command>.ts, two lines)
 * hands its `main` to `runCommand`, which calls it with the process's arguments and exits
 * with the code it returns. What every command does with a failure lives here too: bad
 * arguments (a UsageError) or bad input (an InputError) are one line naming the command and
 * the problem on stderr, exit status 2; the machine refusing what tierlab needs (an
 * EnvironmentError, or a full disk, a quota, a read-only file system met anywhere) is one
 * line naming the folder, exit status 74; an error nobody expected is one line saying
 * "internal error", where it was thrown and the command to report, exit status 70
 * (TIERLAB_DEBUG=1 prints the stack too).
 *
 * Before the command is even loaded, its process is made safe: every string it writes to
 * the terminal goes through the one escaper (src/input/terminal_text.mjs), the environment
 * is checked (src/input/environment.mjs), and the one signal handler is installed
 * (src/input/cleanup.ts: SIGINT, SIGTERM and SIGHUP kill what the command started, write
 * what it finished and remove its scratch folders, however often they come).
 *
 * Invariant: a command's `main` never exits the process itself, so it can be called in
 * process (a test, another command) and returns its exit code; only the signal handler
 * exits, with 128 + the signal's number, once the clean-up has run.
 */
import { EXIT, type ExitCode } from '../../src/check/exit_codes.js';
import { installSignalHandlers } from '../../src/input/cleanup.js';
import { environmentErrorOf } from '../../src/input/environment_error.js';
import { checkEnvironment } from '../../src/input/environment.mjs';
import { InputError } from '../../src/input/input_error.js';
import { guardTerminal, printable } from '../../src/input/terminal_text.mjs';
import { UsageError } from './cli_args.js';

/** A command: its arguments (without node and the script) in, its exit code out. */
export type CommandMain = (argv: readonly string[]) => Promise<ExitCode> | ExitCode;

/** Writes `tool: message` as one line (messages from elsewhere, Node's parser or esbuild, may run over several). */
function writeLine(tool: string, message: string): void {
  process.stderr.write(`${tool}: ${printable(message.trim().replace(/\s*\n\s*/g, ' '))}\n`);
}

/** Ends the process for an error that reached the top: bad input exits 2, anything else 70. */
function exitOnError(tool: string, e: unknown): never {
  if (e instanceof UsageError) {
    writeLine(e.tool, e.message);
    process.exit(EXIT.badInput);
  }
  if (e instanceof InputError) {
    writeLine(tool, e.message);
    process.exit(EXIT.badInput);
  }
  const environment = environmentErrorOf(e);
  if (environment !== null) {
    writeLine(tool, environment.message);
    process.exit(EXIT.environment);
  }
  const err = e instanceof Error ? e : new Error(String(e));
  const where = /\n\s+at (?:.*\()?([^()\n]+:\d+:\d+)\)?/.exec(err.stack ?? '')?.[1] ?? 'unknown place';
  const args = process.argv.slice(2);
  const command = `npm run ${tool}${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`;
  process.stderr.write(
    `${tool}: internal error: ${printable(`${err.name}: ${err.message.split('\n')[0] ?? ''} (at ${where})`)}; please report it with the command: ${printable(command)}\n`,
  );
  if (process.env.TIERLAB_DEBUG === '1') process.stderr.write(`${err.stack ?? ''}\n`);
  process.exit(EXIT.internal);
}

/**
 * Installs the last line of defence: an error thrown outside `main`'s own flow (a callback,
 * an event handler, an unawaited promise) ends the process as `runCommand` would.
 */
export function reportUnexpectedErrors(tool: string): void {
  const handler = (e: unknown): void => exitOnError(tool, e);
  process.on('uncaughtException', handler);
  process.on('unhandledRejection', handler);
}

/** Runs a command as this process: loads it, calls its `main` on the process's arguments, exits with its code. */
export async function runCommand(tool: string, load: () => Promise<{ readonly main: CommandMain }>): Promise<never> {
  guardTerminal();
  checkEnvironment(tool);
  installSignalHandlers();
  reportUnexpectedErrors(tool);
  let code: ExitCode;
  try {
    const { main } = await load();
    code = await main(process.argv.slice(2));
  } catch (e) {
    return exitOnError(tool, e);
  }
  return process.exit(code);
}
