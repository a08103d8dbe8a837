// robots.txt, fetched once per origin (concurrent requests share one load) and cached for an hour
// on this worker.
import robotsParser from 'robots-parser';

type Robots = ReturnType<typeof robotsParser>;

const TTL_MS = 60 * 60 * 1000;

export class RobotsCache {
  private readonly cache = new Map<string, { robots: Promise<Robots | undefined>; until: number }>();

  constructor(private readonly load: (robotsUrl: string) => Promise<string | undefined>) {}

  /** Undefined means "no rules": robots.txt missing, unreachable or unreadable. */
  rules(url: URL): Promise<Robots | undefined> {
    const origin = url.origin;
    const hit = this.cache.get(origin);
    if (hit && hit.until > Date.now()) return hit.robots;
    const robotsUrl = `${origin}/robots.txt`;
    const robots = this.load(robotsUrl).then(
      (text) => (text === undefined ? undefined : robotsParser(robotsUrl, text)),
      () => undefined,
    );
    this.cache.set(origin, { robots, until: Date.now() + TTL_MS });
    return robots;
  }
}
