// A deleted session stays deleted, and what a live session names stays stored: a schedule's run
// deleted after its trigger is never adopted again (every read of it answered 500 "artifact …
// not found" before), an enhanced version keeps its parent's pages when the parent is deleted,
// and a read of an artifact the store lost answers 410 naming it, never 500.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openFetchCache } from '../src/stores/open';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { startService, type TestService } from './harness/service';

const SMALL = { max_sources: 4, max_search_results_per_query: 2, batch_size: 2, max_iterations: 1 };

describe('deleted sessions and the artifacts they named', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let api: TestService;

  beforeAll(async () => {
    harness = await startHarness();
    env = await startEnvironment(harness, inject('temporalAddress'));
    api = await startService(env);
  });
  afterAll(async () => {
    await api?.close();
    await env?.close();
    await harness?.close();
  });

  const completed = (id: string) =>
    waitFor(`${id} completed`, async () => (await api.call('GET', `/api/research/${id}`)).body.research?.status === 'completed', 120_000, 300);

  it("a schedule's run deleted after its trigger stays deleted: every read answers 404, the schedule no longer lists it", async () => {
    const scheduleId = `del-${randomUUID().slice(0, 6)}`;
    expect((await api.call('POST', '/api/schedules', { body: { query: 'How fast is solar power growing?', every: '1d', schedule_id: scheduleId, settings: SMALL } })).status).toBe(201);
    const triggered = await api.call('POST', `/api/schedules/${scheduleId}/trigger`);
    expect(triggered.status).toBe(200);
    const view = await waitFor('the run', async () => {
      const v = await api.call('GET', `/api/schedules/${scheduleId}`);
      return v.body.runs?.length > 0 && v.body;
    }, 60_000);
    const runId = view.runs[0].research_id as string;
    await completed(runId);
    const before = await api.call('GET', `/api/research/${runId}`);
    const sourceId = (before.body.state.sources as { id: string; text_file_id?: string }[]).find((s) => s.text_file_id)?.id;
    expect(sourceId).toBeDefined();

    const deleted = await api.call('DELETE', `/api/research/${runId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.artifacts_removed).toBeGreaterThan(0);

    // Reading the schedule used to adopt its runs again, the deleted one included: then every read
    // of it answered 500 "artifact … not found".
    expect((await api.call('GET', `/api/schedules/${scheduleId}`)).status).toBe(200);
    expect((await api.call('POST', `/api/schedules/${scheduleId}/pause`)).status).toBe(200);
    for (const [method, path, body] of [
      ['GET', `/api/research/${runId}`],
      ['GET', `/api/research/${runId}/report`],
      ['GET', `/api/research/${runId}/sources/${sourceId}/text`],
      ['POST', `/api/research/${runId}/enhance`, {}],
    ] as const) {
      const read = await api.call(method, path, body ? { body } : {});
      expect({ path, status: read.status }).toEqual({ path, status: 404 });
      expect(read.body.message).toContain(runId);
    }
    for (const path of [`/api/schedules/${scheduleId}`, '/api/schedules', '/api/research?limit=100']) {
      const read = await api.call('GET', path);
      expect(read.status).toBe(200);
      expect(JSON.stringify(read.body)).not.toContain(runId);
    }
    expect((await api.call('DELETE', `/api/schedules/${scheduleId}`)).status).toBe(204);
  });

  it('an enhanced version keeps the pages and report it started from when its parent is deleted at once', async () => {
    const parent = (await api.call('POST', '/api/research', { body: { query: 'How do heat pumps work in cold climates?', settings: SMALL, auto_approve: true } })).body.research_id as string;
    await completed(parent);
    const parentState = (await api.call('GET', `/api/research/${parent}`)).body.state;
    const enhanced = await api.call('POST', `/api/research/${parent}/enhance`, { body: { focus: 'running costs' } });
    expect(enhanced.status).toBe(201);
    const child = enhanced.body.research_id as string;
    // The new version uses its parent's pages from its start, before it saved or fetched anything.
    const refs = openFetchCache(env.config);
    try {
      for (const s of parentState.sources as { text_file_id?: string }[]) if (s.text_file_id) expect(await refs.users(s.text_file_id)).toContain(child);
    } finally {
      await refs.close();
    }
    expect((await api.call('DELETE', `/api/research/${parent}`)).status).toBe(200);
    await completed(child);
    const childState = (await api.call('GET', `/api/research/${child}`));
    expect(childState.status).toBe(200);
    expect(childState.body.state.report_markdown.length).toBeGreaterThan(100);
    const inherited = (childState.body.state.sources as { id: string; url: string; text_file_id?: string }[]).filter((s) =>
      (parentState.sources as { url: string; text_file_id?: string }[]).some((p) => p.url === s.url && p.text_file_id && p.text_file_id === s.text_file_id),
    );
    expect(inherited.length).toBeGreaterThan(0);
    for (const source of inherited) {
      const text = await api.call('GET', `/api/research/${child}/sources/${source.id}/text`);
      expect(text.status).toBe(200);
      expect(text.body.chars).toBeGreaterThan(0);
    }
    expect((await api.call('GET', `/api/research/${child}/report`)).status).toBe(200);
  });

  it('a finished report whose artifact the store lost still reads from the session store; a lost page text is never a 500', async () => {
    const id = (await api.call('POST', '/api/research', { body: { query: 'What limits tidal energy?', settings: SMALL, auto_approve: true } })).body.research_id as string;
    await completed(id);
    const before = (await api.call('GET', `/api/research/${id}`)).body.state as { report_file_id?: string; report_markdown: string; sources: { id: string; text_file_id?: string }[] };
    expect(before.report_file_id).toMatch(/^[a-f0-9]{64}$/);
    expect(before.report_markdown.length).toBeGreaterThan(100);
    await api.service.artifacts().delete(before.report_file_id as string);
    // An ended session is read from the session store, which keeps its report's text.
    const session = await api.call('GET', `/api/research/${id}`);
    expect(session.status).toBe(200);
    expect(session.body.state.report_markdown).toBe(before.report_markdown);
    const report = await api.call('GET', `/api/research/${id}/report?format=md`);
    expect(report.status).toBe(200);
    expect(report.text).toContain(before.report_markdown.trim().split('\n')[0]);
    // A page's text the store lost: said, never a 500.
    const read = before.sources.find((x) => x.text_file_id);
    expect(read).toBeDefined();
    await api.service.artifacts().delete(read?.text_file_id as string);
    const text = await api.call('GET', `/api/research/${id}/sources/${read?.id}/text`);
    expect([200, 404, 410]).toContain(text.status);
    const artifact = await api.call('GET', `/api/research/${id}/artifacts/${read?.text_file_id}`);
    expect([404, 410]).toContain(artifact.status);
    expect(artifact.body.message).toContain(read?.text_file_id as string);
  });

  it('a session deleted while no worker runs is deleted at once: the delete never waits for a worker to answer a query', async () => {
    // A closed workflow's query is answered by a worker replaying it: with none (or one busy with a
    // flood) the delete hung until the caller gave up (the contract fuzzer's 30 s read timeout).
    const id = (await api.call('POST', '/api/research', { body: { query: 'Why are offshore wind farms built so far out?', settings: SMALL, auto_approve: true } })).body.research_id as string;
    await completed(id);
    await env.stopWorker();
    try {
      const deleted = await Promise.race([
        api.call('DELETE', `/api/research/${id}`),
        new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), 25_000).unref()),
      ]);
      expect(deleted === 'no answer' ? deleted : deleted.status).toBe(200);
      if (deleted !== 'no answer') expect(deleted.body.artifacts_removed).toBeGreaterThan(0);
      expect((await api.call('GET', `/api/research/${id}`)).status).toBe(404);
    } finally {
      await env.startWorker();
    }
  }, 180_000);
});
