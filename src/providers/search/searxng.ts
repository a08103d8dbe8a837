// SearXNG's JSON API (`/search?format=json`). The instance must list `json` in search.formats,
// or it answers 403: we say so instead of failing obscurely.
import { HttpError } from '../http-error';
import type { SearchProvider, SearchRequest, SearchResult } from './types';

interface SearxngResponse {
  results?: { url?: string; title?: string; content?: string; publishedDate?: string | null; score?: number }[];
}

export class SearxngSearch implements SearchProvider {
  readonly name = 'searxng';

  constructor(private readonly baseUrl: string, private readonly timeoutMs: number, private readonly userAgent: string) {}

  async search({ query, maxResults, signal }: SearchRequest): Promise<SearchResult[]> {
    const url = new URL('search', this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const res = await fetch(url, {
      headers: { accept: 'application/json', 'user-agent': this.userAgent },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    if (res.status === 403) {
      throw new HttpError(403, 'SearXNG refused JSON output (403): add "json" to search.formats in its settings.yml', res.headers);
    }
    if (!res.ok) throw new HttpError(res.status, `SearXNG answered ${res.status} ${res.statusText}`, res.headers);
    const body = (await res.json()) as SearxngResponse;
    return (body.results ?? [])
      .filter((r) => typeof r.url === 'string' && /^https?:\/\//i.test(r.url))
      .slice(0, maxResults)
      .map((r) => ({
        url: r.url as string,
        title: (r.title ?? r.url ?? '').trim(),
        snippet: (r.content ?? '').trim(),
        published_date: r.publishedDate ?? undefined,
        score: r.score,
      }));
  }
}
