// Providers inside a real run: a search provider's outage falls through the chain, providers
// without keys are skipped with a Status, and a provider's rate limit holds across sessions.
import { afterEach, describe, expect, inject, it } from 'vitest';
import { startEnvironment, startHarness, type Harness, type TestEnvironment } from './harness';
import { FAKE_KEYS, startSearchServices, type FakeSearchServices } from './harness/search-fakes';

const fast = { auto_approve: true, max_sources: 4, max_iterations: 1, batch_size: 4 };

describe('providers in a run', () => {
  let harness: Harness | undefined;
  let services: FakeSearchServices | undefined;
  let env: TestEnvironment | undefined;

  afterEach(async () => {
    await env?.close();
    await services?.close();
    await harness?.close();
    env = services = harness = undefined;
  });

  async function setup(extraEnv: Record<string, string>, rates: Record<string, number> = {}) {
    harness = await startHarness({ model: { gapIterations: 0 } });
    services = await startSearchServices(harness.recorder);
    const fakes = services;
    env = await startEnvironment(harness, inject('temporalAddress'), {
      extraEnv,
      configure: (config) => {
        for (const name of ['tavily', 'brave', 'exa', 'wikipedia', 'arxiv', 'semantic-scholar', 'duckduckgo'] as const) {
          config.search.providers[name] = { base_url: fakes.baseUrl(name), ...(rates[name] ? { requests_per_second: rates[name] } : {}) };
        }
      },
    });
    return env;
  }

  it('falls through to the next search provider when the first keeps failing, and says so', async () => {
    const env = await setup({ TAVILY_API_KEY: FAKE_KEYS.tavily, SEARCH_PROVIDERS: 'brave,tavily,searxng' });
    for (let i = 0; i < 12; i++) services?.scriptNext('tavily', { kind: 'server-error' });
    const { researchId } = await env.client.start({ query: 'Fallback check: geothermal', settings: { ...fast } });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    expect(s.providers?.search_chain).toEqual(['tavily', 'searxng']);
    expect(s.providers?.skipped).toContainEqual({ name: 'brave', reason: 'BRAVE_API_KEY is not set' });
    expect(s.unavailable_search_providers).toEqual(['tavily']);
    expect(s.sources.filter((x) => x.status === 'fetched').length).toBeGreaterThan(0);
    const events = await env.client.events(researchId);
    const skipped = events.find((e) => e.data.kind === 'provider_skipped' && e.data.provider === 'brave');
    expect(skipped?.data.message).toBe('brave skipped: BRAVE_API_KEY is not set');
    const fallback = events.find((e) => e.data.kind === 'search_fallback');
    expect(fallback?.data).toMatchObject({ from: 'tavily', to: 'searxng' });
    // Three attempts on Tavily (its retry policy), then SearXNG for every query from then on.
    const tavilyCalls = services?.requests.filter((r) => r.service === 'tavily') ?? [];
    expect(tavilyCalls.length).toBeGreaterThanOrEqual(3);
    expect(tavilyCalls.every((r) => r.headers.authorization === `Bearer ${FAKE_KEYS.tavily}`)).toBe(true);
    expect(harness?.recorder.of('search').filter((r) => r.path.startsWith('/search')).length).toBe(s.searched_queries.length);
  });

  it('holds a provider to its rate across concurrent sessions (Temporal task-queue rate limit)', async () => {
    const env = await setup({ SEARCH_PROVIDERS: 'wikipedia' }, { wikipedia: 2 });
    const settings = { ...fast, max_sources: 2 };
    const started = await Promise.all([
      env.client.start({ query: 'Rate check one: tides', settings }),
      env.client.start({ query: 'Rate check two: winds', settings }),
    ]);
    await Promise.all(started.map((r) => env.client.waitForResult(r.researchId)));
    const starts = (harness?.recorder.of('search') ?? []).filter((r) => r.key.startsWith('wikipedia ')).map((r) => r.start);
    expect(starts.length).toBe(6);
    const sorted = [...starts].sort((a, b) => a - b);
    const span = sorted[sorted.length - 1] - sorted[0];
    // Six requests at 2 per second need at least ~2.5 s however they are spread over the sessions.
    expect(span).toBeGreaterThanOrEqual(2_000);
    for (const r of started) {
      const s = await env.client.state(r.researchId);
      expect(s.status).toBe('completed');
      expect(s.providers?.search_chain).toEqual(['wikipedia']);
    }
  });
});
