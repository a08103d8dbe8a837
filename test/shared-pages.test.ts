// Two accounts research the same question: the second one's pages come from the fetch cache. A
// delete of the first session, racing the second before it saved any snapshot, must leave every
// page and text the second one uses; a delete with no other user removes them.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { startService, type TestService } from './harness/service';

const SMALL = { max_sources: 4, max_iterations: 1, max_search_results_per_query: 2 };
type Source = { id: string; file_id?: string; text_file_id?: string };
const filesOf = (sources: Source[]) => sources.flatMap((s) => [s.file_id, s.text_file_id]).filter(Boolean) as string[];

describe('deleting a session whose pages another session uses', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let api: TestService;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    harness = await startHarness();
    env = await startEnvironment(harness, inject('temporalAddress'));
    api = await startService(env);
    alice = await api.service.store.createToken('alice');
    bob = await api.service.store.createToken('bob');
  });
  afterAll(async () => {
    await api?.close();
    await env?.close();
    await harness?.close();
  });

  const onDisk = (f: string) => existsSync(path.join(env.config.data_dir, 'artifacts', f.slice(0, 2), f));
  const waitStatus = (id: string, token: string, wanted: string[]) =>
    waitFor(`research ${id} in ${wanted.join('/')}`, async () => {
      const res = await api.call('GET', `/api/research/${id}`, { token });
      return wanted.includes(res.body.research?.status) && res.body;
    }, 90_000, 200);
  const start = async (token: string, query: string) =>
    (await api.call('POST', '/api/research', { token, body: { query, settings: SMALL, auto_approve: true } })).body.research_id as string;

  it("keeps the pages of B's running session when A deletes, and removes them when nobody else uses them", async () => {
    const query = 'Shared pages: how do heat pumps work in cold climates';
    const a = await start(alice, query);
    const doneA = await waitStatus(a, alice, ['completed']);
    const pagesA = filesOf(doneA.state.sources);
    expect(pagesA.length).toBeGreaterThan(0);
    const fetchesBefore = harness.recorder.of('web').length;

    // B researches the same question; its analysis is held back so it has no snapshot with its pages yet.
    harness.model.script.delayFor = (name) => (name === 'source_analysis' ? 4_000 : 0);
    const b = await start(bob, query);
    const live = await waitFor('B adopted pages', async () => {
      const body = (await api.call('GET', `/api/research/${b}`, { token: bob })).body;
      const ids = filesOf(body.state?.sources ?? []);
      return body.research.status === 'running' && ids.length > 0 && ids;
    }, 90_000, 50);
    expect(harness.recorder.of('web').length, 'B read its pages from the fetch cache').toBe(fetchesBefore);
    const shared = live.filter((f) => pagesA.includes(f));
    expect(shared.length, 'B uses pages A fetched').toBeGreaterThan(0);
    const storedB = JSON.stringify((await api.service.sessions().get(b)) ?? {});
    expect(shared.some((f) => !storedB.includes(f)), 'B has not saved them in a snapshot yet').toBe(true);

    const deleted = await api.call('DELETE', `/api/research/${a}`, { token: alice });
    expect(deleted.status).toBe(200);
    for (const f of shared) expect(onDisk(f), `${f} is still stored`).toBe(true);
    harness.model.script.delayFor = undefined;

    const doneB = await waitStatus(b, bob, ['completed']);
    const report = await api.call('GET', `/api/research/${b}/report`, { token: bob });
    expect(report.status).toBe(200);
    expect(report.text).toMatch(/^# Shared pages/);
    const sourcesB = doneB.state.sources as Source[];
    for (const f of filesOf(sourcesB)) {
      const artifact = await api.call('GET', `/api/research/${b}/artifacts/${f}`, { token: bob });
      expect(artifact.status, `artifact ${f}`).toBe(200);
    }
    for (const s of sourcesB.filter((x) => x.text_file_id)) {
      const text = await api.call('GET', `/api/research/${b}/sources/${s.id}/text`, { token: bob });
      expect(text.body.chars, `${s.id} text`).toBeGreaterThan(0);
    }

    // Nobody else uses B's pages: its delete removes them.
    const removed = await api.call('DELETE', `/api/research/${b}`, { token: bob });
    expect(removed.body.artifacts_removed).toBeGreaterThan(0);
    for (const f of filesOf(sourcesB)) expect(onDisk(f), `${f} removed`).toBe(false);
  });
});
