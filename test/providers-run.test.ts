// Providers inside a real run: a search provider's outage falls through the chain, providers
// without keys are skipped with a Status, and a provider's rate limit holds across sessions.
import { afterEach, describe, expect, inject, it } from 'vitest';
import { startEnvironment, startHarness, type Harness, type TestEnvironment } from './harness';
import { startAnthropic, type FakeAnthropic } from './harness/anthropic';
import { startGemini, type FakeGemini } from './harness/gemini';
import { FAKE_KEYS, startSearchServices, type FakeSearchServices } from './harness/search-fakes';

const fast = { auto_approve: true, max_sources: 4, max_iterations: 1, batch_size: 4 };

describe('providers in a run', () => {
  let harness: Harness | undefined;
  let services: FakeSearchServices | undefined;
  let env: TestEnvironment | undefined;
  let anthropic: FakeAnthropic | undefined;
  let gemini: FakeGemini | undefined;

  afterEach(async () => {
    await env?.close();
    await anthropic?.close();
    await gemini?.close();
    await services?.close();
    await harness?.close();
    env = services = harness = anthropic = gemini = undefined;
  });

  it('runs roles on different providers, falls back when one is down, and adds up usage and cost per role and model', async () => {
    harness = await startHarness({ model: { gapIterations: 0 } });
    anthropic = await startAnthropic(harness.recorder, {
      apiKey: 'anthropic-test-key',
      answers: [{ object: { patches: [{ section: 'Overview', markdown: '- Written by the Anthropic writer [S1]' }] } }],
      usage: { input: 1_000, output: 200, cached: 400 },
    });
    // Gemini is down: 503s (Retry-After 0, so the test does not wait) for every attempt.
    gemini = await startGemini(harness.recorder, { failures: Array.from({ length: 4 }, () => ({ status: 503, retryAfter: '0', type: 'UNAVAILABLE' })) });
    env = await startEnvironment(harness, inject('temporalAddress'), {
      extraEnv: { ANTHROPIC_API_KEY: 'anthropic-test-key', ANTHROPIC_BASE_URL: anthropic.url, GOOGLE_GENERATIVE_AI_API_KEY: 'g-key', GOOGLE_GENERATIVE_AI_BASE_URL: gemini.url },
      configure: (config) => {
        config.models.pricing = { 'openai:scripted-model': { input: 2, output: 8 }, 'anthropic:claude-test': { input: 3, output: 15, cached_input: 0.3 } };
      },
    });
    const settings = { ...fast, max_sources: 3, batch_size: 3, models: { writer: ['anthropic:claude-test'], analyzer: ['google:gemini-test', 'openai:scripted-model'] } };
    const { researchId } = await env.client.start({ query: 'Two providers check: wave power', settings });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    expect(s.report_markdown).toContain('Written by the Anthropic writer');
    expect(s.providers?.model_chains.writer).toEqual(['anthropic:claude-test']);
    expect(gemini.requests).toHaveLength(4);
    const events = await env.client.events(researchId);
    const fallback = events.find((e) => e.data.kind === 'model_fallback');
    expect(fallback?.data).toMatchObject({ role: 'analyzer', from: 'google:gemini-test', to: 'openai:scripted-model' });

    const u = s.usage;
    const byModel = u.tokens_by_model ?? {};
    expect(Object.keys(byModel).sort()).toEqual(['anthropic:claude-test', 'openai:scripted-model']);
    const writer = u.tokens_by_role.writer;
    // Every writer call (the batch's patch; the empty sections' one) billed at the Anthropic prices.
    const n = writer.calls;
    expect(n).toBe(anthropic.requests.length);
    expect(writer).toMatchObject({ input_tokens: 1_000 * n, output_tokens: 200 * n, cached_input_tokens: 400 * n });
    expect(writer.cost_usd).toBeCloseTo((n * (600 * 3 + 400 * 0.3 + 200 * 15)) / 1e6, 8);
    const openai = byModel['openai:scripted-model'];
    expect(openai.cost_usd).toBeCloseTo((openai.input_tokens * 2 + openai.output_tokens * 8) / 1e6, 8);
    const roleSum = Object.values(u.tokens_by_role).reduce((sum, r) => sum + (r.cost_usd ?? 0), 0);
    const modelSum = Object.values(byModel).reduce((sum, r) => sum + (r.cost_usd ?? 0), 0);
    expect(u.cost_usd).toBeGreaterThan(0);
    expect(roleSum).toBeCloseTo(u.cost_usd ?? -1, 8);
    expect(modelSum).toBeCloseTo(u.cost_usd ?? -1, 8);
    expect(Object.values(u.tokens_by_role).reduce((sum, r) => sum + r.calls, 0)).toBe(u.model_calls);
    // Anthropic got its key in its own header, never the OpenAI one.
    expect(anthropic.requests.every((r) => r.headers['x-api-key'] === 'anthropic-test-key' && !r.headers.authorization)).toBe(true);
  });

  async function setup(extraEnv: Record<string, string>, rates: Record<string, number> = {}, bursts: Record<string, number> = {}) {
    harness = await startHarness({ model: { gapIterations: 0 } });
    services = await startSearchServices(harness.recorder);
    const fakes = services;
    env = await startEnvironment(harness, inject('temporalAddress'), {
      extraEnv,
      configure: (config) => {
        for (const name of ['tavily', 'brave', 'exa', 'wikipedia', 'arxiv', 'semantic-scholar', 'duckduckgo'] as const) {
          config.search.providers[name] = {
            base_url: fakes.baseUrl(name),
            ...(rates[name] ? { requests_per_second: rates[name] } : {}),
            ...(bursts[name] ? { burst: bursts[name] } : {}),
          };
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
    // Six requests at 2 per second (all six are asked for at once: every search of a round goes out
    // together) span about 2 s however they are spread over the sessions: Temporal's limiter lets
    // the first couple through together, then one per 0.5 s. Unthrottled they would take ~0 s.
    expect(span).toBeGreaterThanOrEqual(1_250);
    const queued: number[] = [];
    for (const r of started) {
      const s = await env.client.state(r.researchId);
      expect(s.status).toBe('completed');
      expect(s.providers?.search_chain).toEqual(['wikipedia']);
      for (const e of await env.client.events(r.researchId)) {
        if (e.type === 'ToolCallResult' && e.data.tool === 'web_search') queued.push(Number((e.data.result as { queued_ms?: number }).queued_ms));
      }
    }
    // Each search says how long it waited for its turn; the last of six at 2 per second waited.
    expect(queued).toHaveLength(6);
    expect(Math.max(...queued)).toBeGreaterThanOrEqual(1_000);
  });

  it('holds a provider with a burst to its rate once the burst is spent (its task-queue limit lifted to the burst)', async () => {
    const env = await setup({ SEARCH_PROVIDERS: 'wikipedia' }, { wikipedia: 1 }, { wikipedia: 3 });
    const settings = { ...fast, max_sources: 2 };
    const started = await Promise.all([
      env.client.start({ query: 'Burst check one: tides', settings }),
      env.client.start({ query: 'Burst check two: winds', settings }),
    ]);
    await Promise.all(started.map((r) => env.client.waitForResult(r.researchId)));
    const starts = (harness?.recorder.of('search') ?? []).filter((r) => r.key.startsWith('wikipedia ')).map((r) => r.start).sort((a, b) => a - b);
    expect(starts.length).toBe(6);
    // Three at once, then one a second: the sixth starts ~3 s after the first.
    expect(starts[5] - starts[0]).toBeGreaterThanOrEqual(2_000);
    for (const r of started) expect((await env.client.state(r.researchId)).status).toBe('completed');
  });

  it('combines providers per query when asked: results merged, each source naming who found it', async () => {
    const env = await setup({});
    const settings = { ...fast, max_sources: 12, max_search_results_per_query: 3, search_providers: ['searxng', 'wikipedia'], search_mode: 'combine' as const };
    const { researchId } = await env.client.start({ query: 'Combine check: hydropower', settings });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    const byProvider = (p: string) => s.sources.filter((x) => x.provider === p);
    expect(byProvider('searxng').length).toBeGreaterThan(0);
    expect(byProvider('wikipedia').length).toBeGreaterThan(0);
    expect(new Set(s.sources.map((x) => x.url)).size).toBe(s.sources.length);
    // Each query went to both providers.
    const wikipedia = (harness?.recorder.of('search') ?? []).filter((r) => r.key.startsWith('wikipedia '));
    expect(wikipedia.length).toBe(s.searched_queries.length);
  });
});
