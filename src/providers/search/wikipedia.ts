// Wikipedia's MediaWiki Action API (https://www.mediawiki.org/wiki/API:Search): GET /w/api.php with
// list=search. MediaWiki reports most errors with HTTP 200 and an `error` object (plus a
// MediaWiki-API-Error header). Wikimedia refuses clients without a descriptive User-Agent (403).
import { HttpError } from '../http-error';
import { endpoint, finishResults, readJsonObject, arrayField, requestedCount, send, stripHtml, type ProviderIdentity } from './http';
import type { SearchProvider, SearchProviderOptions, SearchRequest, SearchResult } from './types';

const WIKIPEDIA: ProviderIdentity = {
  label: 'Wikipedia',
  accessHint: 'Wikimedia requires a descriptive User-Agent with contact details: check fetch.user_agent',
};
const MAX_RESULTS_PER_REQUEST = 50;

interface SearchHit {
  title?: string;
  pageid?: number;
  snippet?: string;
  timestamp?: string;
}

interface ActionApiBody {
  error?: { code?: string; info?: string };
  query?: { search?: unknown };
}

export class WikipediaSearch implements SearchProvider {
  readonly name = 'wikipedia';

  constructor(private readonly options: SearchProviderOptions) {}

  async search({ query, maxResults, signal }: SearchRequest): Promise<SearchResult[]> {
    if (maxResults < 1) return [];
    const url = endpoint(this.options.baseUrl, 'w/api.php');
    url.search = new URLSearchParams({
      action: 'query',
      list: 'search',
      srsearch: query,
      srlimit: String(requestedCount(maxResults, MAX_RESULTS_PER_REQUEST)),
      srprop: 'snippet|timestamp',
      format: 'json',
      formatversion: '2',
    }).toString();
    const res = await send(WIKIPEDIA, url, { headers: { accept: 'application/json', 'user-agent': this.options.userAgent }, timeoutMs: this.options.timeoutMs, signal });
    const body = await readJsonObject<ActionApiBody>(res, 'Wikipedia');
    if (body.error) {
      const status = apiErrorStatus(body.error.code ?? '');
      throw new HttpError(status, `Wikipedia refused the search (${body.error.code ?? 'error'}): ${body.error.info ?? 'no details'}`, res.headers);
    }
    const origin = new URL(this.options.baseUrl).origin;
    const results = arrayField<SearchHit>(body.query?.search, 'Wikipedia', 'query.search').map((hit) => ({
      url: hit.title ? `${origin}/wiki/${articlePath(hit.title)}` : '',
      title: hit.title ?? '',
      snippet: stripHtml(hit.snippet ?? ''),
      published_date: hit.timestamp,
    }));
    return finishResults(results, maxResults);
  }
}

/** A title as Wikipedia writes it in article URLs: underscores for spaces, `:` `/` `,` left readable. */
export function articlePath(title: string): string {
  return encodeURIComponent(title.replace(/ /g, '_')).replace(/%3A/gi, ':').replace(/%2F/gi, '/').replace(/%2C/gi, ',');
}

/** The HTTP status a MediaWiki error code stands for, so retries treat it right. */
function apiErrorStatus(code: string): number {
  if (code === 'ratelimited') return 429;
  if (code === 'maxlag' || code === 'readonly' || code.startsWith('internal_api_error')) return 503;
  return 400;
}
