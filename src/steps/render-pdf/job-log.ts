/** The render log of one attempt: timestamped lines, stored as `<ticket>.typst.log`. */
export class JobLog {
  private readonly lines: string[] = [];
  constructor(private readonly now: () => number) {}

  info(message: string): void {
    this.lines.push(`${new Date(this.now()).toISOString()} INFO  ${message}`);
  }

  warn(message: string): void {
    this.lines.push(`${new Date(this.now()).toISOString()} WARN  ${message}`);
  }

  fatal(message: string): void {
    this.lines.push(`${new Date(this.now()).toISOString()} FATAL ${message}`);
  }

  toBuffer(): Buffer {
    return Buffer.from(this.lines.join('\n') + '\n', 'utf8');
  }
}
