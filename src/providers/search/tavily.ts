// Tavily (https://docs.tavily.com/api-reference/endpoint/search): POST /search with a JSON body,
// the key as `Authorization: Bearer tvly-...`. Errors carry `{"detail":{"error":"..."}}`; 432/433
// mean the plan's or pay-as-you-go credit limit is spent.
import { endpoint, finishResults, readJsonObject, arrayField, requestedCount, requireApiKey, send, type ProviderIdentity } from './http';
import type { SearchProvider, SearchProviderOptions, SearchRequest, SearchResult } from './types';

const TAVILY: ProviderIdentity = { label: 'Tavily', keyEnv: 'TAVILY_API_KEY' };
const MAX_RESULTS_PER_REQUEST = 20;

interface TavilyResult {
  url?: string;
  title?: string;
  content?: string;
  score?: number;
  published_date?: string;
}

export class TavilySearch implements SearchProvider {
  readonly name = 'tavily';
  private readonly apiKey: string;

  constructor(private readonly options: SearchProviderOptions) {
    this.apiKey = requireApiKey(options, TAVILY);
  }

  async search({ query, maxResults, signal, filters }: SearchRequest): Promise<SearchResult[]> {
    if (maxResults < 1) return [];
    const res = await send(TAVILY, endpoint(this.options.baseUrl, 'search'), {
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        authorization: `Bearer ${this.apiKey}`,
        'user-agent': this.options.userAgent,
      },
      body: JSON.stringify({
        query,
        max_results: requestedCount(maxResults, MAX_RESULTS_PER_REQUEST),
        search_depth: 'basic',
        topic: 'general',
        include_answer: false,
        include_raw_content: false,
        include_images: false,
        ...(filters?.include_domains ? { include_domains: filters.include_domains } : {}),
        ...(filters?.exclude_domains ? { exclude_domains: filters.exclude_domains } : {}),
        ...(filters?.since ? { start_date: filters.since } : {}),
        ...(filters?.until ? { end_date: filters.until } : {}),
      }),
      timeoutMs: this.options.timeoutMs,
      signal,
    });
    const body = await readJsonObject<{ results?: unknown }>(res, 'Tavily');
    const results = arrayField<TavilyResult>(body.results, 'Tavily', 'results').map((r) => ({
      url: r.url ?? '',
      title: r.title ?? r.url ?? '',
      snippet: r.content ?? '',
      score: r.score,
      published_date: r.published_date,
    }));
    return finishResults(results, maxResults);
  }
}
