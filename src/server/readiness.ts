// Is this replica ready to serve? Readiness asks each dependency a cheap question — Temporal for
// its system info, the session store and the artifact store for a record that does not exist — each
// within a time limit, and remembers the answer briefly, so a flood of probes or requests costs the
// dependencies one question per check per interval. Liveness (GET /api/health) asks nothing: a
// database or engine outage must take a replica out of the load balancer, never restart it.
import { describeStoreError } from '../stores/unavailable';

export type Check = () => Promise<unknown>;

export interface ReadinessAnswer {
  ready: boolean;
  /** Per dependency: 'ok', or why it is not (addresses left out: the answer is public). */
  checks: Record<string, string>;
  checked_at: string;
  /** How long the checks took (the slowest one, as they run together). */
  took_ms: number;
}

export interface ReadinessOptions {
  /** How long an answer is reused. */
  cacheMs: number;
  /** How long one check may take before it counts as down. */
  timeoutMs: number;
}

export const DEFAULT_READINESS: ReadinessOptions = { cacheMs: 2_000, timeoutMs: 2_000 };

/** An error as a public answer may show it: what failed, without hosts, addresses or ports. */
export function publicReason(err: unknown): string {
  return describeStoreError(err)
    .replace(/\[?[0-9a-f]*:[0-9a-f:]+\]?:\d+/gi, '…')
    .replace(/\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b/g, '…')
    .replace(/\b[a-z0-9-]+(\.[a-z0-9-]+)+:\d{2,5}\b/gi, '…')
    .replace(/\b(localhost|[a-z0-9-]+):\d{2,5}\b/gi, '…');
}

export class Readiness {
  private last: { answer: ReadinessAnswer; at: number } | undefined;
  private running: Promise<ReadinessAnswer> | undefined;

  constructor(
    private readonly checks: Record<string, Check>,
    private readonly options: ReadinessOptions = DEFAULT_READINESS,
  ) {}

  /** The cached answer while fresh; otherwise one round of checks, shared by everyone asking meanwhile. */
  async answer(now = Date.now()): Promise<ReadinessAnswer> {
    if (this.last && now - this.last.at < this.options.cacheMs) return this.last.answer;
    this.running ??= this.check().finally(() => (this.running = undefined));
    return this.running;
  }

  private async check(): Promise<ReadinessAnswer> {
    const started = Date.now();
    const entries = await Promise.all(Object.entries(this.checks).map(async ([name, check]) => [name, await this.one(check)] as const));
    const checks = Object.fromEntries(entries);
    const answer = { ready: entries.every(([, state]) => state === 'ok'), checks, checked_at: new Date().toISOString(), took_ms: Date.now() - started };
    this.last = { answer, at: Date.now() };
    return answer;
  }

  private async one(check: Check): Promise<string> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${this.options.timeoutMs} ms`)), this.options.timeoutMs)));
    try {
      await Promise.race([check(), limit]);
      return 'ok';
    } catch (err) {
      return publicReason(err);
    } finally {
      clearTimeout(timer);
    }
  }
}
