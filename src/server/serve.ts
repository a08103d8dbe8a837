// `deep-research serve`: the API and the web app in one process, on the same Temporal
// the CLI uses, with a worker started unless one already serves the task queue.
import type { FastifyInstance } from 'fastify';
import { checkModelConfigured } from '../activities';
import { connect, ensureWorker, watchWorker } from '../runtime/local';
import { takeWorkerOwnership, workerOwner } from '../local/worker-owner';
import type { AppConfig } from '../config/schema';
import { createLogger } from '../telemetry/logging';
import { stopTracing, startTracing } from '../telemetry/tracing';
import { buildApp } from './app';
import { assertSafeBinding, ensureOperatorToken } from './auth';
import { ResearchService } from './research-service';
import { openServiceStore, prepareSharedStores } from '../stores/open';
import { policyOf } from './session-policy';

export interface ServeOptions {
  host: string;
  port: number;
  corsOrigins?: string[];
  rateLimitPerMinute?: number;
  /** false: workers run elsewhere (a deployment); the server never starts one. */
  startWorker?: boolean;
  log: (line: string) => void;
}


/** Serves with the process's config (loaded once, where the CLI starts). */
export async function serve(config: AppConfig, opts: ServeOptions): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  checkModelConfigured(config);
  // Refused before anything starts: beyond loopback only with API tokens.
  await prepareSharedStores(config);
  const tokens = openServiceStore(config);
  try {
    await ensureOperatorToken(tokens, { host: opts.host, operatorToken: config.environment.service.operator_token, dataDir: config.data_dir, log: opts.log });
    await assertSafeBinding(opts.host, tokens);
  } finally {
    await tokens.close();
  }
  startTracing('deep-research-serve', config.environment.telemetry);
  const client = await connect(config, { startServer: true, log: opts.log });
  const service = new ResearchService(client, policyOf(config), opts.log);
  const startWorker = opts.startWorker !== false;
  // The first serve on a data directory owns its background worker; others (and the CLI) use it.
  const ownership = startWorker ? takeWorkerOwnership(config.data_dir, config.temporal.task_queue, 'serve') : undefined;
  if (ownership && !ownership.held()) opts.log(`another serve owns this data directory's background worker (${workerOwner(config.data_dir, config.temporal.task_queue)?.pid ?? '?'}); this one uses it`);
  try {
    if (startWorker) await ensureWorker(client, opts.log);
  } catch (err) {
    ownership?.release();
    await service.close();
    await client.connection.close();
    throw err;
  }
  const app = await buildApp({
    service,
    host: opts.host,
    corsOrigins: opts.corsOrigins,
    rateLimitPerMinute: opts.rateLimitPerMinute,
    loggerInstance: createLogger('deep-research-serve', config.environment.telemetry.log_level),
  });
  await app.listen({ host: opts.host, port: opts.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  // A worker that dies later is replaced: sessions never wait for one that is not coming. An owner
  // that died leaves the lock to the next serve that checks.
  const stopWatch = startWorker ? watchWorker(client, opts.log, () => ownership?.retake()) : undefined;
  opts.log(`deep-research web app and API on http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}/ (API docs at /api/docs, OpenAPI at /api/openapi.json)`);
  return {
    app,
    close: async () => {
      stopWatch?.();
      ownership?.release();
      await app.close();
      await service.close();
      await client.close();
      await client.connection.close();
      await stopTracing();
    },
  };
}
