// What the command is waiting for, and for how long: at a terminal one line that ticks in place
// ("starting the local Temporal server… 3 s") and is replaced by what comes next; elsewhere the
// line once, when the wait starts (logs stay one line per event).
export class Progress {
  private label = '';
  private since = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  get active(): boolean {
    return !!this.label;
  }

  /** Shows `label` (no-op when it already shows); `since` when the wait began before this call. */
  show(label: string, since = Date.now()): void {
    if (label === this.label) return;
    this.clear();
    this.label = label;
    this.since = since;
    if (!this.stream.isTTY) {
      this.stream.write(`${label}…\n`);
      return;
    }
    this.draw();
    this.timer = setInterval(() => this.draw(), 500);
    this.timer.unref();
  }

  /** Ends the line (at a terminal it is wiped, so what is printed next takes its place). */
  clear(): void {
    if (!this.label) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.stream.isTTY) this.stream.write('\r\x1b[2K');
    this.label = '';
  }

  /** Runs `work` with `what` showing meanwhile. */
  async step<T>(what: string, work: () => Promise<T>): Promise<T> {
    this.show(what);
    try {
      return await work();
    } finally {
      this.clear();
    }
  }

  private draw(): void {
    this.stream.write(`\r\x1b[2K${this.label}… ${Math.floor((Date.now() - this.since) / 1000)} s`);
  }
}
