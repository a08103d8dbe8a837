// A scripted OpenAI-compatible chat-completions endpoint. It answers by the JSON schema name the
// client asks for (research_plan, source_analysis, report_patch, critique, gap_refinement,
// phase_reflection), deterministically, from what the prompt says — so a run over the harness is
// reproducible and every call is counted. Non-streaming clients get one chat.completion; streaming
// ones get chat.completion.chunk events, the usage chunk when stream_options.include_usage is set,
// then [DONE]. A forced tool call is answered with tool_calls; a request with neither schema nor
// tool gets the JSON as text.
import type { Recorder } from './recorder';
import {
  EventStream,
  nextAnswer,
  payloadOf,
  pieces,
  renderAnswer,
  retryHeaders,
  sleep,
  startFakeServer,
  textOf,
  usageFor,
  type CapturedRequest,
  type Exchange,
  type ProviderScript,
  type ScriptedAnswer,
} from './model-script';
import { claimSupport, contentSummary, fakeEmbedding, inputCheck, panelAnswer, panelSynthesis, topicOf } from './model-answers';

import { localServerInfo, localServerOverflow, localServerRefusal, type LocalServerKind } from './local-servers';
import { triageByWords } from './triage-answers';

export { EMBEDDING_CONCEPTS, fakeEmbedding, topicOf } from './model-answers';

export interface ModelScript extends ProviderScript {
  /** The writer puts nothing into these outline sections unless the prompt names them as still empty. */
  writerSkips?: string[];
  /** The writer puts nothing into `writerSkips` even when the prompt names them as still empty. */
  stubbornWriter?: boolean;
  /** The writer names sections its own way: numbered and upper-cased ("2. COSTS AND TRENDS"), as a real model may. */
  numberedHeadings?: boolean;
  /** Reading again for an empty section, the analyst also names a gap (after the loop decided to finish). */
  gapWhileFilling?: boolean;
  /** The first plan asks clarifying questions. */
  clarify?: boolean;
  /** A careless planner: after answers, asks the answered questions again (reworded) beside a new one. */
  reaskClarifications?: boolean;
  /** Analyses report gaps while the iteration is at most this. */
  gapIterations?: number;
  /**
   * A niche question's evidence: the analyzer rates every source and every finding medium (no
   * primary data, nothing it would call high), so gates asking for high quality cannot pass.
   */
  mediumEvidence?: boolean;
  /** The supervisor asks to retry every failed gate, as a model that trusts a retry would. */
  retryFailedGates?: boolean;
  /**
   * A summarising writer: of each batch it writes the first finding only, always into the first
   * outline section, and says a claim already in the report again with a leading space.
   */
  thinWriter?: boolean;
  /** Number of expanded queries in a plan. */
  queries?: number;
  /** The writer cites a source that was never fetched. */
  fabricateCitation?: boolean;
  /** The writer attaches a claim to a source that does not say it. */
  misattributeClaim?: boolean;
  /** The critic's verdicts, consumed in order; PASS once they run out. */
  criticVerdicts?: ('PASS' | 'REVISE')[];
  /** The supervisor's retry answers, consumed in order; false once they run out. */
  reflectionRetry?: boolean[];
  /** A careless writer: cites in every shape, invents ids in every shape, repeats itself, never writes the last section. */
  carelessWriter?: boolean;
  /** The analyzer states each finding twice, the second time reworded. */
  repeatFindings?: boolean;
  /** Extra latency per call, by schema name and prompt (e.g. to make some branches finish last). */
  delayFor?: (name: string | undefined, prompt: string) => number;
  /** Holds a call's answer until the promise settles (e.g. until a test has queued everything it means to). */
  holdFor?: (name: string | undefined, prompt: string) => Promise<unknown> | undefined;
  /** Summarization requests (content_summary) fail with a 500. */
  failSummaries?: boolean;
  /** The local server it stands for: its refusals (test/harness/local-servers.ts). */
  server?: LocalServerKind;
  /** The context window that server runs the model with: said where that server says it, and prompts past it refused as it refuses them. */
  contextWindow?: number;
  /** Answers of its own (e.g. the real-page world's grounded model); undefined falls back to the script. */
  respond?: (name: string | undefined, prompt: string) => unknown;
}

export interface FakeModel {
  url: string;
  script: ModelScript;
  requests: CapturedRequest[];
  /** What clients read of it (its model list, its window): no model calls. */
  reads: CapturedRequest[];
  close(): Promise<void>;
}

interface ChatRequest {
  model: string;
  messages: { role: string; content: unknown }[];
  response_format?: { type: string; json_schema?: { name?: string } };
  tools?: { type: string; function: { name: string } }[];
  tool_choice?: string | { type: string; function?: { name?: string } };
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
}

function plan(prompt: string, script: ModelScript) {
  const topic = topicOf(prompt);
  const answered = prompt.includes('Answers to clarifying questions');
  const feedback = /Reviewer feedback[^\n]*\n([\s\S]*)$/.exec(prompt)?.[1]?.split('\n').map((l) => l.replace(/^- /, '').trim()).filter(Boolean) ?? [];
  const answers = [...prompt.matchAll(/ {2}A: (.+)/g)].map((m) => m[1]);
  const n = script.queries ?? 3;
  const facets = ['overview', 'costs', 'policy', 'history', 'risks', 'outlook'];
  const queries = facets.slice(0, n).map((f, i) => ({ query: `${topic} ${f}${answers.length ? ` (${answers.join(', ')})` : ''}`, rationale: `Covers the ${f} of the question.`, priority: i + 1 }));
  // A plan shaped by the user's own documents builds on the first of them.
  const known = /The user's own documents[^\n]*\n- ([^:\n]+):/.exec(prompt)?.[1];
  if (known) queries.unshift({ query: `${topic} beyond ${known}`, rationale: 'Builds on what the user already has.', priority: 1 });
  for (const f of feedback) queries.unshift({ query: `${topic} ${f}`, rationale: 'Asked for in the review.', priority: 1 });
  const asked = [...prompt.matchAll(/^- Q: (.+)$/gm)].map((m) => m[1]);
  const reasked = [...asked.map((q) => q.replace(/^Which/, 'What').replace(/\?$/, ', exactly?')), ...asked.map((q) => ` ${q.toLowerCase()} `), 'Which sources do you trust most?'];
  return {
    clarifying_questions: script.clarify && !answered ? ['Which region should the research focus on?', 'Which time span matters?'] : script.reaskClarifications && answered ? reasked : [],
    expanded_queries: queries,
    outline: ['Overview', 'Costs and trends', 'Policy'],
    research_brief: `Establish what is known about ${topic}.`,
    assumptions: answered ? [] : ['Global scope unless stated otherwise.'],
  };
}

function analysis(prompt: string, script: ModelScript) {
  const topic = topicOf(prompt);
  const iteration = Number(/Iteration (\d+) of/.exec(prompt)?.[1] ?? 1);
  const sources = [...prompt.matchAll(/<source id="(S\d+)"[^>]*>\n([\s\S]*?)\n<\/source>/g)].map((m) => ({ id: m[1], text: m[2] }));
  // Asked for one section of the report, the analyst reads on past the sentence it took before.
  const forSection = /The report's section "([^"]+)" has nothing yet/.exec(prompt)?.[1];
  const findings = sources.map((s) => {
    const sentences = s.text.match(/[^.\n]*\d[^.\n]*\./g) ?? [];
    const first = /[^.\n]*\d+ percent[^.\n]*\./.exec(s.text)?.[0]?.trim() ?? s.text.slice(0, 120);
    const sentence = forSection ? `${forSection}: ${(sentences.find((x) => x.trim() !== first) ?? s.text.slice(120, 240)).trim()}` : first;
    return { content: sentence, confidence: script.mediumEvidence ? ('medium' as const) : ('high' as const), source_ids: [s.id] };
  });
  const gaps =
    (iteration <= (script.gapIterations ?? 1) || (forSection && script.gapWhileFilling)) && sources.length > 0
      ? [{ description: `Too little on ${topic} after ${sources[0].id}`, suggested_queries: [`${topic} follow-up ${iteration} ${sources[0].id}`], priority: 1 }]
      : [];
  // The first source carries primary data; the others are commentary.
  if (script.repeatFindings) findings.push(...findings.map((f) => ({ ...f, content: `Notably, ${f.content.charAt(0).toLowerCase()}${f.content.slice(1)}` })));
  const source_quality = sources.map((src, i) => ({ source_id: src.id, quality: i === 0 && !script.mediumEvidence ? ('high' as const) : ('medium' as const) }));
  return { findings, gaps, source_quality };
}

function reportPatch(prompt: string, script: ModelScript) {
  const sections = [...(/Outline sections: (.*)/.exec(prompt)?.[1] ?? '"Overview"').matchAll(/"([^"]+)"/g)].map((m) => m[1]);
  const findings = [...(/New findings:\n([\s\S]*?)\n\n/.exec(prompt)?.[1] ?? '').matchAll(/^- \(\w+\) (.*) \[([^\]]*)\]$/gm)].map((m) => ({ content: m[1], ids: m[2] }));
  if (script.carelessWriter) return carelessPatch(prompt, sections, findings, script);
  const stillEmpty = [...(/Still empty[^:]*: (.*)/.exec(prompt)?.[1] ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1]);
  if (script.thinWriter && !stillEmpty.length) {
    const again = /^- (.*\[S\d+\].*)$/m.exec(/Current report:\n([\s\S]*)$/.exec(prompt)?.[1] ?? '')?.[1];
    return { patches: [...findings.slice(0, 1).map((f) => ({ section: sections[0], markdown: `- ${f.content} [${f.ids}]` })), ...(again ? [{ section: sections[0], markdown: ` ${again}` }] : [])] };
  }
  const writable = stillEmpty.length && !script.stubbornWriter ? stillEmpty : sections.filter((t) => !script.writerSkips?.includes(t));
  const heading = (title: string) => (script.numberedHeadings ? `${sections.indexOf(title) + 1}. ${title.toUpperCase()}` : title);
  const patches = findings.map((f, i) => ({ section: heading(writable[i % writable.length]), markdown: `- ${f.content} [${f.ids}]` }));
  if (script.fabricateCitation && patches.length) patches[0].markdown += ' Also confirmed elsewhere [S999].';
  const firstId = findings[0]?.ids.split(/,\s*/)[0];
  if (script.misattributeClaim && firstId) patches.push({ section: sections[0], markdown: `- Volcanic output reached 987654 gigawatts across Antarctica in 1850 [${firstId}].` });
  return { patches };
}

/** Invented citations, one per shape a model writes; each must be removed from the report. */
export const INVENTED_CITATIONS = ['[S901]', '[902]', '[src-903]', '(Source 904)', '[^905]', '[S906][S907]', '[a study](https://invented.example/a)', 'https://invented.example/b'];

function carelessPatch(prompt: string, sections: string[], findings: { content: string; ids: string }[], script: ModelScript) {
  const urls = new Map([...prompt.matchAll(/^- \[(S\d+)\] .* — (\S+)$/gm)].map((m) => [m[1], m[2]]));
  const writable = sections.slice(0, Math.max(1, sections.length - 1));
  // Real sources cited in every shape, in turn.
  const shapes = [
    (n: string) => `[S${n}]`,
    (n: string) => `[${n}]`,
    (n: string) => `[src-${n}]`,
    (n: string) => `(Source ${n})`,
    (n: string) => `[S${n}][S${n}]`,
    (n: string) => (urls.get(`S${n}`) ? `[see](${urls.get(`S${n}`)})` : `[S${n}]`),
  ];
  const patches = findings.map((f, i) => {
    const n = f.ids.split(/,\s*/)[0].replace(/^S/, '');
    return { section: writable[i % writable.length], markdown: `- ${f.content} ${shapes[i % shapes.length](n)}` };
  });
  // It says the first finding again, word for word, in the same answer.
  if (findings[0]) patches.push({ section: writable[0], markdown: `- ${findings[0].content} [${findings[0].ids}]` });
  // And repeats a line already in the report.
  const current = /Current report:\n([\s\S]*)$/.exec(prompt)?.[1] ?? '';
  const previous = /^- (.*\[S\d+\].*)$/m.exec(current)?.[1];
  if (previous) patches.push({ section: writable[0], markdown: `- ${previous}` });
  const batch = Number(/\[S(\d+)/.exec(findings[0]?.ids ?? '')?.[1] ?? findings.length);
  patches.push({
    section: writable[0],
    markdown: INVENTED_CITATIONS.map((c, i) => `- Invented claim ${i + 1} of batch ${batch} about regional output ${c}.`).join('\n'),
  });
  const firstId = findings[0]?.ids.split(/,\s*/)[0];
  if (script.misattributeClaim && firstId) patches.push({ section: writable[0], markdown: `- Volcanic output reached 987654 gigawatts across Antarctica in 1850 [${firstId}].` });
  return { patches };
}

function critique(prompt: string, script: ModelScript) {
  const topic = topicOf(prompt);
  const verdict = script.criticVerdicts?.shift() ?? 'PASS';
  const review = Number(/Review (\d+) of/.exec(prompt)?.[1] ?? 1);
  const findingIds = [...prompt.matchAll(/^- (F\d+) /gm)].map((m) => m[1]);
  if (verdict === 'PASS') return { verdict, feedback: `The findings answer ${topic}.`, missing: [], suggested_queries: [], contradictions: [] };
  return {
    verdict,
    feedback: `Review ${review}: the evidence on ${topic} rests on too few primary sources.`,
    missing: [`Primary data on ${topic}`],
    suggested_queries: [`${topic} primary data ${review}`, `${topic} official statistics ${review}`],
    contradictions: findingIds.length >= 2 ? [{ finding_ids: findingIds.slice(0, 2), description: `${findingIds[0]} and ${findingIds[1]} give different figures.` }] : [],
  };
}

// Like a careless model, it repeats an already searched query: the activity must drop it.
function gapRefinement(prompt: string) {
  const topic = topicOf(prompt);
  const searched = (/Already searched[^\n]*\n([\s\S]*?)(\n\n|$)/.exec(prompt)?.[1] ?? '').split('\n').map((l) => l.replace(/^- /, '').trim()).filter((l) => l && l !== '(nothing yet)');
  const openGaps = (/Open gaps:\n([\s\S]*?)(\n\n|$)/.exec(prompt)?.[1] ?? '').split('\n').map((l) => /^- \(priority \d+\) (.*?)(?: — suggested: .*)?$/.exec(l)?.[1]).filter((d): d is string => Boolean(d));
  const feedback = /Critic's feedback:\n([^\n]*)/.exec(prompt)?.[1];
  const descriptions = [...openGaps, ...(feedback ? [`Critic: ${feedback}`] : [])];
  let n = searched.filter((q) => q.startsWith(`${topic} refined `)).length;
  const gaps = (descriptions.length ? descriptions : [`More on ${topic}`]).map((description, i) => ({
    description,
    suggested_queries: [`${topic} refined ${++n}`, ...(searched[0] ? [searched[0]] : [])],
    priority: i + 1,
  }));
  return { gaps, rationale: `Next round on ${topic}: ${gaps.length} gap(s).` };
}

function phaseReflection(prompt: string, script: ModelScript) {
  const phase = /Phase: (\w+)/.exec(prompt)?.[1] ?? 'unknown';
  const passed = /Quality gate passed/.test(prompt);
  return {
    reflection: `The ${phase} phase ${passed ? 'passed its gate' : 'failed its gate'}.`,
    retry: script.reflectionRetry?.shift() ?? (script.retryFailedGates === true && !passed),
    guidance_for_next_phase: `After ${phase}: keep to the plan.`,
    quality_score: passed ? 0.8 : 0.4,
  };
}

/** The schema name a request asks for: its response_format, its forced tool, or the text-mode instruction. */
function requestedName(body: ChatRequest): string | undefined {
  if (body.response_format?.json_schema?.name) return body.response_format.json_schema.name;
  if (typeof body.tool_choice === 'object' && body.tool_choice.function?.name) return body.tool_choice.function.name;
  const system = body.messages.filter((m) => m.role === 'system').map((m) => textOf(m.content)).join('\n');
  return /JSON object "(\w+)"/.exec(system)?.[1];
}

function scriptedObject(name: string | undefined, prompt: string, script: ModelScript): unknown {
  const own = script.respond?.(name, prompt);
  if (own !== undefined) return own;
  if (name === 'panel_answer') return panelAnswer(prompt);
  if (name === 'panel_synthesis') return panelSynthesis(prompt);
  if (name === 'input_check') return inputCheck(prompt);
  if (name === 'input_improvement') return { improved_prompt: `${(/Research question:\n([\s\S]*)$/.exec(prompt)?.[1] ?? '').trim()} (scoped: Europe, since 2015)` };
  if (name === 'research_plan') return plan(prompt, script);
  if (name === 'source_analysis') return analysis(prompt, script);
  if (name === 'report_patch') return reportPatch(prompt, script);
  if (name === 'critique') return critique(prompt, script);
  if (name === 'gap_refinement') return gapRefinement(prompt);
  if (name === 'phase_reflection') return phaseReflection(prompt, script);
  if (name === 'claim_support') return claimSupport(prompt);
  if (name === 'content_summary') return contentSummary(prompt);
  if (name === 'source_triage') return triageByWords(prompt);
  return undefined;
}

export async function startModel(recorder: Recorder, script: ModelScript = {}): Promise<FakeModel> {
  const server = await startFakeServer(recorder, async (exchange) => {
    const { req, body: parsed, raw, entry, sendJson } = exchange;
    const info = script.server && script.contextWindow ? localServerInfo(script.server, script.contextWindow, req.method ?? 'GET', req.url ?? '/', String(parsed.model ?? 'scripted-model')) : undefined;
    if (info) return sendJson(info.status, info.body);
    if (req.url === '/v1/models' && req.method === 'GET') return sendJson(200, { object: 'list', data: [{ id: 'scripted-model', object: 'model', owned_by: 'harness' }] });
    if (req.url === '/v1/embeddings' && req.method === 'POST') {
      const { input, model } = parsed as unknown as { input: string | string[]; model: string };
      const inputs = Array.isArray(input) ? input : [input];
      return sendJson(200, {
        object: 'list',
        data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text) })),
        model,
        usage: { prompt_tokens: inputs.join(' ').length, total_tokens: inputs.join(' ').length },
      });
    }
    if (req.url !== '/v1/chat/completions' || req.method !== 'POST') return sendJson(404, { error: { message: 'not found' } });
    if (script.apiKey && req.headers.authorization !== `Bearer ${script.apiKey}`) {
      return sendJson(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
    }
    const body = parsed as unknown as ChatRequest;
    const overflow = script.server && script.contextWindow ? localServerOverflow(script.server, script.contextWindow, Math.ceil(raw.length / 4)) : undefined;
    if (overflow) return sendJson(overflow.status, overflow.body);
    const refusal = script.server ? localServerRefusal(script.server, body) : undefined;
    if (refusal) return sendJson(refusal.status, refusal.body);
    const name = requestedName(body);
    const failure = script.failures?.shift() ?? script.failFor?.(name);
    if (failure) {
      const error = { message: failure.message ?? `scripted ${failure.status}`, type: failure.type ?? 'server_error', code: failure.code };
      return sendJson(failure.status, failure.body ?? { error }, retryHeaders(failure));
    }
    const prompt = body.messages.filter((m) => m.role === 'user').map((m) => textOf(m.content)).join('\n');
    if (name === 'content_summary' && script.failSummaries) return sendJson(500, { error: { message: 'summaries are down', type: 'server_error' } });
    const answer: ScriptedAnswer | undefined = nextAnswer(script) ?? wrapObject(scriptedObject(name, prompt, script));
    if (!answer) return sendJson(400, { error: { message: `unknown response_format ${name}`, type: 'invalid_request_error' } });
    const toolName = typeof body.tool_choice === 'object' ? body.tool_choice.function?.name : undefined;
    if (script.delayMs) await sleep(script.delayMs);
    const extraDelay = script.delayFor?.(name, prompt) ?? 0;
    if (extraDelay > 0) await sleep(extraDelay);
    await script.holdFor?.(name, prompt);
    if (body.stream) return streamAnswer(exchange, body, answer, toolName, script);
    const content = answer.blocked ? '' : toolName ? payloadOf(answer) : renderAnswer(answer);
    const usage = usageFor(script, raw, content);
    sendJson(200, {
      id: `chatcmpl-${entry.key.slice(0, 12)}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [
        {
          index: 0,
          message: toolName && !answer.blocked
            ? { role: 'assistant', content: null, tool_calls: [{ id: `call_${entry.key.slice(0, 8)}`, type: 'function', function: { name: toolName, arguments: content } }] }
            : { role: 'assistant', content },
          finish_reason: answer.blocked ? 'content_filter' : toolName ? 'tool_calls' : 'stop',
        },
      ],
      usage: {
        prompt_tokens: usage.input,
        completion_tokens: usage.output,
        total_tokens: Math.ceil((raw.length + content.length) / 4),
        ...(script.usage ? usageDetails(usage) : {}),
      },
    });
  });
  return { url: `${server.url}/v1`, script, requests: server.requests, reads: server.reads, close: server.close };
}

const wrapObject = (object: unknown): ScriptedAnswer | undefined => (object === undefined ? undefined : { object });

const usageDetails = (usage: ReturnType<typeof usageFor>) => ({
  prompt_tokens_details: { cached_tokens: usage.cached },
  completion_tokens_details: { reasoning_tokens: usage.reasoning },
});

async function streamAnswer(exchange: Exchange, body: ChatRequest, answer: ScriptedAnswer, toolName: string | undefined, script: ModelScript) {
  const stream = new EventStream(exchange, script.chunkDelayMs);
  const id = `chatcmpl-${exchange.entry.key.slice(0, 12)}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({ id, object: 'chat.completion.chunk', created, model: body.model, choices, ...extra });
  const delta = (d: Record<string, unknown>, finish: string | null = null) => chunk([{ index: 0, delta: d, finish_reason: finish }]);

  await stream.send(delta({ role: 'assistant', content: '' }));
  let written = '';
  // Stamped before the last chunk: the client cannot have the whole answer before this moment.
  const answered = () => (exchange.entry.answered ??= Date.now());
  if (answer.blocked) {
    answered();
    await stream.send(delta({}, 'content_filter'));
  } else if (toolName) {
    if (answer.think) await stream.send(delta({ content: `<think>${answer.think}</think>` }));
    const callId = `call_${exchange.entry.key.slice(0, 8)}`;
    await stream.send(delta({ tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: toolName, arguments: '' } }] }));
    written = payloadOf(answer);
    for (const part of pieces(written)) await stream.send(delta({ tool_calls: [{ index: 0, function: { arguments: part } }] }));
    answered();
    await stream.send(delta({}, 'tool_calls'));
  } else {
    written = renderAnswer(answer);
    for (const part of pieces(written)) await stream.send(delta({ content: part }));
    answered();
    await stream.send(delta({}, 'stop'));
  }
  if (body.stream_options?.include_usage) {
    const usage = usageFor(script, exchange.raw, written);
    await stream.send(
      chunk([], { usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output, ...usageDetails(usage) } }),
    );
  }
  await stream.send('[DONE]');
  stream.end();
}
