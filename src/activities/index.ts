// Builds the activity implementations from their dependencies (config, stores, providers).
import { sweepArchive } from '../context-fit/archive';
import { fitSettingsOf } from '../context-fit/settings';
import { warmUpParsing } from '../parsing';
import { stopParserThreads } from '../parsing/html-threads';
import { preparePdfWorkers } from '../parsing/pdf-worker';
import { relevanceScore } from '../report/relevance';
import type { AppConfig } from '../config/schema';
import { createModelProvider } from '../providers/model/ai-sdk';
import { createEmbeddingChooser } from '../providers/model/embedding-choice';
import { serverWindow } from '../providers/model/context-window';
import { serverKey } from '../providers/model/server-knowledge';
import { createSearch, modelConnection, modelProviders, notesSource, resolveProviderPlan, searchSetupVariable } from '../providers/registry';
import type { ModelProvider } from '../providers/model/types';
import { NOTE_MIN_RELEVANCE, queryContentWords } from '../providers/search/local';
import type { SearchProvider, SearchResult } from '../providers/search/types';
import { fetcherFromConfig } from '../fetching/fetcher';
import type { ArtifactStore } from '../stores/artifacts';
import { AgentStreamSink } from '../stores/agent-stream';
import { openArtifactStore, openFetchCache, openSessionStore } from '../stores/open';
import type { SessionStore } from '../stores/sessions';
import type { ResearchActivities } from './contracts';
import { roleActivities, type RoleActivities } from '../roles';
import { createRoleTools } from './role-tools';
import { createDeliveryActivities } from './delivery-activities';
import { createVerifyActivities } from './verify-activities';
import { createRelevanceActivities } from './relevance-activities';
import { createReportActivities } from './report-activities';
import { createStoreActivities } from './store-activities';
import { createWebActivities } from './web-activities';
import { createRenderActivities } from './render-activities';
import { Renderers } from '../fetching/renderers';
import type { TreeMemory } from '../fetching/process-memory';
import { toFailure } from './errors';
import { asStoreSteps, waitingForStore, type StoreWaitEvent } from './store-wait';
import { adoptingArtifacts } from './adopted-artifacts';

export interface ActivityDeps {
  config: AppConfig;
  artifacts?: ArtifactStore;
  sessions?: SessionStore;
  /** Told when an activity starts and stops waiting for an unreachable store (logs, metrics). */
  onStoreWait?: (event: StoreWaitEvent) => void;
  /** Where the browser says it started, closed or stopped a request (the worker's log). */
  onBrowser?: (line: string) => void;
}

export interface CreatedActivities {
  activities: ResearchActivities & RoleActivities;
  /** The memory of this worker's browser (all its processes), undefined while none runs. */
  browserMemory(): Promise<TreeMemory | undefined>;
  close(): Promise<void>;
}

export function createActivities(deps: ActivityDeps): CreatedActivities {
  const { config } = deps;
  const ownArtifacts = deps.artifacts ? undefined : openArtifactStore(config);
  const artifacts = deps.artifacts ?? (ownArtifacts as ArtifactStore);
  let sessions = deps.sessions;
  const ownsSessions = !sessions;
  const sessionStore = () => (sessions ??= openSessionStore(config));
  const models = new Map<string, ModelProvider>();
  const model = (ref: string, role?: string) => {
    const connection = modelConnection(config, ref, role);
    const key = `${ref} ${connection.timeoutMs}`;
    const provider = models.get(key) ?? createModelProvider(connection);
    models.set(key, provider);
    return { provider, keyEnv: modelProviders(config)[connection.provider]?.api_key_env, server: serverKey(connection.baseURL, connection.model) };
  };
  const window = async (ref: string) => (await serverWindow(modelConnection(config, ref)))?.tokens;
  const defaultModel = (role: string) => {
    try {
      return resolveProviderPlan(config, config.research.settings).model_chains[role]?.[0] ?? config.models.default;
    } catch {
      return config.models.default;
    }
  };
  const searchProviders = new Map<string, SearchProvider>();
  const searchProvider = (name: string) => {
    const provider = searchProviders.get(name) ?? createSearch(config, name);
    searchProviders.set(name, provider);
    return provider;
  };
  const fetcher = fetcherFromConfig(config);
  // Nothing of the browser loads until a page needs it.
  const renderers = new Renderers(config, fetcher, deps.onBrowser);
  const ownCache = openFetchCache(config);
  // Activities holding paid or fetched work (a model's answer, a page) wait out a store that cannot
  // be reached inside their attempt; the store steps (persist, report versions) fail fast instead,
  // as StoreUnavailable, and Temporal retries them without a maximum.
  const wait = { onWait: deps.onStoreWait };
  const cache = waitingForStore(ownCache, 'fetch cache', wait);
  // Every artifact an activity stores is recorded as its session's, so deletes leave shared ones.
  const store = adoptingArtifacts(waitingForStore(artifacts, 'artifacts', wait), cache);
  const storeStepArtifacts = adoptingArtifacts(artifacts, ownCache);
  let waitingSessions: SessionStore | undefined;
  const sessionsWaiting = () => (waitingSessions ??= waitingForStore(sessionStore(), 'sessions', wait));
  // The model's streamed output is a convenience: it is dropped, never waited for.
  const streams = new AgentStreamSink(sessionStore);
  const budget = fitSettingsOf(config);
  const archiveSweep = startArchiveSweep(budget.archive.dir, budget.archive.ttl_hours);
  const modelDeps = { model, defaultModel, pricing: config.models.pricing, artifacts: store, budget, streams, window };
  const embeddings = createEmbeddingChooser(config);
  const relevance = createRelevanceActivities(store, (models) => embeddings.choose(models), { waitMs: config.search.embedding_wait_seconds * 1000 });
  // The parser and the relevance score are compiled on first use: done now, not in a user's first
  // round. A worker parses HTML on parser threads of its own (parsing/html-threads.ts).
  setTimeout(() => void warmUpParsing({ threads: true }).then(() => relevanceScore('Battery storage on the grid grew again.', ['grid storage costs'])), 0).unref();
  // The model roles that are activities of their own (src/roles/index.ts), each handed the same tools.
  const roles = roleActivities(createRoleTools(modelDeps));
  const activities: ResearchActivities & RoleActivities = {
    ...roles,
    // A session starts: its pages follow within seconds of the plan, and the PDF parser's threads
    // load while the planner thinks, when the CPU has nothing else to do.
    async decomposeQuery(input) {
      preparePdfWorkers();
      return roles.decomposeQuery(input);
    },
    ...createVerifyActivities({
      artifacts: store,
      fetcher,
      model,
      defaultModel,
      pricing: config.models.pricing,
      doiResolver: config.fetch.doi_resolver_url,
      verifyCitations: createReportActivities(store).verifyCitations,
    }),
    ...createWebActivities({ config, artifacts: store, fetcher, cache, searchProvider, judgePageText: relevance.judgePageText }),
    ...createRenderActivities({ config, artifacts: store, cache, renderers, judgePageText: relevance.judgePageText }),
    ...asStoreSteps(createStoreActivities(sessionStore, storeStepArtifacts), 'sessions'),
    ...asStoreSteps(createReportActivities(storeStepArtifacts), 'artifacts'),
    scoreRelevance: relevance.scoreRelevance,
    ...createDeliveryActivities({ config, sessions: sessionsWaiting, artifacts: store }),
    async lookupLocalKnowledge({ query, maxResults }) {
      const notes = notesSource(config);
      if (!notes) return { hits: [] };
      try {
        const hits = (await searchProvider(notes).search({ query, maxResults })).filter(matchesQuestion(query));
        return { hits: hits.map((h) => ({ title: h.title.slice(0, 200), url: h.url, snippet: h.snippet.slice(0, 300) })) };
      } catch (err) {
        throw toFailure(err, 'looking up the local documents', searchSetupVariable(notes));
      }
    },
    async resolveProviders({ settings }) {
      try {
        return resolveProviderPlan(config, settings);
      } catch (err) {
        throw toFailure(err, 'choosing providers');
      }
    },
  };
  return {
    activities,
    browserMemory: () => renderers.pool.memory(),
    close: async () => {
      clearInterval(archiveSweep);
      await renderers.close();
      if (ownsSessions) await sessions?.close();
      await ownCache.close();
      await ownArtifacts?.close?.();
      await fetcher.close();
      await stopParserThreads();
    },
  };
}

/**
 * The planner sees only the user's notes that are about the question (scored as pages are before
 * reading) or match it by meaning. Notes that only share "the" and "of" with it, or a few common
 * words in passing, stay out.
 */
export function matchesQuestion(query: string): (hit: SearchResult) => boolean {
  const floor = queryContentWords(query).size ? NOTE_MIN_RELEVANCE : 0;
  return (hit) => (hit.query_match ?? 1) >= floor;
}

const ARCHIVE_SWEEP_MS = 3_600_000;

/**
 * Expired archive records are deleted when the worker starts and every hour after. The sweep runs
 * whether archiving is on or off: records written while it was on still expire.
 */
function startArchiveSweep(dir: string | undefined, ttlHours: number): NodeJS.Timeout {
  const sweep = () => {
    if (dir) sweepArchive(dir, ttlHours).catch(() => undefined);
  };
  sweep();
  const timer = setInterval(sweep, ARCHIVE_SWEEP_MS);
  timer.unref();
  return timer;
}

export { checkModelConfigured } from '../providers/registry';

