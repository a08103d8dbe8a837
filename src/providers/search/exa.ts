// Exa (https://exa.ai/docs/reference/search): POST /search with the key in `x-api-key`. Without
// `contents` a result has no text, so we ask for highlights (query-relevant excerpts). Errors are
// `{"requestId","error","tag"}`; 402 means the credits or the key's budget are spent.
import { endpoint, finishResults, readJsonObject, arrayField, requestedCount, requireApiKey, send, type ProviderIdentity } from './http';
import type { SearchProvider, SearchProviderOptions, SearchRequest, SearchResult } from './types';

const EXA: ProviderIdentity = { label: 'Exa', keyEnv: 'EXA_API_KEY' };
const MAX_RESULTS_PER_REQUEST = 100;
const MAX_TEXT_SNIPPET_CHARS = 500;

interface ExaResult {
  url?: string;
  title?: string | null;
  publishedDate?: string | null;
  author?: string | null;
  score?: number;
  highlights?: string[];
  summary?: string;
  text?: string;
}

export class ExaSearch implements SearchProvider {
  readonly name = 'exa';
  private readonly apiKey: string;

  constructor(private readonly options: SearchProviderOptions) {
    this.apiKey = requireApiKey(options, EXA);
  }

  async search({ query, maxResults, signal, filters }: SearchRequest): Promise<SearchResult[]> {
    if (maxResults < 1) return [];
    const res = await send(EXA, endpoint(this.options.baseUrl, 'search'), {
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        'x-api-key': this.apiKey,
        'user-agent': this.options.userAgent,
      },
      body: JSON.stringify({
        query,
        type: 'auto',
        numResults: requestedCount(maxResults, MAX_RESULTS_PER_REQUEST),
        contents: { highlights: true },
        ...(filters?.include_domains ? { includeDomains: filters.include_domains } : {}),
        ...(filters?.exclude_domains ? { excludeDomains: filters.exclude_domains } : {}),
        ...(filters?.since ? { startPublishedDate: `${filters.since}T00:00:00.000Z` } : {}),
        ...(filters?.until ? { endPublishedDate: `${filters.until}T23:59:59.999Z` } : {}),
      }),
      timeoutMs: this.options.timeoutMs,
      signal,
    });
    const body = await readJsonObject<{ results?: unknown }>(res, 'Exa');
    const results = arrayField<ExaResult>(body.results, 'Exa', 'results').map((r) => ({
      url: r.url ?? '',
      title: r.title ?? r.url ?? '',
      snippet: snippetOf(r),
      published_date: r.publishedDate ?? undefined,
      score: r.score,
      authors: r.author?.trim() ? [r.author.trim()] : undefined,
    }));
    return finishResults(results, maxResults);
  }
}

function snippetOf(result: ExaResult): string {
  const highlights = (result.highlights ?? []).map((h) => h.trim()).filter(Boolean);
  if (highlights.length) return highlights.join(' … ');
  if (result.summary?.trim()) return result.summary;
  const text = result.text?.trim() ?? '';
  return text.length > MAX_TEXT_SNIPPET_CHARS ? `${text.slice(0, MAX_TEXT_SNIPPET_CHARS)}…` : text;
}
