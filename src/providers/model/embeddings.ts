// Text embeddings over an OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, LM Studio,
// vLLM, ...) or Google's, through the AI SDK. Retries are Temporal's: the SDK's own are off.
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { embedMany, type EmbeddingModel } from 'ai';
import { ConfigError } from '../../config/load';
import type { ModelConnection } from './types';

/** Vectors compare by their cosine (kept with relevance by meaning, its first user). */
export { cosine } from '../../report/relevance-meaning';

export interface Embedder {
  /** "provider:model", stored beside the vectors so a new model re-embeds everything. */
  readonly model: string;
  /** `signal` ends the request early (a caller that stopped waiting for it). */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

function embeddingModelOf(connection: ModelConnection): EmbeddingModel {
  if (connection.kind === 'google') return createGoogleGenerativeAI({ baseURL: connection.baseURL, apiKey: connection.apiKey }).embeddingModel(connection.model);
  if (connection.kind !== 'openai' && connection.kind !== 'openai-compatible') {
    throw new ConfigError(`embedding model ${connection.provider}:${connection.model}: only OpenAI-compatible providers and Google serve embeddings here`);
  }
  if (!connection.baseURL) throw new ConfigError(`embedding provider "${connection.provider}" needs a base URL`);
  return createOpenAICompatible({ name: connection.provider, baseURL: connection.baseURL, apiKey: connection.apiKey }).embeddingModel(connection.model);
}

export function createEmbedder(connection: ModelConnection): Embedder {
  const model = embeddingModelOf(connection);
  return {
    model: `${connection.provider}:${connection.model}`,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      const timeout = AbortSignal.timeout(connection.timeoutMs);
      const { embeddings } = await embedMany({ model, values: texts, maxRetries: 0, abortSignal: signal ? AbortSignal.any([timeout, signal]) : timeout });
      return embeddings;
    },
  };
}


/** Reciprocal rank fusion: each list adds 1 / (k + rank) for the ids it ranks (rank from 1). */
export function reciprocalRankFusion(lists: string[][], k = 60): Map<string, number> {
  const scores = new Map<string, number>();
  for (const list of lists) list.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + i + 1)));
  return scores;
}
