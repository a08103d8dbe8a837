// Panel research over three providers' real wire formats (OpenAI, Anthropic, Gemini): one model
// fails after its retries → awaiting_confirmation → retry / proceed / cancel; the synthesis credits
// every paragraph to its models and lists their conflicts; plain words become a panel, models
// without a key are dropped, and an empty panel is the user's to choose.
import { afterEach, describe, expect, inject, it } from 'vitest';
import { choosePanel, modelsInWords, modelVendor } from '../src/research/panel';
import type { ResearchSnapshot } from '../src/domain/types';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { startAnthropic, type FakeAnthropic } from './harness/anthropic';
import { startGemini, type FakeGemini } from './harness/gemini';
import { startService, type TestService } from './harness/service';
import { runCli } from './harness/cli';

const fast = { max_sources: 3, max_iterations: 1, batch_size: 3, max_search_results_per_query: 2 };
const PANEL = ['openai:scripted-model', 'anthropic:claude-test', 'google:gemini-test'];
const geminiDown = () => Array.from({ length: 3 }, () => ({ status: 503, retryAfter: '0', type: 'UNAVAILABLE' }));

describe('panel research', () => {
  let harness: Harness | undefined;
  let env: TestEnvironment | undefined;
  let anthropic: FakeAnthropic | undefined;
  let gemini: FakeGemini | undefined;
  let api: TestService | undefined;

  afterEach(async () => {
    await api?.close();
    await env?.close();
    await anthropic?.close();
    await gemini?.close();
    await harness?.close();
    api = env = anthropic = gemini = harness = undefined;
  });

  async function setup(opts: { geminiFailures?: number; keys?: ('anthropic' | 'google')[] } = {}) {
    harness = await startHarness({ model: { gapIterations: 0 } });
    anthropic = await startAnthropic(harness.recorder, { apiKey: 'anthropic-key', answers: [{ object: { answer: 'Claude: the effect is large [S1].' } }], usage: { input: 900, output: 120 } });
    gemini = await startGemini(harness.recorder, {
      failures: opts.geminiFailures ? geminiDown().slice(0, opts.geminiFailures) : [],
      answers: [{ object: { answer: 'Gemini: the effect is small [S1].' } }],
      usage: { input: 800, output: 100 },
    });
    const keys = opts.keys ?? ['anthropic', 'google'];
    env = await startEnvironment(harness, inject('temporalAddress'), {
      // A provider pointed at another endpoint needs no key (a local server), so a provider
      // "without a key" here also keeps its real endpoint: it is never called.
      extraEnv: {
        ...(keys.includes('anthropic') ? { ANTHROPIC_API_KEY: 'anthropic-key', ANTHROPIC_BASE_URL: anthropic.url } : {}),
        ...(keys.includes('google') ? { GOOGLE_GENERATIVE_AI_API_KEY: 'g-key', GOOGLE_GENERATIVE_AI_BASE_URL: gemini.url } : {}),
      },
      configure: (config) => {
        config.models.pricing = {
          'openai:scripted-model': { input: 2, output: 8 },
          'anthropic:claude-test': { input: 3, output: 15 },
          'google:gemini-test': { input: 1, output: 4 },
        };
      },
    });
    return env;
  }

  const untilStatus = (e: TestEnvironment, id: string, wanted: string) =>
    waitFor(wanted, async () => {
      const s = await e.client.state(id);
      if (['failed', 'completed', 'cancelled'].includes(s.status) && s.status !== wanted) throw new Error(`ended ${s.status}: ${s.reason}`);
      return s.status === wanted && s;
    }, 120_000) as Promise<ResearchSnapshot>;

  it('waits for confirmation when a model fails, retries only that one, then merges the answers with attribution and conflicts', async () => {
    const e = await setup({ geminiFailures: 3 });
    const { researchId } = await e.client.start({ query: 'Panel check: tidal power', settings: { ...fast, panel: PANEL }, autoApprove: true });
    const waiting = await untilStatus(e, researchId, 'awaiting_confirmation');
    const answers = waiting.panel?.answers ?? {};
    expect(answers['google:gemini-test']).toMatchObject({ status: 'failed', attempts: 1 });
    expect(answers['anthropic:claude-test']).toMatchObject({ status: 'completed' });
    expect(answers['openai:scripted-model']).toMatchObject({ status: 'completed' });
    // Its own retries (three attempts) before the user is asked.
    expect(gemini?.requests).toHaveLength(3);
    // The human status names the model that failed and why, as --json does.
    const status = await runCli(['status', researchId], e.env);
    expect(status.stdout).toMatch(/panel: openai:scripted-model \(completed\), anthropic:claude-test \(completed\), google:gemini-test \(FAILED: .+\)$/m);
    const anthropicCalls = anthropic?.requests.length;

    await e.client.send(researchId, 'confirm', { action: 'retry' });
    await e.client.waitForResult(researchId);
    const s = await e.client.state(researchId);
    expect(s.status).toBe('completed');
    expect(s.panel?.confirmations).toEqual(['retry']);
    expect(s.panel?.answers['google:gemini-test']).toMatchObject({ status: 'completed', attempts: 2 });
    // Only the failed model ran again.
    expect(anthropic?.requests.length).toBe(anthropicCalls);
    expect(gemini?.requests).toHaveLength(4);

    const report = await e.client.report(researchId);
    expect(report).toContain(`*— ${PANEL.join(', ')}*`);
    expect(report).toMatch(/Claude: the effect is large \[S1\]\.[^\n]*\n\n\*— anthropic:claude-test\*/);
    expect(report).toMatch(/Gemini: the effect is small \[S1\]\.[^\n]*\n\n\*— google:gemini-test\*/);
    // The merged report goes through the same checks as any report: its claims against the cited
    // source (the fake answers say what the page does not), its citations and its sources list.
    expect(report).toContain('Claude: the effect is large [S1]. ⚠️ *(not supported by the cited source)*');
    expect(report).toMatch(/## Sources\n\n- \[S1\]/);
    expect(s.mind.unsupported_claims?.length).toBeGreaterThan(0);
    expect(report).toContain('## Detected conflicts');
    expect(report).toContain('**the size of the effect**: openai:scripted-model: large; anthropic:claude-test: small');
    // A model that is not on the panel is never credited.
    expect(report).not.toContain('not-on-the-panel');
    expect(report).toContain('Agreement: **medium**');
    expect(s.panel?.synthesis).toMatchObject({ agreement: 'medium', conflicts: [{ topic: 'the size of the effect' }], attributed_models: expect.arrayContaining(PANEL) });
    // The answers and the report live in the artifact store; the state keeps their ids.
    const live = (await e.temporal.workflow.getHandle(`research-${researchId}`).query('state')) as Record<string, unknown>;
    expect(live).not.toHaveProperty('report_markdown');
    expect(s.report_markdown).toBe(report);
    expect(s.panel?.report_file_id).toMatch(/^[a-f0-9]{64}$/);
    expect(await e.client.artifactText(s, s.panel?.answers['anthropic:claude-test'].file_id as string)).toBe('Claude: the effect is large [S1].');

    // Billed per model, the failed attempts included in nothing.
    const byModel = s.usage.tokens_by_model ?? {};
    expect(byModel['anthropic:claude-test']).toMatchObject({ calls: 1, input_tokens: 900, output_tokens: 120 });
    expect(byModel['anthropic:claude-test'].cost_usd).toBeCloseTo((900 * 3 + 120 * 15) / 1e6, 8);
    expect(byModel['google:gemini-test']).toMatchObject({ calls: 1, input_tokens: 800, output_tokens: 100 });
    expect(s.panel?.answers['google:gemini-test'].usage?.cost_usd).toBeCloseTo((800 * 1 + 100 * 4) / 1e6, 8);
    expect(s.usage.tokens_by_role.panel.calls).toBe(3);
    expect(s.usage.tokens_by_role.synthesizer.calls).toBe(1);

    const statuses = (await e.client.events(researchId)).map((ev) => String(ev.data.message ?? '')).filter((m) => m.startsWith('status: '));
    expect(statuses).toEqual(expect.arrayContaining(['status: processing', 'status: awaiting_confirmation', 'status: synthesizing', 'status: completed']));
    expect(statuses.indexOf('status: awaiting_confirmation')).toBeLessThan(statuses.lastIndexOf('status: synthesizing'));
  });

  it('proceeds with the answers there are over HTTP, naming the model left out; confirm is refused once it is over', async () => {
    const e = await setup({ geminiFailures: 3 });
    api = await startService(e);
    const token = await api.service.store.createToken('alice');
    const created = await api.call('POST', '/api/research', {
      token,
      body: { query: 'Panel check: wave power', panel: PANEL, auto_approve: true, settings: fast, input_contexts: [{ content: 'Our pilot plant produced 42 percent of its rated output.', label: 'pilot notes' }] },
    });
    expect(created.status).toBe(201);
    const id = created.body.research_id as string;
    await untilStatus(e, id, 'awaiting_confirmation');
    const early = await api.call('POST', `/api/research/${id}/confirm`, { token, body: { action: 'maybe' } });
    expect(early.status).toBe(400);
    const proceed = await api.call('POST', `/api/research/${id}/confirm`, { token, body: { action: 'proceed' } });
    expect(proceed.status).toBe(200);
    await e.client.waitForResult(id);
    const got = await api.call('GET', `/api/research/${id}`, { token });
    expect(got.body.state.status).toBe('completed');
    expect(got.body.state.panel.answers['google:gemini-test'].status).toBe('failed');
    // The input context was a source: analysed, and in the answers' evidence.
    const context = (got.body.state.sources as { provider?: string; title: string }[]).find((x) => x.provider === 'input');
    expect(context?.title).toBe('pilot notes');
    const report = await api.call('GET', `/api/research/${id}/report`, { token });
    expect(report.text).toContain('Left out after failing: google:gemini-test.');
    expect(report.text).toContain('*— openai:scripted-model, anthropic:claude-test*');
    expect(report.text).toContain("The user's pilot notes says: Our pilot plant produced 42 percent");
    expect(got.body.state.report_markdown).toBe(report.text);
    const late = await api.call('POST', `/api/research/${id}/confirm`, { token, body: { action: 'retry' } });
    expect(late.status).toBe(409);
    const spec = await api.call('GET', '/api/openapi.json');
    expect(Object.keys(spec.body.paths)).toEqual(expect.arrayContaining(['/api/research/{id}/confirm', '/api/check', '/api/research/{id}/topic']));
  });

  it('cancels at the confirmation: the session ends cancelled without a synthesis', async () => {
    const e = await setup({ geminiFailures: 3 });
    const { researchId } = await e.client.start({ query: 'Panel check: solar power', settings: { ...fast, panel: PANEL }, autoApprove: true });
    await untilStatus(e, researchId, 'awaiting_confirmation');
    await e.client.send(researchId, 'confirm', { action: 'cancel' });
    await e.client.waitForResult(researchId).catch(() => undefined);
    const s = await untilStatus(e, researchId, 'cancelled');
    expect(s.reason).toContain('partial-failure confirmation');
    expect(s.panel?.report_file_id).toBeUndefined();
    expect(harness?.model.requests.some((r) => JSON.stringify(r.body).includes('panel_synthesis'))).toBe(false);
    await expect(e.client.send(researchId, 'confirm', { action: 'proceed' })).rejects.toThrow(/already finished|not awaiting/);
  });

  it('takes the panel from plain words, drops models without a key with a note, and answers side by side', async () => {
    const e = await setup({ keys: ['anthropic'] });
    const words = 'Use Claude, GPT and Gemini, and claude-sonnet-4-5 too';
    const { researchId } = await e.client.start({ query: 'Panel check: hydro power', settings: { ...fast, panel: [words], skip_synthesis: true }, autoApprove: true });
    await e.client.waitForResult(researchId);
    const s = await e.client.state(researchId);
    expect(s.status).toBe('completed');
    expect(s.panel?.models).toEqual(['anthropic:claude-opus-4-5', 'openai:gpt-5.2']);
    expect(s.providers?.skipped).toEqual(expect.arrayContaining([
      { name: 'google:gemini-2.5-pro', reason: 'left out of the panel: GOOGLE_GENERATIVE_AI_API_KEY is not set' },
      { name: 'anthropic:claude-sonnet-4-5', reason: 'left out of the panel: one model per vendor: anthropic:claude-opus-4-5 came first, both are anthropic models' },
    ]));
    const notes = (await e.client.events(researchId)).filter((ev) => ev.data.kind === 'provider_skipped').map((ev) => ev.data.message);
    expect(notes).toContain('google:gemini-2.5-pro skipped: left out of the panel: GOOGLE_GENERATIVE_AI_API_KEY is not set');
    const report = await e.client.report(researchId);
    expect(report).toContain('## anthropic:claude-opus-4-5\n\nClaude: the effect is large [S1].');
    expect(report).toContain('## openai:gpt-5.2');
    expect(report).not.toContain('Detected conflicts');
    expect(s.usage.tokens_by_role.synthesizer).toBeUndefined();
  });

  it('is a real panel through one OpenAI-compatible gateway, one member per vendor, and the CLI says who was left out and why', async () => {
    const e = await setup({ keys: [] });
    // OPENAI_BASE_URL points at the loopback OpenAI-compatible fake: the gateway every model goes through.
    const models = ['openai:anthropic/claude-3-5-sonnet', 'openai:meta-llama/llama-3.1-70b', 'openai:gpt-4o', 'openai:gpt-4.1-mini'];
    const run = await runCli(['research', 'Panel check: gateway power', '--yes', '--panel', models.join(','), '--skip-synthesis', '--settings', JSON.stringify(fast)], e.env, 120_000);
    expect(run.status, run.stderr).toBe(0);
    // The members, each with its outcome once the CLI has seen one (a fast run may already show them).
    expect(run.stderr).toMatch(/panel: openai:anthropic\/claude-3-5-sonnet( \(\w+\))?, openai:meta-llama\/llama-3\.1-70b( \(\w+\))?, openai:gpt-4o( \(\w+\))?\n/);
    expect(run.stderr).toContain('  left out of the panel: openai:gpt-4.1-mini (one model per vendor: openai:gpt-4o came first, both are openai models)');
    // Piped, stdout is the report itself and the closing line goes to stderr.
    expect(run.stdout).toMatch(/^# /);
    const researchId = /research (\S+): completed/.exec(run.stderr)?.[1] as string;
    const s = await e.client.state(researchId);
    expect(s.panel?.models).toEqual(models.slice(0, 3));
    const asked = new Set(harness?.model.requests.filter((r) => JSON.stringify(r.body).includes('panel_answer')).map((r) => (r.body as { model: string }).model));
    expect([...asked].sort()).toEqual(['anthropic/claude-3-5-sonnet', 'gpt-4o', 'meta-llama/llama-3.1-70b']);
    const report = await e.client.report(researchId);
    // Every member answered alike (the fake answers every model the same): said once, then pointed to.
    expect(report).toContain(`## ${models[0]}\n\nOn `);
    for (const model of models.slice(1, 3)) expect(report).toContain(`## ${model}\n\n*The same as ${models[0]}'s answer above.*`);
    expect(report).toMatch(/## Notes\n[\s\S]*- Claims: \d+ of \d+ cited sentence\(s\)/);
    const status = await runCli(['status', researchId], e.env);
    expect(status.stdout).toContain('panel: openai:anthropic/claude-3-5-sonnet (completed), openai:meta-llama/llama-3.1-70b (completed), openai:gpt-4o (completed)');
    expect(status.stdout).toContain('left out of the panel: openai:gpt-4.1-mini');
  });

  it('keeps a paragraph two members both wrote once, credited to both, and checks its claims like any report', async () => {
    const e = await setup({ keys: [] });
    // Both members answer the same words (the fake answers every model alike).
    const models = ['openai:gpt-4o', 'openai:anthropic/claude-3-5-sonnet'];
    const { researchId } = await e.client.start({ query: 'Panel check: river power', settings: { ...fast, panel: models }, autoApprove: true });
    await e.client.waitForResult(researchId);
    const s = await e.client.state(researchId);
    expect(s.status).toBe('completed');
    const report = await e.client.report(researchId);
    const repeated = /On Panel check: river power: [^\n]*/.exec(report)?.[0] as string;
    expect(repeated).toMatch(/\[S\d+\]/);
    expect(report.split(repeated)).toHaveLength(2);
    expect(report).toContain(`${repeated}\n\n*— ${models.join(', ')}*`);
    expect(s.panel?.synthesis?.paragraphs).toBe(3);
    // The citation and claim checks of any report: its Sources, and the claims checked in its Notes.
    expect(report).toMatch(/## Sources\n\n- \[S1\]/);
    expect(report).toMatch(/## Notes\n[\s\S]*- Claims: \d+ of \d+ cited sentence\(s\)/);
  });

  it('lets the user choose when no panel model has a key, even unattended', async () => {
    const e = await setup({ keys: [] });
    const { researchId } = await e.client.start({ query: 'Panel check: geothermal power', settings: { ...fast, panel: ['just Gemini please'] }, autoApprove: true });
    const s = await untilStatus(e, researchId, 'awaiting_approval');
    expect(s.panel?.models).toEqual([]);
    await expect(e.client.approve(researchId, undefined, [''])).rejects.toThrow(/at least one model/);
    await e.client.approve(researchId, undefined, ['openai:scripted-model']);
    await e.client.waitForResult(researchId);
    const done = await e.client.state(researchId);
    expect(done.status).toBe('completed');
    expect(done.panel?.models).toEqual(['openai:scripted-model']);
    expect(await e.client.report(researchId)).toContain('*— openai:scripted-model*');
  });
});

describe('choosing a panel from words', () => {
  const all = () => ({ ok: true as const });

  it('counts the vendor of a model, not the gateway it comes through', () => {
    expect(modelVendor('openrouter:anthropic/claude-3.5-sonnet')).toBe('anthropic');
    expect(modelVendor('litellm:openai/gpt-4o')).toBe('openai');
    expect(modelVendor('litellm:anthropic/claude-3-5')).toBe('anthropic');
    expect(modelVendor('openrouter:meta-llama/llama-3.1-70b-instruct')).toBe('meta');
    expect(modelVendor('openrouter:mistralai/ministral-8b')).toBe('mistral');
    // Ollama's and Groq's models by their family.
    expect(['ollama:llama3.1:8b', 'groq:llama-3.3-70b-versatile', 'ollama:qwen2.5:7b', 'ollama:mistral', 'ollama:gemma2', 'ollama:phi3'].map(modelVendor))
      .toEqual(['meta', 'meta', 'alibaba', 'mistral', 'google', 'microsoft']);
    // A provider that serves only its own models owns every name; a gateway's unknown model goes by its family word.
    expect(modelVendor('openai:scripted-model')).toBe('openai');
    expect(modelVendor('ollama:scripted-model')).toBe('scripted');
    expect(choosePanel(['openai:gpt-4o-mini', 'openai:gpt-4.1-mini'], all)).toEqual({
      panel: ['openai:gpt-4o-mini'],
      dropped: [{ name: 'openai:gpt-4.1-mini', reason: 'one model per vendor: openai:gpt-4o-mini came first, both are openai models' }],
    });
    expect(choosePanel(['litellm:openai/gpt-4o', 'litellm:anthropic/claude-3-5', 'ollama:llama3.1', 'ollama:qwen2.5'], all).panel).toHaveLength(4);
  });

  it('keeps one model per vendor, the first mention winning, in the order mentioned', () => {
    expect(modelsInWords('Use Gemini and Claude')).toEqual(['google:gemini-2.5-pro', 'anthropic:claude-opus-4-5']);
    expect(choosePanel(['Use GPT and o4-mini-deep-research'], all).panel).toEqual(['openai:gpt-5.2']);
    expect(choosePanel(['fast answers from gemini and gpt'], all).panel).toEqual(['google:gemini-2.5-flash', 'openai:gpt-5-mini']);
    expect(choosePanel(['anthropic:claude-x', 'claude', 'perplexity'], all)).toEqual({
      panel: ['anthropic:claude-x', 'perplexity:sonar-pro'],
      dropped: [{ name: 'anthropic:claude-opus-4-5', reason: 'one model per vendor: anthropic:claude-x came first, both are anthropic models' }],
    });
    // Words that name no provider choose nothing.
    expect(choosePanel(['the history of Claude-like names in GPTQ quantisation'], all).panel).toEqual([]);
  });

  it('drops models whose provider has no key and never takes more than five', () => {
    const keys = (ref: string) => (ref.startsWith('anthropic:') ? { ok: false as const, reason: 'ANTHROPIC_API_KEY is not set' } : { ok: true as const });
    expect(choosePanel(['Use Claude and Gemini'], keys)).toEqual({
      panel: ['google:gemini-2.5-pro'],
      dropped: [{ name: 'anthropic:claude-opus-4-5', reason: 'ANTHROPIC_API_KEY is not set' }],
    });
    const six = ['a:1', 'b:1', 'c:1', 'd:1', 'e:1', 'f:1'];
    expect(choosePanel(six, all).panel).toHaveLength(5);
  });
});
