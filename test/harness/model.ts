// A scripted OpenAI-compatible chat-completions endpoint. It answers by the JSON schema name the
// client asks for (research_plan, source_analysis, report_patch), deterministically, from what the
// prompt says — so a run over the harness is reproducible and every call is counted.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody, type Recorder } from './recorder';

export interface ModelScript {
  /** The first plan asks clarifying questions. */
  clarify?: boolean;
  /** Analyses report gaps while the iteration is at most this. */
  gapIterations?: number;
  /** Number of expanded queries in a plan. */
  queries?: number;
  /** The writer cites a source that was never fetched. */
  fabricateCitation?: boolean;
  delayMs?: number;
  /** Answer the next calls with these HTTP errors, in order. */
  failures?: { status: number; retryAfter?: string; body?: unknown }[];
  /** Expected bearer token; other tokens get a 401. */
  apiKey?: string;
}

export interface FakeModel {
  url: string;
  script: ModelScript;
  close(): Promise<void>;
}

interface ChatRequest {
  model: string;
  messages: { role: string; content: string | { type: string; text?: string }[] }[];
  response_format?: { type: string; json_schema?: { name?: string } };
}

const text = (c: ChatRequest['messages'][number]['content']) => (typeof c === 'string' ? c : c.map((p) => p.text ?? '').join(''));

export function topicOf(prompt: string): string {
  const m = /Question:\n([\s\S]*?)(\n\n|$)/.exec(prompt) ?? /Research question:\n([\s\S]*?)(\n\n|$)/.exec(prompt);
  return (m?.[1] ?? 'the topic').trim().replace(/[?.!]+$/, '');
}

function plan(prompt: string, script: ModelScript) {
  const topic = topicOf(prompt);
  const answered = prompt.includes('Answers to clarifying questions');
  const feedback = /Reviewer feedback[^\n]*\n([\s\S]*)$/.exec(prompt)?.[1]?.split('\n').map((l) => l.replace(/^- /, '').trim()).filter(Boolean) ?? [];
  const answers = [...prompt.matchAll(/ {2}A: (.+)/g)].map((m) => m[1]);
  const n = script.queries ?? 3;
  const facets = ['overview', 'costs', 'policy', 'history', 'risks', 'outlook'];
  const queries = facets.slice(0, n).map((f, i) => ({ query: `${topic} ${f}${answers.length ? ` (${answers.join(', ')})` : ''}`, rationale: `Covers the ${f} of the question.`, priority: i + 1 }));
  for (const f of feedback) queries.unshift({ query: `${topic} ${f}`, rationale: 'Asked for in the review.', priority: 1 });
  return {
    clarifying_questions: script.clarify && !answered ? ['Which region should the research focus on?', 'Which time span matters?'] : [],
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
  const findings = sources.map((s) => {
    const sentence = /[^.\n]*\d+ percent[^.\n]*\./.exec(s.text)?.[0]?.trim() ?? s.text.slice(0, 120);
    return { content: sentence, confidence: 'high' as const, source_ids: [s.id] };
  });
  const gaps =
    iteration <= (script.gapIterations ?? 1) && sources.length > 0
      ? [{ description: `Too little on ${topic} after ${sources[0].id}`, suggested_queries: [`${topic} follow-up ${iteration} ${sources[0].id}`], priority: 1 }]
      : [];
  return { findings, gaps };
}

function reportPatch(prompt: string, script: ModelScript) {
  const sections = [...(/Outline sections: (.*)/.exec(prompt)?.[1] ?? '"Overview"').matchAll(/"([^"]+)"/g)].map((m) => m[1]);
  const findings = [...(/New findings:\n([\s\S]*?)\n\n/.exec(prompt)?.[1] ?? '').matchAll(/^- \(\w+\) (.*) \[([^\]]*)\]$/gm)].map((m) => ({ content: m[1], ids: m[2] }));
  const patches = findings.map((f, i) => ({ section: sections[i % sections.length], markdown: `- ${f.content} [${f.ids}]` }));
  if (script.fabricateCitation && patches.length) patches[0].markdown += ' Also confirmed elsewhere [S999].';
  return { patches };
}

export async function startModel(recorder: Recorder, script: ModelScript = {}): Promise<FakeModel> {
  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const entry = recorder.begin('model', req, createHash('sha256').update(raw).digest('hex'));
    res.on('close', () => (entry.end ??= Date.now()));
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      entry.status = status;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body), () => (entry.end = Date.now()));
    };
    if (req.url === '/v1/models' && req.method === 'GET') return send(200, { object: 'list', data: [{ id: 'scripted-model', object: 'model', owned_by: 'harness' }] });
    if (req.url !== '/v1/chat/completions' || req.method !== 'POST') return send(404, { error: { message: 'not found' } });
    if (script.apiKey && req.headers.authorization !== `Bearer ${script.apiKey}`) {
      return send(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
    }
    const failure = script.failures?.shift();
    if (failure) {
      return send(failure.status, failure.body ?? { error: { message: `scripted ${failure.status}`, type: 'server_error' } }, failure.retryAfter ? { 'retry-after': failure.retryAfter } : {});
    }
    const body = JSON.parse(raw) as ChatRequest;
    const prompt = body.messages.filter((m) => m.role === 'user').map((m) => text(m.content)).join('\n');
    const name = body.response_format?.json_schema?.name;
    const answer =
      name === 'research_plan' ? plan(prompt, script) : name === 'source_analysis' ? analysis(prompt, script) : name === 'report_patch' ? reportPatch(prompt, script) : undefined;
    if (!answer) return send(400, { error: { message: `unknown response_format ${name}`, type: 'invalid_request_error' } });
    const content = JSON.stringify(answer);
    const respond = () =>
      send(200, {
        id: `chatcmpl-${entry.key.slice(0, 12)}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: Math.ceil(raw.length / 4), completion_tokens: Math.ceil(content.length / 4), total_tokens: Math.ceil((raw.length + content.length) / 4) },
      });
    if (script.delayMs) setTimeout(respond, script.delayMs);
    else respond();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    script,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
