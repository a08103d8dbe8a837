// Jina Reader (https://jina.ai/reader): POST / with {"url": ...}, the key as `Authorization: Bearer`,
// `X-Return-Format: html` for the page's DOM once rendered and `Accept: application/json` for an
// answer of the shape {code, status, data: {url, title, html}}. Its own timeout in X-Timeout (s).
import { endpoint, readJsonObject, requireApiKey, send, type ProviderIdentity } from '../search/http';
import type { PageRenderer, PageToRender, ReaderOptions, RenderedPage } from './types';

const JINA: ProviderIdentity = { label: 'Jina Reader', keyEnv: 'JINA_API_KEY' };

interface JinaAnswer {
  code?: number;
  data?: { url?: string; title?: string; html?: string; content?: string };
}

export class JinaReader implements PageRenderer {
  readonly name = 'jina';
  private readonly apiKey: string | undefined;

  constructor(private readonly options: ReaderOptions, keyRequired = true) {
    this.apiKey = keyRequired ? requireApiKey(options, JINA) : options.apiKey?.trim() || undefined;
  }

  async render(page: PageToRender, signal: AbortSignal): Promise<RenderedPage> {
    const res = await send(JINA, endpoint(this.options.baseUrl, '/'), {
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        'user-agent': this.options.userAgent,
        'x-return-format': 'html',
        'x-timeout': String(Math.max(1, Math.floor(this.options.timeoutMs / 1000) - 2)),
        ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
      },
      body: JSON.stringify({ url: page.url }),
      timeoutMs: this.options.timeoutMs,
      signal,
    });
    const answer = await readJsonObject<JinaAnswer>(res, JINA.label);
    const html = answer.data?.html ?? '';
    if (!html.trim()) throw new Error(`${JINA.label} returned no HTML for ${page.url}`);
    return { html, finalUrl: answer.data?.url || page.url, renderer: this.name };
  }
}
