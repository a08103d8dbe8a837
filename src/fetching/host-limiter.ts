// Politeness per host on this worker: at most N requests at once and a minimum gap between starts
// (the larger of the configured gap and robots.txt's Crawl-delay).
export class HostLimiter {
  private readonly hosts = new Map<string, { active: number; waiting: (() => void)[]; nextStart: number }>();

  constructor(private readonly perHost: number, private readonly minGapMs: number) {}

  async run<T>(host: string, crawlDelayMs: number, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const h = this.hosts.get(host) ?? { active: 0, waiting: [], nextStart: 0 };
    this.hosts.set(host, h);
    while (h.active >= this.perHost) {
      await new Promise<void>((resolve) => h.waiting.push(resolve));
      signal?.throwIfAborted();
    }
    h.active++;
    try {
      const gap = Math.max(this.minGapMs, crawlDelayMs);
      const wait = h.nextStart - Date.now();
      h.nextStart = Math.max(Date.now(), h.nextStart) + gap;
      if (wait > 0) await abortableDelay(wait, signal);
      return await fn();
    } finally {
      h.active--;
      h.waiting.shift()?.();
      // Forget idle hosts whose gap has passed, so a long-lived worker does not collect every host.
      if (h.active === 0 && h.waiting.length === 0 && h.nextStart <= Date.now()) this.hosts.delete(host);
    }
  }
}

function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}
