/**
 * Progress on a terminal: one line rewritten in place; plain lines when not a TTY
 * (CI logs stay readable).
 */
export class Progress {
  private readonly tty = process.stderr.isTTY === true;
  private lastPlain = 0;

  update(text: string): void {
    if (this.tty) {
      process.stderr.write(`\r\x1b[K${text}`);
    } else if (Date.now() - this.lastPlain > 5000) {
      this.lastPlain = Date.now();
      process.stderr.write(`${text}\n`);
    }
  }

  done(text: string): void {
    if (this.tty) process.stderr.write(`\r\x1b[K`);
    process.stderr.write(`${text}\n`);
  }
}
