// What every command that talks to Temporal shares: the config, a connection (starting the local
// server and a background worker for commands that start research), and one line of output.
import { ResearchClient } from '../client/research-client';
import { loadConfig } from '../config/load';
import type { AppConfig } from '../config/schema';
import { flushTracing, startTracing } from '../telemetry/tracing';
import { connect, ensureWorker } from '../runtime/local';
import { withSnakeCaseIds } from './format';

export const log = (line: string) => process.stderr.write(`${line}\n`);

export interface Common {
  json?: boolean;
}

export function out(json: boolean | undefined, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(withSnakeCaseIds(value))}\n` : `${text}\n`);
}

export async function withClient<T>(opts: { startRuntime?: boolean }, fn: (client: ResearchClient, config: AppConfig) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // Refuse to start research that could only fail later for want of a model.
  if (opts.startRuntime) (require('../providers/registry') as typeof import('../providers/registry')).checkModelConfigured(config, process.env);
  startTracing('deep-research-cli');
  const client = await connect(config, { startServer: !!opts.startRuntime, searchAttributes: !!opts.startRuntime, log });
  if (opts.startRuntime) await ensureWorker(client, log);
  try {
    return await fn(client, config);
  } finally {
    await client.close();
    await client.connection.close();
    await flushTracing().catch(() => undefined);
  }
}
