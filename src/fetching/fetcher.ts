// Fetching like a careful browser: the SSRF guard on every hop, robots.txt, per-host politeness,
// connect/header/body timeouts, bounded redirects, a body cap enforced while streaming, and a
// content-type allowlist. Decompression (gzip, deflate, br) is undici's.
import { Agent, fetch, type Response } from 'undici';
import { kindOf } from '../parsing';
import { HttpError } from '../providers/http-error';
import type { ArtifactKind } from '../domain/types';
import type { AppConfig } from '../config/schema';
import { checkUrl, FetchRefusedError, guardedLookup, parseAllowList, type Target } from './guard';
import { HostLimiter } from './host-limiter';
import { RobotsCache } from './robots';

export const ROBOTS_AGENT = 'deep-research';

export interface FetcherOptions {
  userAgent: string;
  timeoutMs: number;
  connectTimeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  allow: Set<string>;
  respectRobots: boolean;
  perHostConcurrency: number;
  minHostGapMs: number;
}

export interface FetchedDocument {
  finalUrl: string;
  status: number;
  contentType: string;
  kind: ArtifactKind;
  body: Buffer;
  /** The server's Last-Modified header, as sent. */
  lastModified?: string;
}

/** The fetcher a configuration describes; FETCH_ALLOW_HOSTS adds to `fetch.allow_hosts`. */
export function fetcherFromConfig(config: AppConfig): SafeFetcher {
  const f = config.fetch;
  return new SafeFetcher({
    userAgent: f.user_agent,
    timeoutMs: f.timeout_seconds * 1000,
    connectTimeoutMs: f.connect_timeout_seconds * 1000,
    maxBytes: f.max_bytes,
    maxRedirects: f.max_redirects,
    allow: parseAllowList(f.allow_hosts),
    respectRobots: f.respect_robots,
    perHostConcurrency: f.per_host_concurrency,
    minHostGapMs: f.min_host_gap_ms,
  });
}

/** A request a rendering page made, as the browser hands it over. */
export interface ForwardedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface ForwardedResponse {
  status: number;
  /** Multi-valued headers (set-cookie) as lists. */
  headers: Record<string, string | string[]>;
  body: Buffer;
}

export interface ProbeResult {
  finalUrl: string;
  status: number;
}

export class UnsupportedTypeError extends Error {
  override name = 'UnsupportedContent';
}

export class SafeFetcher {
  private readonly guarded: Agent;
  private readonly open: Agent;
  private readonly robots = new RobotsCache((url) => this.robotsText(url));
  private readonly limiter: HostLimiter;

  constructor(private readonly opts: FetcherOptions) {
    const common = { headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs, connectTimeout: opts.connectTimeoutMs };
    this.guarded = new Agent({ ...common, connect: { lookup: guardedLookup, timeout: opts.connectTimeoutMs } });
    this.open = new Agent({ ...common, connect: { timeout: opts.connectTimeoutMs } });
    this.limiter = new HostLimiter(opts.perHostConcurrency, opts.minHostGapMs);
  }

  async fetch(raw: string, signal: AbortSignal): Promise<FetchedDocument> {
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(this.opts.timeoutMs)]);
    const { res, target } = await this.follow(raw, 'GET', deadline);
    if (!res.ok) {
      await res.body?.cancel();
      throw new HttpError(res.status, `HTTP ${res.status} for ${target.url.href}`, toHeaders(res));
    }
    const contentType = res.headers.get('content-type') ?? '';
    const kind = kindOf(contentType, target.url.pathname);
    if (!kind) {
      await res.body?.cancel();
      throw new UnsupportedTypeError(`unsupported content type "${contentType}" at ${target.url.href}`);
    }
    const body = await readCapped(res, this.opts.maxBytes, target.url.href);
    const lastModified = res.headers.get('last-modified') ?? undefined;
    return { finalUrl: target.url.href, status: res.status, contentType, kind, body, ...(lastModified ? { lastModified } : {}) };
  }

  /**
   * The status a URL answers with, without downloading it: a HEAD, or a GET whose body is dropped
   * once the headers are in. Same guard, robots.txt, politeness and redirect limit as fetch.
   */
  async probe(raw: string, method: 'HEAD' | 'GET', signal: AbortSignal): Promise<ProbeResult> {
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(this.opts.timeoutMs)]);
    const { res, target } = await this.follow(raw, method, deadline);
    await res.body?.cancel();
    return { finalUrl: target.url.href, status: res.status };
  }

  /**
   * One request a rendering page makes, sent on its behalf: the same guard, allowlist, robots.txt
   * and politeness as `fetch`, any content type, and no redirect followed — a redirect goes back to
   * the page as it is, and the hop it names comes back here to be checked like any other request.
   */
  async forward(req: ForwardedRequest, maxBytes: number, signal: AbortSignal): Promise<ForwardedResponse> {
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(this.opts.timeoutMs)]);
    const target = checkUrl(req.url, this.opts.allow);
    const crawlDelayMs = await this.checkRobots(target);
    const headers = { ...pageHeaders(req.headers), 'user-agent': this.opts.userAgent, 'accept-encoding': 'gzip, deflate, br' };
    const res = await this.limiter.run(target.url.host, crawlDelayMs, () => this.request(target, deadline, req.method, headers, req.body), deadline);
    const body = await readCapped(res, maxBytes, target.url.href);
    return { status: res.status, headers: responseHeaders(res), body };
  }

  async close(): Promise<void> {
    await Promise.all([this.guarded.close(), this.open.close()]);
  }

  /** Requests `raw`, following redirects with every hop checked, up to the first non-redirect answer. */
  private async follow(raw: string, method: 'HEAD' | 'GET', deadline: AbortSignal): Promise<{ res: Response; target: Target }> {
    let target = checkUrl(raw, this.opts.allow);
    for (let hop = 0; ; hop++) {
      const crawlDelayMs = await this.checkRobots(target);
      const res = await this.limiter.run(target.url.host, crawlDelayMs, () => this.request(target, deadline, method), deadline);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel();
        if (hop >= this.opts.maxRedirects) throw new FetchRefusedError(`gave up on ${raw} after ${this.opts.maxRedirects} redirects (a redirect loop?)`);
        target = checkUrl(new URL(location, target.url).href, this.opts.allow);
        continue;
      }
      return { res, target };
    }
  }

  private async request(target: Target, signal: AbortSignal, method = 'GET', headers?: Record<string, string>, body?: Buffer): Promise<Response> {
    try {
      return await fetch(target.url, {
        method,
        dispatcher: target.allowed ? this.open : this.guarded,
        redirect: 'manual',
        signal,
        headers: headers ?? {
          'user-agent': this.opts.userAgent,
          accept: 'text/html,application/xhtml+xml,application/pdf,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
        },
        ...(body && method !== 'GET' && method !== 'HEAD' ? { body } : {}),
      });
    } catch (err) {
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof FetchRefusedError) throw cause;
      if (cause instanceof Error) throw Object.assign(new Error(`${target.url.origin}: ${cause.message}`), { name: cause.name, code: (cause as { code?: string }).code });
      throw err;
    }
  }

  private async checkRobots(target: Target): Promise<number> {
    if (!this.opts.respectRobots) return 0;
    const rules = await this.robots.rules(target.url);
    if (!rules) return 0;
    if (rules.isAllowed(target.url.href, ROBOTS_AGENT) === false) {
      throw new FetchRefusedError(`robots.txt of ${target.url.host} disallows ${target.url.pathname} (set fetch.respect_robots to false to ignore it)`);
    }
    const delay = Number(rules.getCrawlDelay(ROBOTS_AGENT) ?? 0);
    return Number.isFinite(delay) ? Math.min(delay, 30) * 1000 : 0;
  }

  private async robotsText(robotsUrl: string): Promise<string | undefined> {
    const target = checkUrl(robotsUrl, this.opts.allow);
    const res = await this.request(target, AbortSignal.timeout(Math.min(this.opts.timeoutMs, 10_000)));
    if (res.status !== 200) {
      await res.body?.cancel();
      return undefined;
    }
    return (await readCapped(res, 512 * 1024, robotsUrl)).toString('utf8');
  }
}

/** Reads a body but stops as soon as it exceeds the cap, instead of after downloading it all. */
export async function readCapped(res: Response, maxBytes: number, url: string): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length'));
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw new FetchRefusedError(`${url} is ${declared} bytes, over the ${maxBytes}-byte limit`);
  }
  if (!res.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new FetchRefusedError(`${url} is over the ${maxBytes}-byte limit`);
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}

/** The page's own request headers, less those that name the connection or the client (ours are set). */
const NOT_FORWARDED = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'te', 'upgrade', 'accept-encoding', 'user-agent', 'proxy-authorization', 'proxy-connection']);

function pageHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !NOT_FORWARDED.has(name.toLowerCase()) && !name.startsWith(':')));
}

/** The answer's headers for the browser: the body is decoded and whole, so no encoding or length of the wire's. */
const NOT_RETURNED = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

function responseHeaders(res: Response): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  res.headers.forEach((value, key) => {
    if (!NOT_RETURNED.has(key) && key !== 'set-cookie') out[key] = value;
  });
  const cookies = res.headers.getSetCookie();
  if (cookies.length) out['set-cookie'] = cookies;
  return out;
}

function toHeaders(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((value, key) => (out[key] = value));
  return out;
}
