// The AI SDK model providers against loopback fakes that speak each provider's real wire format:
// streaming, structured-output modes, usage details, repair, and errors mapped to retry decisions.
import { APICallError } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toFailure } from '../src/activities/errors';
import { ContentPolicyError, createModelProvider, InvalidModelOutputError, resolveOutputMode } from '../src/providers/model/ai-sdk';
import { cleanAnswer } from '../src/providers/model/structured';
import type { ModelConnection, ModelProviderKind, StructuredOutputMode } from '../src/providers/model/types';
import { startAnthropic } from './harness/anthropic';
import { startGemini } from './harness/gemini';
import { startModel } from './harness/model';
import type { ProviderScript } from './harness/model-script';
import { Recorder } from './harness/recorder';

const probeSchema = z.object({ title: z.string().min(1), score: z.number().int().min(0).max(10), tags: z.array(z.string()) });
const valid = { title: 'Heat pumps', score: 7, tags: ['energy', 'homes'] };
const usage = { input: 120, output: 40, cached: 30, reasoning: 12 };
const KEY = 'test-key';

const MODELS: Record<ModelProviderKind, string> = {
  openai: 'gpt-test',
  'openai-compatible': 'qwen-test',
  anthropic: 'claude-sonnet-4-5',
  google: 'gemini-2.5-flash',
};

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A fake for the kind, with its recorder, and a provider pointed at it. */
async function setup(kind: ModelProviderKind, script: ProviderScript, options: { mode?: StructuredOutputMode; timeoutMs?: number } = {}) {
  const recorder = new Recorder();
  const fake = kind === 'anthropic' ? await startAnthropic(recorder, script) : kind === 'google' ? await startGemini(recorder, script) : await startModel(recorder, script);
  closers.push(() => fake.close());
  const connection: ModelConnection = {
    kind,
    provider: kind === 'openai-compatible' ? 'ollama' : kind,
    model: MODELS[kind],
    baseURL: fake.url,
    apiKey: KEY,
    structuredOutput: options.mode ?? 'auto',
    timeoutMs: options.timeoutMs ?? 10_000,
  };
  return { fake, recorder, model: createModelProvider(connection) };
}

const ask = (signal?: AbortSignal, onProgress?: () => void) => ({
  role: 'planner',
  name: 'probe',
  system: 'You rate research topics.',
  prompt: 'Rate the topic: heat pumps.',
  schema: probeSchema,
  signal,
  onProgress,
});

async function failureOf(promise: Promise<unknown>, credentialHint?: string) {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeDefined();
  return { err, failure: toFailure(err, 'planner model call', credentialHint) };
}

describe('each provider kind returns the validated object with its usage details', () => {
  it('openai: chat completions streamed, json_schema response_format, usage from the final SSE chunk', async () => {
    const { fake, model } = await setup('openai', { answers: [{ object: valid }], usage, apiKey: KEY });
    const res = await model.generateObject(ask());
    expect(res).toEqual({ object: valid, model: 'openai:gpt-test', usage: { input_tokens: 120, output_tokens: 40, cached_input_tokens: 30, reasoning_tokens: 12 } });
    const [request] = fake.requests;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.body).toMatchObject({ model: 'gpt-test', stream: true, stream_options: { include_usage: true } });
    expect(request.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'probe', schema: { required: ['title', 'score', 'tags'] } } });
    expect(request.body.tools).toBeUndefined();
  });

  it('openai-compatible: includes usage in the stream and reads cached and reasoning tokens', async () => {
    const { fake, model } = await setup('openai-compatible', { answers: [{ object: valid }], usage });
    const res = await model.generateObject(ask());
    expect(res.model).toBe('ollama:qwen-test');
    expect(res.object).toEqual(valid);
    expect(res.usage).toEqual({ input_tokens: 120, output_tokens: 40, cached_input_tokens: 30, reasoning_tokens: 12 });
    expect(fake.requests[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true }, response_format: { type: 'json_schema', json_schema: { name: 'probe' } } });
  });

  it('anthropic: auto picks a forced tool; tool_use input streamed as input_json_delta; usage from message_start and message_delta', async () => {
    const { fake, model } = await setup('anthropic', { answers: [{ object: valid }], usage, apiKey: KEY });
    expect(resolveOutputMode({ kind: 'anthropic', structuredOutput: 'auto' })).toBe('tool');
    const res = await model.generateObject(ask());
    // Anthropic reports cached tokens beside input_tokens (90 + 30); the total is what counts.
    expect(res).toEqual({ object: valid, model: 'anthropic:claude-sonnet-4-5', usage: { input_tokens: 120, output_tokens: 40, cached_input_tokens: 30, reasoning_tokens: 12 } });
    const [request] = fake.requests;
    expect(request.path).toBe('/v1/messages');
    expect(request.headers['x-api-key']).toBe(KEY);
    expect(request.headers['anthropic-version']).toBe('2023-06-01');
    expect(request.body).toMatchObject({ stream: true, tool_choice: { type: 'tool', name: 'probe' } });
    const tools = request.body.tools as { name: string; input_schema: { properties: Record<string, unknown> } }[];
    expect(tools.map((t) => t.name)).toEqual(['probe']);
    expect(Object.keys(tools[0].input_schema.properties)).toEqual(['title', 'score', 'tags']);
  });

  it('google: auto sends responseSchema with a JSON mime type; usage from usageMetadata', async () => {
    const { fake, model } = await setup('google', { answers: [{ object: valid }], usage, apiKey: KEY });
    const res = await model.generateObject(ask());
    expect(res).toEqual({ object: valid, model: 'google:gemini-2.5-flash', usage: { input_tokens: 120, output_tokens: 40, cached_input_tokens: 30, reasoning_tokens: 12 } });
    const [request] = fake.requests;
    expect(request.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(request.headers['x-goog-api-key']).toBe(KEY);
    const config = request.body.generationConfig as { responseMimeType: string; responseSchema: { type: string; properties: Record<string, unknown> } };
    expect(config.responseMimeType).toBe('application/json');
    expect(config.responseSchema.type).toBe('object');
    expect(Object.keys(config.responseSchema.properties)).toEqual(['title', 'score', 'tags']);
    expect(request.body.tools).toBeUndefined();
  });

  it('openai and google tool mode: the object is the forced call\'s arguments', async () => {
    const openai = await setup('openai', { answers: [{ object: valid }] }, { mode: 'tool' });
    expect((await openai.model.generateObject(ask())).object).toEqual(valid);
    expect(openai.fake.requests[0].body).toMatchObject({ tool_choice: { type: 'function', function: { name: 'probe' } } });
    expect(openai.fake.requests[0].body.response_format).toBeUndefined();

    const google = await setup('google', { answers: [{ object: { ...valid, score: 3 } }] }, { mode: 'tool' });
    expect((await google.model.generateObject(ask())).object).toEqual({ ...valid, score: 3 });
    expect(google.fake.requests[0].body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['probe'] } });
  });

  it('text mode: the schema goes in the system prompt, no response_format or tools', async () => {
    const { fake, model } = await setup('openai-compatible', { answers: [{ object: valid }] }, { mode: 'text' });
    expect((await model.generateObject(ask())).object).toEqual(valid);
    const body = fake.requests[0].body as { messages: { role: string; content: string }[]; response_format?: unknown; tools?: unknown };
    expect(body.response_format).toBeUndefined();
    expect(body.tools).toBeUndefined();
    const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
    expect(system).toContain('You rate research topics.');
    expect(system).toContain('JSON object "probe"');
    expect(system).toContain('"required":["title","score","tags"]');
  });
});

describe('answers are cleaned, validated and repaired at most once', () => {
  it('strips <think> blocks and code fences before parsing', async () => {
    const think = 'The user wants a score. {"title": "not this"}';
    const compatible = await setup('openai-compatible', { answers: [{ object: valid, think }] }, { mode: 'text' });
    const res = await compatible.model.generateObject(ask());
    expect(res.object).toEqual(valid);
    expect(res.repaired).toBeUndefined();
    expect(compatible.fake.requests).toHaveLength(1);

    const anthropic = await setup('anthropic', { answers: [{ object: valid, think, fence: true }] }, { mode: 'text' });
    expect((await anthropic.model.generateObject(ask())).object).toEqual(valid);
    expect(anthropic.fake.requests[0].body.tools).toBeUndefined();
  });

  it('keeps fences that are inside the JSON and drops an unclosed reasoning block', () => {
    const markdown = '{"markdown":"```js\\nx()\\n```"}';
    expect(cleanAnswer(markdown)).toBe(markdown);
    expect(cleanAnswer('Here it is:\n```json\n{"a":1}\n```\nDone.')).toBe('{"a":1}');
    expect(cleanAnswer('{"a":1}\n<think>still thinking')).toBe('{"a":1}');
    expect(cleanAnswer('reasoning without an opening tag</think>\n{"a":1}')).toBe('{"a":1}');
  });

  it('malformed JSON is repaired with one more call that carries the answer and the problem', async () => {
    const { fake, model } = await setup('openai-compatible', { answers: [{ text: '{"title": "Heat pumps", "score": 7,' }, { object: valid }], usage: { input: 100, output: 10 } });
    const res = await model.generateObject(ask());
    expect(res.object).toEqual(valid);
    expect(res.repaired).toBe(true);
    expect(res.usage).toEqual({ input_tokens: 200, output_tokens: 20, cached_input_tokens: 0, reasoning_tokens: 0 });
    expect(fake.requests).toHaveLength(2);
    const messages = (fake.requests[1].body as { messages: { role: string; content: string }[] }).messages;
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages[2].content).toBe('{"title": "Heat pumps", "score": 7,');
    expect(messages[3].content).toContain('not valid JSON');
  });

  it('a schema violation in a tool call is repaired the same way', async () => {
    const { fake, model } = await setup('anthropic', { answers: [{ object: { ...valid, score: 42 } }, { object: valid }] });
    const res = await model.generateObject(ask());
    expect(res).toMatchObject({ object: valid, repaired: true });
    expect(fake.requests).toHaveLength(2);
    const messages = fake.requests[1].body.messages as { role: string; content: { text?: string }[] }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[2].content[0].text).toMatch(/does not match the schema[\s\S]*score/);
  });

  it('an answer that stays malformed fails with InvalidModelOutputError after exactly two requests', async () => {
    const { fake, recorder, model } = await setup('openai', { answers: [{ text: 'I cannot answer in JSON.' }] });
    const { err, failure } = await failureOf(model.generateObject(ask()));
    expect(err).toBeInstanceOf(InvalidModelOutputError);
    expect((err as Error).message).toMatch(/openai:gpt-test gave no valid "probe" object after one repair attempt: the answer is not valid JSON/);
    expect(fake.requests).toHaveLength(2);
    expect(recorder.of('model')).toHaveLength(2);
    expect(failure.type).toBe('InvalidModelOutput');
    expect(failure.nonRetryable).toBe(false);
  });

  it('an answer withheld for the content policy fails at once as ContentPolicy', async () => {
    const { fake, model } = await setup('google', { answers: [{ blocked: true }] });
    const { err, failure } = await failureOf(model.generateObject(ask()));
    expect(err).toBeInstanceOf(ContentPolicyError);
    expect(fake.requests).toHaveLength(1);
    expect(failure.type).toBe('ContentPolicy');
    expect(failure.nonRetryable).toBe(true);
  });
});

describe('provider errors become the right retry decisions', () => {
  it('429 with Retry-After: retryable after exactly that delay, one request only', async () => {
    const { fake, model } = await setup('openai', { failures: [{ status: 429, retryAfter: '7', type: 'rate_limit_exceeded' }], answers: [{ object: valid }] });
    const { err, failure } = await failureOf(model.generateObject(ask()), 'OPENAI_API_KEY');
    expect(APICallError.isInstance(err) && err.statusCode).toBe(429);
    expect(failure).toMatchObject({ type: 'RateLimited', nonRetryable: false, nextRetryDelay: 7000 });
    expect(fake.requests).toHaveLength(1);
  });

  it('Anthropic 429 prefers retry-after-ms; 529 overloaded_error is retryable with its Retry-After', async () => {
    const limited = await setup('anthropic', { failures: [{ status: 429, retryAfter: '2', retryAfterMs: '1500' }] });
    const first = await failureOf(limited.model.generateObject(ask()));
    expect(first.failure).toMatchObject({ type: 'RateLimited', nonRetryable: false, nextRetryDelay: 1500 });

    const overloaded = await setup('anthropic', { failures: [{ status: 529, retryAfter: '4' }] });
    const second = await failureOf(overloaded.model.generateObject(ask()));
    expect(APICallError.isInstance(second.err) && second.err.responseBody).toContain('overloaded_error');
    expect(second.failure).toMatchObject({ type: 'Overloaded', nonRetryable: false, nextRetryDelay: 4000 });
  });

  it('an error event in the middle of a stream is thrown, not swallowed, and keeps its type', async () => {
    const { fake, model } = await setup('anthropic', { answers: [{ object: valid }], streamError: { type: 'overloaded_error', message: 'Overloaded' } });
    const { err, failure } = await failureOf(model.generateObject(ask()));
    expect(err).toMatchObject({ name: 'ModelStreamError', errorType: 'overloaded_error', message: 'Overloaded' });
    expect(failure).toMatchObject({ type: 'Overloaded', nonRetryable: false });
    expect(fake.requests).toHaveLength(1);
  });

  it('Gemini 429 RESOURCE_EXHAUSTED is rate limited after its Retry-After', async () => {
    const { model } = await setup('google', { failures: [{ status: 429, retryAfter: '3' }] });
    const { failure } = await failureOf(model.generateObject(ask()));
    expect(failure).toMatchObject({ type: 'RateLimited', nonRetryable: false, nextRetryDelay: 3000 });
  });

  it('a rejected key is not retried and the message names the key to check', async () => {
    const anthropic = await setup('anthropic', { apiKey: 'the-right-key' });
    const { err, failure } = await failureOf(anthropic.model.generateObject(ask()), 'ANTHROPIC_API_KEY');
    expect(APICallError.isInstance(err) && err.statusCode).toBe(401);
    expect(failure.type).toBe('AuthenticationError');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('check ANTHROPIC_API_KEY');

    const google = await setup('google', { apiKey: 'the-right-key' });
    const gemini = await failureOf(google.model.generateObject(ask()), 'GOOGLE_GENERATIVE_AI_API_KEY');
    expect(APICallError.isInstance(gemini.err) && gemini.err.statusCode).toBe(400);
    expect(gemini.failure).toMatchObject({ type: 'AuthenticationError', nonRetryable: true });
    expect(gemini.failure.message).toContain('check GOOGLE_GENERATIVE_AI_API_KEY');
  });

  it('a prompt longer than the context window is ContextTooLong and not retried, for each provider', async () => {
    const cases: [ModelProviderKind, ProviderScript][] = [
      ['openai', { failures: [{ status: 400, type: 'invalid_request_error', code: 'context_length_exceeded', message: "This model's maximum context length is 128000 tokens." }] }],
      ['anthropic', { failures: [{ status: 400, message: 'prompt is too long: 212000 tokens > 200000 maximum' }] }],
      ['google', { failures: [{ status: 400, message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).' }] }],
    ];
    for (const [kind, script] of cases) {
      const { model } = await setup(kind, script);
      const { failure } = await failureOf(model.generateObject(ask()));
      expect(failure.type, kind).toBe('ContextTooLong');
      expect(failure.nonRetryable, kind).toBe(true);
      expect(failure.message, kind).toContain('max_source_chars_for_analysis');
      expect(failure.message, kind).toContain('MODEL_CONTEXT_TOKENS');
    }
  });

  it('a content-policy refusal from the API is ContentPolicy and not retried', async () => {
    const { model } = await setup('openai', { failures: [{ status: 400, type: 'invalid_request_error', code: 'content_filter', message: 'The prompt was filtered.' }] });
    const { failure } = await failureOf(model.generateObject(ask()));
    expect(failure).toMatchObject({ type: 'ContentPolicy', nonRetryable: true });
  });
});

describe('streaming, cancellation and timeouts', () => {
  it('calls onProgress for each chunk while the answer is still streaming', async () => {
    const { recorder, model } = await setup('anthropic', { answers: [{ object: valid }], chunkDelayMs: 40 });
    const progress: number[] = [];
    await model.generateObject(ask(undefined, () => progress.push(Date.now())));
    const streamEnd = recorder.of('model')[0].end ?? 0;
    // message_start, 4 input_json_delta events, message_delta at least.
    expect(progress.length).toBeGreaterThanOrEqual(6);
    expect(progress[0]).toBeLessThan(streamEnd - 100);
  });

  it('an aborted signal stops the call mid-stream, without a repair attempt', async () => {
    // The whole answer takes 4 s to stream (4 pieces, 1 s apart): a call that stops well before did not wait for it.
    const { fake, model } = await setup('openai', { answers: [{ object: valid }], chunkDelayMs: 1_000 });
    const controller = new AbortController();
    const started = Date.now();
    // Progress starts before the request is sent; abort once the answer has begun to stream.
    const abortOnceStreaming = () => {
      if (fake.requests.length > 0) controller.abort();
    };
    const { err, failure } = await failureOf(model.generateObject(ask(controller.signal, abortOnceStreaming)));
    expect((err as Error).name).toBe('AbortError');
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(fake.requests).toHaveLength(1);
    expect(failure.nonRetryable).toBe(false);
  });

  it('the connection timeout aborts a model that never answers', async () => {
    const { model } = await setup('google', { answers: [{ object: valid }], delayMs: 5_000 }, { timeoutMs: 300 });
    const started = Date.now();
    const { err, failure } = await failureOf(model.generateObject(ask()));
    expect((err as Error).name).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(failure.type).toBe('Timeout');
  });
});
