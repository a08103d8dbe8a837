// A long-running worker: `deep-research worker`, or `node dist/worker/main.js`. Logs are JSON lines
// (pino); metrics on a Prometheus endpoint with --metrics-port / DEEP_RESEARCH_METRICS_PORT; traces
// over OTLP with OTEL_EXPORTER_OTLP_ENDPOINT.
import { Client } from '@temporalio/client';
import { loadConfig } from '../config/load';
import { dataConverterFromEnv } from '../temporal/codec';
import { connectClient, connectWorker, ensureSearchAttributes } from '../temporal/connection';
import { createLogger } from '../telemetry/logging';
import { installWorkerRuntime, metricsBindAddress, METRICS_PORT_ENV, SessionStatusGauge } from '../telemetry/metrics';
import { startTracing, stopTracing } from '../telemetry/tracing';
import { createResearchWorker } from './create-worker';
import { HEALTH_PORT_ENV, startHealthServer } from './health';
import { databaseUrl, sharedStoreState } from '../stores/open';
import { openDatabase } from '../stores/postgres/database';

export interface RunWorkerOptions {
  /** A port, or host:port, for the Prometheus endpoint; DEEP_RESEARCH_METRICS_PORT otherwise. */
  metricsPort?: string;
  /** A port, or host:port, for /healthz and /readyz; DEEP_RESEARCH_HEALTH_PORT otherwise. */
  healthPort?: string;
}

export async function runWorker(opts: RunWorkerOptions = {}): Promise<void> {
  const logger = createLogger('deep-research-worker');
  const metricsAddress = opts.metricsPort ?? process.env[METRICS_PORT_ENV];
  installWorkerRuntime(logger, metricsAddress);
  const tracing = startTracing('deep-research-worker');
  const config = loadConfig();
  const client = await connectClient(config);
  await ensureSearchAttributes(client, config.temporal.namespace);
  const sessions = metricsAddress ? new SessionStatusGauge(new Client({ connection: client, namespace: config.temporal.namespace, dataConverter: dataConverterFromEnv() }), logger) : undefined;
  const connection = await connectWorker(config);
  const { worker, close } = await createResearchWorker({ config, connection, logger, onSessionPersisted: () => sessions?.soon() });
  sessions?.start();
  const healthAddress = opts.healthPort ?? process.env[HEALTH_PORT_ENV];
  const url = databaseUrl();
  const db = healthAddress && url ? openDatabase(url) : undefined;
  const health = healthAddress ? await startHealthServer(healthAddress, { worker: () => worker.getState(), store: () => sharedStoreState(db) }) : undefined;
  if (health) logger.info({ health: health.url }, `health checks on ${health.url}/healthz and /readyz`);
  logger.info(
    { task_queue: config.temporal.task_queue, address: config.temporal.address, metrics: metricsAddress ? metricsBindAddress(metricsAddress) : null, tracing },
    `worker polling task queue "${config.temporal.task_queue}" on ${config.temporal.address} (pid ${process.pid})`,
  );
  try {
    await worker.run();
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
  runWorker().catch((err) => {
    console.error(`worker: ${(err as Error).message}`);
    process.exit(1);
  });
}
