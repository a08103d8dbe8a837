// What the loopback model fakes (OpenAI, Anthropic, Gemini) share: per-test scripts of answers,
// failures and usage, the requests they saw, and server-sent-event plumbing.
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody, type Recorder, type RecordedRequest } from './recorder';

export interface ScriptedAnswer {
  /** Answered as its JSON. */
  object?: unknown;
  /** Answered as is (for malformed answers); wins over object. */
  text?: string;
  /** Put before the answer as a <think>…</think> block. */
  think?: string;
  /** Wrap the answer in a ```json fence. */
  fence?: boolean;
  /** Withhold the answer for the content policy (Gemini promptFeedback, OpenAI finish_reason content_filter). */
  blocked?: boolean;
}

export interface ScriptedFailure {
  status: number;
  retryAfter?: string;
  retryAfterMs?: string;
  /** The provider's error type (Anthropic error.type, OpenAI error.type, Gemini error.status). */
  type?: string;
  /** OpenAI's error.code, e.g. context_length_exceeded. */
  code?: string;
  message?: string;
  /** The whole error body, instead of one built from type/code/message. */
  body?: unknown;
}

export interface ScriptedUsage {
  input?: number;
  output?: number;
  cached?: number;
  reasoning?: number;
}

export interface ProviderScript {
  /** Answers in order; the last one repeats. */
  answers?: ScriptedAnswer[];
  /** Answer the next calls with these HTTP errors, in order, before any answer. */
  failures?: ScriptedFailure[];
  /** A failure for every request of a kind (its response_format name), while set. */
  failFor?: (name: string | undefined) => ScriptedFailure | undefined;
  /** Expected API key; other keys get a 401. */
  apiKey?: string;
  usage?: ScriptedUsage;
  /** Wait before answering at all. */
  delayMs?: number;
  /** Wait between streamed chunks. */
  chunkDelayMs?: number;
  /** Break the stream after its first event with this error event (Anthropic). */
  streamError?: { type: string; message: string };
}

export interface CapturedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  raw: string;
  body: Record<string, unknown>;
  entry: RecordedRequest;
  sendJson(status: number, body: unknown, headers?: Record<string, string>): void;
}

export interface FakeServer {
  url: string;
  /** Every call (a POST to the API), in order, with its parsed JSON body. */
  requests: CapturedRequest[];
  /** What clients read of the server (GET, Ollama's POST /api/show): its model list, its window. */
  reads: CapturedRequest[];
  close(): Promise<void>;
}

/** A loopback server that records each request (as server 'model') and hands it to the handler. */
export async function startFakeServer(recorder: Recorder, handle: (exchange: Exchange) => void | Promise<void>): Promise<FakeServer> {
  const requests: CapturedRequest[] = [];
  const reads: CapturedRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    // What a client reads of the server (its models, its window) is no model call: not recorded as one.
    if (isServerRead(req.method, req.url)) {
      reads.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: parseJsonObject(raw) });
      const sendJson = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      await handle({ req, res, raw, body: parseJsonObject(raw), entry: { key: 'read' } as Exchange['entry'], sendJson });
      return;
    }
    const entry = recorder.begin('model', req, createHash('sha256').update(raw).digest('hex'));
    res.on('close', () => (entry.end ??= Date.now()));
    const body = parseJsonObject(raw);
    requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body });
    const sendJson = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      entry.status = status;
      entry.answered ??= Date.now();
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(payload), () => (entry.end = Date.now()));
    };
    await handle({ req, res, raw, body, entry, sendJson });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reads,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function isServerRead(method: string | undefined, url: string | undefined): boolean {
  return method === 'GET' || method === 'HEAD' || (url ?? '').startsWith('/api/show');
}

function parseJsonObject(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function nextAnswer(script: ProviderScript): ScriptedAnswer | undefined {
  const answers = script.answers;
  if (!answers?.length) return undefined;
  return answers.length > 1 ? answers.shift() : answers[0];
}

/** The answer's payload: the raw text, or the object as JSON, fenced if asked. */
export function payloadOf(answer: ScriptedAnswer): string {
  const json = answer.text ?? JSON.stringify(answer.object ?? {});
  return answer.fence ? `\`\`\`json\n${json}\n\`\`\`` : json;
}

/** The answer as the model would write it in text: reasoning block first, then the payload. */
export function renderAnswer(answer: ScriptedAnswer): string {
  return `${answer.think ? `<think>${answer.think}</think>\n` : ''}${payloadOf(answer)}`;
}

/** Splits text into about `parts` pieces, so streams carry several deltas. */
export function pieces(text: string, parts = 4): string[] {
  if (!text) return [];
  const size = Math.max(1, Math.ceil(text.length / parts));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export function usageFor(script: ProviderScript, raw: string, answer: string): Required<ScriptedUsage> {
  return {
    input: script.usage?.input ?? Math.ceil(raw.length / 4),
    output: script.usage?.output ?? Math.ceil(answer.length / 4),
    cached: script.usage?.cached ?? 0,
    reasoning: script.usage?.reasoning ?? 0,
  };
}

export function retryHeaders(failure: ScriptedFailure): Record<string, string> {
  return {
    ...(failure.retryAfter ? { 'retry-after': failure.retryAfter } : {}),
    ...(failure.retryAfterMs ? { 'retry-after-ms': failure.retryAfterMs } : {}),
  };
}

/** Writes server-sent events, optionally spaced out, and ends the response. */
export class EventStream {
  constructor(
    private readonly exchange: Exchange,
    private readonly chunkDelayMs = 0,
  ) {
    exchange.entry.status = 200;
    exchange.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  }

  async send(data: unknown, event?: string): Promise<void> {
    if (this.exchange.res.destroyed) return;
    const payload = typeof data === 'string' ? data : JSON.stringify(data);
    this.exchange.res.write(`${event ? `event: ${event}\n` : ''}data: ${payload}\n\n`);
    if (this.chunkDelayMs) await sleep(this.chunkDelayMs);
  }

  end(): void {
    this.exchange.res.end(() => (this.exchange.entry.end = Date.now()));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? '').join('') : '';
