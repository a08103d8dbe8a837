// Settles which providers serve a session: the model chain per role and the search chain, from the
// config, the session's settings and which keys this worker's config holds (its environment section).
// Nothing here returns a key but modelConnection, for activities: only names, and why a provider was left out.
import path from 'node:path';
import { LOCAL_SEARCH_PROVIDER } from '../domain/names';
import { LEFT_OUT_OF_PANEL } from '../domain/panel';
import { ConfigError } from '../config/load';
import { onFirstNeed } from '../config/on-first-need';
import { MODEL_PROVIDER_DEFAULTS, MODEL_ROLES, isReasoningModel, splitModelRef, type ModelProviderDefaults, type ModelRole } from '../config/model-catalog';
import type { AppConfig } from '../config/schema';
import { EMBEDDING_KEY_ENV } from '../config/environment';
import type { ProviderPlan, ResearchSettings } from '../domain/types';
import type { ModelConnection } from './model/types';
import { choosePanel } from '../research/panel';
import { createSearchProvider, isSearchProviderName, searchApiKey, SEARCH_PROVIDER_NAMES, SEARCH_PROVIDERS, type SearchProviderName } from './search/catalog';
import type { SearchProvider } from './search/types';

type Availability = { ok: true } | { ok: false; reason: string };

export function modelProviders(config: AppConfig): Record<string, ModelProviderDefaults> {
  return { ...MODEL_PROVIDER_DEFAULTS, ...config.models.providers };
}

function modelProviderFor(config: AppConfig, name: string): ModelProviderDefaults | undefined {
  const configured = modelProviders(config)[name];
  if (!configured) return undefined;
  return { ...MODEL_PROVIDER_DEFAULTS[name], ...configured };
}

/** The key is required only at the provider's own endpoint: a local server behind the same API needs none. */
function keyRequired(name: string, provider: ModelProviderDefaults): boolean {
  if (!provider.api_key_env) return false;
  const builtIn = MODEL_PROVIDER_DEFAULTS[name];
  return !builtIn || !builtIn.base_url || !provider.base_url || provider.base_url === builtIn.base_url;
}

export function modelAvailability(config: AppConfig, ref: string): Availability {
  let name: string;
  try {
    name = splitModelRef(ref).provider;
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  const provider = modelProviderFor(config, name);
  if (!provider) return { ok: false, reason: `unknown model provider "${name}" (add it under models.providers)` };
  if (keyRequired(name, provider) && !config.environment.keys[provider.api_key_env as string]) return { ok: false, reason: `${provider.api_key_env} is not set` };
  return { ok: true };
}

/** Everything needed to call one model, key included: for activities only, never for the workflow. */
export function modelConnection(config: AppConfig, ref: string, role?: string): ModelConnection {
  const { provider: name, model } = splitModelRef(ref);
  const provider = modelProviderFor(config, name);
  if (!provider) throw new ConfigError(`unknown model provider "${name}" in "${ref}": add it under models.providers in the config`);
  const apiKey = provider.api_key_env ? config.environment.keys[provider.api_key_env] : undefined;
  if (keyRequired(name, provider) && !apiKey) throw new ConfigError(`model ${ref} needs ${provider.api_key_env}: set it in the worker's environment`);
  const roleSeconds = role ? config.models.role_timeout_seconds[role as ModelRole] : undefined;
  const seconds = roleSeconds ?? (isReasoningModel(model) ? config.models.reasoning_timeout_seconds : config.models.timeout_seconds);
  return {
    kind: provider.kind,
    provider: name,
    model,
    baseURL: provider.base_url,
    apiKey,
    structuredOutput: provider.structured_output ?? config.models.structured_output,
    timeoutMs: seconds * 1000,
  };
}

/** The embedding model the config names (provider:model); none for "auto" or "off". */
export function configuredEmbeddingModel(config: AppConfig): string | undefined {
  const ref = config.search.embedding_model;
  return ref === 'auto' || ref === 'off' ? undefined : ref;
}

/** How to reach an embedding model: its provider's connection, at search.embedding_base_url when one is set (any provider name then). */
export function embeddingConnection(config: AppConfig, ref: string): ModelConnection {
  const base = config.search.embedding_base_url;
  if (!base) return modelConnection(config, ref);
  const { provider, model } = splitModelRef(ref);
  const known = modelProviderFor(config, provider);
  const keys = config.environment.keys;
  const apiKey = keys[EMBEDDING_KEY_ENV] ?? (known?.api_key_env ? keys[known.api_key_env] : undefined);
  return { kind: 'openai-compatible', provider, model, baseURL: base, apiKey, structuredOutput: 'auto', timeoutMs: config.models.timeout_seconds * 1000 };
}

/** One search provider as this installation serves it: where it is, what it needs, how to build and probe it. */
interface SearchSource {
  /** How its results read: web pages, papers, or the user's own documents. */
  kind: string;
  /** The variable it needs set: its key, or where it is. */
  variable?: string;
  /** Where it answers: its base URL, or the folder of the user's documents. */
  location(config: AppConfig): string | undefined;
  availability(config: AppConfig): Availability;
  /** Requests per second from all sessions together when the config names none (undefined: not throttled). */
  rate?: number;
  /** Calls it may take back to back when the config names none. */
  burst: number;
  /** Why a session's settings leave it out (undefined: they do not). */
  offFor?(settings: ResearchSettings): string | undefined;
  /** It reads files on the machine the worker runs on: a service offers it only where its operator allows. */
  readsServerFiles?: boolean;
  /** It holds the user's notes, which the planner looks up before drafting (the plan's local_corpus). */
  holdsNotes?: boolean;
  create(config: AppConfig): SearchProvider;
  /** `providers --check`: resolves once it answered, throws what went wrong. */
  probe(config: AppConfig): Promise<void>;
}

/** A service from the catalog, at `location` (its configured or public base URL unless said otherwise). */
function httpSource(name: SearchProviderName, location = (config: AppConfig) => config.search.providers[name]?.base_url ?? SEARCH_PROVIDERS[name].defaultBaseUrl): SearchSource {
  const entry = SEARCH_PROVIDERS[name];
  const build = (config: AppConfig, timeoutMs: number) =>
    createSearchProvider(name, {
      baseUrl: location(config) ?? '',
      apiKey: searchApiKey(config, name),
      ...(entry.requiredEnv ? { engineId: config.environment.keys[entry.requiredEnv] } : {}),
      timeoutMs,
      userAgent: config.fetch.user_agent,
    });
  return {
    kind: entry.academic ? 'academic' : 'web',
    variable: entry.keyEnv,
    location,
    availability: (config) => {
      if (entry.keyRequired && !searchApiKey(config, name)) return { ok: false, reason: `${entry.keyEnv} is not set` };
      if (entry.requiredEnv && !config.environment.keys[entry.requiredEnv]) return { ok: false, reason: `${entry.requiredEnv} is not set` };
      return { ok: true };
    },
    rate: entry.requestsPerSecond,
    burst: entry.burst ?? 1,
    create: (config) => build(config, config.search.timeout_seconds * 1000),
    probe: async (config) => {
      await build(config, 10_000).search({ query: 'test', maxResults: 1 });
    },
  };
}

/** A source that is the user's own rather than a service: it exists once the variable naming where it is is set. */
const ownSource = (variable: string, location: (config: AppConfig) => string | undefined) => ({
  variable,
  location,
  availability: (config: AppConfig): Availability => (location(config) ? { ok: true } : { ok: false, reason: `${variable} is not set` }),
  // Your own instance (or your own files) is not throttled unless you say so.
  rate: undefined,
});

/** The user's documents (LOCAL_DOCS_DIR), searched on this machine; the parser and the index load when first searched. */
const localDocuments: SearchSource = {
  kind: 'your documents',
  ...ownSource('LOCAL_DOCS_DIR', (c) => c.search.local_path),
  burst: 1,
  offFor: (settings) => (settings.local_documents === false ? 'local documents are off for this session' : undefined),
  readsServerFiles: true,
  holdsNotes: true,
  create: (config) => {
    const embedding = configuredEmbeddingModel(config);
    const open = async (): Promise<SearchProvider> =>
      (await localSearchModule()).openLocalDocuments(config.search.local_path as string, path.join(config.data_dir, 'local-index.json'), embedding ? embeddingConnection(config, embedding) : undefined);
    let opened: Promise<SearchProvider> | undefined;
    return { name: LOCAL_SEARCH_PROVIDER, search: async (request) => (await (opened ??= open())).search(request) };
  },
  // Nothing to call: the folder is read when it is searched.
  probe: async () => undefined,
};

/** The local search (MiniSearch, the parsers, the embedding client), loaded when first searched, not by every command that reads this registry. */
const localSearchModule = () => onFirstNeed(() => require('./search/local') as typeof import('./search/local'), () => import('./search/local.js'));

/** Every search provider this installation knows, by name. */
const SEARCH_SOURCES: Readonly<Record<string, SearchSource>> = {
  ...Object.fromEntries(SEARCH_PROVIDER_NAMES.map((name) => [name, httpSource(name)])),
  searxng: { ...httpSource('searxng', (c) => c.search.searxng_url), ...ownSource('SEARXNG_URL', (c) => c.search.searxng_url) },
  [LOCAL_SEARCH_PROVIDER]: localDocuments,
};

const sourceOf = (name: string): SearchSource | undefined => (Object.hasOwn(SEARCH_SOURCES, name) ? SEARCH_SOURCES[name] : undefined);

/** Every search provider name this installation knows. */
export const ALL_SEARCH_PROVIDERS: readonly string[] = Object.keys(SEARCH_SOURCES);

/** The variable a provider needs set: its key, or where an own source is. */
export function searchSetupVariable(name: string): string | undefined {
  return sourceOf(name)?.variable;
}

/** Where a provider answers: its base URL, or the folder of the user's documents. */
export function searchLocation(config: AppConfig, name: string): string | undefined {
  return sourceOf(name)?.location(config) ?? config.search.providers[name]?.base_url;
}

/** How a provider's results read: web pages, papers, or the user's own documents. */
export function searchKind(name: string): string {
  return sourceOf(name)?.kind ?? 'web';
}

export function searchAvailability(config: AppConfig, name: string): Availability {
  const source = sourceOf(name);
  if (!source) return { ok: false, reason: `unknown search provider "${name}" (known: ${ALL_SEARCH_PROVIDERS.join(', ')})` };
  return source.availability(config);
}

/** Whether a provider reads files on the server (a service offers it only where its operator allows). */
export function readsServerFiles(name: string): boolean {
  return sourceOf(name)?.readsServerFiles === true;
}

/** The provider holding the user's notes that the planner looks up, when there is one. */
export function notesSource(config: AppConfig): string | undefined {
  return ALL_SEARCH_PROVIDERS.find((name) => SEARCH_SOURCES[name].holdsNotes && SEARCH_SOURCES[name].availability(config).ok);
}

/** Builds a provider for activities (its key read here, never passed on); one that cannot serve is a ConfigError saying why. */
export function createSearch(config: AppConfig, name: string): SearchProvider {
  const availability = searchAvailability(config, name);
  if (!availability.ok) throw new ConfigError(`search provider ${name} is not available: ${availability.reason}`);
  return SEARCH_SOURCES[name].create(config);
}

/** `providers --check` for one search provider: resolves once it answered. */
export function probeSearch(config: AppConfig, name: string): Promise<void> {
  const source = sourceOf(name);
  if (!source) return Promise.reject(new Error(`unknown search provider "${name}"`));
  return source.probe(config);
}

/** Requests per second a provider may receive from all sessions together (Temporal enforces it per task queue). */
export function searchRate(config: AppConfig, name: string): number | undefined {
  return config.search.providers[name]?.requests_per_second ?? sourceOf(name)?.rate;
}

/** Calls a provider may take back to back (its documented window, or search.providers.<name>.burst); 1: none. */
export function searchBurst(config: AppConfig, name: string): number {
  return config.search.providers[name]?.burst ?? sourceOf(name)?.burst ?? 1;
}

/** Fails early, with what to set, when no model could serve this installation's planner. */
export function checkModelConfigured(config: AppConfig): void {
  resolveProviderPlan(config, config.research.settings);
}

/**
 * The session's providers. `skipped` (the session's record, and one event each) names only the
 * providers it was asked for by name — in its settings, DEEP_RESEARCH_MODEL or SEARCH_PROVIDERS —
 * that cannot serve it: the installation's default chains without keys are `doctor`'s business, not
 * six lines in every session. The errors for no model or no search name every one.
 */
export function resolveProviderPlan(config: AppConfig, settings: ResearchSettings): ProviderPlan {
  const all: ProviderPlan['skipped'] = [];
  const skipped: ProviderPlan['skipped'] = [];
  const noted = new Set<string>();
  const asked = askedFor(config, settings);
  const keep = (name: string, availability: Availability): boolean => {
    if (availability.ok) return true;
    if (!noted.has(name)) {
      noted.add(name);
      all.push({ name, reason: availability.reason });
      if (asked.has(name)) skipped.push({ name, reason: availability.reason });
    }
    return false;
  };

  const defaultChain = [settings.model ?? config.models.default, ...config.models.fallbacks];
  const model_chains: Record<string, string[]> = {};
  for (const role of MODEL_ROLES) {
    const wanted = settings.models?.[role] ?? config.models.roles[role] ?? defaultChain;
    model_chains[role] = unique(wanted).filter((ref) => keep(ref, modelAvailability(config, ref)));
  }
  if (model_chains.planner.length === 0) {
    throw new ConfigError(
      `no model configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY, or OPENAI_BASE_URL for a local OpenAI-compatible server such as Ollama (${describeSkipped(all)})`,
    );
  }

  const wantedSearch = expandSearchPresets(
    settings.search_providers ?? [...(settings.search_provider ? [settings.search_provider] : []), ...config.search.chain],
    config.search.presets,
  );
  const offFor = (name: string) => sourceOf(name)?.offFor?.(settings);
  const search_chain = unique(wantedSearch).filter((name) => {
    const off = offFor(name);
    return keep(name, off ? { ok: false, reason: off } : searchAvailability(config, name));
  });
  if (search_chain.length === 0) {
    throw new ConfigError(
      `no search provider available: set SEARXNG_URL, TAVILY_API_KEY, BRAVE_API_KEY or EXA_API_KEY, add duckduckgo to the chain, or point LOCAL_DOCS_DIR at your documents (${describeSkipped(all)})`,
    );
  }
  const notes = notesSource(config);
  return {
    model_chains,
    search_chain,
    search_mode: settings.search_mode ?? config.search.mode,
    skipped,
    ...(notes && !offFor(notes) ? { local_corpus: true } : {}),
    ...(settings.panel ? panelPlan(config, settings, model_chains.writer[0] ?? model_chains.planner[0], skipped) : {}),
  };
}

/** Providers named for this session: by its settings, or by DEEP_RESEARCH_MODEL / SEARCH_PROVIDERS / SEARCH_PROVIDER. */
function askedFor(config: AppConfig, settings: ResearchSettings): Set<string> {
  const { requested } = config.environment;
  const search = [...(settings.search_providers ?? []), ...(settings.search_provider ? [settings.search_provider] : []), ...requested.search];
  return new Set([
    ...(settings.model ? [settings.model] : []),
    ...Object.values(settings.models ?? {}).flat(),
    ...(requested.model ? [requested.model] : []),
    ...expandSearchPresets(search.map((p) => p.trim()).filter(Boolean), config.search.presets),
  ]);
}

/** The panel's models with keys, and the synthesis model, whose key is required. */
function panelPlan(config: AppConfig, settings: ResearchSettings, writer: string, skipped: ProviderPlan['skipped']): Pick<ProviderPlan, 'panel' | 'synthesis_model'> {
  const choice = choosePanel(settings.panel ?? [], (ref) => modelAvailability(config, ref));
  for (const d of choice.dropped) skipped.push({ name: d.name, reason: `${LEFT_OUT_OF_PANEL}${d.reason}` });
  if (settings.skip_synthesis) return { panel: choice.panel };
  const synthesis = settings.synthesis_model ?? writer;
  const availability = modelAvailability(config, synthesis);
  if (!availability.ok) throw new ConfigError(`the synthesis model ${synthesis} cannot be used: ${availability.reason}`);
  return { panel: choice.panel, synthesis_model: synthesis };
}

/** Replaces every preset name in a chain by the providers it stands for (presets do not nest). */
export function expandSearchPresets(chain: string[], presets: Record<string, string[]>): string[] {
  return chain.flatMap((name) => (Object.hasOwn(presets, name) && !isSearchProviderName(name) ? presets[name] : [name]));
}

function describeSkipped(skipped: ProviderPlan['skipped']): string {
  return skipped.length ? `skipped: ${skipped.map((s) => `${s.name} (${s.reason})`).join('; ')}` : 'nothing configured';
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
