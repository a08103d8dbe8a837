// Every HTTP search provider in one table: where it lives, which key it needs, whether it is a
// scholarly index, and how fast it may be called. Callers build fallback chains, configuration and
// Temporal task-queue rate limits from this; the provider classes themselves never throttle.
import { ConfigError } from '../../config/load';
import { SEARCH_KEY_VARIABLES } from '../../config/environment';
import type { AppConfig } from '../../config/schema';
import { ArxivSearch } from './arxiv';
import { BraveSearch } from './brave';
import { DuckDuckGoSearch } from './duckduckgo';
import { ExaSearch } from './exa';
import { GoogleSearch } from './google';
import { SearxngSearch } from './searxng';
import { SemanticScholarSearch } from './semantic-scholar';
import { TavilySearch } from './tavily';
import type { SearchProvider, SearchProviderOptions } from './types';
import { WikipediaSearch } from './wikipedia';

export type SearchProviderName = 'searxng' | 'tavily' | 'brave' | 'exa' | 'duckduckgo' | 'arxiv' | 'semantic-scholar' | 'wikipedia' | 'google';

export interface SearchProviderInfo {
  name: SearchProviderName;
  /** How messages name it. */
  label: string;
  /** The public API root; undefined when there is none (SearXNG is self-hosted). */
  defaultBaseUrl: string | undefined;
  /** The environment variable that supplies the base URL, when one must (SearXNG). */
  baseUrlEnv?: string;
  /** The environment variable holding the API key; undefined for keyless services. */
  keyEnv: string | undefined;
  /** Other spellings of the key variable seen in the wild, read when keyEnv is unset. */
  keyEnvAliases: readonly string[];
  keyRequired: boolean;
  /** Another variable the provider cannot work without (Google's search engine id). */
  requiredEnv?: string;
  /** Returns papers with authors/year/DOI/PDF rather than web pages. */
  academic: boolean;
  /** A safe default request rate for one API key (or one client IP when keyless). */
  requestsPerSecond: number;
  /** Where requestsPerSecond comes from. */
  rateBasis: string;
  /**
   * Calls allowed back to back before requestsPerSecond applies, where the provider documents its
   * limit over a window (per minute) rather than per second; absent: no burst (1).
   */
  burst?: number;
  create(options: SearchProviderOptions): SearchProvider;
}

export const SEARCH_PROVIDERS: Readonly<Record<SearchProviderName, SearchProviderInfo>> = {
  searxng: {
    name: 'searxng',
    label: 'SearXNG',
    defaultBaseUrl: undefined,
    baseUrlEnv: 'SEARXNG_URL',
    keyEnv: undefined,
    keyEnvAliases: [],
    keyRequired: false,
    academic: false,
    requestsPerSecond: 1,
    rateBasis: 'self-hosted, so not throttled unless search.providers.searxng.requests_per_second is set (one query fans out to upstream engines that may rate-limit the instance)',
    create: (o) => new SearxngSearch(o.baseUrl, o.timeoutMs, o.userAgent),
  },
  tavily: {
    name: 'tavily',
    label: 'Tavily',
    defaultBaseUrl: 'https://api.tavily.com',
    ...SEARCH_KEY_VARIABLES.tavily,
    keyRequired: true,
    academic: false,
    requestsPerSecond: 100 / 60,
    rateBasis: 'development keys are limited to 100 requests per minute',
    // A per-minute window: a round's handful of searches may go at once (10 stays far inside 100).
    burst: 10,
    create: (o) => new TavilySearch(o),
  },
  brave: {
    name: 'brave',
    label: 'Brave Search',
    defaultBaseUrl: 'https://api.search.brave.com',
    // BRAVE_API_KEY is what Brave's own MCP server and most integrations read; Brave's API examples
    // also use BRAVE_SEARCH_API_KEY, so that is accepted as a fallback.
    ...SEARCH_KEY_VARIABLES.brave,
    keyRequired: true,
    academic: false,
    requestsPerSecond: 1,
    rateBasis: 'the free plan allows 1 request per second (paid plans more: see X-RateLimit-Limit)',
    create: (o) => new BraveSearch(o),
  },
  exa: {
    name: 'exa',
    label: 'Exa',
    defaultBaseUrl: 'https://api.exa.ai',
    ...SEARCH_KEY_VARIABLES.exa,
    keyRequired: true,
    academic: false,
    requestsPerSecond: 5,
    rateBasis: 'default limit is about 10 queries per second per key; half leaves room for retries',
    burst: 5,
    create: (o) => new ExaSearch(o),
  },
  google: {
    name: 'google',
    label: 'Google Programmable Search',
    defaultBaseUrl: 'https://customsearch.googleapis.com',
    ...SEARCH_KEY_VARIABLES.google,
    keyRequired: true,
    academic: false,
    requestsPerSecond: 1,
    rateBasis: 'the Custom Search JSON API allows 100 queries per minute per project (and 100 a day free); 1/s stays under it',
    // Also a per-minute quota: a burst of a round's searches stays under it.
    burst: 8,
    create: (o) => new GoogleSearch(o),
  },
  duckduckgo: {
    name: 'duckduckgo',
    label: 'DuckDuckGo',
    defaultBaseUrl: 'https://html.duckduckgo.com',
    keyEnv: undefined,
    keyEnvAliases: [],
    keyRequired: false,
    academic: false,
    requestsPerSecond: 0.5,
    rateBasis: 'no published limit; faster clients get bot challenges, so stay conservative',
    create: (o) => new DuckDuckGoSearch(o),
  },
  arxiv: {
    name: 'arxiv',
    label: 'arXiv',
    defaultBaseUrl: 'https://export.arxiv.org',
    keyEnv: undefined,
    keyEnvAliases: [],
    keyRequired: false,
    academic: true,
    requestsPerSecond: 1 / 3,
    rateBasis: 'arXiv API terms: no more than one request every three seconds',
    create: (o) => new ArxivSearch(o),
  },
  'semantic-scholar': {
    name: 'semantic-scholar',
    label: 'Semantic Scholar',
    defaultBaseUrl: 'https://api.semanticscholar.org',
    ...SEARCH_KEY_VARIABLES['semantic-scholar'],
    keyRequired: false,
    academic: true,
    requestsPerSecond: 1,
    rateBasis: 'keys start at 1 request per second; without one, all anonymous clients share a pool',
    create: (o) => new SemanticScholarSearch(o),
  },
  wikipedia: {
    name: 'wikipedia',
    label: 'Wikipedia',
    defaultBaseUrl: 'https://en.wikipedia.org',
    keyEnv: undefined,
    keyEnvAliases: [],
    keyRequired: false,
    academic: false,
    requestsPerSecond: 1,
    rateBasis: 'Wikimedia API etiquette: no hard read limit, but requests should be serial and modest',
    create: (o) => new WikipediaSearch(o),
  },
};

export const SEARCH_PROVIDER_NAMES = Object.keys(SEARCH_PROVIDERS) as SearchProviderName[];

export function isSearchProviderName(value: string): value is SearchProviderName {
  return Object.hasOwn(SEARCH_PROVIDERS, value);
}

/** The API key for a provider the config's environment holds (keyEnv, else one of its aliases), if any. */
export function searchApiKey(config: Pick<AppConfig, 'environment'>, name: SearchProviderName): string | undefined {
  const variable = SEARCH_PROVIDERS[name].keyEnv;
  return variable ? config.environment.keys[variable] : undefined;
}

/** Builds a provider; a missing base URL or required key is a ConfigError naming the variable to set (the key check is the class's). */
export function createSearchProvider(name: SearchProviderName, options: SearchProviderOptions): SearchProvider {
  const info = SEARCH_PROVIDERS[name];
  if (!info) throw new ConfigError(`unknown search provider "${name}" (known: ${SEARCH_PROVIDER_NAMES.join(', ')})`);
  if (!options.baseUrl) {
    throw new ConfigError(`${info.label} search needs a base URL${info.baseUrlEnv ? `: set ${info.baseUrlEnv}` : ''}`);
  }
  return info.create(options);
}
