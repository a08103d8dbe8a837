// DuckDuckGo's keyless HTML endpoint (POST https://html.duckduckgo.com/html/, form field `q`). Result
// links go through a redirect, //duckduckgo.com/l/?uddg=<real URL>&rut=..., and ads through
// /y.js; both are undone or skipped here. When DuckDuckGo suspects a bot it serves a challenge page
// (often with status 202) instead of results: that is reported as a 429 so callers back off.
import type { parseHTML as ParseHTML } from 'linkedom' with { 'resolution-mode': 'import' };
import { HttpError } from '../http-error';
import { collapseWhitespace, endpoint, finishResults, send, type ProviderIdentity } from './http';
import type { SearchProvider, SearchProviderOptions, SearchRequest, SearchResult } from './types';

// linkedom ships CommonJS for require() but declares only ESM types. Loaded on first parse, so
// the provider table (and the CLI commands that read it) does not load an HTML parser.
const linkedom = () => require('linkedom') as { parseHTML: typeof ParseHTML };

const DUCKDUCKGO: ProviderIdentity = { label: 'DuckDuckGo', accessHint: 'DuckDuckGo blocked this client; try again later or use another provider' };

export class DuckDuckGoSearch implements SearchProvider {
  readonly name = 'duckduckgo';

  constructor(private readonly options: SearchProviderOptions) {}

  async search({ query, maxResults, signal }: SearchRequest): Promise<SearchResult[]> {
    if (maxResults < 1) return [];
    const res = await send(DUCKDUCKGO, endpoint(this.options.baseUrl, 'html/'), {
      method: 'POST',
      headers: {
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': this.options.userAgent,
      },
      body: new URLSearchParams({ q: query }).toString(),
      timeoutMs: this.options.timeoutMs,
      signal,
    });
    const html = await res.text();
    if (res.status === 202 || isBotChallenge(html)) {
      throw new HttpError(429, 'DuckDuckGo answered with a bot challenge instead of results (rate limited)', res.headers);
    }
    return finishResults(parseResultPage(html, this.options.baseUrl), maxResults);
  }
}

function isBotChallenge(html: string): boolean {
  return /anomaly-modal|challenge-form|bots use DuckDuckGo too/i.test(html);
}

export function parseResultPage(html: string, baseUrl: string): SearchResult[] {
  const doc = linkedom().parseHTML(html).document as unknown as Document;
  const blocks = Array.from(doc.querySelectorAll('.result'));
  if (!blocks.length) {
    if (doc.querySelector('.no-results, #links, .serp__results')) return [];
    throw new Error('DuckDuckGo answered with a page that has no result list (its HTML layout may have changed)');
  }
  const results: SearchResult[] = [];
  for (const block of blocks) {
    if (block.classList.contains('result--ad')) continue;
    const link = block.querySelector('a.result__a');
    const url = realUrl(link?.getAttribute('href') ?? '', baseUrl);
    if (!link || !url) continue;
    results.push({
      url,
      title: collapseWhitespace(link.textContent ?? ''),
      snippet: collapseWhitespace(block.querySelector('.result__snippet')?.textContent ?? ''),
    });
  }
  return results;
}

/** The destination of a result link: the uddg parameter of a redirect, or the link itself; ads give undefined. */
function realUrl(href: string, baseUrl: string): string | undefined {
  let link: URL;
  try {
    link = new URL(href, baseUrl);
  } catch {
    return undefined;
  }
  const viaDuckDuckGo = link.hostname.endsWith('duckduckgo.com') || link.origin === new URL(baseUrl).origin;
  if (!viaDuckDuckGo) return link.href;
  if (link.pathname === '/y.js') return undefined;
  if (link.pathname === '/l/') return link.searchParams.get('uddg') ?? undefined;
  return undefined;
}
