// Google Programmable Search over real HTTP against a loopback fake of the Custom Search JSON API:
// the request Google expects, results mapped, its refusals turned into errors that say what to fix
// (never echoing the key), and the seed-001 preset chain Tavily → Google → Semantic Scholar.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../src/activities';
import { toFailure } from '../src/activities/errors';
import { ConfigError, loadConfig } from '../src/config/load';
import { HttpError } from '../src/providers/http-error';
import { resolveProviderPlan, searchAvailability } from '../src/providers/registry';
import { createSearchProvider } from '../src/providers/search/catalog';
import { activityContext } from './harness/activity-context';
import { GOOGLE_FAKE_CX, GOOGLE_FAKE_KEY, startFakeGoogle, type FakeGoogle } from './harness/google-search';

const USER_AGENT = 'deep-research-tests/1.0';
let google: FakeGoogle;

beforeAll(async () => {
  google = await startFakeGoogle((q) =>
    q === 'nothing at all'
      ? []
      : Array.from({ length: 12 }, (_, i) => ({
          link: i === 3 ? 'ftp://files.example.org/x' : `https://site${i}.example.org/${encodeURIComponent(q)}`,
          title: `Result ${i} about ${q}`,
          snippet: `Snippet ${i}\nabout   ${q}.`,
          ...(i === 0 ? { published: '2025-03-04T10:00:00Z' } : {}),
        })),
  );
});
afterAll(async () => {
  await google.close();
});

const provider = (apiKey = GOOGLE_FAKE_KEY, options: { engineId?: string } = { engineId: GOOGLE_FAKE_CX }) =>
  createSearchProvider('google', { baseUrl: google.url, apiKey, ...options, timeoutMs: 5_000, userAgent: USER_AGENT });

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('expected a refusal'),
    (e: unknown) => e,
  );
}

describe('Google Programmable Search', () => {
  it('sends key, cx, q and at most 10 results, and maps items (non-http links dropped, dates from metatags)', async () => {
    const results = await provider().search({ query: 'grid batteries', maxResults: 20 });
    const sent = google.requests[google.requests.length - 1];
    expect(sent.pathname).toBe('/customsearch/v1');
    expect(sent.searchParams.get('q')).toBe('grid batteries');
    expect(sent.searchParams.get('cx')).toBe(GOOGLE_FAKE_CX);
    expect(sent.searchParams.get('num')).toBe('10');
    expect(results).toHaveLength(9); // 10 asked, the ftp:// one dropped
    expect(results[0]).toEqual({
      url: 'https://site0.example.org/grid%20batteries',
      title: 'Result 0 about grid batteries',
      snippet: 'Snippet 0 about grid batteries.',
      published_date: '2025-03-04T10:00:00Z',
    });
    expect(results.some((r) => r.url.startsWith('ftp:'))).toBe(false);
  });

  it('answers no results as an empty list (Google omits `items`)', async () => {
    expect(await provider().search({ query: 'nothing at all', maxResults: 5 })).toEqual([]);
  });

  it('reports an invalid key as 401 naming GOOGLE_SEARCH_API_KEY, not retried, without the key in the message', async () => {
    const err = (await failureOf(provider('AIzaWRONG-secret-value').search({ query: 'x', maxResults: 3 }))) as HttpError;
    expect(err).toBeInstanceOf(HttpError);
    expect(err.status).toBe(401);
    expect(err.message).toMatch(/API key not valid/);
    expect(err.message).toMatch(/check GOOGLE_SEARCH_API_KEY/);
    expect(err.message).not.toContain('AIzaWRONG-secret-value');
    expect(toFailure(err, 'google search').nonRetryable).toBe(true);
  });

  it('reports a spent quota as a retryable 429', async () => {
    google.exhaustQuotaOnce();
    const err = (await failureOf(provider().search({ query: 'x', maxResults: 3 }))) as HttpError;
    expect(err.status).toBe(429);
    expect(err.message).toMatch(/Quota exceeded/);
    expect(toFailure(err, 'google search').nonRetryable).toBe(false);
  });

  it('cannot be built without its engine id, and is unavailable until both variables are set', () => {
    expect(() => provider(GOOGLE_FAKE_KEY, {})).toThrow(new ConfigError('Google Programmable Search needs a search engine id: set GOOGLE_SEARCH_ENGINE_ID'));
    const configured = (env: Record<string, string>) => loadConfig({ PATH: process.env.PATH, ...env });
    expect(searchAvailability(configured({}), 'google')).toEqual({ ok: false, reason: 'GOOGLE_SEARCH_API_KEY is not set' });
    expect(searchAvailability(configured({ GOOGLE_SEARCH_API_KEY: 'k' }), 'google')).toEqual({ ok: false, reason: 'GOOGLE_SEARCH_ENGINE_ID is not set' });
    expect(searchAvailability(configured({ GOOGLE_SEARCH_API_KEY: 'k', GOOGLE_SEARCH_ENGINE_ID: 'cx' }), 'google')).toEqual({ ok: true });
  });

  it('serves the webSearch activity with the key and engine id read from the environment', async () => {
    const env = { PATH: process.env.PATH, GOOGLE_SEARCH_API_KEY: GOOGLE_FAKE_KEY, GOOGLE_SEARCH_ENGINE_ID: GOOGLE_FAKE_CX, OPENAI_API_KEY: 'sk-test' };
    const config = loadConfig({ ...env, DEEP_RESEARCH_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'dr-google-')) });
    config.search.providers.google = { base_url: google.url };
    const built = createActivities({ config });
    try {
      const out = await activityContext().run(() => built.activities.webSearch({ provider: 'google', query: 'heat pumps', maxResults: 2 }));
      expect(out.hits.map((h) => h.url)).toEqual(['https://site0.example.org/heat%20pumps', 'https://site1.example.org/heat%20pumps']);
      expect(out.hits.every((h) => h.provider === 'google')).toBe(true);
    } finally {
      await built.close();
    }
  });
});

describe('the seed-001 search preset', () => {
  it('stands for Tavily → Google → Semantic Scholar, skipping whichever has no key', () => {
    const env = { PATH: process.env.PATH, OPENAI_API_KEY: 'sk-test', SEARCH_PROVIDERS: 'seed-001', GOOGLE_SEARCH_API_KEY: 'g', GOOGLE_SEARCH_ENGINE_ID: 'cx' };
    const config = loadConfig(env);
    const plan = resolveProviderPlan(config, config.research.settings);
    expect(plan.search_chain).toEqual(['google', 'semantic-scholar']);
    expect(plan.skipped).toContainEqual({ name: 'tavily', reason: 'TAVILY_API_KEY is not set' });
    const withTavily = { ...env, TAVILY_API_KEY: 't' };
    expect(resolveProviderPlan(loadConfig(withTavily), config.research.settings).search_chain).toEqual(['tavily', 'google', 'semantic-scholar']);
  });

  it('works per session too', () => {
    const env = { PATH: process.env.PATH, OPENAI_API_KEY: 'sk-test', TAVILY_API_KEY: 't' };
    const config = loadConfig(env);
    const plan = resolveProviderPlan(config, { ...config.research.settings, search_providers: ['seed-001', 'duckduckgo'] });
    expect(plan.search_chain).toEqual(['tavily', 'semantic-scholar', 'duckduckgo']);
  });
});
