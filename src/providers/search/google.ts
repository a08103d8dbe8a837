// Google Programmable Search (the Custom Search JSON API): GET /customsearch/v1 with `key` (the API
// key), `cx` (the search engine id) and `q`; at most 10 results per request (`num`). Results come in
// `items` (absent when nothing matched). Errors are Google's `{"error":{"code","message","status",
// "details":[{"reason"}]}}`; an invalid key is a 400 with reason API_KEY_INVALID, which we report as
// 401 so it is treated as a credentials problem and not retried. Quota errors are 429.
import { ConfigError } from '../../config/load';
import { SEARCH_KEY_VARIABLES } from '../../config/environment';
import { HttpError } from '../http-error';
import { arrayField, endpoint, finishResults, readJsonObject, refusalMessage, requestedCount, requireApiKey, withTimeout, type ProviderIdentity } from './http';
import type { SearchFilters } from '../../domain/filters';
import type { SearchProvider, SearchProviderOptions, SearchRequest, SearchResult } from './types';

const GOOGLE: ProviderIdentity = { label: 'Google Programmable Search', keyEnv: 'GOOGLE_SEARCH_API_KEY' };
const MAX_RESULTS_PER_REQUEST = 10;

interface GoogleItem {
  link?: string;
  title?: string;
  snippet?: string;
  pagemap?: { metatags?: Record<string, unknown>[] };
}

interface GoogleErrorBody {
  error?: { code?: number; message?: string; status?: string; details?: { reason?: string }[]; errors?: { reason?: string }[] };
}

/**
 * The session's filters as Google takes them: `dateRestrict` counts days back from today (there is
 * no end date: `until` is held after search); one domain is `siteSearch` with `siteSearchFilter`
 * i(nclude) or e(xclude), several are `site:` terms in the query.
 */
function applyFilters(url: URL, query: string, filters: SearchFilters | undefined, now = Date.now()): void {
  if (!filters) return;
  if (filters.since) {
    const days = Math.ceil((now - Date.parse(`${filters.since}T00:00:00Z`)) / 86_400_000);
    if (days > 0) url.searchParams.set('dateRestrict', `d${days}`);
  }
  const include = filters.include_domains ?? [];
  const exclude = filters.exclude_domains ?? [];
  const terms: string[] = [];
  if (include.length === 1 && !exclude.length) {
    url.searchParams.set('siteSearch', include[0]);
    url.searchParams.set('siteSearchFilter', 'i');
  } else if (!include.length && exclude.length === 1) {
    url.searchParams.set('siteSearch', exclude[0]);
    url.searchParams.set('siteSearchFilter', 'e');
  } else {
    if (include.length) terms.push(`(${include.map((d) => `site:${d}`).join(' OR ')})`);
    terms.push(...exclude.map((d) => `-site:${d}`));
  }
  if (terms.length) url.searchParams.set('q', `${query} ${terms.join(' ')}`);
}

const PUBLISHED_TAGS = ['article:published_time', 'og:published_time', 'datepublished', 'date', 'dc.date'];

export class GoogleSearch implements SearchProvider {
  readonly name = 'google';
  private readonly apiKey: string;
  private readonly engineId: string;

  constructor(private readonly options: SearchProviderOptions) {
    this.apiKey = requireApiKey(options, GOOGLE);
    const engineId = options.engineId?.trim();
    if (!engineId) throw new ConfigError(`${GOOGLE.label} needs a search engine id: set ${SEARCH_KEY_VARIABLES.google.requiredEnv}`);
    this.engineId = engineId;
  }

  async search({ query, maxResults, signal, filters }: SearchRequest): Promise<SearchResult[]> {
    if (maxResults < 1) return [];
    const url = endpoint(this.options.baseUrl, 'customsearch/v1');
    url.searchParams.set('key', this.apiKey);
    url.searchParams.set('cx', this.engineId);
    url.searchParams.set('q', query);
    applyFilters(url, query, filters);
    url.searchParams.set('num', String(requestedCount(maxResults, MAX_RESULTS_PER_REQUEST)));
    const res = await fetch(url, {
      headers: { accept: 'application/json', 'user-agent': this.options.userAgent },
      signal: withTimeout(this.options.timeoutMs, signal),
    });
    if (!res.ok) throw refusal(res.status, await res.text().catch(() => ''), res.headers);
    const body = await readJsonObject<{ items?: unknown }>(res, GOOGLE.label);
    const results = arrayField<GoogleItem>(body.items, GOOGLE.label, 'items').map((item) => ({
      url: item.link ?? '',
      title: item.title ?? item.link ?? '',
      snippet: (item.snippet ?? '').replace(/\s+/g, ' '),
      published_date: publishedDate(item),
    }));
    return finishResults(results, maxResults);
  }
}

/** The key never appears in the message: Google echoes nothing of it, and we add nothing. */
function refusal(status: number, text: string, headers: Headers): HttpError {
  let parsed: GoogleErrorBody = {};
  try {
    parsed = JSON.parse(text) as GoogleErrorBody;
  } catch {
    // not JSON: the status alone says enough
  }
  const reasons = [...(parsed.error?.details ?? []), ...(parsed.error?.errors ?? [])].map((d) => d.reason ?? '');
  const badKey = status === 400 && reasons.some((r) => /API_KEY_INVALID|keyInvalid/i.test(r));
  const effective = badKey ? 401 : status;
  const detail = parsed.error?.message?.slice(0, 300);
  return new HttpError(effective, refusalMessage(GOOGLE, effective, detail), headers);
}

function publishedDate(item: GoogleItem): string | undefined {
  for (const tags of item.pagemap?.metatags ?? []) {
    for (const name of PUBLISHED_TAGS) {
      const value = tags[name];
      if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return value;
    }
  }
  return undefined;
}
