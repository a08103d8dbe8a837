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

  async search({ query, maxResults, signal, filters }: SearchRequest): Promise<SearchResult[]> {
    const url = new URL('search', this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    // SearXNG's time_range is day, week, month or year back from today: the narrowest that still holds `since` (its results are checked again after).
    const range = filters?.since ? timeRangeFor(filters.since) : undefined;
    if (range) url.searchParams.set('time_range', range);
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

/** The narrowest of SearXNG's time ranges (day, week, month, year back from now) that reaches back to `since`; none past a year. */
export function timeRangeFor(since: string, now = Date.now()): 'day' | 'week' | 'month' | 'year' | undefined {
  const days = (now - Date.parse(`${since}T00:00:00Z`)) / 86_400_000;
  if (!Number.isFinite(days)) return undefined;
  return days <= 1 ? 'day' : days <= 7 ? 'week' : days <= 30 ? 'month' : days <= 365 ? 'year' : undefined;
}
