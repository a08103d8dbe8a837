// Any chat client is a client: the real `openai` npm client over loopback against /v1 of the
// service (a real Fastify server, Temporal dev server, worker, scripted model and search): ask, see
// the plan, approve by a message, stream the report; disconnect mid-run and follow on with the next
// message; wrong token; another user's conversation.
import OpenAI, { AuthenticationError, NotFoundError, BadRequestError } from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { startService, type TestService } from './harness/service';
import { runCli } from './harness/cli';
import { isTerminal } from '../src/domain/names';

const SESSION = /deep-research session `([A-Za-z0-9_.-]+)`/;

describe('/v1/chat/completions with the openai client', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let api: TestService;
  let token: string;
  let openai: OpenAI;

  beforeAll(async () => {
    harness = await startHarness();
    env = await startEnvironment(harness, inject('temporalAddress'));
    api = await startService(env);
    token = await api.service.store.createToken('chat-user');
    // Temporal owns retries; a chat client's own retries would only hide a refusal.
    openai = new OpenAI({ baseURL: `${api.url}/v1`, apiKey: token, maxRetries: 0 });
  });
  afterAll(async () => {
    await api?.close();
    await env?.close();
    await harness?.close();
  });

  /** A streamed reply's text; `stopWhen` aborts the stream (the client goes away) once the text so far says so. */
  async function streamed(messages: ChatCompletionMessageParam[], stopWhen?: (text: string) => boolean, extra: Record<string, unknown> = {}): Promise<string> {
    const stream = await openai.chat.completions.create({ model: 'deep-research', messages, stream: true, ...extra });
    let text = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (stopWhen?.(text)) {
        stream.controller.abort();
        break;
      }
    }
    return text;
  }

  it('lists the models', async () => {
    const models = await openai.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['deep-research']);
  });

  it('ask, plan shown, approve by a message, disconnect mid-run, follow on to the report with citations', async () => {
    const question = 'Chat research: the lithium supply chain';
    const asked: ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
    const first = await openai.chat.completions.create({ model: 'deep-research', messages: asked, max_iterations: 1, metadata: { max_sources: '4' } } as never);
    const planText = (first as OpenAI.ChatCompletion).choices[0].message.content ?? '';
    const id = SESSION.exec(planText)?.[1] as string;
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(planText).toMatch(/Research plan/);
    expect(planText).toMatch(/Sub-questions:\n1\. /);
    expect(planText).toMatch(/Report outline:\n1\. /);
    expect(planText).toMatch(/approve/);
    // The settings the request named are the session's.
    const state = await env.client.state(id);
    expect(state.status).toBe('awaiting_approval');
    expect([state.settings.max_iterations, state.settings.max_sources]).toEqual([1, 4]);
    // Nothing went to the web before the approving message.
    expect(harness.recorder.of('search')).toHaveLength(0);

    // The same session is visible from the API and the CLI meanwhile.
    const viewed = await api.call('GET', `/api/research/${id}`, { token });
    expect(viewed.body.research.status).toBe('awaiting_approval');
    const cli = await runCli(['status', id], env.env);
    expect(cli.stdout).toMatch(new RegExp(`research ${id}: awaiting_approval`));

    // Approved by a message in another language; the stream is left once research is under way.
    const history: ChatCompletionMessageParam[] = [...asked, { role: 'assistant', content: planText }, { role: 'user', content: 'oui' }];
    harness.model.script.delayFor = () => 200;
    const partial = await streamed(history, (text) => /sources read/.test(text));
    expect(partial).toMatch(/Approved: researching now/);
    const leftAt = Date.now();
    // Left mid-run: the session had started and had not ended.
    const meanwhile = (await env.client.state(id)).status;
    expect(meanwhile).not.toBe('awaiting_approval');
    expect(isTerminal(meanwhile)).toBe(false);
    harness.model.script.delayFor = undefined;

    // The next message follows the session where it is, to the report.
    const report = await streamed([...history, { role: 'assistant', content: partial }, { role: 'user', content: 'continue' }]);
    if (process.env.SHOW_CHAT) console.log(planText, '\n=====\n', partial, '\n=====\n', report.slice(0, 3000));
    expect(SESSION.exec(report)?.[1]).toBe(id);
    expect(report).toMatch(/^# Chat research: the lithium supply chain/m);
    expect(report).toMatch(/\[S\d+\]/);
    expect(report).toMatch(/## Sources\n\n- \[S\d+\]/);
    expect(harness.recorder.of('search').length).toBeGreaterThan(0);
    // Leaving the stream and coming back repeated no finished model call.
    const repeated = [...harness.recorder.duplicates('model').values()].filter((calls) => calls.some((c) => c.start >= leftAt) && calls.some((c) => (c.end ?? Infinity) < leftAt));
    expect(repeated).toEqual([]);
    expect((await env.client.state(id)).status).toBe('completed');
    const listed = await api.call('GET', '/api/research', { token });
    expect(listed.body.sessions.map((s: { research_id: string }) => s.research_id)).toEqual([id]);

    // Another user's conversation is not theirs: a clear refusal, whatever the history says.
    const other = new OpenAI({ baseURL: `${api.url}/v1`, apiKey: await api.service.store.createToken('someone-else'), maxRetries: 0 });
    const foreign = other.chat.completions.create({ model: 'deep-research', messages: [...history, { role: 'assistant', content: report }, { role: 'user', content: 'yes' }] });
    await expect(foreign).rejects.toBeInstanceOf(NotFoundError);
    await expect(foreign).rejects.toThrow(`this conversation's research session ${id} is not yours`);
  });

  it('clarifying questions answered by a message; revise and reject by messages', async () => {
    harness.model.script.clarify = true;
    const asked: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Chat research: sodium batteries' }];
    const first = await streamed(asked, undefined, { user: 'alice' });
    harness.model.script.clarify = false;
    const id = SESSION.exec(first)?.[1] as string;
    expect(first).toMatch(/Before planning, a few questions:\n\n1\. /);
    const history: ChatCompletionMessageParam[] = [...asked, { role: 'assistant', content: first }, { role: 'user', content: 'Chile\nthe last decade' }];
    // The same token with another chat user: not theirs.
    await expect(openai.chat.completions.create({ model: 'deep-research', messages: history, user: 'bob' })).rejects.toBeInstanceOf(NotFoundError);
    const plan = await streamed(history, undefined, { user: 'alice' });
    expect(plan).toMatch(/Research plan/);
    expect((await env.client.state(id)).clarifications.map((c) => c.answer)).toEqual(['Chile', 'the last decade']);

    const revising = [...history, { role: 'assistant', content: plan }, { role: 'user', content: 'Focus on grid storage, please.' }] as ChatCompletionMessageParam[];
    const revised = await streamed(revising, undefined, { user: 'alice' });
    expect(revised).toMatch(/Revising the plan/);
    expect(revised).toMatch(/Research plan/);
    expect((await env.client.state(id)).plan_feedback).toEqual(['Focus on grid storage, please.']);

    const rejected = await streamed([...revising, { role: 'assistant', content: revised }, { role: 'user', content: 'нет' }], undefined, { user: 'alice' });
    expect(rejected).toMatch(new RegExp(`Research ${id} rejected`));
    expect(harness.recorder.of('search').filter((r) => /sodium/i.test(decodeURIComponent(r.key)))).toEqual([]);
  });

  it('answers a turn that asks nothing with how to start, and starts no session', async () => {
    const before = (await api.call('GET', '/api/research', { token })).body.sessions.length;
    const reply = await openai.chat.completions.create({ model: 'deep-research', messages: [{ role: 'system', content: 'You are helpful.' }] });
    expect(reply.choices[0].message.content).toMatch(/Ask a research question to start/);
    expect(reply.choices[0].message.content).not.toMatch(/deep-research session `/);
    const empty = await api.call('POST', '/v1/chat/completions', { token, body: { model: 'deep-research', messages: [{ role: 'user', content: '  ' }] } });
    expect(empty.status).toBe(200);
    expect((await api.call('GET', '/api/research', { token })).body.sessions.length).toBe(before);
  });

  it('refuses a wrong token, an unknown model and a bad setting in OpenAI’s error shape', async () => {
    const wrong = new OpenAI({ baseURL: `${api.url}/v1`, apiKey: 'not-a-token', maxRetries: 0 });
    await expect(wrong.chat.completions.create({ model: 'deep-research', messages: [{ role: 'user', content: 'hi' }] })).rejects.toBeInstanceOf(AuthenticationError);
    await expect(wrong.models.list()).rejects.toBeInstanceOf(AuthenticationError);
    const raw = await api.call('POST', '/v1/chat/completions', { token: 'not-a-token', body: { model: 'deep-research', messages: [{ role: 'user', content: 'hi' }] } });
    expect(raw.status).toBe(401);
    expect(raw.body).toEqual({ error: { message: 'this API token is not valid', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });

    await expect(openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })).rejects.toBeInstanceOf(NotFoundError);
    const bad = await api.call('POST', '/v1/chat/completions', { token, body: { model: 'deep-research', messages: [{ role: 'user', content: 'hi' }], metadata: { max_iterations: '0' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: 'invalid_request_error', param: 'metadata.max_iterations' });
    await expect(openai.chat.completions.create({ model: 'deep-research', messages: [{ role: 'user', content: 'hi' }], max_iterations: 'lots' } as never)).rejects.toBeInstanceOf(BadRequestError);
  });
});

describe('/v1/chat/completions with auto-approve on', () => {
  it('runs the plan at once and streams the report (the operator chose it)', async () => {
    const harness = await startHarness();
    const env = await startEnvironment(harness, inject('temporalAddress'));
    const api = await startService(env, { serveEnv: { DEEP_RESEARCH_CHAT_AUTO_APPROVE: '1', DEEP_RESEARCH_CHAT_MODELS: 'openai:scripted-model' } });
    try {
      const openai = new OpenAI({ baseURL: `${api.url}/v1`, apiKey: await api.service.store.createToken('auto-user'), maxRetries: 0 });
      expect((await openai.models.list()).data.map((m) => m.id)).toEqual(['deep-research', 'deep-research:openai:scripted-model']);
      const reply = await openai.chat.completions.create({ model: 'deep-research:openai:scripted-model', messages: [{ role: 'user', content: 'Chat research: cobalt' }], max_iterations: 1 } as never);
      const text = (reply as OpenAI.ChatCompletion).choices[0].message.content ?? '';
      expect(text).toMatch(/^# Chat research: cobalt/m);
      const id = SESSION.exec(text)?.[1] as string;
      await waitFor('the session ended', async () => (await env.client.state(id)).status === 'completed');
      expect((await env.client.state(id)).settings.model).toBe('openai:scripted-model');
    } finally {
      await api.close();
      await env.close();
      await harness.close();
    }
  });
});
