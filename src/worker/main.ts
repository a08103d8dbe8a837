// A long-running worker: `deep-research worker`, or `node dist/worker/main.js`. Logs are JSON lines
// (pino); metrics on a Prometheus endpoint with --metrics-port / DEEP_RESEARCH_METRICS_PORT; traces
// over OTLP with OTEL_EXPORTER_OTLP_ENDPOINT.
import { getHeapStatistics } from 'node:v8';
import { loadConfig } from '../config/load';
import type { AppConfig } from '../config/schema';
import { connectClient, connectWorker, ensureSearchAttributes } from '../temporal/connection';
import { startWorkerTelemetry } from './metrics';
import { stopTracing } from '../telemetry/tracing';
import { createResearchWorker, workerWorkflowCode } from './create-worker';
import { startHealthServer } from './health';
import { sharedStoreProbe } from '../stores/open';
import { adoptEvery } from '../client/adoption';
import { ResearchClient } from '../client/research-client';

export interface RunWorkerOptions {
  /** A port, or host:port, for the Prometheus endpoint; DEEP_RESEARCH_METRICS_PORT otherwise. */
  metricsPort?: string;
  /** A port, or host:port, for /healthz and /readyz; DEEP_RESEARCH_HEALTH_PORT otherwise. */
  healthPort?: string;
  /** Settles once the Temporal server can be reached (the worker loads its workflow code meanwhile). */
  serverReady?: () => Promise<void>;
}

/**
 * Runs a worker with the process's config (loaded once, where the process starts) until it is
 * stopped. Each part is built here once and gets its slice: the telemetry its settings, the Temporal
 * connections, the workers and the health probe what they need; the worker's own client (session
 * counts, adoption) is built once and shared.
 */
export async function runWorker(config: AppConfig, opts: RunWorkerOptions = {}): Promise<void> {
  const settings = config.environment.worker;
  const healthAddress = opts.healthPort ?? settings.health_port;
  const { logger, metrics, tracing } = startWorkerTelemetry(config.environment.telemetry, opts.metricsPort ?? settings.metrics_port);
  // The workflow bundle (from the cache, or bundled in a child) is read while the server comes up.
  const code = workerWorkflowCode(config, logger);
  code.catch(() => undefined);
  const store = healthAddress ? sharedStoreProbe(config) : undefined;
  await opts.serverReady?.();
  const client = await connectClient(config);
  const searchAttributes = await ensureSearchAttributes(client, config.temporal.namespace);
  const connection = await connectWorker(config);
  const { worker, close } = await createResearchWorker({ config, connection, logger, workflowBundle: await code, ...(metrics ? { sessionCounts: client } : {}) });
  const health = healthAddress && store ? await startHealthServer(healthAddress, { worker: () => worker.getState(), store: store.state }) : undefined;
  if (health) logger.info({ health: health.url }, `health checks on ${health.url}/healthz and /readyz`);
  const running = worker.run();
  // The worker's own client: it moves research of builds that are gone onto this one.
  const research = new ResearchClient(client, config, searchAttributes);
  try {
    await worker.ready;
    logger.info(
      { task_queue: config.temporal.task_queue, address: config.temporal.address, build: worker.build.buildId, max_cached_workflows: worker.cacheSize, heap_limit_mb: heapLimitMb(), metrics: metrics ?? null, tracing },
      `worker polling task queue "${config.temporal.task_queue}" on ${config.temporal.address} as build ${worker.build.buildId} (pid ${process.pid})`,
    );
    const adoption = adoptEvery(research, worker.build, settings.adopt_every_seconds, logger);
    try {
      await running;
    } finally {
      clearInterval(adoption);
    }
  } finally {
    health?.server.close();
    await store?.release();
    await close();
    await research.close();
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
