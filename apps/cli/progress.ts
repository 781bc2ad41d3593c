/**
 * Progress on a terminal: one line rewritten in place; plain lines when not a TTY
 * (CI logs stay readable). The rewrite's own control sequence is the one thing written
 * past the terminal escaper (src/input/terminal_text.mjs); the text itself goes through it.
 */
import { writeControl } from '../../src/input/terminal_text.mjs';

export class Progress {
  private readonly tty = process.stderr.isTTY === true;
  private lastPlain = 0;

  update(text: string): void {
    if (this.tty) {
      writeControl(process.stderr, '\r\x1b[K');
      process.stderr.write(text);
    } else if (Date.now() - this.lastPlain > 5000) {
      this.lastPlain = Date.now();
      process.stderr.write(`${text}\n`);
    }
  }

  done(text: string): void {
    if (this.tty) writeControl(process.stderr, '\r\x1b[K');
    process.stderr.write(`${text}\n`);
  }
}
