// A scripted Anthropic Messages API (POST /v1/messages) on loopback. It checks the x-api-key and
// anthropic-version headers, answers a forced tool (tool_choice {type: 'tool'}) with a tool_use
// block and anything else with text, streamed as the real event sequence when stream is true.
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
  usageFor,
  type CapturedRequest,
  type Exchange,
  type ProviderScript,
  type ScriptedAnswer,
  type ScriptedFailure,
} from './model-script';

export interface FakeAnthropic {
  /** The base URL for the SDK (…/v1). */
  url: string;
  script: ProviderScript;
  requests: CapturedRequest[];
  close(): Promise<void>;
}

interface MessagesRequest {
  model: string;
  stream?: boolean;
  tool_choice?: { type: string; name?: string };
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const errorBody = (status: number, message: string, type?: string) => ({ type: 'error', error: { type: type ?? ERROR_TYPES[status] ?? 'api_error', message } });

export async function startAnthropic(recorder: Recorder, script: ProviderScript = {}): Promise<FakeAnthropic> {
  const server = await startFakeServer(recorder, async (exchange) => {
    const { req, sendJson } = exchange;
    if (req.url !== '/v1/messages' || req.method !== 'POST') return sendJson(404, errorBody(404, `${req.method} ${req.url} not found`));
    if (!req.headers['anthropic-version']) return sendJson(400, errorBody(400, 'anthropic-version: header is required'));
    const key = req.headers['x-api-key'];
    if (!key || (script.apiKey && key !== script.apiKey)) return sendJson(401, errorBody(401, 'invalid x-api-key'));
    const failure = script.failures?.shift();
    if (failure) return sendFailure(exchange, failure);
    const answer = nextAnswer(script);
    if (!answer) return sendJson(400, errorBody(400, 'the fake has no scripted answer'));
    const body = exchange.body as unknown as MessagesRequest;
    const toolName = body.tool_choice?.type === 'tool' ? body.tool_choice.name : undefined;
    if (script.delayMs) await sleep(script.delayMs);
    if (body.stream) return streamMessage(exchange, body, answer, toolName, script);
    const blocks = contentBlocks(answer, toolName, exchange.entry.key);
    const usage = usageFor(script, exchange.raw, toolName ? payloadOf(answer) : renderAnswer(answer));
    sendJson(200, {
      id: `msg_${exchange.entry.key.slice(0, 12)}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: blocks.map((b) => (b.type === 'text' ? { type: 'text', text: b.text } : { type: 'tool_use', id: b.id, name: b.name, input: parseOrEmpty(b.json) })),
      stop_reason: toolName ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: usage.input - usage.cached, cache_read_input_tokens: usage.cached, cache_creation_input_tokens: 0, ...outputUsage(usage) },
    });
  });
  return { url: `${server.url}/v1`, script, requests: server.requests, close: server.close };
}

// Thinking tokens are part of output_tokens, broken out only when there were any.
const outputUsage = (usage: ReturnType<typeof usageFor>) => ({
  output_tokens: usage.output,
  ...(usage.reasoning ? { output_tokens_details: { thinking_tokens: usage.reasoning } } : {}),
});

function sendFailure({ sendJson }: Exchange, failure: ScriptedFailure) {
  sendJson(failure.status, failure.body ?? errorBody(failure.status, failure.message ?? `scripted ${failure.status}`, failure.type), retryHeaders(failure));
}

function parseOrEmpty(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return {};
  }
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; json: string };

function contentBlocks(answer: ScriptedAnswer, toolName: string | undefined, key: string): Block[] {
  if (!toolName) return [{ type: 'text', text: renderAnswer(answer) }];
  const blocks: Block[] = [];
  if (answer.think) blocks.push({ type: 'text', text: `<think>${answer.think}</think>` });
  blocks.push({ type: 'tool_use', id: `toolu_${key.slice(0, 12)}`, name: toolName, json: payloadOf(answer) });
  return blocks;
}

async function streamMessage(exchange: Exchange, body: MessagesRequest, answer: ScriptedAnswer, toolName: string | undefined, script: ProviderScript) {
  const stream = new EventStream(exchange, script.chunkDelayMs);
  const blocks = contentBlocks(answer, toolName, exchange.entry.key);
  const usage = usageFor(script, exchange.raw, blocks.map((b) => (b.type === 'text' ? b.text : b.json)).join(''));
  const event = (type: string, data: Record<string, unknown>) => stream.send({ type, ...data }, type);

  // Anthropic counts cached tokens apart from input_tokens; the SDK adds them back.
  await event('message_start', {
    message: {
      id: `msg_${exchange.entry.key.slice(0, 12)}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage.input - usage.cached, cache_creation_input_tokens: 0, cache_read_input_tokens: usage.cached, output_tokens: 1 },
    },
  });
  await event('ping', {});
  if (script.streamError) {
    await event('error', { error: script.streamError });
    return stream.end();
  }
  for (const [index, block] of blocks.entries()) {
    if (block.type === 'text') {
      await event('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const text of pieces(block.text)) await event('content_block_delta', { index, delta: { type: 'text_delta', text } });
    } else {
      await event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      for (const partial_json of pieces(block.json)) await event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
    }
    await event('content_block_stop', { index });
  }
  await event('message_delta', { delta: { stop_reason: toolName ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: outputUsage(usage) });
  await event('message_stop', {});
  stream.end();
}
