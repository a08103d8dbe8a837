// What users notice about a run beyond the happy path: fabricated citations removed, the event log
// bounded yet complete, rate limits honoured, bad keys failing fast and clearly, their own
// documents as the search engine, and the metadata workflow.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { citedIds } from '../src/report/markdown';
import { startEnvironment, startHarness, type Harness, type HarnessOptions, type TestEnvironment } from './harness';

const fast = { auto_approve: true, max_sources: 6, max_iterations: 1, batch_size: 3 };

describe('research behaviour', () => {
  let harness: Harness | undefined;
  let env: TestEnvironment | undefined;

  async function setup(opts: HarnessOptions = {}, extraEnv: Record<string, string> = {}) {
    harness = await startHarness(opts);
    env = await startEnvironment(harness, inject('temporalAddress'), { extraEnv });
    return { harness, env };
  }
  afterEach(async () => {
    await env?.close();
    await harness?.close();
    env = harness = undefined;
  });

  it('removes a citation of a source that was never fetched and warns in the report', async () => {
    const { env } = await setup({ model: { fabricateCitation: true, gapIterations: 0 } });
    const { researchId } = await env.client.start({ query: 'Fabrication check: nuclear', settings: fast });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.citation_warnings).toEqual(['S999']);
    expect(citedIds(s.report_markdown)).not.toContain('S999');
    expect(s.report_markdown).toContain('removed citations of sources that were never fetched: S999');
    const events = await env.client.events(researchId);
    expect(events.some((e) => e.type === 'Status' && e.data.level === 'warning' && String(e.data.message).includes('S999'))).toBe(true);
  });

  it('reads the sources again for an outline section nothing was written into before calling it a gap', async () => {
    const { harness, env } = await setup({ model: { gapIterations: 0, writerSkips: ['Policy'] } });
    const { researchId } = await env.client.start({ query: 'Section check: district heating', settings: fast });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    const policy = /## Policy\n\n([\s\S]*?)\n## /.exec(s.report_markdown)?.[1] ?? '';
    expect(policy).toMatch(/^- Policy: .*\[S\d+\]/m);
    expect(policy).not.toContain('**Gap:**');
    expect(s.mind.agent_decisions.find((d) => d.action === 'sections_filled')?.inputs.sections).toEqual(['Policy']);
    // One more analysis and one more patch, only for the empty section.
    const asked = harness.model.requests.filter((r) => JSON.stringify(r.body).includes('has nothing yet'));
    expect(asked).toHaveLength(1);
  });

  it('keeps the in-state event log bounded while `events` still returns every event in order', async () => {
    const { env } = await setup({ model: { gapIterations: 1 } });
    const { researchId } = await env.client.start({ query: 'Event log check: hydrogen', settings: { ...fast, max_sources: 10, max_iterations: 2, max_events_in_state: 20 } });
    await env.client.waitForResult(researchId);
    const live = await env.client.handle(researchId).query<{ seq: number }[], [{ afterSeq: number }]>('events', { afterSeq: 0 });
    expect(live.length).toBeLessThanOrEqual(40);
    const all = await env.client.events(researchId, 0);
    expect(all.length).toBeGreaterThan(live.length);
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    const tail = await env.client.events(researchId, all.length - 3);
    expect(tail.map((e) => e.seq)).toEqual([all.length - 2, all.length - 1, all.length]);
    // Each activity call is a ToolCall/ToolCallResult pair.
    const calls = all.filter((e) => e.type === 'ToolCall').map((e) => e.data.call_id);
    const results = all.filter((e) => e.type === 'ToolCallResult').map((e) => e.data.call_id);
    expect([...results].sort()).toEqual([...calls].sort());
    expect(new Set(calls).size).toBe(calls.length);
  });

  it('honours a 429 Retry-After from the model before trying again', async () => {
    const { harness, env } = await setup({ model: { failures: [{ status: 429, retryAfter: '3' }], gapIterations: 0 } });
    const { researchId } = await env.client.start({ query: 'Rate limit check: tidal', settings: fast });
    await env.client.waitForResult(researchId);
    const [limited, retried] = harness.recorder.of('model');
    expect(limited.status).toBe(429);
    expect(retried.status).toBe(200);
    expect(retried.start - (limited.end ?? limited.start)).toBeGreaterThanOrEqual(2_900);
    expect((await env.client.state(researchId)).status).toBe('completed');
  });

  it('fails fast with a clear message when the model rejects the API key', async () => {
    const { harness, env } = await setup({ model: { apiKey: 'the-right-key' } });
    const { researchId } = await env.client.start({ query: 'Bad key check', settings: fast });
    await expect(env.client.waitForResult(researchId)).rejects.toThrow();
    const s = await env.client.state(researchId);
    expect(s.status).toBe('failed');
    expect(s.reason).toMatch(/credentials rejected: check OPENAI_API_KEY/);
    expect(s.reason).not.toContain('harness-key');
    expect(harness.recorder.of('model')).toHaveLength(1);
  });

  it('researches a folder of the user\'s own documents with search_provider "local"', async () => {
    const docs = mkdtempSync(path.join(os.tmpdir(), 'dr-docs-'));
    writeFileSync(path.join(docs, 'storage.md'), '# Storage memo\nBattery storage capacity grew by 40 percent last year according to our memo.');
    writeFileSync(path.join(docs, 'unrelated.txt'), 'Lunch menu for Friday: soup.');
    const { harness, env } = await setup({ model: { gapIterations: 0 } }, { LOCAL_DOCS_DIR: docs });
    const { researchId } = await env.client.start({ query: 'battery storage capacity', settings: { ...fast, search_provider: 'local' } });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    expect(s.sources[0]).toMatchObject({ url: `file://${path.join(docs, 'storage.md')}`, status: 'fetched', title: 'Storage memo' });
    expect(s.report_markdown).toContain('40 percent');
    expect(harness.recorder.of('search')).toHaveLength(0);
  });

  it('researchMetadata returns the collection and the settings JSON Schema', async () => {
    const { env } = await setup();
    const meta = await env.client.metadata();
    expect(meta.research_collection).toBe('research-sessions');
    const props = meta.research_settings_schema.properties as Record<string, { default?: unknown }>;
    expect(props.max_report_update_size.default).toBe(800);
    expect(props.timeout_seconds.default).toBe(600);
  });
});
