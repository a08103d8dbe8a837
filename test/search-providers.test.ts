// Hosted search providers over real HTTP against loopback fakes that speak each service's wire
// format: results mapped field by field, refusals turned into HttpErrors that say what to fix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFailure } from '../src/activities/errors';
import { ConfigError, loadConfig } from '../src/config/load';
import { HttpError } from '../src/providers/http-error';
import { arxivSearchQuery } from '../src/providers/search/arxiv';
import { createSearchProvider, isSearchProviderName, SEARCH_PROVIDER_NAMES, SEARCH_PROVIDERS, searchApiKey, type SearchProviderName } from '../src/providers/search/catalog';
import { Recorder } from './harness/recorder';
import { FAKE_KEYS, startSearchServices, type FakeSearchServices, type FakeService } from './harness/search-fakes';
import { startSearch, type FakeSearch } from './harness/searxng';

const USER_AGENT = 'deep-research-tests/1.0 (https://example.org/contact)';
let fakes: FakeSearchServices;

beforeAll(async () => {
  fakes = await startSearchServices(new Recorder());
});
afterAll(async () => {
  await fakes.close();
});

function provider(name: Exclude<SearchProviderName, 'searxng'>, overrides: { apiKey?: string; userAgent?: string; timeoutMs?: number } = {}) {
  const keys: Partial<Record<SearchProviderName, string>> = { tavily: FAKE_KEYS.tavily, brave: FAKE_KEYS.brave, exa: FAKE_KEYS.exa };
  const apiKey = 'apiKey' in overrides ? overrides.apiKey : keys[name];
  return createSearchProvider(name, { baseUrl: fakes.baseUrl(name as FakeService), apiKey, timeoutMs: overrides.timeoutMs ?? 5_000, userAgent: overrides.userAgent ?? USER_AGENT });
}

function lastRequest(service: FakeService) {
  const seen = fakes.requests.filter((r) => r.service === service);
  return seen[seen.length - 1];
}

async function httpErrorOf(promise: Promise<unknown>): Promise<HttpError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HttpError);
  return err as HttpError;
}

describe('Tavily', () => {
  it('posts the query with a Bearer key and maps results, dropping non-http URLs', async () => {
    const results = await provider('tavily').search({ query: 'quantum error correction', maxResults: 3 });
    expect(results).toEqual([
      {
        url: 'https://www.nature.com/articles/d41586-024-03933-5',
        title: 'Quantum error correction below the surface-code threshold',
        snippet: 'Google’s Willow chip showed logical error rates falling as the code distance grew.',
        score: 0.91,
        published_date: 'Mon, 09 Dec 2024 16:00:00 GMT',
      },
      {
        url: 'https://en.wikipedia.org/wiki/Quantum_error_correction',
        title: 'Quantum error correction - Wikipedia',
        snippet: 'Quantum error correction (QEC) is a set of techniques used in quantum computing to protect quantum information from errors.',
        score: 0.83,
      },
    ]);
    const sent = lastRequest('tavily');
    expect(sent.method).toBe('POST');
    expect(JSON.parse(sent.body)).toMatchObject({ query: 'quantum error correction', max_results: 3, search_depth: 'basic', include_raw_content: false });
  });

  it('names TAVILY_API_KEY when the key is refused, and keeps Retry-After on 429', async () => {
    const denied = await httpErrorOf(provider('tavily', { apiKey: 'tvly-wrong' }).search({ query: 'x', maxResults: 2 }));
    expect(denied.status).toBe(401);
    expect(denied.message).toBe('Tavily answered 401: Unauthorized: missing or invalid API key. (check TAVILY_API_KEY)');
    fakes.scriptNext('tavily', { kind: 'rate-limited', retryAfterSeconds: 7 });
    const limited = await httpErrorOf(provider('tavily').search({ query: 'x', maxResults: 2 }));
    expect([limited.status, limited.retryAfterMs]).toEqual([429, 7_000]);
    expect(limited.message).toMatch(/excessive requests/);
  });

  it('says so when the body is not JSON', async () => {
    fakes.scriptNext('tavily', { kind: 'malformed' });
    await expect(provider('tavily').search({ query: 'x', maxResults: 2 })).rejects.toThrow('Tavily answered with a body that is not JSON');
  });
});

describe('Brave Search', () => {
  it('sends the subscription token and maps web.results, decoding markup', async () => {
    const results = await provider('brave').search({ query: 'rust vs go', maxResults: 2 });
    expect(results).toEqual([
      {
        url: 'https://blog.example.dev/rust-vs-go-2025',
        title: 'Rust vs. Go in 2025: Which One Should You Learn?',
        snippet: "Both languages are fast, but Rust trades a steeper learning curve for memory safety without a garbage collector. Here's how they compare & when to pick each.",
        published_date: '2025-01-14T09:30:00',
      },
      // "3 days ago" is not a date, so no published_date.
      { url: 'https://doc.rust-lang.org/book/', title: 'The Rust Programming Language', snippet: 'An introductory book about Rust, written by the Rust team.' },
    ]);
    const sent = lastRequest('brave');
    expect(sent.headers['x-subscription-token']).toBe(FAKE_KEYS.brave);
    expect(sent.headers.accept).toBe('application/json');
    expect(Object.fromEntries(sent.url.searchParams)).toMatchObject({ q: 'rust vs go', count: '2' });
  });

  it("reports Brave's 422 for a bad token as 401 naming BRAVE_API_KEY, so it is not retried", async () => {
    const denied = await httpErrorOf(provider('brave', { apiKey: 'BSAwrong' }).search({ query: 'x', maxResults: 2 }));
    expect(denied.status).toBe(401);
    expect(denied.message).toMatch(/SUBSCRIPTION_TOKEN_INVALID.*check BRAVE_API_KEY/);
    const failure = toFailure(denied, 'search');
    expect([failure.type, failure.nonRetryable]).toEqual(['AuthenticationError', true]);
  });

  it('derives the retry delay from X-RateLimit-Reset when there is no Retry-After', async () => {
    fakes.scriptNext('brave', { kind: 'rate-limited' });
    const limited = await httpErrorOf(provider('brave').search({ query: 'x', maxResults: 2 }));
    expect([limited.status, limited.retryAfterMs]).toEqual([429, 1_000]);
    expect(limited.message).toMatch(/RATE_LIMITED/);
  });

  it('says so when web.results is not a list', async () => {
    fakes.scriptNext('brave', { kind: 'malformed' });
    await expect(provider('brave').search({ query: 'x', maxResults: 2 })).rejects.toThrow('Brave Search answered with "web.results" that is not a list');
  });
});

describe('Exa', () => {
  it('asks for highlights so every result has a snippet', async () => {
    const results = await provider('exa').search({ query: 'llm agents overview', maxResults: 2 });
    expect(results).toEqual([
      {
        url: 'https://arxiv.org/abs/2307.06435',
        title: 'A Comprehensive Overview of Large Language Models',
        snippet: 'Large Language Models (LLMs) have recently demonstrated remarkable capabilities in natural language processing tasks. … This article provides an overview of the existing literature.',
        published_date: '2023-07-12T00:00:00.000Z',
        score: 0.37,
        authors: ['Humza Naveed'],
      },
      {
        url: 'https://lilianweng.github.io/posts/2023-06-23-agent/',
        title: 'LLM Powered Autonomous Agents',
        snippet: 'Building agents with LLM as its core controller is a cool concept.',
        score: 0.33,
      },
    ]);
    const sent = lastRequest('exa');
    expect(sent.headers['x-api-key']).toBe(FAKE_KEYS.exa);
    expect(JSON.parse(sent.body)).toEqual({ query: 'llm agents overview', type: 'auto', numResults: 2, contents: { highlights: true } });
  });

  it('names EXA_API_KEY on 401, keeps Retry-After on 429, and rejects a non-JSON body', async () => {
    const denied = await httpErrorOf(provider('exa', { apiKey: 'nope' }).search({ query: 'x', maxResults: 2 }));
    expect(denied.status).toBe(401);
    expect(denied.message).toBe('Exa answered 401: Invalid API key (check EXA_API_KEY)');
    fakes.scriptNext('exa', { kind: 'rate-limited', retryAfterSeconds: 2 });
    const limited = await httpErrorOf(provider('exa').search({ query: 'x', maxResults: 2 }));
    expect([limited.status, limited.retryAfterMs]).toEqual([429, 2_000]);
    fakes.scriptNext('exa', { kind: 'malformed' });
    await expect(provider('exa').search({ query: 'x', maxResults: 2 })).rejects.toThrow(/Exa answered with a body that is not JSON \(<html>/);
  });
});

describe('DuckDuckGo', () => {
  it('posts the form, skips the ad, decodes uddg redirects and drops non-http links', async () => {
    const results = await provider('duckduckgo').search({ query: 'sourdough starter', maxResults: 10 });
    expect(results.map((r) => r.url)).toEqual([
      'https://www.kingarthurbaking.com/recipes/sourdough-starter-recipe',
      'https://en.wikipedia.org/wiki/Sourdough?lang=en&x=1',
      'https://www.theperfectloaf.com/beginners-sourdough-bread/',
    ]);
    expect(results[0]).toEqual({
      url: 'https://www.kingarthurbaking.com/recipes/sourdough-starter-recipe',
      title: 'Sourdough Starter Recipe | King Arthur Baking',
      snippet: 'Make your own sourdough starter with flour & water: feed it daily for 5 days.',
    });
    const sent = lastRequest('duckduckgo');
    expect([sent.method, sent.headers['content-type'], sent.body]).toEqual(['POST', 'application/x-www-form-urlencoded', 'q=sourdough+starter']);
    expect(await provider('duckduckgo').search({ query: 'sourdough starter', maxResults: 2 })).toHaveLength(2);
  });

  it('returns nothing for "No results", a 429 for a bot challenge, and an error for an unknown page', async () => {
    expect(await provider('duckduckgo').search({ query: 'xyzzy nothing at all', maxResults: 5 })).toEqual([]);
    fakes.scriptNext('duckduckgo', { kind: 'rate-limited' });
    const challenged = await httpErrorOf(provider('duckduckgo').search({ query: 'x', maxResults: 5 }));
    expect(challenged.status).toBe(429);
    expect(challenged.message).toMatch(/bot challenge/);
    fakes.scriptNext('duckduckgo', { kind: 'malformed' });
    await expect(provider('duckduckgo').search({ query: 'x', maxResults: 5 })).rejects.toThrow('DuckDuckGo answered with a page that has no result list');
  });
});

describe('arXiv', () => {
  it('turns free text into field-prefixed terms', () => {
    expect(arxivSearchQuery('sparse "mixture of experts" for GPT-4 (routing)?')).toBe('all:"mixture of experts" OR all:sparse OR all:GPT-4 OR all:routing');
    expect(arxivSearchQuery('  ?? ')).toBe('');
  });

  it('reads the Atom feed: title, abstract, authors, year, DOI, abs page and PDF', async () => {
    const results = await provider('arxiv').search({ query: 'transformer attention', maxResults: 5 });
    expect(results).toHaveLength(2);
    expect(results[0]).toEqual({
      url: 'https://arxiv.org/abs/1706.03762v7',
      title: 'Attention Is All You Need',
      snippet: 'The dominant sequence transduction models are based on complex recurrent or convolutional neural networks in an encoder-decoder configuration.',
      published_date: '2017-06-12T17:57:34Z',
      authors: ['Ashish Vaswani', 'Noam Shazeer', 'Niki Parmar'],
      year: 2017,
      doi: '10.48550/arXiv.1706.03762',
      pdf_url: 'https://arxiv.org/pdf/1706.03762v7',
    });
    expect(results[1]).toMatchObject({ year: 2020, authors: ['Tom B. Brown'], pdf_url: 'https://arxiv.org/pdf/2005.14165v4' });
    expect(results[1].doi).toBeUndefined();
    expect(Object.fromEntries(lastRequest('arxiv').url.searchParams)).toMatchObject({ search_query: 'all:transformer OR all:attention', start: '0', max_results: '5' });
  });

  it('reports an error feed as a refused query, a non-feed as malformed, and keeps Retry-After on 503', async () => {
    fakes.scriptNext('arxiv', { kind: 'error-feed' });
    const refused = await httpErrorOf(provider('arxiv').search({ query: 'x', maxResults: 5 }));
    expect([refused.status, refused.message]).toEqual([400, 'arXiv refused the query: incorrect id format for 1234.12345']);
    fakes.scriptNext('arxiv', { kind: 'malformed' });
    await expect(provider('arxiv').search({ query: 'x', maxResults: 5 })).rejects.toThrow('arXiv answered with something that is not an Atom feed');
    fakes.scriptNext('arxiv', { kind: 'rate-limited', retryAfterSeconds: 3 });
    const busy = await httpErrorOf(provider('arxiv').search({ query: 'x', maxResults: 5 }));
    expect([busy.status, busy.retryAfterMs, busy.message]).toEqual([503, 3_000, 'arXiv answered 503: Rate exceeded.']);
  });
});

describe('Semantic Scholar', () => {
  it('maps DOI, open-access PDF, authors and year, and falls back to the paper page', async () => {
    const results = await provider('semantic-scholar', { apiKey: FAKE_KEYS.semanticScholar }).search({ query: 'self-attention', maxResults: 2 });
    expect(results).toEqual([
      {
        url: 'https://www.semanticscholar.org/paper/204e3073870fae3d05bcbc2f6a8e263d9b72e776',
        title: 'Attention is All you Need',
        snippet: 'The dominant sequence transduction models are based on complex recurrent or convolutional neural networks.',
        published_date: '2017-06-12',
        year: 2017,
        authors: ['Ashish Vaswani', 'Noam M. Shazeer'],
        doi: '10.48550/arXiv.1706.03762',
        pdf_url: 'https://arxiv.org/pdf/1706.03762',
      },
      { url: 'https://www.semanticscholar.org/paper/5c5751d45e298cea054f32b392c12c61027d2fe7', title: 'A paper without a page link or an open PDF', snippet: '', year: 2020 },
    ]);
    const sent = lastRequest('semantic-scholar');
    expect(sent.headers['x-api-key']).toBe(FAKE_KEYS.semanticScholar);
    expect(Object.fromEntries(sent.url.searchParams)).toEqual({ query: 'self attention', limit: '2', fields: 'title,url,abstract,year,authors,externalIds,openAccessPdf,publicationDate' });
  });

  it('works without a key, handles an empty answer, and names the key variable on 403', async () => {
    expect(await provider('semantic-scholar').search({ query: 'no such paper', maxResults: 5 })).toEqual([]);
    expect(lastRequest('semantic-scholar').headers['x-api-key']).toBeUndefined();
    const denied = await httpErrorOf(provider('semantic-scholar', { apiKey: 'stale' }).search({ query: 'x', maxResults: 5 }));
    expect([denied.status, denied.message]).toEqual([403, 'Semantic Scholar answered 403: Forbidden (check SEMANTIC_SCHOLAR_API_KEY)']);
    fakes.scriptNext('semantic-scholar', { kind: 'rate-limited', retryAfterSeconds: 1 });
    const limited = await httpErrorOf(provider('semantic-scholar').search({ query: 'x', maxResults: 5 }));
    expect([limited.status, limited.retryAfterMs]).toEqual([429, 1_000]);
    fakes.scriptNext('semantic-scholar', { kind: 'malformed' });
    await expect(provider('semantic-scholar').search({ query: 'x', maxResults: 5 })).rejects.toThrow('Semantic Scholar answered with "data" that is not a list');
  });
});

describe('Wikipedia', () => {
  it('sends the User-Agent and maps hits to article URLs with plain-text snippets', async () => {
    const results = await provider('wikipedia').search({ query: 'photosynthesis', maxResults: 3 });
    expect(results[0]).toEqual({
      url: `${fakes.url}/wiki/Photosynthesis`,
      title: 'Photosynthesis',
      snippet: 'Photosynthesis is a system of biological processes by which photosynthetic organisms, such as most plants, algae & cyanobacteria',
      published_date: '2025-01-10T18:23:41Z',
    });
    expect(results.map((r) => r.url)).toEqual([`${fakes.url}/wiki/Photosynthesis`, `${fakes.url}/wiki/C4_carbon_fixation`, `${fakes.url}/wiki/AC/DC:_Let_There_Be_Rock%3F`]);
    const sent = lastRequest('wikipedia');
    expect(sent.headers['user-agent']).toBe(USER_AGENT);
    expect(Object.fromEntries(sent.url.searchParams)).toMatchObject({ action: 'query', list: 'search', srsearch: 'photosynthesis', srlimit: '3', format: 'json' });
  });

  it('explains a 403 for a missing User-Agent, and turns in-body errors into HttpErrors', async () => {
    const denied = await httpErrorOf(provider('wikipedia', { userAgent: '' }).search({ query: 'x', maxResults: 3 }));
    expect(denied.status).toBe(403);
    expect(denied.message).toMatch(/Please set a user-agent.*descriptive User-Agent/);
    fakes.scriptNext('wikipedia', { kind: 'rate-limited', retryAfterSeconds: 5 });
    const limited = await httpErrorOf(provider('wikipedia').search({ query: 'x', maxResults: 3 }));
    expect([limited.status, limited.retryAfterMs]).toEqual([429, 5_000]);
    expect(limited.message).toMatch(/ratelimited/);
    fakes.scriptNext('wikipedia', { kind: 'malformed' });
    await expect(provider('wikipedia').search({ query: 'x', maxResults: 3 })).rejects.toThrow('Wikipedia answered with a body that is not JSON');
  });
});

describe('all providers', () => {
  it('give up on the caller signal and on their own timeout', async () => {
    fakes.scriptNext('tavily', { kind: 'silent' });
    const controller = new AbortController();
    const pending = provider('tavily').search({ query: 'x', maxResults: 2, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    fakes.scriptNext('wikipedia', { kind: 'silent' });
    await expect(provider('wikipedia', { timeoutMs: 100 }).search({ query: 'x', maxResults: 2 })).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('pass 5xx through as retryable HttpErrors', async () => {
    fakes.scriptNext('semantic-scholar', { kind: 'server-error' });
    const err = await httpErrorOf(provider('semantic-scholar').search({ query: 'x', maxResults: 2 }));
    expect([err.status, err.message]).toEqual([504, 'Semantic Scholar answered 504: Endpoint request timed out']);
    expect(toFailure(err, 'search').nonRetryable).toBe(false);
  });

  it("reports SearXNG's 403 when its JSON output is disabled", async () => {
    const searxng: FakeSearch = await startSearch(new Recorder(), { webUrl: 'http://127.0.0.1:9', pageCount: 3, jsonDisabled: true });
    try {
      const search = createSearchProvider('searxng', { baseUrl: searxng.url, timeoutMs: 5_000, userAgent: USER_AGENT });
      const err = await httpErrorOf(search.search({ query: 'x', maxResults: 3 }));
      expect(err.status).toBe(403);
      expect(err.message).toMatch(/add "json" to search.formats/);
    } finally {
      await searxng.close();
    }
  });
});

describe('catalog', () => {
  it('describes every provider, and builds each under its own name', () => {
    expect([...SEARCH_PROVIDER_NAMES].sort()).toEqual(['arxiv', 'brave', 'duckduckgo', 'exa', 'google', 'searxng', 'semantic-scholar', 'tavily', 'wikipedia']);
    expect(SEARCH_PROVIDER_NAMES.filter((n) => SEARCH_PROVIDERS[n].academic).sort()).toEqual(['arxiv', 'semantic-scholar']);
    expect(SEARCH_PROVIDER_NAMES.filter((n) => SEARCH_PROVIDERS[n].keyRequired).sort()).toEqual(['brave', 'exa', 'google', 'tavily']);
    expect(SEARCH_PROVIDERS.arxiv.requestsPerSecond).toBeCloseTo(1 / 3);
    expect(SEARCH_PROVIDERS.duckduckgo.requestsPerSecond).toBe(0.5);
    expect(SEARCH_PROVIDERS.searxng.baseUrlEnv).toBe('SEARXNG_URL');
    for (const name of SEARCH_PROVIDER_NAMES) {
      expect(SEARCH_PROVIDERS[name].requestsPerSecond).toBeGreaterThan(0);
      const built = createSearchProvider(name, { baseUrl: 'http://127.0.0.1:9', apiKey: 'k', engineId: 'cx', timeoutMs: 1_000, userAgent: USER_AGENT });
      expect(built.name).toBe(name);
    }
    expect(isSearchProviderName('brave')).toBe(true);
    expect(isSearchProviderName('bing')).toBe(false);
  });

  it('refuses to build without a required key or a SearXNG URL, naming the variable', () => {
    const options = { baseUrl: 'https://api.tavily.com', timeoutMs: 1_000, userAgent: USER_AGENT };
    expect(() => createSearchProvider('tavily', options)).toThrow(new ConfigError('Tavily search needs an API key: set TAVILY_API_KEY'));
    expect(() => createSearchProvider('searxng', { ...options, baseUrl: '' })).toThrow('SearXNG search needs a base URL: set SEARXNG_URL');
    expect(() => createSearchProvider('arxiv', options)).not.toThrow();
  });

  it('reads keys from the environment, with the alias as a fallback', () => {
    const configured = (env: Record<string, string>) => loadConfig({ PATH: process.env.PATH, ...env });
    expect(searchApiKey(configured({ BRAVE_SEARCH_API_KEY: ' alias ' }), 'brave')).toBe('alias');
    expect(searchApiKey(configured({ BRAVE_API_KEY: 'main', BRAVE_SEARCH_API_KEY: 'alias' }), 'brave')).toBe('main');
    expect(searchApiKey(configured({ BRAVE_API_KEY: 'main' }), 'arxiv')).toBeUndefined();
  });
});
