// Which embedding model judges a session's pages by meaning. The one the config names
// (search.embedding_model: provider:model); with "auto", the default, one the session's own model
// providers offer: OpenAI's and Google's own endpoints serve a known embedding model, and any other
// OpenAI-compatible server (Ollama, LM Studio, vLLM, a gateway, OpenAI's API at another address) is
// asked once which models it serves (GET /models), an embedding model among them being used. A model
// that refuses (no such model, no access) is passed over for a while, as is a server that lists
// none; "off" leaves meaning to the model triage. Nothing here is in a workflow: what a page scored
// is in the history, so a replay never asks again.
import type { ModelProviderKind } from '../../config/model-catalog';
import { splitModelRef } from '../../config/model-catalog';
import type { AppConfig } from '../../config/schema';
import { configuredEmbeddingModel, embeddingConnection, modelAvailability, modelConnection, modelProviders } from '../registry';
import { createEmbedder, type Embedder } from './embeddings';
import type { ModelConnection } from './types';

/** The embedding model a provider's own endpoint is known to serve. */
const KNOWN: Partial<Record<ModelProviderKind, { model: string; base: string }>> = {
  openai: { model: 'text-embedding-3-small', base: 'https://api.openai.com/v1' },
  google: { model: 'gemini-embedding-001', base: 'https://generativelanguage.googleapis.com/v1beta' },
};

/** A model id that names an embedding model, as servers list them. */
const EMBEDDING_NAME = /embed|(^|[/:_-])(bge|e5|gte|minilm|mxbai)([/:_.-]|$)/i;

/** How long a server's answer (its models, or a refusal) is believed. */
const REMEMBER_MS = 10 * 60_000;
const PROBE_TIMEOUT_MS = 3_000;

type Fetch = (url: string, init: RequestInit) => Promise<Response>;

export interface EmbeddingChooser {
  /** The embedding model for a session whose models are `models` (provider:model, first choice first); none when none is offered. */
  choose(models: string[]): Promise<Embedder | undefined>;
}

export function createEmbeddingChooser(config: AppConfig, fetchImpl: Fetch = fetch): EmbeddingChooser {
  const embedders = new Map<string, Embedder>();
  /** Provider name → the embedding model its server lists (undefined: none), and until when that is believed. */
  const listed = new Map<string, { model?: string; until: number }>();
  /** "provider:model" refs that refused, until when. */
  const refused = new Map<string, number>();

  const embedderOf = (ref: string, connection: () => ModelConnection): Embedder | undefined => {
    if ((refused.get(ref) ?? 0) > Date.now()) return undefined;
    let embedder = embedders.get(ref);
    if (!embedder) {
      const inner = createEmbedder(connection());
      embedder = {
        model: inner.model,
        embed: (texts, signal) =>
          inner.embed(texts, signal).catch((err: unknown) => {
            if (isRefusal(err)) refused.set(ref, Date.now() + REMEMBER_MS);
            throw err;
          }),
      };
      embedders.set(ref, embedder);
    }
    return embedder;
  };

  async function listedModel(provider: string, connection: ModelConnection): Promise<string | undefined> {
    const known = listed.get(provider);
    if (known && known.until > Date.now()) return known.model;
    let model: string | undefined;
    try {
      const res = await fetchImpl(`${(connection.baseURL ?? '').replace(/\/+$/, '')}/models`, {
        headers: connection.apiKey ? { authorization: `Bearer ${connection.apiKey}` } : {},
        signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      });
      if (res.ok) {
        const body = (await res.json()) as { data?: { id?: unknown }[]; models?: { name?: unknown }[] };
        const ids = [...(body.data ?? []).map((m) => m.id), ...(body.models ?? []).map((m) => m.name)].filter((id): id is string => typeof id === 'string');
        model = ids.find((id) => EMBEDDING_NAME.test(id));
      }
    } catch {
      // Not reachable now: asked again later.
    }
    listed.set(provider, { model, until: Date.now() + REMEMBER_MS });
    return model;
  }

  /** The embedding model a provider offers: known at its own endpoint, else the first its server lists. */
  async function offeredBy(provider: string): Promise<string | undefined> {
    const settings = modelProviders(config)[provider];
    if (!settings || !modelAvailability(config, `${provider}:probe`).ok) return undefined;
    const known = KNOWN[settings.kind];
    const base = (settings.base_url ?? known?.base ?? '').replace(/\/+$/, '');
    if (known && base === known.base) return `${provider}:${known.model}`;
    if (settings.kind !== 'openai' && settings.kind !== 'openai-compatible') return undefined;
    if (!base) return undefined;
    const model = await listedModel(provider, modelConnection(config, `${provider}:probe`));
    return model ? `${provider}:${model}` : undefined;
  }

  return {
    async choose(models) {
      const setting = config.search.embedding_model;
      if (setting === 'off') return undefined;
      const configured = configuredEmbeddingModel(config);
      if (configured) return embedderOf(configured, () => embeddingConnection(config, configured));
      for (const provider of new Set(models.flatMap(providerOf))) {
        const ref = await offeredBy(provider);
        const embedder = ref ? embedderOf(ref, () => modelConnection(config, ref)) : undefined;
        if (embedder) return embedder;
      }
      return undefined;
    },
  };
}

function providerOf(ref: string): string[] {
  try {
    return [splitModelRef(ref).provider];
  } catch {
    return [];
  }
}

/** The server will not embed with this model for this caller: no such model, no access, a bad request. */
function isRefusal(err: unknown): boolean {
  const status = (err as { statusCode?: number }).statusCode;
  return status === 400 || status === 401 || status === 403 || status === 404;
}
