// GET /api/research/:id of a session an event stream watches asks the engine once per change of its
// history, not once per request (status pages polling during a reconnect storm), and never shows a
// state older than the history: approved by another client (another replica), the next reads show it.
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { startService, type TestService } from './harness/service';
import { RUN_KIND_MEMO } from '../src/contract/names';

describe('the engine state kept while a stream watches the session', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let api: TestService;
  let token: string;

  beforeAll(async () => {
    harness = await startHarness({ model: { delayMs: 0 } });
    env = await startEnvironment(harness, inject('temporalAddress'));
    api = await startService(env);
    token = await api.service.store.createToken('poller');
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await env?.close();
    await harness?.close();
  });

  const create = async (query: string) => {
    const created = await api.call('POST', '/api/research', { token, body: { query, settings: { ask_clarifications: false, review_final_report: false, max_sources: 4, max_iterations: 1 } } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.research_id as string;
    await waitFor('the plan', async () => (await api.call('GET', `/api/research/${id}`, { token })).body.research?.status === 'awaiting_approval', 90_000, 250);
    // The status says awaiting_approval while the working run still saves the session and continues
    // as new into its waiting run; the watch has a gap as the run changes, so the count starts in the waiting run.
    await waitFor('the waiting run', async () => (await env.client.handle(id).describe()).memo?.[RUN_KIND_MEMO] === 'waiting', 30_000, 100);
    return id;
  };
  const status = async (id: string) => (await api.call('GET', `/api/research/${id}`, { token })).body.state.status as string;

  it('asks the engine once for ten reads of a watched session, and shows a change made elsewhere at once', async () => {
    const id = await create('Kept state: how fast is solar power growing?');
    const stream = new AbortController();
    const res = await fetch(`${api.url}/api/research/${id}/events`, { headers: { authorization: `Bearer ${token}` }, signal: stream.signal });
    expect(res.status).toBe(200);
    try {
      await waitFor('the watch in place', async () => (api.service.liveStates.size === 1 ? true : undefined), 30_000, 100);
      const engine = vi.spyOn(api.service.client, 'state');
      // The watcher's own first fetch, and the session's last steps into its wait (its save), may
      // still be growing the history on a busy machine: wait until a read is answered from what is kept.
      await waitFor(
        'a read answered without the engine',
        async () => {
          const before = engine.mock.calls.length;
          expect(await status(id)).toBe('awaiting_approval');
          return engine.mock.calls.length === before ? true : undefined;
        },
        30_000,
        200,
      );
      const settled = engine.mock.calls.length;
      for (let i = 0; i < 10; i++) expect(await status(id)).toBe('awaiting_approval');
      const beforeApproval = engine.mock.calls.length;
      expect(beforeApproval - settled).toBeLessThanOrEqual(1);

      // Approved by another client (as another replica would): the history grows, and what was kept goes.
      await env.client.approve(id);
      await waitFor('the approval seen', async () => ((await status(id)) !== 'awaiting_approval' ? true : undefined), 5_000, 20);
      // The change was read from the engine (however many reads the watcher's first fetch took before).
      expect(engine.mock.calls.length).toBeGreaterThan(beforeApproval);
      await env.client.waitForResult(id);
      await waitFor('the end seen', async () => ((await status(id)) === 'completed' ? true : undefined), 10_000, 100);
      engine.mockRestore();
    } finally {
      stream.abort();
    }
  }, 120_000);

  it('asks the engine on every read of a session no stream watches', async () => {
    const id = await create('Unwatched: how fast is wind power growing?');
    const engine = vi.spyOn(api.service.client, 'state');
    for (let i = 0; i < 5; i++) expect(await status(id)).toBe('awaiting_approval');
    // This session's reads only: the watcher of the session before may still read its own once more.
    expect(engine.mock.calls.filter(([asked]) => asked === id).length).toBe(5);
    engine.mockRestore();
    await env.client.cancel(id).catch(() => undefined);
  }, 120_000);
});
