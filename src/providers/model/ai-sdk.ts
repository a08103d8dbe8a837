// One ModelProvider for every provider kind, through the AI SDK. Answers are streamed (so long
// answers keep the activity heartbeating), parsed and validated here, and repaired at most once.
// The SDK's own retries are off: Temporal owns retries.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { Output, streamText, tool, type LanguageModel, type LanguageModelUsage, type ModelMessage, type ToolSet } from 'ai';
import type { z } from 'zod';
import { ConfigError } from '../../config/load';
import { ContentPolicyError, InvalidModelOutputError, ModelStreamError, StructuredOutputRefused } from './errors';
import { outputLadder, rungRefusal, rungWords } from './ladder';
import { RepetitionWatch } from './repetition';
import { rememberedRung, rememberRung, serverKey, type OutputRung } from './server-knowledge';
import { cleanAnswer, jsonSchemaOf, parseAnswer, repairInstruction, textModeInstruction } from './structured';
import type { ModelConnection, ModelProvider, ModelRequest, ModelResponse, TokenUsage } from './types';

export { ContentPolicyError, InvalidModelOutputError, ModelStreamError } from './errors';

// The SDK prints compatibility warnings to the console; workers log through Temporal instead.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

export type ResolvedOutputMode = OutputRung;

/** The first way a connection asks for structured output (the ladder's top rung). */
export function resolveOutputMode(connection: Pick<ModelConnection, 'kind' | 'structuredOutput'>): ResolvedOutputMode {
  return outputLadder(connection)[0];
}

export function createModelProvider(connection: ModelConnection): ModelProvider {
  return new AiSdkModelProvider(connection);
}

interface Attempt {
  raw: string;
  usage: TokenUsage;
  /** The answer repeated itself and was stopped (its text is what came before). */
  looped?: boolean;
  /** The answer ran to the output cap. */
  capped?: boolean;
}

/** The server as a person knows it: its host and port ("127.0.0.1:8850"), or "the provider" for its own endpoint. */
export function serverName(baseURL: string | undefined): string {
  try {
    return baseURL ? `the server at ${new URL(baseURL).host}` : 'the provider';
  } catch {
    return 'the provider';
  }
}

/** How much of a looping answer the repair call shows the model (the rest only repeats). */
const REPAIR_ECHO_CHARS = 2_000;

class AiSdkModelProvider implements ModelProvider {
  readonly name: string;
  private readonly ladder: readonly OutputRung[];
  private readonly server: string;
  private readonly models = new Map<OutputRung, LanguageModel>();

  constructor(private readonly connection: ModelConnection) {
    this.name = `${connection.provider}:${connection.model}`;
    this.ladder = outputLadder(connection);
    this.server = serverKey(connection.baseURL, connection.model);
  }

  async generateObject<T>(request: ModelRequest<T>): Promise<ModelResponse<T>> {
    const timeout = AbortSignal.timeout(this.connection.timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    const remembered = this.ladder.length > 1 ? rememberedRung(this.server) : undefined;
    let index = remembered ? Math.max(0, this.ladder.indexOf(remembered)) : 0;
    for (;;) {
      const rung = this.ladder[index];
      try {
        const response = await this.answerAt(rung, request, signal);
        if (this.ladder.length === 1) return response;
        rememberRung(this.server, rung);
        return rung === this.ladder[0] ? response : { ...response, structured_output: rung };
      } catch (err) {
        // A way of asking this server refuses: the next one, at once, in the same call.
        const refused = signal.aborted ? undefined : rungRefusal(err);
        if (refused !== undefined && index + 1 < this.ladder.length) {
          index++;
          continue;
        }
        if (refused !== undefined) throw this.refusedEveryWay(rung, refused);
        throw err;
      }
    }
  }

  private refusedEveryWay(rung: OutputRung, said: string): StructuredOutputRefused {
    const where = serverName(this.connection.baseURL);
    const words = said.replace(/\s+/g, ' ').slice(0, 200);
    if (this.ladder.length === 1 && this.connection.kind !== 'anthropic' && this.connection.kind !== 'google') {
      return new StructuredOutputRefused(
        `${where} refuses ${rungWords(rung)} for ${this.connection.model} ("${words}")`,
        'set models.structured_output (or MODEL_STRUCTURED_OUTPUT) to auto, so the other ways of asking for JSON are tried',
      );
    }
    return new StructuredOutputRefused(`${where} refuses every way of asking ${this.connection.model} for JSON (last: ${rungWords(rung)}, "${words}")`, 'use a model or server that can answer in JSON');
  }

  private async answerAt<T>(rung: OutputRung, request: ModelRequest<T>, signal: AbortSignal): Promise<ModelResponse<T>> {
    const question: ModelMessage = { role: 'user', content: request.prompt };
    const first = await this.attempt(rung, request, [question], signal);
    const firstAnswer = cleanAnswer(first.raw);
    const firstParse = first.looped ? { ok: false as const, problem: 'it repeated itself and was stopped: answer once, with each item once' } : parseAnswer(firstAnswer, request.schema);
    if (firstParse.ok) return { object: firstParse.value, model: this.name, usage: first.usage };

    const repair = await this.attempt(
      rung,
      request,
      [
        question,
        { role: 'assistant', content: (firstAnswer || first.raw.trim() || '(no answer)').slice(0, first.looped ? REPAIR_ECHO_CHARS : undefined) },
        { role: 'user', content: repairInstruction(request.name, firstParse.problem) },
      ],
      signal,
    );
    const usage = addUsage(first.usage, repair.usage);
    const repairParse = repair.looped ? undefined : parseAnswer(cleanAnswer(repair.raw), request.schema);
    if (repairParse?.ok) return { object: repairParse.value, model: this.name, usage, repaired: true };
    const why = repair.looped
      ? `it repeated itself and was stopped after ${repair.raw.length} characters, twice`
      : repair.capped
        ? `its answer ran past the ${request.maxOutputTokens} tokens a "${request.name}" may take (${repairParse?.ok === false ? repairParse.problem : ''})`
        : (repairParse as { problem: string }).problem;
    throw new InvalidModelOutputError(`${this.name} gave no valid "${request.name}" object after one repair attempt: ${why}`, repair.raw.slice(0, 4_000));
  }

  private modelFor(rung: OutputRung, schema: z.ZodType): LanguageModel {
    // The schema rides in the request body, so this rung's model is made for each call.
    if (rung === 'json-object' && this.connection.kind !== 'anthropic' && this.connection.kind !== 'google') return jsonObjectModel(this.connection, jsonSchemaOf(schema));
    let model = this.models.get(rung);
    if (!model) {
      model = languageModel(this.connection, rung);
      this.models.set(rung, model);
    }
    return model;
  }

  private async attempt<T>(rung: OutputRung, request: ModelRequest<T>, messages: ModelMessage[], signal: AbortSignal): Promise<Attempt> {
    const toolName = request.name;
    const tools: ToolSet | undefined =
      rung === 'tool' ? { [toolName]: tool({ description: `Submit the ${request.name} object.`, inputSchema: request.schema as z.ZodType<unknown> }) } : undefined;
    // Without a schema the server enforces, the model is told it (JSON-object servers constrain to the schema, but the model should know it too).
    const describeSchema = rung === 'text' || rung === 'json-object';
    const stop = new AbortController();
    const watch = new RepetitionWatch();
    let looped = false;
    const result = streamText({
      model: this.modelFor(rung, request.schema),
      system: describeSchema ? `${request.system}\n\n${textModeInstruction(request.name, request.schema)}` : request.system,
      messages,
      output: rung === 'json-schema' || rung === 'json-object' ? Output.object({ schema: request.schema, name: request.name }) : undefined,
      tools,
      toolChoice: tools ? { type: 'tool', toolName } : undefined,
      temperature: this.connection.temperature,
      ...(request.maxOutputTokens ? { maxOutputTokens: request.maxOutputTokens } : {}),
      maxRetries: 0,
      abortSignal: AbortSignal.any([signal, stop.signal]),
      // Errors are read from the stream below and thrown; the default handler would only log them.
      onError: () => {},
    });

    let text = '';
    let toolInput = '';
    let toolCallInput: unknown;
    let usage: LanguageModelUsage | undefined;
    let finishReason: string | undefined;
    reading: for await (const part of result.fullStream) {
      request.onProgress?.();
      switch (part.type) {
        case 'text-delta':
          text += part.text;
          request.onText?.(part.text);
          if (watch.push(part.text)) {
            looped = true;
            break reading;
          }
          break;
        case 'tool-input-delta':
          toolInput += part.delta;
          request.onText?.(part.delta);
          if (watch.push(part.delta)) {
            looped = true;
            break reading;
          }
          break;
        case 'tool-call':
          if (part.toolName === toolName) toolCallInput = part.input;
          break;
        case 'finish':
          usage = part.totalUsage;
          finishReason = part.finishReason;
          break;
        case 'error':
          throw asError(part.error);
        case 'abort':
          throw abortReason(signal);
      }
    }
    if (signal.aborted) throw abortReason(signal);
    if (looped) {
      stop.abort();
      const raw = rung === 'tool' ? toolInput || text : text;
      return { raw, usage: { input_tokens: 0, output_tokens: Math.ceil(raw.length / 4), cached_input_tokens: 0, reasoning_tokens: 0 }, looped: true };
    }
    if (finishReason === 'content-filter') {
      throw new ContentPolicyError(`${this.name} withheld its answer under the provider's content policy (finish reason content-filter)`);
    }
    const raw = rung === 'tool' ? toolInput || stringifyInput(toolCallInput) || text : text;
    return { raw, usage: tokenUsage(usage), ...(finishReason === 'length' ? { capped: true } : {}) };
  }
}

function languageModel(connection: ModelConnection, rung: OutputRung): LanguageModel {
  const baseURL = connection.baseURL?.replace(/\/+$/, '');
  const { apiKey, model } = connection;
  switch (connection.kind) {
    case 'openai':
      return createOpenAI({ baseURL, apiKey }).chat(model);
    case 'anthropic':
      return createAnthropic({ baseURL, apiKey }).messages(model);
    case 'google':
      return createGoogleGenerativeAI({ baseURL, apiKey }).chat(model);
    case 'openai-compatible':
      if (!baseURL) throw new ConfigError(`provider "${connection.provider}" is OpenAI-compatible and needs a base URL`);
      return createOpenAICompatible({
        name: connection.provider,
        baseURL,
        apiKey,
        includeUsage: true,
        // Off, the SDK asks for json_object instead of the schema.
        supportsStructuredOutputs: rung === 'json-schema',
      }).chatModel(model);
  }
}

/**
 * The JSON-object rung, spelt as OpenAI-style local servers read it: llama.cpp and llama-cpp-python
 * take the schema inside response_format {type: "json_object"}, vLLM as guided_json; each ignores
 * the other's field.
 */
function jsonObjectModel(connection: ModelConnection, schema: Record<string, unknown>): LanguageModel {
  const baseURL = (connection.baseURL ?? OPENAI_BASE_URL).replace(/\/+$/, '');
  return createOpenAICompatible({
    name: connection.provider,
    baseURL,
    apiKey: connection.apiKey,
    includeUsage: true,
    supportsStructuredOutputs: false,
    transformRequestBody: (body) => ({ ...body, response_format: { type: 'json_object', schema }, guided_json: schema }),
  }).chatModel(connection.model);
}

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

function tokenUsage(usage: LanguageModelUsage | undefined): TokenUsage {
  return {
    input_tokens: usage?.inputTokens ?? 0,
    output_tokens: usage?.outputTokens ?? 0,
    cached_input_tokens: usage?.inputTokenDetails?.cacheReadTokens ?? usage?.cachedInputTokens ?? 0,
    reasoning_tokens: usage?.outputTokenDetails?.reasoningTokens ?? usage?.reasoningTokens ?? 0,
  };
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cached_input_tokens: a.cached_input_tokens + b.cached_input_tokens,
    reasoning_tokens: a.reasoning_tokens + b.reasoning_tokens,
  };
}

function stringifyInput(input: unknown): string {
  if (input === undefined) return '';
  return typeof input === 'string' ? input : JSON.stringify(input);
}

// Providers send some errors as stream data ({type, message} or {error: {...}}), not as Error objects.
function asError(error: unknown): Error {
  if (error instanceof Error) return error;
  if (error && typeof error === 'object') {
    const record = (error as { error?: unknown }).error ?? error;
    const { message, type, code } = record as { message?: unknown; type?: unknown; code?: unknown };
    const errorType = typeof type === 'string' ? type : typeof code === 'string' ? code : undefined;
    return new ModelStreamError(typeof message === 'string' ? message : JSON.stringify(error), errorType);
  }
  return new ModelStreamError(String(error), undefined);
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The model call was aborted', 'AbortError');
}
