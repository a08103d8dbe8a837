// What every config load does besides validating: finding and reading the file, and applying the
// environment's overrides to the validated config. No schema here (zod costs a tenth of a second to
// load): `status` and `list` read a config validated before (parsed-cache.ts) through this alone.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { AppConfig, FileConfig } from './schema';
import { MODEL_PROVIDER_DEFAULTS } from './model-catalog';
import { environmentOf, type NotedEnvironment } from './environment';
import { ConfigError } from './errors';

export { ConfigError } from './errors';

export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

export interface ConfigFile {
  file: string;
  text: string;
  raw: unknown;
}

/** configs/config.json (or DEEP_RESEARCH_CONFIG), read and parsed as JSON. */
export function readConfigFile(env: NodeJS.ProcessEnv): ConfigFile {
  const file = env.DEEP_RESEARCH_CONFIG ?? path.join(PROJECT_ROOT, 'configs', 'config.json');
  if (!existsSync(file)) throw new ConfigError(`config file not found: ${file}`);
  const text = readFileSync(file, 'utf8');
  try {
    return { file, text, raw: JSON.parse(text) };
  } catch (err) {
    throw new ConfigError(`config file ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * The environment's overrides on a validated file (changed in place), and the environment's own
 * section (environment.ts): the whole config. SEARCH_PROVIDER changes the session settings, which
 * are validated again: `resolveSettings` does that.
 */
export function applyEnvironment(config: FileConfig, raw: unknown, given: NotedEnvironment & { raw: NodeJS.ProcessEnv }, resolveSettings: (defaults: FileConfig['research']['settings'], overrides: unknown) => FileConfig['research']['settings']): AppConfig {
  const { env } = given;
  applyModelEnv(config, env);
  if (env.MODEL_CONTEXT_TOKENS) {
    const tokens = Number(env.MODEL_CONTEXT_TOKENS);
    if (!Number.isInteger(tokens) || tokens < 2_000) throw new ConfigError('MODEL_CONTEXT_TOKENS must be a whole number of at least 2000');
    config.research.model_context_overrides = { ...config.research.model_context_overrides, '*': tokens };
  }
  applyBudgetAliases(config, raw);
  if (env.SEARXNG_URL) config.search.searxng_url = env.SEARXNG_URL;
  if (env.DOI_RESOLVER_URL) config.fetch.doi_resolver_url = env.DOI_RESOLVER_URL;
  if (env.FETCH_ALLOW_HOSTS) config.fetch.allow_hosts = [...config.fetch.allow_hosts, ...env.FETCH_ALLOW_HOSTS.split(',').map((h) => h.trim()).filter(Boolean)];
  if (env.FETCH_RENDER) {
    if (!['auto', 'always', 'never'].includes(env.FETCH_RENDER)) throw new ConfigError(`FETCH_RENDER must be auto, always or never (got "${env.FETCH_RENDER}")`);
    config.fetch.render = env.FETCH_RENDER as AppConfig['fetch']['render'];
  }
  if (env.CHROMIUM_PATH) config.fetch.browser.executable = env.CHROMIUM_PATH;
  if (env.LOCAL_DOCS_DIR) config.search.local_path = env.LOCAL_DOCS_DIR;
  for (const name of ['LOCAL_EMBEDDING_MODEL', 'EMBEDDING_MODEL'] as const) {
    const value = env[name]?.trim();
    if (!value) continue;
    if (value !== 'auto' && value !== 'off' && !/^[^:]+:.+$/.test(value)) throw new ConfigError(`${name} must be provider:model (e.g. ollama:nomic-embed-text), auto or off`);
    config.search.embedding_model = value;
  }
  if (env.EMBEDDING_BASE_URL) config.search.embedding_base_url = env.EMBEDDING_BASE_URL;
  if (env.EMBEDDING_WAIT_SECONDS) {
    const seconds = Number(env.EMBEDDING_WAIT_SECONDS);
    if (!(seconds >= 0.1 && seconds <= 60)) throw new ConfigError(`EMBEDDING_WAIT_SECONDS must be a number of seconds from 0.1 to 60 (got "${env.EMBEDDING_WAIT_SECONDS}")`);
    config.search.embedding_wait_seconds = seconds;
  }
  if (env.TEMPORAL_ADDRESS) config.temporal.address = env.TEMPORAL_ADDRESS;
  else applyEmbeddedServerPorts(config, env);
  if (env.TEMPORAL_NAMESPACE) config.temporal.namespace = env.TEMPORAL_NAMESPACE;
  if (env.DEEP_RESEARCH_TASK_QUEUE) config.temporal.task_queue = env.DEEP_RESEARCH_TASK_QUEUE;
  if (env.DEEP_RESEARCH_MAX_CACHED_WORKFLOWS) config.temporal.max_cached_workflows = Number(env.DEEP_RESEARCH_MAX_CACHED_WORKFLOWS);
  if (env.DEEP_RESEARCH_WORKER_MEMORY_MB) config.temporal.worker_memory_mb = Number(env.DEEP_RESEARCH_WORKER_MEMORY_MB);
  if (env.DEEP_RESEARCH_PLANNING_SLOTS) {
    const slots = Number(env.DEEP_RESEARCH_PLANNING_SLOTS);
    if (!Number.isInteger(slots) || slots < 1 || slots > 64) throw new ConfigError('DEEP_RESEARCH_PLANNING_SLOTS must be a whole number from 1 to 64');
    config.temporal.planning_slots = slots;
  }
  if (env.DEEP_RESEARCH_DATA_DIR) config.data_dir = env.DEEP_RESEARCH_DATA_DIR;
  if (env.SEARCH_PROVIDERS) config.search.chain = env.SEARCH_PROVIDERS.split(',').map((p) => p.trim()).filter(Boolean);
  if (env.SEARCH_PROVIDER) {
    config.research.settings = resolveSettings(config.research.settings, { search_provider: env.SEARCH_PROVIDER });
  }
  config.data_dir = expandHome(config.data_dir);
  if (config.search.local_path) config.search.local_path = expandHome(config.search.local_path);
  if (config.research.research_archive_dir) config.research.research_archive_dir = expandHome(config.research.research_archive_dir);
  return Object.assign(config, { environment: environmentOf(config, given) });
}

/**
 * The embedded server moved by variables (a second data directory on the same machine): its port,
 * and its Web UI's port (by default 1000 above it, as `temporal server start-dev` does). With
 * TEMPORAL_ADDRESS there is no embedded server, and these do not apply.
 */
function applyEmbeddedServerPorts(config: FileConfig, env: NodeJS.ProcessEnv): void {
  const port = portVariable(env, 'DEEP_RESEARCH_TEMPORAL_PORT');
  if (port !== undefined) {
    const at = config.temporal.address.lastIndexOf(':');
    config.temporal.address = `${at < 0 ? config.temporal.address : config.temporal.address.slice(0, at)}:${port}`;
    config.temporal.ui_port = port + 1000 <= 65535 ? port + 1000 : port - 1000;
  }
  const ui = portVariable(env, 'DEEP_RESEARCH_TEMPORAL_UI_PORT');
  if (ui !== undefined) config.temporal.ui_port = ui;
}

function portVariable(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name]?.trim();
  if (!text) return undefined;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ConfigError(`${name} must be a port number (1-65535), got "${text}"`);
  return port;
}

/** budget.safety_margin and budget.runtime_overhead_tokens, the older names, still count when the seed's keys are absent. */
function applyBudgetAliases(config: FileConfig, raw: unknown): void {
  const research = (raw as { research?: Record<string, unknown> } | null)?.research ?? {};
  if (config.budget.safety_margin !== undefined && !('token_safety_margin' in research)) config.research.token_safety_margin = config.budget.safety_margin;
  if (config.budget.runtime_overhead_tokens !== undefined && !('runtime_overhead' in research)) config.research.runtime_overhead = config.budget.runtime_overhead_tokens;
}

/** The conventional variables: base URLs of the SDKs' own names, and the default model. */
function applyModelEnv(config: FileConfig, env: NodeJS.ProcessEnv): void {
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
  const structured = env.MODEL_STRUCTURED_OUTPUT?.trim();
  if (structured) {
    const modes = ['auto', 'json-schema', 'json-object', 'tool', 'text'] as const;
    if (!(modes as readonly string[]).includes(structured)) throw new ConfigError(`MODEL_STRUCTURED_OUTPUT must be one of ${modes.join(', ')} (got "${structured}")`);
    config.models.structured_output = structured as (typeof modes)[number];
  }
}

export function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(homedir(), p.slice(1)) : path.resolve(p);
}
