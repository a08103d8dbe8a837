// The service's rules and every steering endpoint over real HTTP, each with its effect on the
// session checked: no operator files for HTTP sessions, attended defaults, draft plan edits, typed
// refusals, reject/answer/revise/guide/continue/top-up/review/cancel, metadata and the docs page.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ResearchClient } from '../src/client/research-client';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { textOf } from './harness/model-script';
import { startService, type TestService } from './harness/service';

const SMALL = { max_sources: 4, max_iterations: 1, max_search_results_per_query: 2 };

describe('service rules and steering over HTTP', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let api: TestService;
  let token: string;
  const docs = mkdtempSync(path.join(os.tmpdir(), 'dr-service-docs-'));

  beforeAll(async () => {
    writeFileSync(path.join(docs, 'kestrel.md'), '# Project Kestrel sodium-ion trial\n\nOur sodium-ion battery storage trial at the Kestrel site cut cell costs by a fifth.');
    harness = await startHarness({ model: { gapIterations: 0 } });
    env = await startEnvironment(harness, inject('temporalAddress'), { extraEnv: { LOCAL_DOCS_DIR: docs } });
    api = await startService(env);
    token = await api.service.store.createToken('steer');
  });
  afterAll(async () => {
    await api?.close();
    await env?.close();
    await harness?.close();
  });

  const post = (route: string, body?: unknown, on = api) => on.call('POST', route, { token, body });
  const get = async (id: string, on = api) => (await on.call('GET', `/api/research/${id}`, { token })).body;
  const waitStatus = (id: string, wanted: string[], on = api) =>
    waitFor(`research ${id} in ${wanted.join('/')}`, async () => {
      const body = await get(id, on);
      return wanted.includes(body.research?.status) && body;
    }, 90_000, 200);
  const create = async (query: string, extra: Record<string, unknown> = {}, on = api) => {
    const res = await post('/api/research', { query, ...extra, settings: { ...SMALL, ...((extra.settings as object) ?? {}) } }, on);
    expect(res.status, res.text).toBe(201);
    return res.body as { research_id: string; notes?: string[] };
  };
  const plannerPrompts = (from: number) =>
    harness.model.requests.slice(from).map((r) => (r.body.messages as { content: unknown }[]).map((m) => textOf(m.content)).join('\n'));

  it('an HTTP session never reads the operator’s files unless the operator allows it; reject ends it', async () => {
    // Refused by the schema, which the document states (the element named where a list holds it).
    for (const [settings, field, words] of [
      [{ search_providers: ['duckduckgo', 'local'] }, 'search_providers.1', 'reads files on the server'],
      [{ search_provider: 'local' }, 'search_provider', 'reads files on the server'],
      [{ local_documents: true }, 'local_documents', 'does not read local documents'],
    ] as const) {
      const res = await post('/api/research', { query: 'read my disk', settings });
      expect(res.status).toBe(400);
      expect(res.body.field).toBe(`body.settings.${field}`);
      expect(res.body.message).toContain(words);
    }
    const before = harness.model.requests.length;
    const { research_id: id } = await create('sodium-ion battery storage costs');
    const waiting = await waitStatus(id, ['awaiting_approval']);
    expect(waiting.state.local_knowledge).toBeUndefined();
    expect(plannerPrompts(before).join('\n')).not.toContain('Project Kestrel');
    const tools = (await env.client.events(id)).filter((e) => e.type === 'ToolCall').map((e) => e.data.tool);
    expect(tools).not.toContain('lookup_local_knowledge');

    const rejected = await post(`/api/research/${id}/reject`, { reason: 'not this one' });
    expect(rejected.status, rejected.text).toBe(200);
    const ended = await waitStatus(id, ['rejected']);
    expect(ended.state.reason).toBe('not this one');
    expect(harness.recorder.of('search')).toHaveLength(0);

    // The operator allows it (DEEP_RESEARCH_SERVICE_LOCAL_DOCS=1): the planner sees the documents.
    const open = await startService(env, { policy: { allowLocalDocuments: true } });
    try {
      const { research_id: id2 } = await create('sodium-ion battery storage costs again', {}, open);
      const planned = await waitStatus(id2, ['awaiting_approval'], open);
      expect(planned.state.local_knowledge.map((d: { title: string }) => d.title)).toEqual(['Project Kestrel sodium-ion trial']);
      const cancelled = await post(`/api/research/${id2}/cancel`, { reason: 'enough' }, open);
      expect(cancelled.status).toBe(200);
      expect((await waitStatus(id2, ['cancelled'], open)).state.reason).toBe('enough');
    } finally {
      await open.close();
    }
  });

  it('attended by default: questions asked, report held for review (accept completes it); unattended runs say what they skip', async () => {
    const attended = await create('Service defaults: tidal power', { settings: { max_sub_queries: 2 } });
    expect(attended.notes).toBeUndefined();
    const planned = await waitStatus(attended.research_id, ['awaiting_approval']);
    expect(planned.state.settings).toMatchObject({ ask_clarifications: true, review_final_report: true, local_documents: false });
    // An edited plan over the session's max_sub_queries is refused by the workflow's validator: a valid
    // request this session cannot take (409, its status), as a panel chosen for a session without one.
    const tooMany = await post(`/api/research/${attended.research_id}/approve`, { plan: { expanded_queries: [1, 2, 3].map((i) => ({ query: `tide ${i}` })) } });
    expect(tooMany.status).toBe(409);
    expect(tooMany.body).toMatchObject({ error: 'WRONG_STATE', status: 'awaiting_approval', message: 'an edited plan may have at most 2 expanded queries (max_sub_queries); it has 3' });
    const panel = await post(`/api/research/${attended.research_id}/approve`, { panel: ['openai:gpt-4o-mini'] });
    expect(panel.body).toMatchObject({ error: 'WRONG_STATE', status: 'awaiting_approval', message: `research ${attended.research_id} is not a panel research session: a panel cannot be chosen` });
    expect((await post(`/api/research/${attended.research_id}/review`, { action: 'accept' })).body).toMatchObject({ error: 'WRONG_STATE', status: 'awaiting_approval' });
    expect((await post(`/api/research/${attended.research_id}/approve`)).status).toBe(200);
    await waitStatus(attended.research_id, ['awaiting_review']);
    const accepted = await post(`/api/research/${attended.research_id}/review`, { action: 'accept' });
    expect(accepted.status, accepted.text).toBe(200);
    await waitStatus(attended.research_id, ['completed']);

    const unattended = await create('Service defaults: wave power', { auto_approve: true });
    expect(unattended.notes).toEqual(['unattended run (the plan is approved ahead): clarifying questions are not asked and the report is not held for review']);
    const done = await waitStatus(unattended.research_id, ['completed']);
    expect(done.state.settings).toMatchObject({ ask_clarifications: false, review_final_report: false });
    const chosen = await create('Service defaults: chosen', { auto_approve: true, settings: { review_final_report: true } });
    expect(chosen.notes).toEqual(['unattended run (the plan is approved ahead): clarifying questions are not asked']);
    await waitStatus(chosen.research_id, ['awaiting_review']);
    expect((await post(`/api/research/${chosen.research_id}/review`, { action: 'reject', feedback: 'no' })).status).toBe(200);
    await waitStatus(chosen.research_id, ['rejected']);
  });

  it('a draft keeps an edited plan; approving it (with more edits) researches that plan', async () => {
    const draft = (await post('/api/research', { query: 'Draft plan: heat pumps', draft: true, settings: SMALL })).body.research_id as string;
    const tooMany = await api.call('PATCH', `/api/research/${draft}`, { token, body: { plan: { expanded_queries: [1, 2, 3, 4, 5, 6].map((i) => ({ query: `q${i}` })) } } });
    expect(tooMany.body).toMatchObject({ error: 'WRONG_STATE', status: 'draft', field: 'body.plan.expanded_queries' });
    const edited = await api.call('PATCH', `/api/research/${draft}`, { token, body: { plan: { expanded_queries: [{ query: 'heat pump running costs in cold climates' }] } } });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.plan).toEqual({ expanded_queries: [{ query: 'heat pump running costs in cold climates' }] });
    const approved = await post(`/api/research/${draft}/approve`, { plan: { outline: ['Running costs', 'Cold climates'], research_brief: 'Costs only.' } });
    expect(approved.status, approved.text).toBe(200);
    const done = await waitStatus(draft, ['completed', 'failed']);
    expect(done.research.status).toBe('completed');
    expect(done.state.plan.expanded_queries.map((q: { query: string }) => q.query)).toEqual(['heat pump running costs in cold climates']);
    expect(done.state.plan.outline).toEqual(['Running costs', 'Cold climates']);
    expect(done.state.plan.research_brief).toBe('Costs only.');
    expect(done.state.searched_queries).toContain('heat pump running costs in cold climates');
  });

  it('answer, revise, guide, continue and top-up change the session as asked', async () => {
    harness.model.script.clarify = true;
    const asking = (await create('Steering: offshore wind')).research_id;
    await waitStatus(asking, ['awaiting_clarification']);
    harness.model.script.clarify = false;
    expect((await post(`/api/research/${asking}/answer`, { answers: {} })).body).toMatchObject({ error: 'INVALID_REQUEST', field: 'body.answers' });
    expect((await post(`/api/research/${asking}/answer`, { answers: ['North Sea', 'since 2015'] })).status).toBe(200);
    const answered = await waitStatus(asking, ['awaiting_approval']);
    expect(answered.state.clarifications).toEqual([
      { question: 'Which region should the research focus on?', answer: 'North Sea' },
      { question: 'Which time span matters?', answer: 'since 2015' },
    ]);
    expect((await post(`/api/research/${asking}/revise`, { feedback: 'focus on floating turbines' })).status).toBe(200);
    const revised = await waitFor('the revised plan', async () => {
      const body = await get(asking);
      return body.research.status === 'awaiting_approval' && body.state.plan_revisions === 1 && body;
    });
    expect(revised.state.plan_feedback).toEqual(['focus on floating turbines']);
    await post(`/api/research/${asking}/cancel`);
    await waitStatus(asking, ['cancelled']);

    const paused = (await create('Steering: pauses', { auto_approve: true, settings: { pause_for_guidance: true, review_final_report: false } })).research_id;
    await waitStatus(paused, ['awaiting_guidance']);
    expect((await post(`/api/research/${paused}/guide`, { text: 'prefer peer-reviewed sources' })).status).toBe(200);
    const guided = await get(paused);
    expect(guided.state.mind.guidance.map((g: { text: string }) => g.text)).toContain('prefer peer-reviewed sources');
    const stepped = await waitFor('the next pause', async () => {
      const body = await get(paused);
      return body.research.status === 'awaiting_guidance' && body.state.last_event_seq > guided.state.last_event_seq && body;
    });
    expect((await post(`/api/research/${paused}/continue`)).status).toBe(200);
    await waitFor('the pause ended by continue', async () => (await get(paused)).state.last_event_seq > stepped.state.last_event_seq);
    await post(`/api/research/${paused}/cancel`);
    const stopped = await waitStatus(paused, ['cancelled', 'completed']);
    expect((await post(`/api/research/${paused}/continue`)).body).toMatchObject({ error: 'WRONG_STATE', status: stopped.research.status });

    const budgeted = (await create('Steering: budget', { auto_approve: true, settings: { budget: { searches: 1 } } })).research_id;
    await waitStatus(budgeted, ['awaiting_budget']);
    const topped = await post(`/api/research/${budgeted}/top-up`, { searches: 40 });
    expect(topped.status, topped.text).toBe(200);
    const finished = await waitStatus(budgeted, ['completed']);
    expect(finished.state.mind.budget_topups).toEqual({ searches: 40 });
    expect(finished.state.searched_queries.length).toBeGreaterThan(1);
  });

  it('metadata, the docs page under the CSP, and limits: rate limit before auth, CORS only when configured', async () => {
    const meta = await api.call('GET', '/api/metadata', { token });
    expect(meta.status).toBe(200);
    expect(meta.body.research_settings_schema.properties).toHaveProperty('local_documents');
    const docsPage = await fetch(`${api.url}/api/docs/`, { redirect: 'follow' });
    expect(docsPage.status).toBe(200);
    const html = await docsPage.text();
    const csp = docsPage.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    // Every script is a file from the same origin (no inline script the CSP would block), and loads.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>\s*\S/);
    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => new URL(m[1], docsPage.url).href);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) expect((await fetch(src)).status, src).toBe(200);
    expect(docsPage.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await api.call('OPTIONS', '/api/research', { headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();

    const limited = await startService(env, { rateLimitPerMinute: 3, corsOrigins: ['https://app.example'] });
    try {
      const guesses = [];
      for (let i = 0; i < 4; i++) guesses.push(await limited.call('GET', '/api/research', { token: `drt_guess_${i}` }));
      expect(guesses.map((r) => r.status)).toEqual([401, 401, 401, 429]);
      expect(guesses[3].body.error).toBe('RATE_LIMITED');
      // A valid token counts for its user, not for the address that guessed.
      expect((await limited.call('GET', '/api/research', { token })).status).toBe(200);
      const cors = await limited.call('GET', '/api/research', { token, headers: { origin: 'https://app.example' } });
      expect(cors.headers.get('access-control-allow-origin')).toBe('https://app.example');
      const foreign = await limited.call('GET', '/api/research', { token, headers: { origin: 'https://evil.example' } });
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await limited.close();
    }

    // A session no worker picks up is logged once the grace period has passed.
    const idle = new ResearchClient(env.client.connection, { ...env.config, temporal: { ...env.config.temporal, task_queue: `nobody-polls-${Date.now()}` } });
    const lines: string[] = [];
    const unserved = await startService(env, { client: idle, log: (line) => lines.push(line) });
    try {
      const { research_id: id } = await create('Nobody polls this queue', {}, unserved);
      const line = await waitFor('the waiting line', async () => lines.find((l) => l.startsWith(`research ${id}: `)));
      expect(line).toBe(`research ${id}: waiting for a worker: none is polling task queue "${idle.config.temporal.task_queue}" (start one with "deep-research worker")`);
      await idle.handle(id).terminate('test over');
    } finally {
      await unserved.close();
      await idle.close();
    }
  });
});
