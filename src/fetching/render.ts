// Rendering one page in the browser. Its HTML is the one already fetched (served to the browser
// from hand, not downloaded again); every request the page then makes — scripts, XHR and fetch,
// frames, redirects, a navigation — is intercepted and sent by the fetcher, through the same SSRF
// guard, allowlist and robots.txt as any fetch, within the page's limits of requests and bytes.
// Images, media, fonts and stylesheets are not loaded (the text is read from the DOM, not drawn);
// WebSockets, WebRTC and service workers are taken away before the page's scripts run, dialogs are
// dismissed, downloads denied, and anything that still slips past ends at the browser's sinkhole.
import type { HTTPRequest, Page } from 'puppeteer-core';
import type { AppConfig } from '../config/schema';
import type { SafeFetcher } from './fetcher';
import { FetchRefusedError } from './guard';
import type { BrowserPool } from './browser';
import type { PageToRender, RenderedPage, RenderStats } from '../providers/fetch/types';

export interface PageLimits {
  timeoutMs: number;
  maxBytes: number;
  maxRequests: number;
}

export function pageLimitsFrom(config: AppConfig): PageLimits {
  const b = config.fetch.browser;
  return { timeoutMs: b.page_timeout_seconds * 1000, maxBytes: b.page_max_bytes, maxRequests: b.page_max_requests };
}

/** Kinds of requests a page's text never needs. */
const NOT_LOADED = new Set(['image', 'media', 'font', 'stylesheet', 'texttrack', 'manifest', 'ping', 'cspviolationreport', 'prefetch', 'signedexchange', 'websocket', 'eventsource']);
/** The page counts as settled once no request has been open for this long. */
const QUIET_MS = 500;
const MAX_REFUSALS_KEPT = 10;
const CONTENT_TIMEOUT_MS = 10_000;

/** Where the page's frames note when their DOM last changed. */
const LAST_CHANGE = '__deepResearchLastChange';

// Runs in every frame before the page's own scripts: the ways out that interception cannot see are
// taken away, and changes to the DOM are timed (a page has settled once they stop).
const LOCKDOWN = `(() => {
  const remove = (target, name) => { try { Object.defineProperty(target, name, { value: undefined, writable: false, configurable: false }); } catch (e) {} };
  for (const name of ['WebSocket', 'WebTransport', 'RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'SharedWorker']) remove(globalThis, name);
  if (typeof Navigator !== 'undefined') remove(Navigator.prototype, 'serviceWorker');
  globalThis.${LAST_CHANGE} = Date.now();
  try { new MutationObserver(() => { globalThis.${LAST_CHANGE} = Date.now(); }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true }); } catch (e) {}
})();`;

export async function renderInBrowser(pool: BrowserPool, fetcher: SafeFetcher, page: PageToRender, limits: PageLimits, signal: AbortSignal): Promise<RenderedPage> {
  // The page's time counts from when it has a tab: waiting for one of the pool's slots is not its own.
  return pool.withPage((tab) => renderIn(tab, fetcher, page, limits, Date.now(), signal), signal);
}

async function renderIn(tab: Page, fetcher: SafeFetcher, page: PageToRender, limits: PageLimits, started: number, signal: AbortSignal): Promise<RenderedPage> {
  const deadline = started + limits.timeoutMs;
  const stop = new AbortController();
  const pageSignal = AbortSignal.any([signal, stop.signal]);
  const gate = new RequestGate(fetcher, page, limits, pageSignal);
  // Cancelled: the page closes at once, whatever it is waiting for.
  const closeOnCancel = () => void tab.close().catch(() => undefined);
  signal.addEventListener('abort', closeOnCancel, { once: true });
  try {
    tab.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
    await tab.setBypassServiceWorker(true);
    await tab.evaluateOnNewDocument(LOCKDOWN);
    await tab.setRequestInterception(true);
    tab.on('request', (req) => void gate.handle(req, tab));
    signal.throwIfAborted();
    await tab.goto(page.url, { waitUntil: 'load', timeout: Math.max(1_000, deadline - Date.now()) }).catch((err: Error) => {
      // A page that never finished loading is read as far as it got; one that never started is an error.
      if (!gate.servedDocument || signal.aborted) throw err;
    });
    await gate.settled(tab, deadline, pageSignal);
    signal.throwIfAborted();
    const html = await domOf(tab);
    return { html, finalUrl: tab.url(), renderer: 'chromium', stats: { ...gate.stats, ms: Date.now() - started } };
  } finally {
    signal.removeEventListener('abort', closeOnCancel);
    stop.abort();
    await tab.close().catch(() => undefined);
  }
}

/** The serialized DOM; a page that navigates meanwhile is asked again once it has. A page whose script never yields gives none. */
async function domOf(tab: Page): Promise<string> {
  const content = () => within(tab.content(), CONTENT_TIMEOUT_MS, 'the page did not give up its DOM (a script that never yields?)');
  try {
    return await content();
  } catch {
    await new Promise((r) => setTimeout(r, 300));
    return content();
  }
}

/** How long ago the page's DOM last changed (0 when it cannot say: still busy, or navigating). */
async function msSinceChange(tab: Page, deadline: number): Promise<number> {
  try {
    const last = await within(tab.evaluate(`globalThis.${LAST_CHANGE}`) as Promise<unknown>, Math.max(100, Math.min(2_000, deadline - Date.now())), 'busy');
    return typeof last === 'number' ? Date.now() - last : QUIET_MS;
  } catch {
    return 0;
  }
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Decides each of the page's requests, sends the allowed ones through the fetcher and counts what happened. */
class RequestGate {
  servedDocument = false;
  readonly stats: Omit<RenderStats, 'ms'> = { requests: 0, refused: 0, skipped: 0, bytes: 0, refusals: [] };
  private open = 0;
  private lastActivity = Date.now();

  constructor(
    private readonly fetcher: SafeFetcher,
    private readonly page: PageToRender,
    private readonly limits: PageLimits,
    private readonly signal: AbortSignal,
  ) {}

  async handle(req: HTTPRequest, tab: Page): Promise<void> {
    if (req.isInterceptResolutionHandled()) return;
    this.lastActivity = Date.now();
    // The page itself, from the bytes already fetched (and checked, and allowed by robots.txt).
    if (!this.servedDocument && req.isNavigationRequest() && req.frame() === tab.mainFrame()) {
      this.servedDocument = true;
      return req.respond({ status: 200, contentType: this.page.contentType || 'text/html', body: this.page.html }).catch(() => undefined);
    }
    if (NOT_LOADED.has(req.resourceType())) {
      this.stats.skipped++;
      return req.abort('blockedbyclient').catch(() => undefined);
    }
    const url = req.url();
    if (!/^https?:/i.test(url)) return this.refuse(req, `${url.split(':')[0]}: only http and https are fetched`);
    if (this.stats.requests >= this.limits.maxRequests) return this.refuse(req, `over the page's ${this.limits.maxRequests}-request limit`);
    const room = this.limits.maxBytes - this.stats.bytes;
    if (room <= 0) return this.refuse(req, `over the page's ${this.limits.maxBytes}-byte limit`);
    this.stats.requests++;
    this.open++;
    try {
      const body = req.hasPostData() ? Buffer.from((await req.fetchPostData()) ?? '', 'utf8') : undefined;
      const res = await this.fetcher.forward({ url, method: req.method(), headers: req.headers(), body }, room, this.signal);
      this.stats.bytes += res.body.length;
      await req.respond({ status: res.status, headers: res.headers, body: res.body });
    } catch (err) {
      if (err instanceof FetchRefusedError || req.isNavigationRequest()) return this.refuse(req, (err as Error).message);
      await req.abort('failed').catch(() => undefined);
    } finally {
      this.open--;
      this.lastActivity = Date.now();
    }
  }

  /**
   * Resolves once no request has been open, and the DOM has not changed, for a moment (a script still
   * busy with what its last response brought answers the question only when done) — or at the deadline.
   */
  async settled(tab: Page, deadline: number, signal: AbortSignal): Promise<void> {
    while (Date.now() < deadline && !signal.aborted) {
      if (this.open === 0 && Date.now() - this.lastActivity >= QUIET_MS && (await msSinceChange(tab, deadline)) >= QUIET_MS) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** A refused navigation is answered "204 No Content", which leaves the frame's document as it was (an abort would replace it by an error page). */
  private async refuse(req: HTTPRequest, why: string): Promise<void> {
    this.stats.refused++;
    if (this.stats.refusals.length < MAX_REFUSALS_KEPT) this.stats.refusals.push(why);
    if (req.isNavigationRequest()) await req.respond({ status: 204, headers: {}, body: '' }).catch(() => undefined);
    else await req.abort('blockedbyclient').catch(() => undefined);
  }
}
