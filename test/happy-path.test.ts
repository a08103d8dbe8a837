import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { citedIds } from '../src/report/markdown';
import { SqliteSessionStore } from '../src/stores/sessions';
import { FileArtifactStore } from '../src/stores/artifacts';
import path from 'node:path';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';

describe('a research session over the harness, end to end', () => {
  let harness: Harness;
  let env: TestEnvironment;
  /** URLs the first session fetched successfully: the second must take them from the cache. */
  const firstSessionFetched = new Set<string>();

  beforeAll(async () => {
    harness = await startHarness({ model: { gapIterations: 1 }, search: { includeFailing: true } });
    env = await startEnvironment(harness, inject('temporalAddress'));
  });
  afterAll(async () => {
    await env?.close();
    await harness?.close();
  });

  it('plans without touching the web, waits for approval, then researches, reports and persists', async () => {
    const { researchId } = await env.client.start({
      query: 'How fast is solar power growing?',
      settings: { max_sources: 20, max_search_results_per_query: 4, batch_size: 4, max_iterations: 2 },
    });
    const planned = await waitFor('the plan', async () => {
      const s = await env.client.state(researchId);
      return s.status === 'awaiting_approval' && s;
    });
    expect(planned.plan?.expanded_queries.length).toBeGreaterThanOrEqual(3);
    expect(planned.plan?.outline).toEqual(['Overview', 'Costs and trends', 'Policy']);

    // The plan has been waiting a while: still nothing has reached search or the web.
    await new Promise((r) => setTimeout(r, 1500));
    expect(harness.recorder.of('search')).toHaveLength(0);
    expect(harness.recorder.of('web')).toHaveLength(0);
    // The plan is already persisted for other clients.
    const store = new SqliteSessionStore(path.join(env.config.data_dir, 'sessions.db'));
    expect((await store.get(researchId))?.status).toBe('awaiting_approval');

    const approvedAt = Date.now();
    await env.client.approve(researchId);
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    for (const source of s.sources) if (source.status === 'fetched') firstSessionFetched.add(source.url);

    expect(s.status).toBe('completed');
    expect(harness.recorder.firstAt('search')).toBeGreaterThanOrEqual(approvedAt);
    expect(harness.recorder.firstAt('web')).toBeGreaterThanOrEqual(approvedAt);
    // Two iterations (the first one left a gap), several batches, each patched into the report.
    expect(s.iteration).toBe(2);
    const patches = (await env.client.events(researchId)).filter((e) => e.type === 'ToolCallResult' && e.data.tool === 'update_report');
    expect(patches.length).toBeGreaterThanOrEqual(2);
    expect(String((patches[0].data.result as Record<string, unknown>).new_report_markdown)).toContain('## Overview');
    // The session keeps each version once, in the artifact store: its own events carry only the id,
    // and the client filled the text in above.
    const kept = (await store.events(researchId)).filter((e) => e.type === 'ToolCallResult' && e.data.tool === 'update_report');
    expect(kept.length).toBe(patches.length);
    for (const e of kept) {
      const result = e.data.result as Record<string, unknown>;
      expect(result.new_report_markdown).toBeUndefined();
      expect(String(result.report_file_id)).toMatch(/^[0-9a-f]{64}$/);
    }

    // Deduplicated sources, capped, with failures noted and the batch going on.
    expect(s.sources.length).toBeLessThanOrEqual(20);
    expect(new Set(s.sources.map((x) => x.url.replace(/\?.*$/, ''))).size).toBe(s.sources.length);
    const failed = s.sources.filter((x) => x.status === 'failed');
    expect(failed.map((x) => x.url).sort()).toEqual([
      `${harness.web.url}/fail/404`,
      `${harness.web.url}/fail/500`,
      `${harness.web.url}/fail/unreadable`,
      `${harness.web.url}/redirect?to=http://169.254.169.254/latest/meta-data/`,
    ]);
    expect(failed.find((x) => x.url.endsWith('/fail/404'))?.notes).toMatch(/HTTP 404/);
    expect(failed.find((x) => x.url.endsWith('/fail/500'))?.notes).toMatch(/HTTP 500/);
    // Fetched but unreadable: said so, and its download is the session's (deleted with it).
    const unreadable = failed.find((x) => x.url.endsWith('/fail/unreadable'));
    expect(unreadable?.notes).toMatch(/cannot parse .*binary data served as text\/html/);
    expect(s.artifacts.some((a) => a.file_id === unreadable?.file_id)).toBe(true);
    expect(failed.find((x) => x.url.includes('169.254'))?.notes).toMatch(/refused http:\/\/169\.254\.169\.254: 169\.254\.169\.254 is a linkLocal address/);
    const fetched = s.sources.filter((x) => x.status === 'fetched');
    expect(fetched.length).toBeGreaterThanOrEqual(6);

    // Every citation resolves to a fetched source; the Sources section lists them.
    const cited = citedIds(s.report_markdown);
    expect(cited.length).toBeGreaterThan(0);
    const fetchedIds = new Set(fetched.map((x) => x.id));
    expect(cited.every((id) => fetchedIds.has(id))).toBe(true);
    expect(s.report_markdown).toMatch(/## Sources\n\n- \[S\d+\]/);
    expect(s.report_markdown).toContain('percent');

    // Claim check: bodies are in the artifact store, the state holds ids.
    const artifacts = new FileArtifactStore(path.join(env.config.data_dir, 'artifacts'));
    const pdf = fetched.find((x) => x.url.endsWith('.pdf'));
    expect(pdf, 'a PDF among the sources').toBeDefined();
    expect(await artifacts.getText(pdf!.text_file_id!)).toMatch(/^# Page 1\n[\s\S]*percent/);
    expect(s.artifacts.length).toBe(fetched.length * 2 + failed.filter((x) => x.file_id).length);

    // Usage is counted per role.
    expect(s.usage.tokens_by_role.planner.calls).toBe(1);
    expect(s.usage.tokens_by_role.analyzer.calls).toBeGreaterThanOrEqual(2);
    expect(s.usage.search_calls).toBe(s.searched_queries.length);

    // Temporal itself can list sessions by status (custom search attributes).
    await waitFor('the session listed by ResearchStatus', async () => {
      const byStatus = [];
      for await (const wf of env.temporal.workflow.list({ query: `ResearchStatus = "completed" AND WorkflowId = "research-${researchId}"` })) byStatus.push(wf);
      return byStatus.length === 1;
    }, 10_000);

    // The final snapshot and the whole event log are persisted.
    const persisted = await store.get(researchId);
    expect(persisted?.status).toBe('completed');
    expect(persisted?.report_markdown).toBe(s.report_markdown);
    const events = await store.events(researchId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)?.type).toBe('StopEvent');
    expect((await store.list()).sessions[0].research_id).toBe(researchId);
    await store.close();
  });

  it('a second session on the same question is served from the fetch cache, not the web', async () => {
    const { researchId } = await env.client.start({
      query: 'How fast is solar power growing?',
      settings: { max_sources: 20, max_search_results_per_query: 4, batch_size: 4, max_iterations: 1, auto_approve: true },
    });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.sources.filter((x) => x.status === 'fetched').length).toBeGreaterThan(3);
    // No successfully fetched document was requested from the web twice across both sessions.
    const okPaths = harness.recorder.of('web').filter((r) => r.method === 'GET' && r.status === 200 && r.path !== '/robots.txt').map((r) => r.path);
    expect(new Set(okPaths).size).toBe(okPaths.length);
    // Every URL the first session fetched came from the cache this time.
    const events = await env.client.events(researchId);
    const urlOf = new Map(events.filter((e) => e.type === 'ToolCall' && e.data.tool === 'fetch_url').map((e) => [e.data.call_id, (e.data.args as { url: string }).url]));
    const fetches = events
      .filter((e) => e.type === 'ToolCallResult' && e.data.tool === 'fetch_url' && e.data.ok)
      .map((e) => ({ url: urlOf.get(e.data.call_id) as string, fromCache: (e.data.result as { from_cache: boolean }).from_cache }));
    const seenBefore = fetches.filter((f) => firstSessionFetched.has(f.url));
    expect(seenBefore.length).toBeGreaterThan(3);
    expect(seenBefore.filter((f) => !f.fromCache)).toEqual([]);
  });

  it('starting the same research id twice does not start a second run', async () => {
    await env.client.start({ query: 'Duplicate ids?', researchId: 'dup-1' });
    await expect(env.client.start({ query: 'Duplicate ids?', researchId: 'dup-1' })).rejects.toThrow('research dup-1 already exists');
    await env.client.handle('dup-1').terminate('test done');
  });
});
