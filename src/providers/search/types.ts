export interface SearchResult {
  url: string;
  title: string;
  snippet: string;
  published_date?: string;
  score?: number;
}

export interface SearchRequest {
  query: string;
  maxResults: number;
  signal?: AbortSignal;
}

/** One interface per provider kind: a search engine turns a query into ranked results. */
export interface SearchProvider {
  readonly name: string;
  search(request: SearchRequest): Promise<SearchResult[]>;
}
