// Semantic Scholar's Academic Graph API (https://api.semanticscholar.org/api-docs/graph): GET
// /graph/v1/paper/search. A key (`x-api-key`) is optional: without one, requests share a pool with
// every other unauthenticated client and 429s are common. No results means `{"total":0,"offset":0}`
// with no `data` at all.
import { endpoint, finishResults, readJsonObject, arrayField, requestedCount, send, type ProviderIdentity } from './http';
import type { SearchProvider, SearchProviderOptions, SearchRequest, SearchResult } from './types';

const SEMANTIC_SCHOLAR: ProviderIdentity = { label: 'Semantic Scholar', keyEnv: 'SEMANTIC_SCHOLAR_API_KEY' };
const MAX_RESULTS_PER_REQUEST = 100;
export const SEMANTIC_SCHOLAR_FIELDS = 'title,url,abstract,year,authors,externalIds,openAccessPdf,publicationDate';

interface Paper {
  paperId?: string;
  url?: string | null;
  title?: string | null;
  abstract?: string | null;
  year?: number | null;
  publicationDate?: string | null;
  authors?: { authorId?: string | null; name?: string | null }[];
  externalIds?: Record<string, string | number | null> | null;
  openAccessPdf?: { url?: string | null; status?: string | null } | null;
}

export class SemanticScholarSearch implements SearchProvider {
  readonly name = 'semantic-scholar';

  constructor(private readonly options: SearchProviderOptions) {}

  async search({ query, maxResults, signal, filters }: SearchRequest): Promise<SearchResult[]> {
    if (maxResults < 1) return [];
    const url = endpoint(this.options.baseUrl, 'graph/v1/paper/search');
    // The search takes plain text only, and a hyphenated term matches nothing.
    url.searchParams.set('query', query.replace(/-/g, ' '));
    url.searchParams.set('limit', String(requestedCount(maxResults, MAX_RESULTS_PER_REQUEST)));
    url.searchParams.set('fields', SEMANTIC_SCHOLAR_FIELDS);
    // Its own date filter: <start>:<end>, either end open.
    if (filters?.since || filters?.until) url.searchParams.set('publicationDateOrYear', `${filters.since ?? ''}:${filters.until ?? ''}`);
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.options.userAgent };
    const apiKey = this.options.apiKey?.trim();
    if (apiKey) headers['x-api-key'] = apiKey;
    const identity = apiKey ? SEMANTIC_SCHOLAR : { label: SEMANTIC_SCHOLAR.label, accessHint: 'requests without SEMANTIC_SCHOLAR_API_KEY were refused' };
    const res = await send(identity, url, { headers, timeoutMs: this.options.timeoutMs, signal });
    const body = await readJsonObject<{ data?: unknown }>(res, 'Semantic Scholar');
    const results = arrayField<Paper>(body.data, 'Semantic Scholar', 'data').map((paper) => {
      const doi = paper.externalIds?.DOI;
      return {
        url: paper.url || (paper.paperId ? `https://www.semanticscholar.org/paper/${paper.paperId}` : ''),
        title: paper.title ?? '',
        snippet: paper.abstract ?? '',
        published_date: paper.publicationDate ?? undefined,
        year: paper.year ?? undefined,
        authors: (paper.authors ?? []).map((a) => a.name?.trim() ?? '').filter(Boolean),
        doi: typeof doi === 'string' ? doi : undefined,
        pdf_url: paper.openAccessPdf?.url || undefined,
      };
    });
    return finishResults(results, maxResults);
  }
}
