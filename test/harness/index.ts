// The test harness: loopback model, web and search servers plus a configured research environment
// (data directory, task queue, worker) on a real Temporal server.
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Runtime, DefaultLogger, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ResearchClient } from '../../src/client/research-client';
import { loadConfig } from '../../src/config/load';
import type { AppConfig } from '../../src/config/schema';
import { createResearchWorker, WORKFLOWS_PATH } from '../../src/worker/create-worker';
import { FAILURE_CONVERTER_PATH } from '../../src/temporal/codec';
import { WORKER_HEARTBEAT_MS } from '../../src/temporal/deployments';
import { startModel, type FakeModel, type ModelScript } from './model';
import { Recorder } from './recorder';
import { sharedWorkflowBundle } from './shared-bundle';
import { startSearch, type FakeSearch, type SearchOptions } from './searxng';
import { startWeb, type FakeWeb, type WebOptions } from './web';

// Tests choose their stores themselves: a shared database or bucket in the caller's shell must
// never receive test sessions (the fleet and store tests pass theirs explicitly).
delete process.env.DATABASE_URL;
delete process.env.ARTIFACTS_URL;

export interface HarnessOptions {
  model?: ModelScript;
  web?: WebOptions;
  search?: Omit<SearchOptions, 'webUrl' | 'pageCount'>;
}

export interface Harness {
  recorder: Recorder;
  model: FakeModel;
  web: FakeWeb;
  search: FakeSearch;
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const recorder = new Recorder();
  const model = await startModel(recorder, opts.model);
  const web = await startWeb(recorder, opts.web);
  const search = await startSearch(recorder, { webUrl: web.url, pageCount: web.pageCount, ...opts.search });
  return {
    recorder,
    model,
    web,
    search,
    env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'harness-key', OPENAI_MODEL: 'scripted-model', SEARXNG_URL: search.url, SEARCH_PROVIDERS: 'searxng', FETCH_ALLOW_HOSTS: web.host },
    close: async () => {
      await Promise.all([model.close(), web.close(), search.close()]);
    },
  };
}

/**
 * Config for one test, loaded from its environment as a process loads its own: its own data
 * directory and task queue on the given Temporal server. `env` is that environment, for the
 * processes a test spawns (CLI, child workers); in-process parts get `config`.
 */
export function testConfig(harness: Pick<Harness, 'env'>, address: string, extraEnv: Record<string, string> = {}): { config: AppConfig; env: Record<string, string> } {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dr-data-'));
  const env = {
    ...harness.env,
    TEMPORAL_ADDRESS: address,
    DEEP_RESEARCH_DATA_DIR: dataDir,
    DEEP_RESEARCH_TASK_QUEUE: `test-${randomUUID().slice(0, 8)}`,
    ...extraEnv,
  };
  const config = loadConfig({ ...env, PATH: process.env.PATH });
  // The fake web answers every query with pages on mixed topics: sessions read them all unless a
  // test of the relevance gate asks for it.
  config.research.settings.min_relevance = 0;
  return { config, env };
}

/** The test's config as a process started with `variables` over the test's environment reads it (its settings as the test set them). */
export function configWith(env: Pick<TestEnvironment, 'config' | 'env'>, variables: Record<string, string>): AppConfig {
  return { ...env.config, environment: loadConfig({ ...env.env, ...variables, PATH: process.env.PATH }).environment };
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
let runtimeInstalled = false;

/** Worker logs at WARN, so test output shows what matters. Must run before any worker connection. */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger('ERROR'), workerHeartbeatInterval: WORKER_HEARTBEAT_MS });
}

/** The workflow bundle: the test run's (built once by the global setup), else built once per process. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  quietRuntime();
  const shared = bundle ? undefined : sharedWorkflowBundle();
  if (shared) bundle = Promise.resolve(shared);
  return (bundle ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, failureConverterPath: FAILURE_CONVERTER_PATH, logger: new DefaultLogger('WARN') }));
}

export interface TestEnvironment {
  config: AppConfig;
  env: Record<string, string>;
  client: ResearchClient;
  temporal: Client;
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

export interface EnvironmentOptions {
  worker?: boolean;
  extraEnv?: Record<string, string>;
  /** Changes to the loaded config, e.g. provider base URLs pointing at loopback fakes. */
  configure?: (config: AppConfig) => void;
}

export async function startEnvironment(harness: Pick<Harness, 'env'>, address: string, opts: EnvironmentOptions = {}): Promise<TestEnvironment> {
  quietRuntime();
  const { config, env } = testConfig(harness, address, opts.extraEnv);
  opts.configure?.(config);
  const connection = await Connection.connect({ address });
  const client = new ResearchClient(connection, config, true);
  let stopWorker = async () => undefined as void;
  const startWorker = async () => {
    const nativeConnection = await NativeConnection.connect({ address });
    // A worker reads its environment when it starts: a variable the test set since (a secret) reaches the next worker.
    const { worker, close } = await createResearchWorker({ config: configWith({ config, env }, {}), connection: nativeConnection, workflowBundle: await workflowBundle() });
    const running = worker.run();
    // Sessions start on this build once it is the deployment's current version.
    await worker.ready;
    stopWorker = async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await close();
      await nativeConnection.close();
      stopWorker = async () => undefined;
    };
  };
  if (opts.worker !== false) await startWorker();
  return {
    config,
    env,
    client,
    temporal: client.client,
    startWorker,
    stopWorker: () => stopWorker(),
    close: async () => {
      await stopWorker();
      await client.close();
      await connection.close();
    },
  };
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`);
}

export function writeJson(file: string, value: unknown): void {
  writeFileSync(file, JSON.stringify(value, null, 2));
}
