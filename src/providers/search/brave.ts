// Brave Search (https://api-dashboard.search.brave.com/app/documentation/web-search): GET
// /res/v1/web/search with the key in `X-Subscription-Token`. Brave documents no 401: a bad or missing
// token comes back as 422 (SUBSCRIPTION_TOKEN_INVALID, or VALIDATION on the header), which we report
// as 401 so it is treated as a credentials problem. 429s carry X-RateLimit-Reset, not Retry-After.
import { HttpError } from '../http-error';
import { describeErrorBody, endpoint, finishResults, readJsonObject, arrayField, refusalMessage, requestedCount, requireApiKey, stripHtml, withTimeout, type ProviderIdentity } from './http';
import type { SearchProvider, SearchProviderOptions, SearchRequest, SearchResult } from './types';

const BRAVE: ProviderIdentity = { label: 'Brave Search', keyEnv: 'BRAVE_API_KEY' };
const MAX_RESULTS_PER_REQUEST = 20;

interface BraveResult {
  url?: string;
  title?: string;
  description?: string;
  page_age?: string;
  age?: string;
  extra_snippets?: string[];
}

interface BraveErrorBody {
  error?: { code?: string; detail?: string; meta?: { errors?: { loc?: unknown[] }[] } };
}

export class BraveSearch implements SearchProvider {
  readonly name = 'brave';
  private readonly apiKey: string;

  constructor(private readonly options: SearchProviderOptions) {
    this.apiKey = requireApiKey(options, BRAVE);
  }

  async search({ query, maxResults, signal, filters }: SearchRequest): Promise<SearchResult[]> {
    if (maxResults < 1) return [];
    const url = endpoint(this.options.baseUrl, 'res/v1/web/search');
    url.searchParams.set('q', query);
    url.searchParams.set('count', String(requestedCount(maxResults, MAX_RESULTS_PER_REQUEST)));
    url.searchParams.set('result_filter', 'web');
    url.searchParams.set('text_decorations', 'false');
    if (filters?.since || filters?.until) url.searchParams.set('freshness', `${filters.since ?? '1970-01-01'}to${filters.until ?? new Date().toISOString().slice(0, 10)}`);
    const res = await fetch(url, {
      headers: { accept: 'application/json', 'x-subscription-token': this.apiKey, 'user-agent': this.options.userAgent },
      signal: withTimeout(this.options.timeoutMs, signal),
    });
    if (!res.ok) throw braveError(res.status, res.headers, await res.text().catch(() => ''));
    const body = await readJsonObject<{ web?: { results?: unknown } }>(res, 'Brave Search');
    const results = arrayField<BraveResult>(body.web?.results, 'Brave Search', 'web.results').map((r) => ({
      url: r.url ?? '',
      title: stripHtml(r.title ?? ''),
      snippet: stripHtml(r.description || r.extra_snippets?.[0] || ''),
      published_date: r.page_age ?? (r.age && !Number.isNaN(Date.parse(r.age)) ? r.age : undefined),
    }));
    return finishResults(results, maxResults);
  }
}

function braveError(status: number, headers: Headers, text: string): HttpError {
  let body: BraveErrorBody = {};
  try {
    body = JSON.parse(text) as BraveErrorBody;
  } catch {
    // a proxy's page, not Brave's JSON
  }
  const code = body.error?.code;
  const aboutToken = (body.error?.meta?.errors ?? []).some((e) => e.loc?.some((part) => String(part).toLowerCase() === 'x-subscription-token'));
  const detail = describeErrorBody(text);
  if (code === 'SUBSCRIPTION_TOKEN_INVALID' || (code === 'VALIDATION' && aboutToken)) {
    return new HttpError(401, refusalMessage(BRAVE, 401, `subscription token rejected (${status} ${code})`), headers);
  }
  return new HttpError(status, refusalMessage(BRAVE, status, code ? `${code}${detail ? `: ${detail}` : ''}` : detail), retryHeaders(headers));
}

/**
 * Brave says when a spent window refills in X-RateLimit-Reset ("1, 1419704": per-second and
 * per-month windows, matched by position with X-RateLimit-Remaining). Without a Retry-After we wait
 * for the first window that has nothing left.
 */
function retryHeaders(headers: Headers): Headers | Record<string, string> {
  if (headers.get('retry-after')) return headers;
  const resets = (headers.get('x-ratelimit-reset') ?? '').split(',').map((s) => Number(s.trim()));
  const remaining = (headers.get('x-ratelimit-remaining') ?? '').split(',').map((s) => Number(s.trim()));
  const spent = remaining.findIndex((left) => left === 0);
  const seconds = resets[spent >= 0 ? spent : 0];
  return Number.isFinite(seconds) && seconds >= 0 && headers.has('x-ratelimit-reset') ? { 'retry-after': String(seconds) } : headers;
}
