// Seed 001's token management, called as the worker calls it: each model-calling phase fits its
// prompt into its share of the model's context (checked on the prompts the loopback model fake
// receives), condensed levels are model-written summaries (rules when summarization fails),
// nothing is dropped unless allowed, originals go to the content archive and expire.
import { asyncLocalStorage, Context } from '@temporalio/activity';
import { existsSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnalyzeSourcesInput } from '../src/activities/contracts';
import { createActivities } from '../src/activities';
import type { ModelDeps } from '../src/activities/model-call';
import { createRoleTools } from '../src/activities/role-tools';
import { roleActivities } from '../src/roles';
import { allocate, DEFAULT_FIT_SETTINGS, phaseBudget, type BudgetPhase, type FitSettings } from '../src/context-fit/allocate';
import { archiveContent, sweepArchive, type ArchiveRecord } from '../src/context-fit/archive';
import { countTokens } from '../src/context-fit/tokens';
import { ConfigError, loadConfig } from '../src/config/load';
import { contextWindowFor } from '../src/config/model-catalog';
import { createModelProvider } from '../src/providers/model/ai-sdk';
import { FileArtifactStore } from '../src/stores/artifacts';
import { startModel, type FakeModel, type ModelScript } from './harness/model';
import { waitFor } from './harness';
import { Recorder } from './harness/recorder';

const MODEL = 'openai:scripted-model';
const CONTEXT = 8_000;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const tmp = (prefix: string) => mkdtempSync(path.join(os.tmpdir(), prefix));

async function setup(budget: Partial<FitSettings> = {}, script: ModelScript = {}) {
  const fake = await startModel(new Recorder(), script);
  closers.push(() => fake.close());
  const provider = (model: string) =>
    createModelProvider({ kind: 'openai', provider: 'openai', model, baseURL: fake.url, apiKey: 'k', structuredOutput: 'auto', timeoutMs: 10_000 });
  const artifacts = new FileArtifactStore(tmp('dr-tm-art-'));
  const settings: FitSettings = { ...DEFAULT_FIT_SETTINGS, model_context_overrides: { [MODEL]: CONTEXT }, ...budget };
  const deps: ModelDeps = { model: (ref) => ({ provider: provider(ref.split(':')[1]) }), defaultModel: () => MODEL, pricing: {}, artifacts, budget: settings };
  return { fake, artifacts, settings, model: roleActivitiesOf(deps), mind: roleActivitiesOf(deps) };
}

function asActivity<T>(fn: () => Promise<T>): Promise<T> {
  const args = [
    { activityType: 'test', attempt: 1 },
    new Promise<never>(() => {}),
    new AbortController().signal,
    () => undefined,
    undefined,
    { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
    undefined,
    {},
  ] as unknown as ConstructorParameters<typeof Context>;
  return asyncLocalStorage.run(new Context(...args), fn);
}

/** User prompts the fake received for a schema name. */
function promptsFor(fake: FakeModel, schema: string): string[] {
  return fake.requests
    .map((r) => r.body as { messages?: { role: string; content: string }[]; response_format?: { json_schema?: { name?: string } } })
    .filter((b) => b.response_format?.json_schema?.name === schema)
    .map((b) => (b.messages ?? []).filter((m) => m.role === 'user').map((m) => m.content).join('\n'));
}

const tokens = (text: string) => countTokens(text, 'scripted-model');

const paragraph = (n: number, topic: string) =>
  Array.from({ length: n }, (_, i) => `In ${2000 + i} the ${topic} market grew ${i + 3} percent while costs of ${topic} fell across the region.`).join(' ');

async function analysisInput(artifacts: FileArtifactStore, count: number, sentences = 30): Promise<AnalyzeSourcesInput> {
  const sources = [];
  for (let i = 1; i <= count; i++) {
    const stored = await artifacts.put(`# Source ${i}\n\n${paragraph(sentences, `solar${i}`)}`, { name: `s${i}.txt`, kind: 'text' });
    sources.push({ id: `S${i}`, title: `Solar report ${i}`, url: `https://site${i}.example/report`, text_file_id: stored.file_id });
  }
  return { query: 'Solar power costs?', research_brief: 'Costs.', outline: ['Overview'], iteration: 1, max_iterations: 1, sources, known_findings: [], max_source_chars: 50_000 };
}

describe('phase budgets on every model-calling phase', () => {
  const budgetOf = (phase: BudgetPhase) => phaseBudget({ ...DEFAULT_FIT_SETTINGS, model_context_overrides: {} }, phase, CONTEXT);
  // The budget covers the whole user prompt; tokens at the joins of condensed texts may add a few.
  const within = (prompt: string, phase: BudgetPhase) => expect(tokens(prompt)).toBeLessThanOrEqual(Math.ceil(budgetOf(phase) * 1.05));

  it('splits the usable context 10/40/35/15 after the capped runtime overhead and the 15 % margin', () => {
    const usable = (CONTEXT - CONTEXT / 2) * 0.85;
    expect(budgetOf('planning')).toBe(Math.floor(usable * 0.1));
    expect(budgetOf('analysis')).toBe(Math.floor(usable * 0.4));
    expect(budgetOf('synthesis')).toBe(Math.floor(usable * 0.35));
    expect(budgetOf('refinement')).toBe(Math.floor(usable * 0.15));
    // A big context keeps the whole 60k overhead.
    expect(phaseBudget(DEFAULT_FIT_SETTINGS, 'analysis', 200_000)).toBe(Math.floor((200_000 - 60_000) * 0.85 * 0.4));
  });

  it('fits the planner, analyzer, writer, critic, refiner and supervisor prompts into their phase budgets', async () => {
    const { fake, artifacts, model, mind } = await setup({ summarization: { ...DEFAULT_FIT_SETTINGS.summarization, enabled: false } });
    const docs = Array.from({ length: 12 }, (_, i) => ({ title: `Doc ${i}`, snippet: paragraph(3, `wind${i}`) }));
    await asActivity(() => model.decomposeQuery({ researchId: 'r', query: 'Solar power costs?', clarifications: [], feedback: [], known_documents: docs }));
    // Eight sources: the top five keep at least 30 % (seed 001's guardrail), the rest give way.
    const input = await analysisInput(artifacts, 8, 18);
    await asActivity(() => model.analyzeSources(input));
    const findings = Array.from({ length: 12 }, (_, i) => ({ id: `F${i + 1}`, content: paragraph(2, `hydro${i}`), confidence: 'high' as const, source_ids: ['S1'], iteration: 1 }));
    const report = `# Report\n\n## Overview\n\n${paragraph(40, 'report')}`;
    const stored = await artifacts.put(report, { name: 'report.md', kind: 'text' });
    await asActivity(() => model.writeReportPatch({ query: 'Solar power costs?', outline: ['Overview'], report_file_id: stored.file_id, findings, sources: [{ id: 'S1', title: 'T', url: 'https://e.org' }], max_update_chars: 800 }));
    await asActivity(() =>
      mind.critiqueFindings({ query: 'Solar?', research_brief: 'b', outline: ['Overview'], findings, sources: [{ id: 'S1', title: 'T', url: 'https://e.org' }], revision: 1, max_revisions: 2 }),
    );
    await asActivity(() =>
      mind.refineGaps({ query: 'Solar?', research_brief: 'b', findings_summary: findings.map((f) => f.content), open_gaps: [], searched_queries: ['solar'], iteration: 2, max_iterations: 3 }),
    );
    const guidance = Array.from({ length: 15 }, (_, i) => `Please also look at ${paragraph(2, `tidal${i}`)}`);
    await asActivity(() => mind.reflectOnPhase({ phase: 'analysis', summary: { findings: 12 }, gate: { passed: true, failures: [] }, guidance }));
    await asActivity(() => mind.reflectOnPhase({ phase: 'gathering', summary: { sources: 8 }, gate: { passed: true, failures: [] }, guidance }));
    const sent = {
      planning: promptsFor(fake, 'research_plan')[0],
      analysis: promptsFor(fake, 'source_analysis')[0],
      synthesis: promptsFor(fake, 'report_patch')[0],
      critic: promptsFor(fake, 'critique')[0],
      refinement: promptsFor(fake, 'gap_refinement')[0],
    };
    within(sent.planning, 'planning');
    within(sent.analysis, 'analysis');
    within(sent.synthesis, 'synthesis');
    within(sent.critic, 'refinement');
    within(sent.refinement, 'refinement');
    const [afterAnalysis, afterGathering] = promptsFor(fake, 'phase_reflection');
    within(afterAnalysis, 'analysis');
    within(afterGathering, 'refinement');
    expect(tokens(afterAnalysis)).toBeGreaterThan(tokens(afterGathering));
    expect(afterGathering).toContain('tidal14'); // the latest guidance keeps the most
    // Nothing was silently dropped: every document, source and finding is still named.
    for (const d of docs) expect(sent.planning).toContain(d.title);
    for (const s of input.sources) expect(sent.analysis).toContain(`id="${s.id}"`);
    for (const f of findings) expect(sent.critic).toContain(`${f.id} (high)`);
    expect(sent.synthesis).toContain('## Overview');
  });

  it('sends the prompts whole when token management is off', async () => {
    const { fake, artifacts, model } = await setup({ enabled: false });
    const input = await analysisInput(artifacts, 5);
    await asActivity(() => model.analyzeSources(input));
    expect(tokens(promptsFor(fake, 'source_analysis').at(-1) as string)).toBeGreaterThan(budgetOf('analysis') * 2);
    expect(promptsFor(fake, 'content_summary')).toHaveLength(0);
  });

  it('weighs credibility as quality: a government source ranked last outlasts the unvetted ones above it', async () => {
    const { artifacts, model } = await setup({ model_context_overrides: { [MODEL]: 16_000 }, summarization: { ...DEFAULT_FIT_SETTINGS.summarization, enabled: false } });
    const input = await analysisInput(artifacts, 8, 18);
    input.sources[7] = { ...input.sources[7], url: 'https://www.census.gov/solar' };
    const out = await asActivity(() => model.analyzeSources(input));
    expect(out.fidelity.S7.fidelity).toBeLessThan(1);
    expect(out.fidelity.S8.fidelity).toBeGreaterThan(out.fidelity.S7.fidelity);
  });

  it('uses the per-model context window: a 1M-token model reads everything whole', async () => {
    expect(contextWindowFor('openai:gpt-4o-mini', {}, 1)).toBe(128_000);
    expect(contextWindowFor('anthropic:claude-sonnet-4-5', {}, 1)).toBe(200_000);
    expect(contextWindowFor('google:gemini-2.5-flash', {}, 1)).toBe(1_048_576);
    expect(contextWindowFor('ollama:qwen3:8b', {}, 32_000)).toBe(32_000);
    expect(contextWindowFor('openai:gpt-4o-mini', { 'openai:gpt-4o-mini': 16_000 }, 1)).toBe(16_000);
    expect(contextWindowFor('openai:gpt-4o-mini', { '*': 9_000 }, 1)).toBe(9_000);
    const { artifacts, model } = await setup({ model_context_overrides: { [MODEL]: 1_000_000 } });
    const out = await asActivity(async () => model.analyzeSources(await analysisInput(artifacts, 5)));
    expect(Object.values(out.fidelity).every((f) => f.level === 'full')).toBe(true);
  });
});

describe('model-written summaries', () => {
  it('condenses with summaries from the model, caches them by content, and falls back to rules when the model fails', async () => {
    const cacheDir = tmp('dr-tm-cache-');
    const summarization = { ...DEFAULT_FIT_SETTINGS.summarization, enabled: true, cache_dir: cacheDir };
    const first = await setup({ summarization });
    const input = await analysisInput(first.artifacts, 5);
    const out = await asActivity(() => first.model.analyzeSources(input));
    const condensed = Object.entries(out.fidelity).filter(([, f]) => f.level !== 'full');
    expect(condensed.length).toBeGreaterThan(0);
    expect(condensed.every(([, f]) => f.summarized)).toBe(true);
    expect(promptsFor(first.fake, 'content_summary')).toHaveLength(condensed.length);
    expect(promptsFor(first.fake, 'source_analysis')[0]).toContain('Summary: In 2000');
    expect(out.usage.input_tokens).toBeGreaterThan(tokens(promptsFor(first.fake, 'source_analysis')[0]));
    expect(readdirSync(cacheDir)).toHaveLength(condensed.length);

    // The same content again: served from the cache (an artifact), no summarization request.
    const again = await setup({ summarization }, { failSummaries: true });
    const shared: ModelDeps = {
      model: (ref) => ({ provider: createModelProvider({ kind: 'openai', provider: 'openai', model: ref.split(':')[1], baseURL: again.fake.url, apiKey: 'k', structuredOutput: 'auto', timeoutMs: 10_000 }) }),
      defaultModel: () => MODEL,
      pricing: {},
      artifacts: first.artifacts,
      budget: first.settings,
    };
    const cached = await asActivity(() => roleActivitiesOf(shared).analyzeSources(input));
    expect(promptsFor(again.fake, 'content_summary')).toHaveLength(0);
    expect(Object.values(cached.fidelity).filter((f) => f.summarized)).toHaveLength(condensed.length);

    // Summaries down and no cache: rule-based condensing, same budget, nothing summarized.
    const down = await setup({ summarization: { ...summarization, cache_enabled: false } }, { failSummaries: true });
    const out3 = await asActivity(async () => down.model.analyzeSources(await analysisInput(down.artifacts, 5)));
    expect(promptsFor(down.fake, 'content_summary').length).toBeGreaterThan(0);
    expect(Object.values(out3.fidelity).some((f) => f.level !== 'full')).toBe(true);
    expect(Object.values(out3.fidelity).some((f) => f.summarized)).toBe(false);
    expect(promptsFor(down.fake, 'source_analysis')[0]).not.toContain('Summary:');
  });

  it('tries the summarization models in order: a dead first model falls through to the next', async () => {
    const { fake, artifacts, model } = await setup({
      summarization: { ...DEFAULT_FIT_SETTINGS.summarization, enabled: true, cache_enabled: false, models: ['openai:first-choice', 'openai:second-choice'] },
    });
    fake.script.failures = [{ status: 500 }];
    const out = await asActivity(async () => model.analyzeSources(await analysisInput(artifacts, 5)));
    const models = fake.requests.map((r) => (r.body as { model?: string }).model);
    expect(models[0]).toBe('first-choice');
    expect(models).toContain('second-choice');
    expect(Object.values(out.fidelity).some((f) => f.summarized)).toBe(true);
  });
});

describe('allow_content_dropping and the content archive', () => {
  const many = Array.from({ length: 10 }, (_, i) => ({ id: `S${i + 1}`, tokens: 1_000, relevance: 1 - i / 10 }));

  it('never drops when dropping is off (headline at least, over budget said so); drops the lowest when on', () => {
    const kept = allocate(many, 1_000);
    expect(kept.dropped).toEqual([]);
    expect(kept.allocations.slice(5).every((a) => a.level === 'headline')).toBe(true);
    expect(kept.allocations.slice(0, 5).every((a) => a.fidelity >= 0.3)).toBe(true);
    expect(kept.over_budget).toBe(true);
    const dropped = allocate(many, 7_000, { allowDropping: true });
    expect(dropped.dropped).toEqual(['S8', 'S9', 'S10']);
    expect(dropped.over_budget).toBe(false);
    // A user-protected item keeps its headline even when dropping is allowed.
    const guarded = allocate(many.map((s) => (s.id === 'S10' ? { ...s, protected: true } : s)), 7_000, { allowDropping: true });
    expect(guarded.allocations.find((a) => a.id === 'S10')?.level).toBe('headline');
  });

  it('archives dropped and heavily compressed sources before condensing, and records the hash', async () => {
    const dir = tmp('dr-tm-archive-');
    const { artifacts, model } = await setup({
      allow_content_dropping: true,
      model_context_overrides: { [MODEL]: 4_000 },
      summarization: { ...DEFAULT_FIT_SETTINGS.summarization, enabled: false },
      archive: { enabled: true, ttl_hours: 168, dir },
    });
    const input = await analysisInput(artifacts, 8);
    const out = await asActivity(() => model.analyzeSources(input));
    const archived = Object.entries(out.fidelity).filter(([, f]) => f.archive_hash);
    expect(archived.map(([id]) => id)).toContain('S8');
    expect(out.fidelity.S8.level).toBe('dropped');
    const record = JSON.parse(readFileSync(path.join(dir, `${out.fidelity.S8.archive_hash?.replace('sha256:', '')}.json`), 'utf8')) as ArchiveRecord;
    expect(record).toMatchObject({ item_id: 'S8', item_type: 'source', archive_reason: 'dropped', metadata: { url: 'https://site8.example/report', title: 'Solar report 8' } });
    expect(record.content).toContain('solar8 market grew');
    expect(record.original_tokens).toBe(out.fidelity.S8.full_tokens);
  });

  it('expires archive records after content_archive_ttl_hours, and the worker sweeps them at start', async () => {
    const dir = tmp('dr-tm-expire-');
    const now = Date.parse('2026-01-10T00:00:00Z');
    const old = await archiveContent(dir, { content: 'old text', item_id: 'S1', item_type: 'source', archive_reason: 'dropped', original_tokens: 2, metadata: {} }, new Date(now - 8 * 24 * 3_600_000));
    const fresh = await archiveContent(dir, { content: 'fresh text', item_id: 'S2', item_type: 'source', archive_reason: 'compressed', original_tokens: 2, metadata: {} }, new Date(now - 3_600_000));
    expect(await sweepArchive(dir, 168, now)).toEqual({ removed: 1, kept: 1 });
    const file = (hash: string) => path.join(dir, `${hash.replace('sha256:', '')}.json`);
    expect(existsSync(file(old))).toBe(false);
    expect(existsSync(file(fresh))).toBe(true);
    expect(await sweepArchive(dir, 0.5, now)).toEqual({ removed: 1, kept: 0 });

    // At worker start: a record from ten days ago under the configured archive dir disappears.
    const dataDir = tmp('dr-tm-data-');
    const archiveDir = path.join(dataDir, 'research-archive');
    const stale = await archiveContent(archiveDir, { content: 'stale', item_id: 'S9', item_type: 'source', archive_reason: 'dropped', original_tokens: 1, metadata: {} }, new Date(Date.now() - 10 * 24 * 3_600_000));
    writeFileSync(path.join(archiveDir, 'not-a-record.txt'), 'kept: not an archive record');
    utimesSync(path.join(archiveDir, 'not-a-record.txt'), new Date(0), new Date(0));
    const { close } = createActivities({ config: loadConfig({ DEEP_RESEARCH_DATA_DIR: dataDir }) });
    try {
      const staleFile = path.join(archiveDir, `${stale.replace('sha256:', '')}.json`);
      await waitFor('the sweep at start', async () => !existsSync(staleFile));
      expect(existsSync(path.join(archiveDir, 'not-a-record.txt'))).toBe(true);
    } finally {
      await close();
    }
  });
});

describe("seed 001's configuration keys", () => {
  const SEED_DEFAULTS = {
    token_management_enabled: true,
    token_safety_margin: 0.15,
    runtime_overhead: 60_000,
    summarization_provider: null,
    summarization_providers: [],
    summarization_timeout: 60,
    summarization_cache_enabled: true,
    allow_content_dropping: false,
    content_archive_enabled: false,
    content_archive_ttl_hours: 168,
    research_archive_dir: null,
  };

  it('has every key of the seed in configs/config.json and the loaded config, with its default', () => {
    const raw = JSON.parse(readFileSync(path.join(__dirname, '..', 'configs', 'config.json'), 'utf8')) as { research: Record<string, unknown>; budget: Record<string, unknown> };
    expect(raw.research).toMatchObject({ ...SEED_DEFAULTS, summarization_enabled: true, model_context_overrides: {} });
    expect(raw.budget.shares).toEqual({ planning: 0.1, analysis: 0.4, synthesis: 0.35, refinement: 0.15 });
    const config = loadConfig({});
    expect(config.research).toMatchObject(SEED_DEFAULTS);
  });

  it('validates them, keeps the older names working, and maps MODEL_CONTEXT_TOKENS onto every model', () => {
    const dir = tmp('dr-tm-config-');
    const write = (research: Record<string, unknown>, budget: Record<string, unknown> = {}) => {
      const file = path.join(dir, `c${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(file, JSON.stringify({ research, budget, search: {}, fetch: {}, temporal: {} }));
      return { DEEP_RESEARCH_CONFIG: file };
    };
    expect(() => loadConfig(write({ token_safety_margin: 1.5 }))).toThrow(ConfigError);
    expect(() => loadConfig(write({ summarization_provider: 'gemini' }))).toThrow(/summarization_provider/);
    expect(() => loadConfig(write({ content_archive_ttl_hours: -1 }))).toThrow(/content_archive_ttl_hours/);
    expect(() => loadConfig(write({ allow_content_droping: true }))).toThrow(/unknown key/);
    const aliased = loadConfig(write({}, { safety_margin: 0.2, runtime_overhead_tokens: 10_000 }));
    expect([aliased.research.token_safety_margin, aliased.research.runtime_overhead]).toEqual([0.2, 10_000]);
    const seedWins = loadConfig(write({ token_safety_margin: 0.3 }, { safety_margin: 0.2 }));
    expect(seedWins.research.token_safety_margin).toBe(0.3);
    expect(loadConfig({ MODEL_CONTEXT_TOKENS: '5000' }).research.model_context_overrides).toEqual({ '*': 5000 });
  });
});

function roleActivitiesOf(deps: ModelDeps) {
  return roleActivities(createRoleTools(deps));
}
