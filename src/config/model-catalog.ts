// Model providers people arrive with, by name. configs/config.json may add more or change these;
// keys always come from the environment variable named here, never from the config file.
/** How a provider is spoken to. */
export type ModelProviderKind = 'openai' | 'anthropic' | 'google' | 'openai-compatible';

export interface ModelProviderDefaults {
  kind: ModelProviderKind;
  base_url?: string;
  /** Environment variable holding the key; absent for local servers that need none. */
  api_key_env?: string;
  structured_output?: 'auto' | 'json-schema' | 'json-object' | 'tool' | 'text';
}

export const MODEL_PROVIDER_DEFAULTS: Record<string, ModelProviderDefaults> = {
  openai: { kind: 'openai', base_url: 'https://api.openai.com/v1', api_key_env: 'OPENAI_API_KEY' },
  anthropic: { kind: 'anthropic', base_url: 'https://api.anthropic.com/v1', api_key_env: 'ANTHROPIC_API_KEY' },
  google: { kind: 'google', base_url: 'https://generativelanguage.googleapis.com/v1beta', api_key_env: 'GOOGLE_GENERATIVE_AI_API_KEY' },
  ollama: { kind: 'openai-compatible', base_url: 'http://127.0.0.1:11434/v1' },
  lmstudio: { kind: 'openai-compatible', base_url: 'http://127.0.0.1:1234/v1' },
  vllm: { kind: 'openai-compatible', base_url: 'http://127.0.0.1:8000/v1', api_key_env: 'VLLM_API_KEY' },
  openrouter: { kind: 'openai-compatible', base_url: 'https://openrouter.ai/api/v1', api_key_env: 'OPENROUTER_API_KEY' },
  groq: { kind: 'openai-compatible', base_url: 'https://api.groq.com/openai/v1', api_key_env: 'GROQ_API_KEY' },
  deepseek: { kind: 'openai-compatible', base_url: 'https://api.deepseek.com/v1', api_key_env: 'DEEPSEEK_API_KEY' },
  zai: { kind: 'openai-compatible', base_url: 'https://api.z.ai/api/paas/v4', api_key_env: 'ZAI_API_KEY' },
  perplexity: { kind: 'openai-compatible', base_url: 'https://api.perplexity.ai', api_key_env: 'PERPLEXITY_API_KEY' },
};

export { MODEL_ROLES, type ModelRole } from '../domain/names';

/**
 * Where "provider:model" is served, with its key: what `status` needs to ask a server its window,
 * without the provider registry (a finished session's status loads no more than it must).
 */
export function modelEndpoint(
  config: { models: { providers: Record<string, Partial<ModelProviderDefaults>> }; environment: { keys: Record<string, string | undefined> } },
  ref: string,
): { kind: ModelProviderKind; provider: string; model: string; baseURL?: string; apiKey?: string } | undefined {
  const i = ref.indexOf(':');
  if (i <= 0) return undefined;
  const name = ref.slice(0, i);
  const provider = { ...MODEL_PROVIDER_DEFAULTS[name], ...config.models.providers[name] } as Partial<ModelProviderDefaults>;
  if (!provider.kind) return undefined;
  return { kind: provider.kind, provider: name, model: ref.slice(i + 1), baseURL: provider.base_url, apiKey: provider.api_key_env ? config.environment.keys[provider.api_key_env] : undefined };
}

/** Reasoning models think before answering: they get the longer timeout. */
export function isReasoningModel(model: string): boolean {
  return /(^|[/:-])(o1|o3|o4)(-|$)|gpt-5|reason|thinking|deepseek-r1|(^|[/:])r1\b|qwq/i.test(model);
}

/** "provider:model"; the model part may itself contain colons or slashes (Ollama tags, OpenRouter ids). */
export function splitModelRef(ref: string): { provider: string; model: string } {
  const i = ref.indexOf(':');
  if (i <= 0 || i === ref.length - 1) throw new Error(`model "${ref}" must be written provider:model, e.g. openai:gpt-4o-mini`);
  return { provider: ref.slice(0, i), model: ref.slice(i + 1) };
}

/**
 * Context windows (tokens) of models people commonly configure, matched on the model name without
 * its provider. model_context_overrides (and MODEL_CONTEXT_TOKENS) win over these; unknown models
 * get budget.context_tokens.
 */
export const MODEL_CONTEXT_WINDOWS: [RegExp, number][] = [
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-5/, 400_000],
  [/^gpt-4o/, 128_000],
  [/^gpt-4-turbo/, 128_000],
  [/^o[134](-|$)/, 200_000],
  [/^claude-(sonnet-4|opus-4|haiku-4|3-7|3-5)/, 200_000],
  [/^gemini-(2\.5|2\.0|1\.5)/, 1_048_576],
  [/^deepseek-(chat|reasoner)/, 128_000],
  [/^llama-3\.[1-3]/, 131_072],
  [/^(mistral-large|mistral-small)/, 128_000],
  [/^qwen2\.5/, 32_768],
];

/** The context window of "provider:model": the override, else what its server says (`served`), else the catalog, else the fallback. */
export function contextWindowFor(ref: string, overrides: Record<string, number>, fallback: number, served?: number): number {
  const model = ref.slice(ref.indexOf(':') + 1);
  const bare = model.replace(/^.*\//, '');
  const override = overrides[ref] ?? overrides[model] ?? overrides['*'];
  if (override) return override;
  if (served) return served;
  return MODEL_CONTEXT_WINDOWS.find(([pattern]) => pattern.test(bare.toLowerCase()))?.[1] ?? fallback;
}
