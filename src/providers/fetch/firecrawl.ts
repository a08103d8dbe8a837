// Firecrawl's scrape (https://docs.firecrawl.dev/api-reference/endpoint/scrape): POST /v2/scrape with
// {"url", "formats": ["rawHtml"]} — the page's HTML as rendered, uncleaned, so our own extraction reads
// it — and the key as `Authorization: Bearer fc-...`. It answers {success, data: {rawHtml, metadata:
// {sourceURL, url, statusCode, title}}}, or {success: false, error} with 402 (credits spent) or 429.
import { endpoint, readJsonObject, requireApiKey, send, type ProviderIdentity } from '../search/http';
import type { PageRenderer, PageToRender, ReaderOptions, RenderedPage } from './types';

const FIRECRAWL: ProviderIdentity = { label: 'Firecrawl', keyEnv: 'FIRECRAWL_API_KEY' };

interface FirecrawlAnswer {
  success?: boolean;
  error?: string;
  data?: { rawHtml?: string; html?: string; metadata?: { url?: string; sourceURL?: string; statusCode?: number; title?: string } };
}

export class FirecrawlScrape implements PageRenderer {
  readonly name = 'firecrawl';
  private readonly apiKey: string | undefined;

  constructor(private readonly options: ReaderOptions, keyRequired = true) {
    this.apiKey = keyRequired ? requireApiKey(options, FIRECRAWL) : options.apiKey?.trim() || undefined;
  }

  async render(page: PageToRender, signal: AbortSignal): Promise<RenderedPage> {
    const res = await send(FIRECRAWL, endpoint(this.options.baseUrl, 'v2/scrape'), {
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        'user-agent': this.options.userAgent,
        ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
      },
      body: JSON.stringify({ url: page.url, formats: ['rawHtml'], onlyMainContent: false, timeout: Math.max(1_000, this.options.timeoutMs - 2_000) }),
      timeoutMs: this.options.timeoutMs,
      signal,
    });
    const answer = await readJsonObject<FirecrawlAnswer>(res, FIRECRAWL.label);
    if (answer.success === false) throw new Error(`${FIRECRAWL.label} could not scrape ${page.url}: ${answer.error ?? 'no reason given'}`);
    const html = answer.data?.rawHtml ?? answer.data?.html ?? '';
    if (!html.trim()) throw new Error(`${FIRECRAWL.label} returned no HTML for ${page.url}`);
    const status = answer.data?.metadata?.statusCode;
    if (status && status >= 400) throw new Error(`${FIRECRAWL.label}: ${page.url} answered ${status}`);
    const meta = answer.data?.metadata;
    return { html, finalUrl: meta?.url || meta?.sourceURL || page.url, renderer: this.name };
  }
}
