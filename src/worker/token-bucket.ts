// A provider's burst: up to `capacity` calls back to back, refilled at `perSecond`. Task-queue rate
// limits in Temporal have no burst, so a search worker whose provider allows one keeps this bucket
// and lifts its task-queue limit to the burst size (see createResearchWorker).

export class TokenBucket {
  private tokens: number;
  private updated = Date.now();
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly capacity: number, private readonly perSecond: number) {
    this.tokens = capacity;
  }

  /** Waits for a token, first come first served; resolves with how long it waited (ms). */
  take(): Promise<number> {
    const asked = Date.now();
    const turn = this.queue.then(async () => {
      this.refill();
      if (this.tokens < 1) {
        await new Promise((resolve) => setTimeout(resolve, Math.ceil(((1 - this.tokens) / this.perSecond) * 1000)));
        this.refill();
      }
      this.tokens -= 1;
    });
    this.queue = turn;
    return turn.then(() => Date.now() - asked);
  }

  private refill(): void {
    const now = Date.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.updated) / 1000) * this.perSecond);
    this.updated = now;
  }
}
