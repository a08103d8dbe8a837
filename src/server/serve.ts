// `deep-research serve`: the API (and, later, the web app) in one process, on the same Temporal
// the CLI uses, with a worker started unless one already serves the task queue.
import type { FastifyInstance } from 'fastify';
import { checkModelConfigured } from '../activities';
import { connect, ensureWorker } from '../cli/runtime';
import { loadConfig } from '../config/load';
import { buildApp } from './app';
import { assertSafeBinding } from './auth';
import { ResearchService } from './research-service';
import { ServiceStore } from './service-store';
import { policyFromEnv } from './session-policy';

export interface ServeOptions {
  host: string;
  port: number;
  corsOrigins?: string[];
  rateLimitPerMinute?: number;
  log: (line: string) => void;
}

const WORKER_CHECK_MS = 30_000;

export async function serve(opts: ServeOptions): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  const config = loadConfig();
  checkModelConfigured(config, process.env);
  // Refused before anything starts: beyond loopback only with API tokens.
  const tokens = ServiceStore.open(config.data_dir);
  try {
    assertSafeBinding(opts.host, tokens);
  } finally {
    tokens.close();
  }
  const client = await connect(config, { startServer: true, log: opts.log });
  const service = new ResearchService(client, policyFromEnv(), opts.log);
  try {
    await ensureWorker(client, opts.log);
  } catch (err) {
    service.close();
    await client.connection.close();
    throw err;
  }
  const app = await buildApp({ service, host: opts.host, corsOrigins: opts.corsOrigins, rateLimitPerMinute: opts.rateLimitPerMinute });
  await app.listen({ host: opts.host, port: opts.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  // A worker that dies later is replaced: sessions never wait for one that is not coming.
  const watchdog = setInterval(() => {
    ensureWorker(client, opts.log).catch((err: unknown) => opts.log(`worker check failed: ${(err as Error).message}`));
  }, WORKER_CHECK_MS);
  watchdog.unref();
  opts.log(`deep-research API on http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port} (docs at /api/docs, OpenAPI at /api/openapi.json)`);
  return {
    app,
    close: async () => {
      clearInterval(watchdog);
      await app.close();
      service.close();
      client.close();
      await client.connection.close();
    },
  };
}
