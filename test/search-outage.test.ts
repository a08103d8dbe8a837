// Seed 001: when every search provider is down the session degrades instead of failing — it goes
// on with what it gathered, the report says plainly that search was unavailable and what was not
// searched — and fails, clearly, only when there is nothing at all to write from.
import { afterEach, describe, expect, inject, it } from 'vitest';
import { startEnvironment, startHarness, type Harness, type HarnessOptions, type TestEnvironment } from './harness';

describe('a search outage', () => {
  let harness: Harness | undefined;
  let env: TestEnvironment | undefined;

  async function setup(opts: HarnessOptions) {
    harness = await startHarness(opts);
    env = await startEnvironment(harness, inject('temporalAddress'));
    return env;
  }
  afterEach(async () => {
    await env?.close();
    await harness?.close();
    env = harness = undefined;
  });

  it('after the first round: completes from the sources it has, and the report says search was unavailable', async () => {
    const env = await setup({ model: { gapIterations: 1 }, search: { failAfter: 3 } });
    const { researchId } = await env.client.start({
      query: 'Search outage check: offshore wind',
      settings: { auto_approve: true, max_sources: 12, max_iterations: 2, batch_size: 3, max_search_results_per_query: 3 },
    });
    const result = (await env.client.waitForResult(researchId)) as { status: string };
    expect(result.status).toBe('completed');
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    expect(s.search_outage?.message).toMatch(/no search provider left/);
    expect(s.search_outage?.queries_not_searched.length).toBeGreaterThan(0);
    expect(s.sources.filter((x) => x.status === 'fetched').length).toBeGreaterThan(0);
    expect(s.findings.length).toBeGreaterThan(0);
    expect(s.report_markdown).toMatch(/\*\*Search was unavailable\*\*/);
    expect(s.report_markdown).toContain(`“${s.search_outage?.queries_not_searched[0]}”`);
    const events = await env.client.events(researchId);
    expect(events.some((e) => e.type === 'Status' && e.data.kind === 'search_outage')).toBe(true);
  });

  it('from the start: fails with a clear reason, since there is nothing to write from', async () => {
    const env = await setup({ model: { gapIterations: 0 }, search: { failAfter: 0 } });
    const { researchId } = await env.client.start({ query: 'Search outage check: tidal lagoons', settings: { auto_approve: true, max_sources: 6, max_iterations: 1 } });
    await expect(env.client.waitForResult(researchId)).rejects.toThrow();
    const s = await env.client.state(researchId);
    expect(s.status).toBe('failed');
    expect(s.reason).toMatch(/search was unavailable from the start and nothing was gathered/);
  });
});
