import type { z } from 'zod';

export interface ModelRequest<T> {
  role: string;
  /** Schema name sent to the provider with the JSON schema. */
  name: string;
  system: string;
  prompt: string;
  schema: z.ZodType<T>;
  signal?: AbortSignal;
}

export interface ModelResponse<T> {
  object: T;
  model: string;
  input_tokens: number;
  output_tokens: number;
}

/** One interface per provider kind: a model turns a prompt into a validated object. */
export interface ModelProvider {
  readonly name: string;
  generateObject<T>(request: ModelRequest<T>): Promise<ModelResponse<T>>;
}
