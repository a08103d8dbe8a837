// A renderer turns a page that builds its text by script into the DOM it builds: the worker's own
// browser, or a reader service that runs one (Jina Reader, Firecrawl's scrape) for people who would
// rather not run a browser. Either way the same extraction reads the DOM that comes back.

export interface PageToRender {
  /** Where the page is (its final URL after redirects). */
  url: string;
  /** Its HTML as already fetched: the browser starts from it; a reader service fetches the page itself. */
  html: Buffer;
  contentType: string;
}

export interface RenderStats {
  /** Requests handed to the fetcher on the page's behalf (those the guard refused among them). */
  requests: number;
  /** Requests refused: by the guard, robots.txt, their scheme or the page's limits. */
  refused: number;
  /** Requests not made because of what they fetch (images, media, fonts, stylesheets). */
  skipped: number;
  bytes: number;
  ms: number;
  /** Why requests were refused (the first few). */
  refusals: string[];
}

export interface RenderedPage {
  /** The DOM once the page settled, serialized. */
  html: string;
  finalUrl: string;
  /** Which renderer made it: chromium, jina or firecrawl. */
  renderer: string;
  stats?: RenderStats;
}

export interface PageRenderer {
  readonly name: string;
  render(page: PageToRender, signal: AbortSignal): Promise<RenderedPage>;
}

/** What a reader service is built from. Keys come from the environment, never config. */
export interface ReaderOptions {
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
  userAgent: string;
}
