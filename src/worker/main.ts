// A long-running worker: `deep-research worker`, or `node dist/worker/main.js`. Logs are JSON lines
// (pino); metrics on a Prometheus endpoint with --metrics-port / DEEP_RESEARCH_METRICS_PORT; traces
// over OTLP with OTEL_EXPORTER_OTLP_ENDPOINT.
import { Client } from '@temporalio/client';
import { getHeapStatistics } from 'node:v8';
import { loadConfig } from '../config/load';
import type { AppConfig } from '../config/schema';
import { dataConverterOf } from '../temporal/codec';
import { connectClient, connectWorker, ensureSearchAttributes } from '../temporal/connection';
import { createLogger } from '../telemetry/logging';
import { installWorkerRuntime, metricsBindAddress, SessionStatusGauge } from './metrics';
import { startTracing, stopTracing } from '../telemetry/tracing';
import { createResearchWorker, workerWorkflowCode } from './create-worker';
import { startHealthServer } from './health';
import { databaseUrl, sharedStoreState } from '../stores/open';
import { openDatabase } from '../stores/postgres/database';
import { adoptOrphanedSessions } from '../client/adoption';
import { ResearchClient } from '../client/research-client';
import type { Logger } from 'pino';
import type { BuildIdentity } from '../temporal/deployments';

export interface RunWorkerOptions {
  /** A port, or host:port, for the Prometheus endpoint; DEEP_RESEARCH_METRICS_PORT otherwise. */
  metricsPort?: string;
  /** A port, or host:port, for /healthz and /readyz; DEEP_RESEARCH_HEALTH_PORT otherwise. */
  healthPort?: string;
  /** Settles once the Temporal server can be reached (the worker loads its workflow code meanwhile). */
  serverReady?: () => Promise<void>;
}

/** Runs a worker with the process's config (loaded once, where the process starts) until it is stopped. */
export async function runWorker(config: AppConfig, opts: RunWorkerOptions = {}): Promise<void> {
  const { telemetry, worker: settings, temporal } = config.environment;
  const logger = createLogger('deep-research-worker', telemetry.log_level);
  const metricsAddress = opts.metricsPort ?? settings.metrics_port;
  installWorkerRuntime(logger, metricsAddress);
  const tracing = startTracing('deep-research-worker', telemetry);
  // The workflow bundle (from the cache, or bundled in a child) is read while the server comes up.
  const code = workerWorkflowCode(config, logger);
  code.catch(() => undefined);
  await opts.serverReady?.();
  const client = await connectClient(config);
  const searchAttributes = await ensureSearchAttributes(client, config.temporal.namespace);
  const sessions = metricsAddress ? new SessionStatusGauge(new Client({ connection: client, namespace: config.temporal.namespace, dataConverter: dataConverterOf(temporal.payload_keys) }), logger) : undefined;
  const connection = await connectWorker(config);
  const { worker, close } = await createResearchWorker({ config, connection, logger, workflowBundle: await code, onSessionPersisted: () => sessions?.soon() });
  sessions?.start();
  const healthAddress = opts.healthPort ?? settings.health_port;
  const url = databaseUrl(config);
  const db = healthAddress && url ? openDatabase(url) : undefined;
  const health = healthAddress ? await startHealthServer(healthAddress, { worker: () => worker.getState(), store: () => sharedStoreState(db) }) : undefined;
  if (health) logger.info({ health: health.url }, `health checks on ${health.url}/healthz and /readyz`);
  const running = worker.run();
  try {
    await worker.ready;
    logger.info(
      { task_queue: config.temporal.task_queue, address: config.temporal.address, build: worker.build.buildId, max_cached_workflows: worker.cacheSize, heap_limit_mb: heapLimitMb(), metrics: metricsAddress ? metricsBindAddress(metricsAddress) : null, tracing },
      `worker polling task queue "${config.temporal.task_queue}" on ${config.temporal.address} as build ${worker.build.buildId} (pid ${process.pid})`,
    );
    const adoption = adoptEvery(new ResearchClient(client, config, searchAttributes), worker.build, settings.adopt_every_seconds, logger);
    try {
      await running;
    } finally {
      clearInterval(adoption);
    }
  } finally {
    health?.server.close();
    await db?.release();
    sessions?.stop();
    await close();
    await connection.close();
    await client.close();
    await stopTracing();
  }
}

if (require.main === module) {
  new Promise<AppConfig>((resolve) => resolve(loadConfig())).then((config) => runWorker(config)).catch((err) => {
    console.error(`worker: ${(err as Error).message}`);
    process.exit(1);
  });
}

/** The main thread's V8 heap limit (old and young generations), as the process was started. */
const heapLimitMb = () => Math.round(getHeapStatistics().heap_size_limit / 2 ** 20);

/**
 * Research pinned to a build with no live worker left moves to this one: at start, then every
 * DEEP_RESEARCH_ADOPT_EVERY_SECONDS (60; 0: only at start).
 */
function adoptEvery(research: ResearchClient, build: BuildIdentity, seconds: number, logger: Logger): NodeJS.Timeout | undefined {
  const sweep = async () => {
    try {
      for (const a of await adoptOrphanedSessions(research, build)) {
        if (a.outcome === 'adopted') logger.warn({ research_id: a.research_id, from: a.from, to: build.buildId }, `research ${a.research_id} moved from build ${a.from} to ${build.buildId}`);
        else logger.warn({ research_id: a.research_id, from: a.from }, `research ${a.research_id} is pinned to build ${a.from}, which has no live worker, and has no stored snapshot to go on from`);
      }
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'could not look for sessions of builds that are gone');
    }
  };
  void sweep();
  if (!(seconds > 0)) return undefined;
  const timer = setInterval(() => void sweep(), seconds * 1000);
  timer.unref();
  return timer;
}
