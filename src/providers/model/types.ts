import type { ModelProviderKind } from '../../config/model-catalog';
import type { z } from 'zod';
import type { OutputRung } from './server-knowledge';

export interface ModelRequest<T> {
  role: string;
  /** Schema name sent to the provider with the JSON schema. */
  name: string;
  system: string;
  prompt: string;
  schema: z.ZodType<T>;
  signal?: AbortSignal;
  /** Called as the answer streams in (the activity heartbeats from it). */
  onProgress?: () => void;
  /** Called with each piece of the answer's text as it streams in. */
  onText?: (delta: string) => void;
  /** The longest answer this call may give (tokens): the role's cap (src/roles/output-caps.ts). */
  maxOutputTokens?: number;
}

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  /** Input tokens served from the provider's prompt cache (part of input_tokens). */
  cached_input_tokens: number;
  /** Reasoning tokens (part of output_tokens). */
  reasoning_tokens: number;
}

export interface ModelResponse<T> {
  object: T;
  /** "provider:model" as configured, e.g. "anthropic:claude-sonnet-4-5". */
  model: string;
  usage: TokenUsage;
  /** True when the first answer failed validation and the repair attempt succeeded. */
  repaired?: boolean;
  /** The way of asking the server accepted, when it refused the first (json_schema): what the call learnt about it. */
  structured_output?: OutputRung;
}

/** One interface per provider kind: a model turns a prompt into a validated object. */
export interface ModelProvider {
  readonly name: string;
  generateObject<T>(request: ModelRequest<T>): Promise<ModelResponse<T>>;
}

export type { ModelProviderKind } from '../../config/model-catalog';

/** How a structured answer is asked for: a JSON schema, a JSON object with the schema, a forced tool call, or JSON in the text; auto walks the ladder. */
export type StructuredOutputMode = 'auto' | OutputRung;

export interface ModelConnection {
  kind: ModelProviderKind;
  /** Configured provider name ("openai", "ollama", "openrouter", ...). */
  provider: string;
  model: string;
  baseURL?: string;
  apiKey?: string;
  structuredOutput: StructuredOutputMode;
  timeoutMs: number;
  temperature?: number;
}
