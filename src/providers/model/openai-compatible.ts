// Any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM, LM Studio, OpenRouter)
// through the AI SDK. The SDK's own retries are off: Temporal owns retries.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, Output } from 'ai';
import type { ModelProvider, ModelRequest, ModelResponse } from './types';

export interface OpenAICompatibleOptions {
  baseURL: string;
  model: string;
  apiKey?: string;
  structuredOutputs: boolean;
  timeoutMs: number;
}

export class OpenAICompatibleModel implements ModelProvider {
  readonly name: string;
  private readonly provider: ReturnType<typeof createOpenAICompatible>;

  constructor(private readonly options: OpenAICompatibleOptions) {
    this.name = `openai-compatible:${options.model}`;
    this.provider = createOpenAICompatible({
      name: 'openai-compatible',
      baseURL: options.baseURL.replace(/\/+$/, ''),
      apiKey: options.apiKey,
      supportsStructuredOutputs: options.structuredOutputs,
      includeUsage: true,
    });
  }

  async generateObject<T>(request: ModelRequest<T>): Promise<ModelResponse<T>> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    const result = await generateText({
      model: this.provider.chatModel(this.options.model),
      system: request.system,
      prompt: request.prompt,
      output: Output.object({ schema: request.schema, name: request.name }),
      maxRetries: 0,
      abortSignal: signal,
      temperature: 0.2,
    });
    return {
      object: result.output as T,
      model: `openai-compatible:${this.options.model}`,
      usage: {
        input_tokens: result.usage.inputTokens ?? 0,
        output_tokens: result.usage.outputTokens ?? 0,
        cached_input_tokens: result.usage.inputTokenDetails?.cacheReadTokens ?? 0,
        reasoning_tokens: result.usage.outputTokenDetails?.reasoningTokens ?? 0,
      },
    };
  }
}
