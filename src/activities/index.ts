// Builds the activity implementations from their dependencies (config, stores, providers).
import path from 'node:path';
import { ConfigError } from '../config/load';
import type { AppConfig } from '../config/schema';
import { OpenAICompatibleModel } from '../providers/model/openai-compatible';
import type { ModelProvider } from '../providers/model/types';
import { LocalDocumentSearch } from '../providers/search/local';
import { SearxngSearch } from '../providers/search/searxng';
import type { SearchProvider } from '../providers/search/types';
import { fetcherFromConfig } from '../fetching/fetcher';
import { FileArtifactStore, type ArtifactStore } from '../stores/artifacts';
import { FetchCache } from '../stores/fetch-cache';
import { SqliteSessionStore, type SessionStore } from '../stores/sessions';
import type { ResearchActivities } from './contracts';
import { createModelActivities } from './model-activities';
import { createStoreActivities } from './store-activities';
import { createWebActivities } from './web-activities';

export interface ActivityDeps {
  config: AppConfig;
  env?: NodeJS.ProcessEnv;
  artifacts?: ArtifactStore;
  sessions?: SessionStore;
}

export function createActivities(deps: ActivityDeps): { activities: ResearchActivities; close(): void } {
  const { config } = deps;
  const env = deps.env ?? process.env;
  const artifacts = deps.artifacts ?? new FileArtifactStore(path.join(config.data_dir, 'artifacts'));
  let sessions = deps.sessions;
  const sessionStore = () =>
    (sessions ??= new SqliteSessionStore(path.join(config.data_dir, 'sessions.db'), config.research.collections.research_collection));
  const model = lazy<ModelProvider>(() => createModel(config, env));
  const searxng = lazy<SearchProvider>(() => {
    if (!config.search.searxng_url) throw new ConfigError('no search engine configured: set SEARXNG_URL (or use search_provider "local" with LOCAL_DOCS_DIR)');
    return new SearxngSearch(config.search.searxng_url, config.search.timeout_seconds * 1000, config.fetch.user_agent);
  });
  const local = lazy<SearchProvider>(() => {
    if (!config.search.local_path) throw new ConfigError('no local documents folder configured: set LOCAL_DOCS_DIR');
    return new LocalDocumentSearch(config.search.local_path, path.join(config.data_dir, 'local-index.json'));
  });
  const fetcher = fetcherFromConfig(config, env);
  const cache = new FetchCache(path.join(config.data_dir, 'fetch-cache.db'));
  const activities: ResearchActivities = {
    ...createModelActivities({ model, modelName: () => config.model.model, artifacts, budget: config.budget, credentialHint: 'OPENAI_API_KEY' }),
    ...createWebActivities({ config, artifacts, fetcher, cache, searchProvider: (name) => (name === 'local' ? local() : searxng()) }),
    ...createStoreActivities(sessionStore),
  };
  return {
    activities,
    close: () => {
      sessions?.close();
      cache.close();
      void fetcher.close();
    },
  };
}

export function createModel(config: AppConfig, env: NodeJS.ProcessEnv): ModelProvider {
  const baseURL = config.model.base_url;
  const isOpenAI = /api\.openai\.com/.test(baseURL);
  if (isOpenAI && !env.OPENAI_API_KEY) {
    throw new ConfigError('no model configured: set OPENAI_API_KEY, or OPENAI_BASE_URL for a local OpenAI-compatible server such as Ollama');
  }
  return new OpenAICompatibleModel({
    baseURL,
    model: config.model.model,
    apiKey: env.OPENAI_API_KEY,
    structuredOutputs: config.model.structured_outputs,
    timeoutMs: config.model.timeout_seconds * 1000,
  });
}

function lazy<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}
