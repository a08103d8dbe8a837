import type { SearchFilters } from '../../domain/filters';

export interface SearchResult {
  url: string;
  title: string;
  snippet: string;
  published_date?: string;
  score?: number;
  /**
   * How much of the query the result speaks to, 0..1, where the provider can tell (local
   * documents: the share of the query's content words the document contains, 1 for a match by
   * meaning).
   */
  query_match?: number;
  /** Academic providers (arXiv, Semantic Scholar) also give these when known. */
  authors?: string[];
  year?: number;
  doi?: string;
  pdf_url?: string;
}

export interface SearchRequest {
  query: string;
  maxResults: number;
  signal?: AbortSignal;
  /** Dates and domains the session asks for: a provider with a filter of its own sends them (its results are checked again after). */
  filters?: SearchFilters;
}

/** One interface per provider kind: a search engine turns a query into ranked results. */
export interface SearchProvider {
  readonly name: string;
  search(request: SearchRequest): Promise<SearchResult[]>;
}

/** What every HTTP search provider is built from. Keys come from the environment, never config. */
export interface SearchProviderOptions {
  /** The API root; tests point it at a loopback fake. */
  baseUrl: string;
  apiKey?: string;
  /** Google Programmable Search only: the search engine id (`cx`), from GOOGLE_SEARCH_ENGINE_ID. */
  engineId?: string;
  timeoutMs: number;
  userAgent: string;
}
