// The HTTP service as a client sees it: real HTTP on loopback, a real worker on the harness.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseDocument } from '../src/parsing';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { readSse, startService, type TestService } from './harness/service';

const SMALL = { max_sources: 4, max_iterations: 1, max_search_results_per_query: 2 };

describe('the HTTP service', () => {
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

  const waitStatus = (id: string, token: string, wanted: string[]) =>
    waitFor(`research ${id} in ${wanted.join('/')}`, async () => {
      const res = await api.call('GET', `/api/research/${id}`, { token });
      return wanted.includes(res.body.research?.status) && res.body;
    }, 90_000, 300);

  it('draft → edit → approve → events to the end → report as Markdown, HTML, JSON and PDF', async () => {
    const created = await api.call('POST', '/api/research', { token: alice, body: { query: 'API draft: wind power', draft: true, settings: { max_sources: 9 } } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'draft', query: 'API draft: wind power', settings: { max_sources: 9 } });
    const id = created.body.research_id as string;
    // A draft runs nothing.
    await new Promise((r) => setTimeout(r, 500));
    expect(harness.recorder.of('search')).toHaveLength(0);

    const edited = await api.call('PATCH', `/api/research/${id}`, { token: alice, body: { query: 'API draft: solar power', settings: SMALL } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ status: 'draft', query: 'API draft: solar power', settings: { ...SMALL } });
    const badEdit = await api.call('PATCH', `/api/research/${id}`, { token: alice, body: { settings: { max_sorces: 3 } } });
    expect(badEdit.status).toBe(400);
    expect(badEdit.body).toMatchObject({ field: 'body.settings.max_sorces', message: 'body.settings.max_sorces: unknown key' });

    const approved = await api.call('POST', `/api/research/${id}/approve`, { token: alice });
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('planning');
    const editRunning = await api.call('PATCH', `/api/research/${id}`, { token: alice, body: { query: 'too late' } });
    expect(editRunning.status).toBe(409);
    expect(editRunning.body.error).toBe('WRONG_STATE');

    const events = await readSse(`${api.url}/api/research/${id}/events`, { token: alice });
    const end = events.at(-1);
    expect(end?.event).toBe('end');
    expect(JSON.parse(end?.data ?? '{}').status).toBe('completed');
    const seqs = events.filter((e) => e.id).map((e) => Number(e.id));
    expect(seqs[0]).toBe(1);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(events.some((e) => e.event === 'StopEvent')).toBe(true);

    const md = await api.call('GET', `/api/research/${id}/report`, { token: alice });
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(md.text).toMatch(/^# API draft: solar power/);
    const html = await api.call('GET', `/api/research/${id}/report?format=html`, { token: alice });
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html.text).toContain('<h1>API draft: solar power</h1>');
    expect(html.headers.get('content-security-policy')).toContain("script-src 'self'");
    const json = await api.call('GET', `/api/research/${id}/report?format=json`, { token: alice });
    expect(json.body.status).toBe('completed');
    expect(json.body.report_markdown).toBe(md.text);
    expect(json.body.sources.length).toBeGreaterThan(0);
    expect(json.body.sources[0]).toHaveProperty('tier');
    const pdf = await fetch(`${api.url}/api/research/${id}/report?format=pdf`, { headers: { authorization: `Bearer ${alice}` } });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe(`attachment; filename="research-${id}.pdf"`);
    const pdfText = (await parseDocument(Buffer.from(await pdf.arrayBuffer()), 'application/pdf', 'report.pdf')).text.replace(/\s+/g, ' ');
    expect(pdfText).toContain('API draft: solar power');
    const firstCited = /^[^#\n][^\n]*\[S\d+\]/m.exec(md.text)?.[0].replace(/\[S\d+(, S\d+)*\]/g, '').replace(/^\s*(?:[-*+]|\d+\.)\s+/, '').replace(/[*_`]/g, '').trim().slice(0, 40) as string;
    expect(pdfText).toContain(firstCited.replace(/\s+/g, ' '));
    expect((await api.call('GET', `/api/research/${id}/report?format=docx`, { token: alice })).body.field).toBe('querystring.format');

    const got = await api.call('GET', `/api/research/${id}`, { token: alice });
    expect(got.body.state.findings.length).toBeGreaterThan(0);
    expect(got.body.state.usage).toBeDefined();
    const artifact = got.body.state.sources.find((s: { file_id?: string }) => s.file_id).file_id as string;
    const file = await api.call('GET', `/api/research/${id}/artifacts/${artifact}`, { token: alice });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/html|pdf|text/);
    expect(file.headers.get('content-security-policy')).toContain('sandbox');
    expect((await api.call('GET', `/api/research/${id}/artifacts/${'0'.repeat(64)}`, { token: alice })).status).toBe(404);

    // Wrong state: 409 with the status it is in.
    const again = await api.call('POST', `/api/research/${id}/approve`, { token: alice });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'WRONG_STATE', status: 'completed' });
  });

  it('an SSE reconnect with Last-Event-ID continues with no gap and no duplicate', async () => {
    const created = await api.call('POST', '/api/research', { token: alice, body: { query: 'API stream: geothermal', settings: SMALL, auto_approve: true } });
    const id = created.body.research_id as string;
    const first = await readSse(`${api.url}/api/research/${id}/events`, { token: alice, stop: (_e, all) => all.filter((x) => x.id).length >= 3 });
    const lastId = first.filter((e) => e.id).at(-1)?.id as string;
    expect(lastId).toBe('3');
    const rest = await readSse(`${api.url}/api/research/${id}/events`, { token: alice, lastEventId: lastId });
    const seqs = [...first, ...rest].filter((e) => e.id).map((e) => Number(e.id));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(rest.at(-1)?.event).toBe('end');
    const bad = await api.call('GET', `/api/research/${id}/events`, { token: alice, headers: { 'last-event-id': 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('headers.last-event-id');
  });

  it('two users cannot see or touch each other’s sessions; no token, no access', async () => {
    const created = await api.call('POST', '/api/research', { token: alice, body: { query: 'API private: batteries', draft: true } });
    const id = created.body.research_id as string;
    for (const [method, route, body] of [
      ['GET', `/api/research/${id}`, undefined],
      ['PATCH', `/api/research/${id}`, { query: 'mine now' }],
      ['POST', `/api/research/${id}/approve`, undefined],
      ['GET', `/api/research/${id}/events`, undefined],
      ['POST', `/api/research/${id}/share`, undefined],
      ['PUT', `/api/research/${id}/favourite`, { favourite: true }],
      ['DELETE', `/api/research/${id}`, undefined],
    ] as const) {
      const res = await api.call(method, route, { token: bob, body });
      expect(res.status, `${method} ${route}`).toBe(404);
      expect(res.body.message).toBe(`unknown research id ${id}`);
    }
    const bobs = await api.call('GET', '/api/research', { token: bob });
    expect(bobs.body.sessions.map((s: { research_id: string }) => s.research_id)).not.toContain(id);
    const alices = await api.call('GET', '/api/research?q=private', { token: alice });
    expect(alices.body.sessions.map((s: { research_id: string }) => s.research_id)).toEqual([id]);
    expect((await api.call('GET', '/api/research')).status).toBe(401);
    expect((await api.call('GET', '/api/research', { token: 'drt_forged' })).status).toBe(401);
    expect((await api.call('GET', `/api/research/${id}`, { token: alice })).body.research.query).toBe('API private: batteries');
  });

  it('lists with a cursor, by status, favourites and text', async () => {
    const ids: string[] = [];
    for (const q of ['List one: tides', 'List two: waves', 'List three: currents']) {
      ids.push((await api.call('POST', '/api/research', { token: bob, body: { query: q, draft: true } })).body.research_id);
    }
    await api.call('PUT', `/api/research/${ids[1]}/favourite`, { token: bob, body: { favourite: true } });
    const page1 = await api.call('GET', '/api/research?limit=2', { token: bob });
    expect(page1.body.sessions).toHaveLength(2);
    const page2 = await api.call('GET', `/api/research?limit=2&cursor=${page1.body.next_cursor}`, { token: bob });
    const all = [...page1.body.sessions, ...page2.body.sessions].map((s: { research_id: string }) => s.research_id);
    expect(new Set(all)).toEqual(new Set(ids));
    const favs = await api.call('GET', '/api/research?favourite=true', { token: bob });
    expect(favs.body.sessions.map((s: { research_id: string }) => s.research_id)).toEqual([ids[1]]);
    expect((await api.call('GET', '/api/research?status=draft&q=waves', { token: bob })).body.sessions).toHaveLength(1);
    const badCursor = await api.call('GET', '/api/research?cursor=bm9wZQ', { token: bob });
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.field).toBe('querystring.cursor');
    const badStatus = await api.call('GET', '/api/research?status=sleeping', { token: bob });
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.field).toBe('querystring.status');
  });

  it('a share link is read-only and revocable', async () => {
    const created = await api.call('POST', '/api/research', { token: alice, body: { query: 'API shared: hydro', settings: SMALL, auto_approve: true } });
    const id = created.body.research_id as string;
    await waitStatus(id, alice, ['completed']);
    const shared = await api.call('POST', `/api/research/${id}/share`, { token: alice });
    const token = shared.body.share_token as string;
    expect(token.length).toBeGreaterThanOrEqual(32);
    const page = await api.call('GET', `/share/${token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>API shared: hydro</h1>');
    const json = await api.call('GET', `/api/shared/${token}`);
    expect(json.body).toMatchObject({ research_id: id, status: 'completed' });
    // Read-only: nothing under the share link changes anything.
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const refused = await api.call(method, `/api/shared/${token}`, { body: {} });
      expect({ method, status: refused.status, allow: refused.headers.get('allow') }).toEqual({ method, status: 405, allow: 'GET, HEAD' });
    }
    const revoked = await api.call('DELETE', `/api/research/${id}/share`, { token: alice });
    expect(revoked.body.shared).toBe(false);
    expect((await api.call('GET', `/share/${token}`)).status).toBe(404);
    expect((await api.call('GET', `/api/shared/${token}`)).status).toBe(404);
  });

  it('delete ends a running workflow and leaves no orphan artifacts, events or session', async () => {
    const created = await api.call('POST', '/api/research', { token: alice, body: { query: 'API delete: biomass', settings: SMALL, auto_approve: true } });
    const id = created.body.research_id as string;
    const done = await waitStatus(id, alice, ['completed']);
    const files = (done.state.sources as { file_id?: string; text_file_id?: string }[]).flatMap((s) => [s.file_id, s.text_file_id]).filter(Boolean) as string[];
    expect(files.length).toBeGreaterThan(0);
    const others = await api.service.sessions().artifactIdsExcept(id);
    expect(await api.service.sessions().streamCount(id)).toBeGreaterThan(0);
    const deleted = await api.call('DELETE', `/api/research/${id}`, { token: alice });
    expect(deleted.status).toBe(200);
    const root = path.join(env.config.data_dir, 'artifacts');
    const onDisk = (f: string) => existsSync(path.join(root, f.slice(0, 2), f));
    for (const f of files) expect(onDisk(f), f).toBe(others.has(f));
    expect(await api.service.sessions().get(id)).toBeUndefined();
    expect(await api.service.sessions().events(id)).toEqual([]);
    expect(await api.service.sessions().streamCount(id)).toBe(0);
    expect((await api.call('GET', `/api/research/${id}`, { token: alice })).status).toBe(404);

    // Deleted mid-research: pages fetched since the last snapshot are found in the final live state.
    harness.model.script.delayFor = (name) => (name === 'source_analysis' ? 3_000 : 0);
    const midway = (await api.call('POST', '/api/research', { token: alice, body: { query: 'API delete: mid-research peat', settings: SMALL, auto_approve: true } })).body.research_id as string;
    const live = await waitFor('pages fetched while running', async () => {
      const body = (await api.call('GET', `/api/research/${midway}`, { token: alice })).body;
      const ids = (body.state?.sources ?? []).flatMap((s: { file_id?: string; text_file_id?: string }) => [s.file_id, s.text_file_id]).filter(Boolean) as string[];
      return body.research.status === 'running' && ids.length > 0 && ids;
    }, 90_000, 50);
    harness.model.script.delayFor = undefined;
    const storedIds = JSON.stringify((await api.service.sessions().get(midway)) ?? {});
    expect(live.some((f) => !storedIds.includes(f)), 'some pages are not in the stored snapshot yet').toBe(true);
    const othersNow = await api.service.sessions().artifactIdsExcept(midway);
    expect((await api.call('DELETE', `/api/research/${midway}`, { token: alice })).status).toBe(200);
    for (const f of live) expect(onDisk(f), f).toBe(othersNow.has(f));
    expect((await env.client.handle(midway).describe()).status.name).toBe('TERMINATED');

    const running = await api.call('POST', '/api/research', { token: alice, body: { query: 'API delete: waiting', settings: SMALL } });
    const rid = running.body.research_id as string;
    await waitStatus(rid, alice, ['awaiting_approval']);
    expect((await api.call('DELETE', `/api/research/${rid}`, { token: alice })).status).toBe(200);
    const described = await env.client.handle(rid).describe();
    expect(described.status.name).toBe('TERMINATED');
  });

  it('names settings fields one way, refuses unknown search providers, and takes JSON with __proto__ keys without harm', async () => {
    const tooMany = await api.call('POST', '/api/research', { token: alice, body: { query: 'fields', settings: { max_concurrency: 99 } } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ error: 'INVALID_REQUEST', field: 'body.settings.max_concurrency' });
    const local = await api.call('POST', '/api/research', { token: alice, body: { query: 'fields', settings: { search_provider: 'local' } } });
    expect(local.body.field).toBe('body.settings.search_provider');

    const sessionsBefore = (await api.service.store.list({})).sessions.length;
    const unknown = await api.call('POST', '/api/research', { token: alice, body: { query: 'providers', settings: { search_providers: ['duckduckgo', 'altavista'] } } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.field).toBe('body.settings.search_providers.1');
    expect(unknown.body.message).toContain('unknown search provider "altavista"');
    const single = await api.call('POST', '/api/research', { token: alice, body: { query: 'providers', settings: { search_provider: 'altavista' } } });
    expect(single.body.field).toBe('body.settings.search_provider');
    // The panel fields are checked as the settings they become, at the edge: the field is named.
    const synthesis = await api.call('POST', '/api/research', { token: alice, body: { query: 'panel', panel: ['openai:gpt-4o'], synthesis_model: 'gpt-4o' } });
    expect(synthesis.status).toBe(400);
    expect(synthesis.body.field).toBe('body.synthesis_model');
    expect(synthesis.body.message).toContain('provider:model');
    expect((await api.service.store.list({})).sessions.length).toBe(sessionsBefore);

    // JSON.parse makes "__proto__" an own key; the server drops it (and constructor.prototype) and goes on.
    const poisoned = '{"query":"prototype keys: wave power","settings":{"max_sources":3,"__proto__":{"polluted":true}},"__proto__":{"isAdmin":true},"constructor":{"prototype":{"polluted":true}}}';
    const accepted = await api.call('POST', '/api/research', { token: alice, body: poisoned });
    expect(accepted.status, accepted.text).toBe(201);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect((await api.service.store.get(accepted.body.research_id))?.owner).toBe('alice');
    await api.call('DELETE', `/api/research/${accepted.body.research_id}`, { token: alice });
  });

  it('approve answers the status the session moves to', async () => {
    const created = await api.call('POST', '/api/research', { token: alice, body: { query: 'API approve: wave power', settings: { ...SMALL, ask_clarifications: false, review_final_report: false } } });
    const id = created.body.research_id as string;
    await waitStatus(id, alice, ['awaiting_approval']);
    const approved = await api.call('POST', `/api/research/${id}/approve`, { token: alice });
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('running');
    const after = await api.call('GET', `/api/research/${id}`, { token: alice });
    expect([approved.body.status, 'completed', 'verifying']).toContain(after.body.research.status);
    await waitStatus(id, alice, ['completed']);
  });

  it("a schedule id another user holds is answered like any taken id, revealing nothing of theirs", async () => {
    const id = `theirs-${Date.now().toString(36)}`;
    const bobs = await api.call('POST', '/api/schedules', { token: bob, body: { query: 'Bob’s weekly question', every: '7d', schedule_id: id } });
    expect(bobs.status, bobs.text).toBe(201);
    const mine = `mine-${Date.now().toString(36)}`;
    expect((await api.call('POST', '/api/schedules', { token: alice, body: { query: 'q', every: '7d', schedule_id: mine } })).status).toBe(201);
    try {
      const taken = await api.call('POST', '/api/schedules', { token: alice, body: { query: 'q', every: '7d', schedule_id: id } });
      const ownTaken = await api.call('POST', '/api/schedules', { token: alice, body: { query: 'q', every: '7d', schedule_id: mine } });
      expect(taken.status).toBe(409);
      expect(ownTaken.status).toBe(409);
      // The same words as for her own id, with the id swapped: nothing says whose it is or what it asks.
      expect(taken.body.message.replace(id, 'ID')).toBe(ownTaken.body.message.replace(mine, 'ID'));
      expect(taken.body).toMatchObject({ error: 'CONFLICT', field: 'body.schedule_id' });
      expect(taken.text).not.toMatch(/exists|Bob|weekly|bob/);
      expect((await api.call('GET', `/api/schedules/${id}`, { token: alice })).status).toBe(404);
    } finally {
      await api.call('DELETE', `/api/schedules/${id}`, { token: bob });
      await api.call('DELETE', `/api/schedules/${mine}`, { token: alice });
    }
  });

  it('refuses bad input with 4xx naming the field, unknown ids with 404', async () => {
    const empty = await api.call('POST', '/api/research', { token: alice, body: { query: '' } });
    expect(empty.status).toBe(400);
    expect(empty.body.field).toBe('body.query');
    const extra = await api.call('POST', '/api/research', { token: alice, body: { query: 'x', sneaky: 1 } });
    expect(extra.status).toBe(400);
    const notJson = await api.call('POST', '/api/research', { token: alice, body: '{"query":', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).toBe(400);
    const huge = await api.call('POST', '/api/research', { token: alice, body: { query: 'x'.repeat(400_000) } });
    expect(huge.status).toBe(413);
    expect((await api.call('POST', '/api/research/nope-1/approve', { token: alice })).status).toBe(404);
    const topUp = await api.call('POST', '/api/research/nope-1/top-up', { token: alice, body: { tokens: -1 } });
    expect(topUp.status).toBe(400);
    expect(topUp.body.field).toBe('body.tokens');
    const spec = await api.call('GET', '/api/openapi.json');
    expect(spec.body.openapi).toMatch(/^3\./);
    expect(Object.keys(spec.body.paths)).toEqual(expect.arrayContaining(['/api/research', '/api/research/{id}/approve', '/api/research/{id}/events', '/share/{token}']));
  });
});
