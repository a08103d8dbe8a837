// The worker's browser: Chromium from the system (puppeteer-core drives it, nothing is downloaded),
// started on the first page that needs it and never at start-up, a bounded number of pages at once,
// closed again when idle so its memory goes back. A browser that crashes is forgotten and the next
// page starts a new one; the page that was rendering fails as a retryable error.
// The browser has no way out of its own: it talks to puppeteer over a pipe (no debugging port), and
// its proxy is a sinkhole on loopback that drops every connection — so a request that escaped the
// page's interception (a service worker's, a WebSocket) reaches nothing, and is logged.
import { existsSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import type { AppConfig } from '../config/schema';
import { processTreeMemory, type TreeMemory } from './process-memory';

/** Where Debian, Ubuntu and Chrome's own packages put the browser. */
const KNOWN_EXECUTABLES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome-stable', '/usr/bin/google-chrome'];

export const INSTALL_HINT = 'install Chromium (Debian/Ubuntu: apt-get install chromium) or point CHROMIUM_PATH at a Chrome, or set JINA_API_KEY or FIRECRAWL_API_KEY to render through a reader service';

export class BrowserUnavailableError extends Error {
  override name = 'BrowserUnavailable';
}

/** The browser went away under a page (crashed, killed): worth another try on a new one. */
export class BrowserCrashedError extends Error {
  override name = 'BrowserCrashed';
}

export interface BrowserOptions {
  executable?: string;
  pages: number;
  idleMs: number;
}

export function browserOptionsFrom(config: AppConfig): BrowserOptions {
  const b = config.fetch.browser;
  return { executable: b.executable, pages: b.pages, idleMs: b.idle_seconds * 1000 };
}

/** The executable to run, or undefined when none is installed. */
export function findBrowser(configured?: string): string | undefined {
  if (configured) return existsSync(configured) ? configured : undefined;
  return KNOWN_EXECUTABLES.find((file) => existsSync(file));
}

// --headless and --no-sandbox (a worker often runs as root in a container, where the sandbox cannot
// start); no GPU, no QUIC (UDP would not pass the proxy), nothing running in the background.
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--dns-prefetch-disable',
  '--disable-features=MediaRouter,OptimizationHints,Translate,InterestFeedContentSuggestions,PreloadTopChromeWebUI,WebUIOmniboxPopup',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--proxy-bypass-list=<-loopback>',
];

interface Running {
  browser: Browser;
  sinkhole: Server;
  pid?: number;
  /** The next page's context and tab, opened while the browser has a moment (a renderer takes a while to start). */
  spare?: Promise<Tab>;
}

/** A fresh browser context (no cookies, storage or cache of any other page; downloads denied) and its one tab. */
interface Tab {
  context: BrowserContext;
  page: Page;
}

async function openTab(browser: Browser): Promise<Tab> {
  const context = await browser.createBrowserContext({ downloadBehavior: { policy: 'deny' } });
  try {
    return { context, page: await context.newPage() };
  } catch (err) {
    await context.close().catch(() => undefined);
    throw err;
  }
}

export class BrowserPool {
  private running?: Promise<Running>;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private idleTimer?: NodeJS.Timeout;
  private launches = 0;

  constructor(
    private readonly opts: BrowserOptions,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /** Why no page can be rendered here, or undefined when a browser can be started. */
  unavailable(): string | undefined {
    if (findBrowser(this.opts.executable)) return undefined;
    return this.opts.executable ? `no browser at ${this.opts.executable}` : `no Chromium found (looked for ${KNOWN_EXECUTABLES.join(', ')})`;
  }

  /** Times a browser was started on this worker (a crash or an idle close makes the next page start one). */
  starts(): number {
    return this.launches;
  }

  /** The browser's process id, while one runs. */
  async pid(): Promise<number | undefined> {
    return (await this.running?.catch(() => undefined))?.pid;
  }

  /** The browser's memory (every process of it), or undefined when none runs. */
  async memory(): Promise<TreeMemory | undefined> {
    const pid = await this.pid();
    return pid ? processTreeMemory(pid) : undefined;
  }

  /**
   * Runs `fn` with a tab of its own, in a fresh browser context, once one of the pool's page slots
   * is free; the context is closed after, whatever happened.
   */
  async withPage<T>(fn: (page: Page) => Promise<T>, signal: AbortSignal): Promise<T> {
    await this.slot(signal);
    let browser: Browser | undefined;
    let tab: Tab | undefined;
    try {
      const running = await this.start();
      browser = running.browser;
      signal.throwIfAborted();
      tab = await this.takeTab(running);
      return await fn(tab.page);
    } catch (err) {
      throw browser ? this.crashed(browser, err) : err;
    } finally {
      await tab?.context.close().catch(() => undefined);
      this.release();
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const running = this.running;
    this.running = undefined;
    const r = await running?.catch(() => undefined);
    if (!r) return;
    await r.browser.close().catch(() => undefined);
    r.sinkhole.close();
  }

  /** The spare tab if there is one (else a new one), and the next spare opened meanwhile. */
  private async takeTab(running: Running): Promise<Tab> {
    const spare = running.spare;
    running.spare = openTab(running.browser);
    running.spare.catch(() => undefined);
    return (await spare?.catch(() => undefined)) ?? openTab(running.browser);
  }

  private async slot(signal: AbortSignal): Promise<void> {
    clearTimeout(this.idleTimer);
    while (this.active >= this.opts.pages) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        this.waiting.push(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    }
    signal.throwIfAborted();
    this.active++;
  }

  private release(): void {
    this.active--;
    const next = this.waiting.shift();
    if (next) return next();
    if (this.active === 0) {
      this.idleTimer = setTimeout(() => {
        void this.memory().then((m) => {
          if (this.active > 0) return; // a page came meanwhile
          this.log(`browser: idle for ${Math.round(this.opts.idleMs / 1000)} s, closing it${m ? ` (it held ${Math.round(m.bytes / 2 ** 20)} MB in ${m.processes} processes)` : ''}`);
          return this.close();
        });
      }, this.opts.idleMs);
      this.idleTimer.unref();
    }
  }

  /** The running browser, started on first need (concurrent callers share one start). */
  private start(): Promise<Running> {
    this.running ??= this.launch().catch((err: unknown) => {
      this.running = undefined;
      throw err;
    });
    return this.running;
  }

  private async launch(): Promise<Running> {
    const executable = findBrowser(this.opts.executable);
    if (!executable) throw new BrowserUnavailableError(`${this.unavailable()}: ${INSTALL_HINT}`);
    // Logged, the first few of each browser (its own update checks end here too; a page may try many).
    let dropped = 0;
    const sinkhole = await startSinkhole((line) => {
      if (++dropped <= 5) this.log(`browser: dropped at the sinkhole proxy (a request that went past interception): ${line}`);
      else if (dropped % 100 === 0) this.log(`browser: ${dropped} connections dropped at the sinkhole proxy`);
    });
    const port = (sinkhole.address() as { port: number }).port;
    const puppeteer = (require('puppeteer-core') as typeof import('puppeteer-core')).default;
    let browser: Browser;
    try {
      browser = await puppeteer.launch({
        executablePath: executable,
        headless: true,
        pipe: true,
        args: [...FLAGS, `--proxy-server=http://127.0.0.1:${port}`],
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        protocolTimeout: 60_000,
      });
    } catch (err) {
      sinkhole.close();
      throw new BrowserUnavailableError(`${executable} did not start: ${(err as Error).message.split('\n')[0]}`);
    }
    this.launches++;
    const pid = browser.process()?.pid ?? undefined;
    const running: Running = { browser, sinkhole, pid };
    browser.once('disconnected', () => {
      sinkhole.close();
      // A browser that died (not one we closed) is forgotten: the next page starts another.
      if (this.running) void this.running.then((r) => r === running && (this.running = undefined), () => undefined);
    });
    this.log(`browser: started ${executable} (pid ${pid}) for a page that renders by script`);
    return running;
  }

  /** An error from a page whose browser is gone is a crash (retryable); others pass as they are. */
  private crashed(browser: Browser, err: unknown): unknown {
    if (!browser.connected && !(err instanceof BrowserCrashedError)) return new BrowserCrashedError(`the browser stopped while rendering: ${(err as Error).message}`);
    return err;
  }
}

/** A proxy that accepts connections and drops them at once, counting each. */
function startSinkhole(onConnection: (requestLine: string) => void): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket: Socket) => {
      socket.once('data', (chunk) => {
        onConnection(chunk.toString('latin1').split('\r\n')[0].slice(0, 200));
        socket.destroy();
      });
      socket.on('error', () => undefined);
      socket.setTimeout(5_000, () => socket.destroy());
    });
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.unref();
      resolve(server);
    });
  });
}
