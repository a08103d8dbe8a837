import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { ResearchSettings } from '../domain/types';
import { MODEL_PROVIDER_DEFAULTS } from './model-catalog';
import { configSchema, researchSettingsSchema, type AppConfig } from './schema';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

/** Loads configs/config.json (or DEEP_RESEARCH_CONFIG), applies environment overrides, validates. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const file = env.DEEP_RESEARCH_CONFIG ?? path.join(PROJECT_ROOT, 'configs', 'config.json');
  if (!existsSync(file)) throw new ConfigError(`config file not found: ${file}`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`config file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`invalid config ${file}: ${describeIssues(parsed.error)}`);
  const config = parsed.data;
  applyModelEnv(config, env);
  if (env.MODEL_CONTEXT_TOKENS) {
    const tokens = Number(env.MODEL_CONTEXT_TOKENS);
    if (!Number.isInteger(tokens) || tokens < 2_000) throw new ConfigError('MODEL_CONTEXT_TOKENS must be a whole number of at least 2000');
    config.research.model_context_overrides = { ...config.research.model_context_overrides, '*': tokens };
  }
  applyBudgetAliases(config, raw);
  if (env.SEARXNG_URL) config.search.searxng_url = env.SEARXNG_URL;
  if (env.DOI_RESOLVER_URL) config.fetch.doi_resolver_url = env.DOI_RESOLVER_URL;
  if (env.LOCAL_DOCS_DIR) config.search.local_path = env.LOCAL_DOCS_DIR;
  if (env.LOCAL_EMBEDDING_MODEL) {
    if (!/^[^:]+:.+$/.test(env.LOCAL_EMBEDDING_MODEL)) throw new ConfigError('LOCAL_EMBEDDING_MODEL must be provider:model, e.g. ollama:nomic-embed-text');
    config.search.embedding_model = env.LOCAL_EMBEDDING_MODEL;
  }
  if (env.TEMPORAL_ADDRESS) config.temporal.address = env.TEMPORAL_ADDRESS;
  if (env.TEMPORAL_NAMESPACE) config.temporal.namespace = env.TEMPORAL_NAMESPACE;
  if (env.DEEP_RESEARCH_TASK_QUEUE) config.temporal.task_queue = env.DEEP_RESEARCH_TASK_QUEUE;
  if (env.DEEP_RESEARCH_MAX_CACHED_WORKFLOWS) config.temporal.max_cached_workflows = Number(env.DEEP_RESEARCH_MAX_CACHED_WORKFLOWS);
  if (env.DEEP_RESEARCH_WORKER_MEMORY_MB) config.temporal.worker_memory_mb = Number(env.DEEP_RESEARCH_WORKER_MEMORY_MB);
  if (env.DEEP_RESEARCH_DATA_DIR) config.data_dir = env.DEEP_RESEARCH_DATA_DIR;
  if (env.SEARCH_PROVIDERS) config.search.chain = env.SEARCH_PROVIDERS.split(',').map((p) => p.trim()).filter(Boolean);
  if (env.SEARCH_PROVIDER) {
    config.research.settings = resolveSettings(config.research.settings, { search_provider: env.SEARCH_PROVIDER });
  }
  config.data_dir = expandHome(config.data_dir);
  if (config.search.local_path) config.search.local_path = expandHome(config.search.local_path);
  if (config.research.research_archive_dir) config.research.research_archive_dir = expandHome(config.research.research_archive_dir);
  return config;
}

/** budget.safety_margin and budget.runtime_overhead_tokens, the older names, still count when the seed's keys are absent. */
function applyBudgetAliases(config: AppConfig, raw: unknown): void {
  const research = (raw as { research?: Record<string, unknown> } | null)?.research ?? {};
  if (config.budget.safety_margin !== undefined && !('token_safety_margin' in research)) config.research.token_safety_margin = config.budget.safety_margin;
  if (config.budget.runtime_overhead_tokens !== undefined && !('runtime_overhead' in research)) config.research.runtime_overhead = config.budget.runtime_overhead_tokens;
}

/** The conventional variables: base URLs of the SDKs' own names, and the default model. */
function applyModelEnv(config: AppConfig, env: NodeJS.ProcessEnv): void {
  const baseUrls: Record<string, string | undefined> = {
    openai: env.OPENAI_BASE_URL,
    anthropic: env.ANTHROPIC_BASE_URL,
    google: env.GOOGLE_GENERATIVE_AI_BASE_URL,
    ollama: env.OLLAMA_BASE_URL,
  };
  for (const [name, url] of Object.entries(baseUrls)) {
    if (!url) continue;
    config.models.providers[name] = { ...MODEL_PROVIDER_DEFAULTS[name], ...config.models.providers[name], base_url: url };
  }
  const model = env.DEEP_RESEARCH_MODEL ?? (env.OPENAI_MODEL ? `openai:${env.OPENAI_MODEL}` : undefined);
  if (model) {
    if (!/^[^:]+:.+$/.test(model)) throw new ConfigError(`DEEP_RESEARCH_MODEL must be provider:model, e.g. anthropic:claude-sonnet-4-5 (got "${model}")`);
    config.models.default = model;
  }
}

/** Session settings: installation defaults plus validated per-session overrides. */
export function resolveSettings(defaults: ResearchSettings, overrides: unknown = {}): z.infer<typeof researchSettingsSchema> {
  if (overrides === null || typeof overrides !== 'object' || Array.isArray(overrides)) {
    throw new ConfigError('settings must be a JSON object');
  }
  const parsed = researchSettingsSchema.safeParse({ ...defaults, ...overrides });
  if (!parsed.success) throw new ConfigError(`invalid settings: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const key = issue.path.join('.') || '(root)';
      if (issue.code === 'unrecognized_keys') return `unknown key ${issue.keys.map((k) => `"${[...issue.path, k].join('.')}"`).join(', ')}`;
      return `"${key}": ${issue.message}`;
    })
    .join('; ');
}

export function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(homedir(), p.slice(1)) : path.resolve(p);
}
