// The critic, refiner and supervisor activities (and the analyzer's finer confidence) called as
// activities — inside an activity Context, through the AI SDK provider — against the loopback
// model fake over real HTTP. @temporalio/testing is not installed, so the Context is built here.
import { asyncLocalStorage, Context } from '@temporalio/activity';
import { afterEach, describe, expect, it } from 'vitest';
import type { CritiqueFindingsInput, RefineGapsInput, ReflectOnPhaseInput } from '../src/activities/contracts';
import { MAX_REFLECTION_CHARS } from '../src/roles/supervisor';
import type { ModelDeps } from '../src/activities/model-call';
import { createRoleTools } from '../src/activities/role-tools';
import { roleActivities } from '../src/roles';
import { DEFAULT_FIT_SETTINGS } from '../src/context-fit/allocate';
import { createModelProvider } from '../src/providers/model/ai-sdk';
import type { ArtifactStore } from '../src/stores/artifacts';
import { startModel, type FakeModel, type ModelScript } from './harness/model';
import { Recorder } from './harness/recorder';

const MODEL = 'openai:scripted-model';
const TOPIC = 'Heat pump adoption in Europe';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function setup(script: ModelScript = {}, texts: Record<string, string> = {}) {
  const fake = await startModel(new Recorder(), script);
  closers.push(() => fake.close());
  const provider = createModelProvider({
    kind: 'openai',
    provider: 'openai',
    model: 'scripted-model',
    baseURL: fake.url,
    apiKey: 'test-key',
    structuredOutput: 'auto',
    timeoutMs: 10_000,
  });
  const deps: ModelDeps = { model: () => ({ provider }), defaultModel: () => MODEL, pricing: {}, artifacts: textArtifacts(texts), budget: DEFAULT_FIT_SETTINGS };
  return { fake, mind: roleActivitiesOf(deps), model: roleActivitiesOf(deps) };
}

let heartbeats = 0;

/** Runs fn as the worker would run an activity: with a Context that counts heartbeats. */
function asActivity<T>(fn: () => Promise<T>): Promise<T> {
  const args = [
    { activityType: 'test', attempt: 1 },
    new Promise<never>(() => {}),
    new AbortController().signal,
    () => heartbeats++,
    undefined,
    { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
    undefined,
    {},
  ] as unknown as ConstructorParameters<typeof Context>;
  return asyncLocalStorage.run(new Context(...args), fn);
}

function textArtifacts(texts: Record<string, string>): ArtifactStore {
  const missing = () => Promise.reject(new Error('not stored in this test'));
  return { put: missing, get: missing, describe: missing, delete: missing, getText: async (id) => texts[id] ?? missing() };
}

/** The user prompt and schema name of the fake's n-th request. */
function requestOf(fake: FakeModel, n = 0) {
  const body = fake.requests[n].body as { messages: { role: string; content: string }[]; response_format?: { json_schema?: { name?: string } } };
  return { schema: body.response_format?.json_schema?.name, prompt: body.messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n') };
}

const critiqueInput: CritiqueFindingsInput = {
  query: `${TOPIC}?`,
  research_brief: 'Establish how fast heat pumps are adopted and why.',
  outline: ['Overview', 'Costs'],
  findings: [
    { id: 'F1', content: 'Sales grew 40 percent in 2022.', confidence: 'high', source_ids: ['S1'] },
    { id: 'F2', content: 'Sales grew 20 percent in 2022.', confidence: 'confirmed', source_ids: ['S2'] },
  ],
  sources: [
    { id: 'S1', title: 'IEA report', url: 'https://iea.example/heat', tier: 1, quality: 0.9 },
    { id: 'S2', title: 'A blog', url: 'https://blog.example/heat', tier: 3 },
  ],
  revision: 1,
  max_revisions: 2,
  guidance: ['Focus on Germany'],
};

describe('critic: critiqueFindings', () => {
  it('passes sound findings, asking the model for a "critique" with the plan, findings, vetting and guidance', async () => {
    const { fake, mind } = await setup();
    heartbeats = 0;
    const out = await asActivity(() => mind.critiqueFindings(critiqueInput));
    expect(out).toMatchObject({ verdict: 'PASS', missing: [], suggested_queries: [], contradictions: [] });
    expect(out.feedback).toContain(TOPIC);
    expect(out.usage).toMatchObject({ role: 'critic', model: MODEL });
    expect(out.usage.input_tokens).toBeGreaterThan(0);
    expect(heartbeats).toBeGreaterThan(0);
    const { schema, prompt } = requestOf(fake);
    expect(schema).toBe('critique');
    expect(prompt).toContain('- F2 (confirmed) Sales grew 20 percent in 2022. [S2]');
    expect(prompt).toContain('[S1] IEA report — https://iea.example/heat (tier 1, quality 0.9)');
    expect(prompt).toContain('- Focus on Germany');
  });

  it('REVISE carries feedback, what is missing, queries on the topic and the contradiction between findings', async () => {
    const { mind } = await setup({ criticVerdicts: ['REVISE'] });
    const out = await asActivity(() => mind.critiqueFindings(critiqueInput));
    expect(out.verdict).toBe('REVISE');
    expect(out.feedback).toContain(`evidence on ${TOPIC}`);
    expect(out.missing).toEqual([`Primary data on ${TOPIC}`]);
    expect(out.suggested_queries).toEqual([`${TOPIC} primary data 1`, `${TOPIC} official statistics 1`]);
    expect(out.contradictions).toEqual([{ finding_ids: ['F1', 'F2'], description: 'F1 and F2 give different figures.' }]);
  });

  it('drops repeated queries and contradictions about findings it was never shown', async () => {
    const answer = {
      verdict: 'REVISE',
      feedback: '  ',
      missing: ['Costs per household'],
      suggested_queries: ['heat pump cost Germany', 'Heat pump  cost germany ', 'heat pump subsidies'],
      contradictions: [
        { finding_ids: ['F1', 'F9'], description: 'Growth figures disagree.' },
        { finding_ids: ['F7'], description: 'About a finding that does not exist.' },
      ],
    };
    const { mind } = await setup({ answers: [{ object: answer }] });
    const out = await asActivity(() => mind.critiqueFindings(critiqueInput));
    expect(out.suggested_queries).toEqual(['heat pump cost Germany', 'heat pump subsidies']);
    expect(out.contradictions).toEqual([{ finding_ids: ['F1'], description: 'Growth figures disagree.' }]);
    // An empty REVISE feedback falls back to what is missing, so the next round still has a reason.
    expect(out.feedback).toBe('Costs per household');
  });
});

const refineInput: RefineGapsInput = {
  query: `${TOPIC}?`,
  research_brief: 'Establish how fast heat pumps are adopted and why.',
  findings_summary: ['Sales grew 40 percent in 2022 [S1]'],
  open_gaps: [
    { description: 'No cost data', suggested_queries: ['heat pump cost'], priority: 1 },
    { description: 'No policy data', suggested_queries: [], priority: 2 },
  ],
  searched_queries: [`${TOPIC} overview`, `${TOPIC} refined 1`],
  iteration: 2,
  max_iterations: 3,
  critic_feedback: 'Too few primary sources.',
  guidance: ['Prefer official statistics'],
};

describe('refiner: refineGaps', () => {
  it('turns gaps, critique and guidance into new queries, dropping those already searched', async () => {
    const { fake, mind } = await setup();
    const out = await asActivity(() => mind.refineGaps(refineInput));
    // The fake repeats the first searched query in every gap, as a careless model might.
    expect(out.gaps).toEqual([
      { description: 'No cost data', suggested_queries: [`${TOPIC} refined 2`], priority: 1 },
      { description: 'No policy data', suggested_queries: [`${TOPIC} refined 3`], priority: 2 },
      { description: 'Critic: Too few primary sources.', suggested_queries: [`${TOPIC} refined 4`], priority: 3 },
    ]);
    expect(out.rationale).toContain(TOPIC);
    expect(out.usage).toMatchObject({ role: 'refiner', model: MODEL });
    const { schema, prompt } = requestOf(fake);
    expect(schema).toBe('gap_refinement');
    expect(prompt).toContain(`Already searched (do not repeat):\n- ${TOPIC} overview\n- ${TOPIC} refined 1`);
    expect(prompt).toContain('- Prefer official statistics');
  });

  it('matches searched queries regardless of case and spacing, never repeats a query across gaps, and drops gaps left empty', async () => {
    const answer = {
      gaps: [
        { description: 'Lower priority', suggested_queries: ['heat pump noise', 'Heat pump installers'], priority: 5 },
        { description: 'Already covered', suggested_queries: [`  ${TOPIC.toUpperCase()}   overview `], priority: 2 },
        { description: 'Installers', suggested_queries: ['heat pump installers', 'heat pump training'], priority: 1 },
      ],
      rationale: ' Close the cost gap. ',
    };
    const { mind } = await setup({ answers: [{ object: answer }] });
    const out = await asActivity(() => mind.refineGaps(refineInput));
    expect(out.gaps).toEqual([
      { description: 'Installers', suggested_queries: ['heat pump installers', 'heat pump training'], priority: 1 },
      { description: 'Lower priority', suggested_queries: ['heat pump noise'], priority: 5 },
    ]);
    expect(out.rationale).toBe('Close the cost gap.');
  });
});

const reflectInput = (passed: boolean): ReflectOnPhaseInput => ({
  phase: 'gathering',
  summary: { sources: 3, distinct_hosts: 1, failed_fetches: 2 },
  gate: passed ? { passed, failures: [] } : { passed, failures: ['only one host among the sources'] },
});

describe('supervisor: reflectOnPhase', () => {
  it('asks to retry a failed gate when the model says a retry could fix it, with the phase question and metrics in the prompt', async () => {
    const { fake, mind } = await setup({ reflectionRetry: [true] });
    const out = await asActivity(() => mind.reflectOnPhase(reflectInput(false)));
    expect(out).toMatchObject({ reflection: 'The gathering phase failed its gate.', retry: true, guidance_for_next_phase: 'After gathering: keep to the plan.', quality_score: 0.4 });
    expect(out.usage).toMatchObject({ role: 'supervisor', model: MODEL });
    const { schema, prompt } = requestOf(fake);
    expect(schema).toBe('phase_reflection');
    expect(prompt).toContain('Are the sources diverse and credible enough');
    expect(prompt).toContain('"distinct_hosts": 1');
    expect(prompt).toContain('Quality gate failed:\n- only one host among the sources');
  });

  it('never retries a phase whose gate passed, even when the model asks to', async () => {
    const { mind } = await setup({ reflectionRetry: [true] });
    const out = await asActivity(() => mind.reflectOnPhase(reflectInput(true)));
    expect(out.reflection).toBe('The gathering phase passed its gate.');
    expect(out.retry).toBe(false);
  });

  it('keeps the reflection within 600 characters', async () => {
    // Long, each sentence its own (a model saying one sentence twenty times is stopped as a loop: bounded-answers).
    const hosts = ['one host', 'a single blog', 'two wire services', 'a trade body', 'press releases', 'a city paper', 'one ministry', 'a lobby group', 'old filings', 'a forum'];
    const long = hosts.map((h, i) => `Finding ${i + 1} rests on ${h}, so the next round should look for ${i + 2} independent reports that confirm or contradict it. `).join('');
    const { mind } = await setup({ answers: [{ object: { reflection: long, retry: false, guidance_for_next_phase: 'Search wider.' } }] });
    const out = await asActivity(() => mind.reflectOnPhase(reflectInput(false)));
    expect(long.length).toBeGreaterThan(MAX_REFLECTION_CHARS);
    expect(out.reflection.length).toBeLessThanOrEqual(MAX_REFLECTION_CHARS);
    expect(out.reflection.endsWith('…')).toBe(true);
  });
});

describe('analyzer: finer confidence and categories', () => {
  const analyzeInput = {
    query: `${TOPIC}?`,
    research_brief: 'Establish how fast heat pumps are adopted.',
    outline: ['Overview'],
    iteration: 1,
    max_iterations: 2,
    sources: [{ id: 'S1', title: 'IEA report', url: 'https://iea.example/heat', text_file_id: 'text-1' }],
    known_findings: [],
    max_source_chars: 10_000,
  };
  const texts = { 'text-1': 'Heat pump sales in Europe grew 40 percent in 2022.' };

  it("accepts 'confirmed' and 'speculation' with a category, next to findings in the old shape", async () => {
    const answer = {
      findings: [
        { content: 'Sales grew 40 percent in 2022.', confidence: 'confirmed', source_ids: ['S1'], category: 'adoption' },
        { content: 'Sales may double by 2030.', confidence: 'speculation', source_ids: ['S1'], category: null },
        { content: 'Germany leads the market.', confidence: 'medium', source_ids: ['S1'] },
      ],
      gaps: [],
    };
    const { fake, model } = await setup({ answers: [{ object: answer }] }, texts);
    const out = await asActivity(() => model.analyzeSources(analyzeInput));
    expect(out.findings).toEqual([
      { content: 'Sales grew 40 percent in 2022.', confidence: 'high', graded_confidence: 'confirmed', source_ids: ['S1'], category: 'adoption' },
      { content: 'Sales may double by 2030.', confidence: 'low', graded_confidence: 'speculation', source_ids: ['S1'] },
      { content: 'Germany leads the market.', confidence: 'medium', source_ids: ['S1'] },
    ]);
    expect(fake.requests).toHaveLength(1);
    expect(requestOf(fake).prompt).toContain('Heat pump sales in Europe grew 40 percent');
  });
});

describe('analyzer: a source that does not address the question', () => {
  const input = {
    query: `${TOPIC}?`,
    research_brief: 'Establish adoption figures.',
    outline: ['Adoption'],
    iteration: 1,
    max_iterations: 2,
    sources: [
      { id: 'S1', title: 'IEA report', url: 'https://iea.example/heat', text_file_id: 'text-1' },
      { id: 'S2', title: 'Black Friday deals', url: 'https://deals.example/bf', text_file_id: 'text-2' },
    ],
    known_findings: [],
    max_source_chars: 10_000,
  };
  const texts = { 'text-1': 'Heat pump sales in Europe grew 40 percent in 2022.', 'text-2': 'Black Friday: heat guns and air fryers at 40 percent off.' };

  it('is said so, with why, and no finding keeps it as evidence', async () => {
    const answer = {
      findings: [
        { content: 'Sales grew 40 percent in 2022.', confidence: 'high', source_ids: ['S1', 'S2'] },
        { content: 'Air fryers are 40 percent off.', confidence: 'medium', source_ids: ['S2'] },
      ],
      gaps: [],
      not_addressing: [
        { source_id: 'S2', reason: 'A list of shopping deals, not about heat pump adoption.' },
        { source_id: 'S9', reason: 'Not given.' },
      ],
    };
    const { fake, model } = await setup({ answers: [{ object: answer }] }, texts);
    const out = await asActivity(() => model.analyzeSources(input));
    expect(out.findings).toEqual([{ content: 'Sales grew 40 percent in 2022.', confidence: 'high', source_ids: ['S1'] }]);
    expect(out.not_addressing).toEqual({ S2: 'A list of shopping deals, not about heat pump adoption.' });
    expect(requestOf(fake).prompt).toContain('Black Friday');
  });

  it('an answer without the field reads as before', async () => {
    const { model } = await setup({ answers: [{ object: { findings: [{ content: 'Sales grew 40 percent in 2022.', confidence: 'high', source_ids: ['S1'] }], gaps: [] } }] }, texts);
    const out = await asActivity(() => model.analyzeSources(input));
    expect(out.not_addressing).toBeUndefined();
    expect(out.findings).toHaveLength(1);
  });
});

describe('planner: a second clarification round', () => {
  const answered = [
    { question: 'Which region should the research focus on?', answer: 'Germany' },
    { question: 'Which time span matters?', answer: 'Since 2020' },
  ];

  it('never asks again what the user answered, however the model rewords it; a new question stays', async () => {
    const { fake, model } = await setup({ reaskClarifications: true });
    const out = await asActivity(() => model.decomposeQuery({ researchId: 'r', query: `${TOPIC}?`, clarifications: answered, feedback: [] }));
    const asked = (requestOf(fake).prompt.match(/^- Q: .+$/gm) ?? []).length;
    expect(asked).toBe(2);
    expect(requestOf(fake).prompt).toContain('already answered: do not ask them again');
    expect(out.plan.clarifying_questions).toEqual(['Which sources do you trust most?']);
  });

  it('keeps every question in a first round, when nothing is answered yet', async () => {
    const { model } = await setup({ clarify: true });
    const out = await asActivity(() => model.decomposeQuery({ researchId: 'r', query: `${TOPIC}?`, clarifications: [], feedback: [] }));
    expect(out.plan.clarifying_questions).toEqual(['Which region should the research focus on?', 'Which time span matters?']);
  });
});

function roleActivitiesOf(deps: ModelDeps) {
  return roleActivities(createRoleTools(deps));
}
