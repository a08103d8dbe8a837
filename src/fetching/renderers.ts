// Which renderer serves a page that needs a browser: fetch.render_with, in order, skipping those
// that cannot serve on this worker (no Chromium installed, a reader service without its key).
import type { AppConfig } from '../config/schema';
import { createReader, readerUnavailable, type ReaderName } from '../providers/fetch/catalog';
import type { PageRenderer } from '../providers/fetch/types';
import { BrowserPool, browserOptionsFrom, findBrowser, INSTALL_HINT } from './browser';
import type { SafeFetcher } from './fetcher';
import { pageLimitsFrom, renderInBrowser } from './render';

export interface RendererChain {
  /** The renderers that can serve, first choice first. */
  renderers: PageRenderer[];
  /** Those left out, each with why (for the message when none is left). */
  missing: string[];
}

export class Renderers {
  readonly pool: BrowserPool;
  private readonly readers = new Map<ReaderName, PageRenderer>();

  constructor(
    private readonly config: AppConfig,
    private readonly fetcher: SafeFetcher,
    log?: (line: string) => void,
  ) {
    this.pool = new BrowserPool(browserOptionsFrom(config), log);
  }

  chain(): RendererChain {
    const renderers: PageRenderer[] = [];
    const missing: string[] = [];
    for (const name of this.config.fetch.render_with) {
      const why = name === 'chromium' ? this.pool.unavailable() : readerUnavailable(this.config, name);
      if (why) missing.push(`${name}: ${why}`);
      else renderers.push(name === 'chromium' ? this.chromium() : this.reader(name));
    }
    return { renderers, missing };
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private chromium(): PageRenderer {
    const limits = pageLimitsFrom(this.config);
    return { name: 'chromium', render: (page, signal) => renderInBrowser(this.pool, this.fetcher, page, limits, signal) };
  }

  private reader(name: ReaderName): PageRenderer {
    const made = this.readers.get(name) ?? createReader(this.config, name);
    this.readers.set(name, made);
    return made;
  }
}

/** `doctor`'s line on rendering: what would render a page that needs a browser here, or how to add something that can. */
export function renderingStatus(config: AppConfig): string {
  if (config.fetch.render === 'never') return 'off (fetch.render is never): pages that render by script are read as their HTML stands';
  const ready: string[] = [];
  for (const name of config.fetch.render_with) {
    if (name === 'chromium') {
      const executable = findBrowser(config.fetch.browser.executable);
      if (executable) ready.push(`chromium at ${executable}`);
    } else if (!readerUnavailable(config, name)) ready.push(name);
  }
  if (ready.length) return `${config.fetch.render}: pages that render by script go to ${ready.join(', then ')}`;
  return `nothing here can render pages that build their text by script (they are read without it): ${INSTALL_HINT}`;
}
