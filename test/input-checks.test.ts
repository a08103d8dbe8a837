// Input checks (seed 004's validateInput / improveInput) and asking for the topic (seed 003's
// ask_topic): from the client, the CLI and the HTTP service, on a real worker and model fake.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config/load';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { startService, type TestService } from './harness/service';

const SMALL = { max_sources: 3, max_iterations: 1, max_search_results_per_query: 2 };

describe('input checks and asking for the topic', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let api: TestService;
  let token: string;

  beforeAll(async () => {
    harness = await startHarness();
    env = await startEnvironment(harness, inject('temporalAddress'));
    api = await startService(env);
    token = api.service.store.createToken('alice');
  });
  afterAll(async () => {
    await api?.close();
    await env?.close();
    await harness?.close();
  });

  const cli = (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(PROJECT_ROOT, 'src', 'cli', 'main.ts'), ...args], {
        env: { ...process.env, ...env.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d));
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      child.once('exit', (code) => resolve({ code, stdout, stderr }));
    });

  it('grades a question 0, 1 or 2 with a reason, improves the weak ones, and improves on request', async () => {
    expect(await env.client.checkInput({ prompt: 'batteries' })).toMatchObject({ quality: 0, improved_prompt: expect.stringContaining('batteries') });
    const vague = await env.client.checkInput({ prompt: 'Is wind power cheap?' });
    expect(vague).toMatchObject({ quality: 1, reason: expect.stringMatching(/broad/), improved_prompt: 'Is wind power cheap in Europe since 2015, with figures?' });
    const clear = await env.client.checkInput({ prompt: 'How did offshore wind auction prices in the North Sea change between 2015 and 2023?' });
    expect(clear.quality).toBe(2);
    expect(clear.improved_prompt).toBeUndefined();
    // Without the improvement asked for, none is given.
    expect((await env.client.checkInput({ prompt: 'Is wind power cheap?', include_improvement: false })).improved_prompt).toBeUndefined();
    expect(await env.client.checkInput({ prompt: 'Is wind power cheap?', mode: 'improve' })).toMatchObject({ improved_prompt: 'Is wind power cheap? (scoped: Europe, since 2015)' });
    await expect(env.client.checkInput({ prompt: '   ' })).rejects.toThrow('the research question is empty');
  });

  it('deep-research check prints the grade, the reason and the better question', async () => {
    const res = await cli(['check', 'Is solar power cheap?', '--json']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ quality: 1, improved_prompt: 'Is solar power cheap in Europe since 2015, with figures?' });
  });

  it('the service checks a draft before approval and shows the improved prompt, but never blocks on it', async () => {
    const checked = await api.call('POST', '/api/check', { token, body: { prompt: 'tidal' } });
    expect(checked.status).toBe(200);
    expect(checked.body).toMatchObject({ quality: 0, reason: expect.any(String), improved_prompt: expect.stringContaining('tidal') });
    const bad = await api.call('POST', '/api/check', { token, body: { prompt: '' } });
    expect(bad.status).toBe(400);

    const draft = await api.call('POST', '/api/research', { token, body: { query: 'Is tidal power cheap?', draft: true, settings: SMALL } });
    expect(draft.status).toBe(201);
    expect(draft.body.input_check).toMatchObject({ quality: 1, improved_prompt: 'Is tidal power cheap in Europe since 2015, with figures?' });
    // The user takes the suggestion: editing the question checks it again.
    const edited = await api.call('PATCH', `/api/research/${draft.body.research_id}`, { token, body: { query: draft.body.input_check.improved_prompt } });
    expect(edited.body.input_check.quality).toBe(2);

    // The model is down for the check: the draft is still saved, with the reason the check could not run.
    harness.model.script.failures = [{ status: 503, retryAfter: '0' }, { status: 503, retryAfter: '0' }];
    const unchecked = await api.call('POST', '/api/research', { token, body: { query: 'Is wave power cheap?', draft: true } });
    expect(unchecked.status).toBe(201);
    expect(unchecked.body.status).toBe('draft');
    expect(unchecked.body.input_check.error).toMatch(/could not be checked/);
    const approved = await api.call('POST', `/api/research/${edited.body.research_id}/approve`, { token });
    expect(approved.status).toBe(200);
  });

  it('a session created without a question asks for it, then plans the question it is given', async () => {
    const created = await api.call('POST', '/api/research', { token, body: { settings: SMALL } });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('awaiting_topic');
    const id = created.body.research_id as string;
    const waiting = await waitFor('awaiting_topic', async () => {
      const s = await api.call('GET', `/api/research/${id}`, { token });
      return s.body.state?.status === 'awaiting_topic' && s.body;
    });
    expect(waiting.state.initial_query).toBe('');
    const events = await env.client.events(id);
    expect(events.find((e) => e.data.kind === 'ask_topic')?.data.message).toBe('no research question was given: what should be researched?');
    expect((await api.call('POST', `/api/research/${id}/approve`, { token })).status).toBe(409);
    expect((await api.call('POST', `/api/research/${id}/topic`, { token, body: { query: '  ' } })).status).toBe(400);

    const given = await api.call('POST', `/api/research/${id}/topic`, { token, body: { query: 'Ask-topic check: pumped hydro storage' } });
    expect(given.status).toBe(200);
    const planned = await waitFor('a plan', async () => {
      const s = await api.call('GET', `/api/research/${id}`, { token });
      return s.body.state?.status === 'awaiting_approval' && s.body;
    });
    expect(planned.state.initial_query).toBe('Ask-topic check: pumped hydro storage');
    expect(planned.state.plan.expanded_queries[0].query).toContain('pumped hydro storage');
    expect(planned.research.query).toBe('Ask-topic check: pumped hydro storage');
    expect((await api.call('POST', `/api/research/${id}/topic`, { token, body: { query: 'another' } })).status).toBe(409);
    await api.call('POST', `/api/research/${id}/reject`, { token });
  });

  it('deep-research research without a question starts a session that waits for it; topic gives it', async () => {
    const res = await cli(['research', '--json', '--yes', '--set', 'max_sources=2', '--set', 'max_iterations=1']);
    expect(res.code, res.stderr).toBe(0);
    const { researchId, status } = JSON.parse(res.stdout) as { researchId: string; status: string };
    expect(status).toBe('awaiting_topic');
    await waitFor('awaiting_topic', async () => (await env.client.state(researchId)).status === 'awaiting_topic');
    const given = await cli(['topic', researchId, 'CLI ask-topic check: heat pumps']);
    expect(given.code, given.stderr).toBe(0);
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    expect(s.initial_query).toBe('CLI ask-topic check: heat pumps');
    expect(s.report_markdown).toMatch(/^# CLI ask-topic check: heat pumps/);
  });

  it('input contexts given at creation are read as sources in a single-model session too, and cited in its report', async () => {
    const note = 'Our pilot heat pump reached 73 percent of its rated efficiency in the cold test.';
    const { researchId } = await env.client.start({
      query: 'Context check: heat pumps in cold climates',
      settings: SMALL,
      autoApprove: true,
      contexts: [{ content: note, label: 'lab notes' }, { content: '   ' }],
    });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    const context = s.sources.filter((x) => x.provider === 'input');
    expect(context).toEqual([expect.objectContaining({ id: 'S1', title: 'lab notes', status: 'fetched', analyzed: true })]);
    expect(s.findings.some((f) => f.source_ids.includes('S1') && f.content.includes('73 percent'))).toBe(true);
    expect(s.report_markdown).toContain('73 percent');
    await expect(env.client.start({ query: 'Context check: too many', contexts: Array.from({ length: 11 }, (_, i) => ({ content: `note ${i}` })) })).rejects.toThrow('at most 10 input contexts');
  });
});
