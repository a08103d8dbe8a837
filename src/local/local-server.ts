// The Temporal server the CLI talks to: the embedded dev server of this data directory (started on
// first need) unless TEMPORAL_ADDRESS names a cluster. Another data directory's server is refused.
import type { AppConfig } from '../config/schema';
import { foreignServer, freeServerPort, portOpen, startDevServer } from './dev-server';
import { ensureTemporalBinary } from './temporal-cli';
import { usesEmbeddedServer } from './worker-records';

/**
 * How a step a person waits for is shown: the CLI keeps one line ticking at a terminal; by default
 * the step is logged when it starts.
 */
export type Step = <T>(what: string, work: () => Promise<T>) => Promise<T>;

/** The server is up and this data directory's (or a cluster's); the embedded one is started when it is not. */
export async function ensureServer(config: AppConfig, log: (line: string) => void, step: Step = async (what, work) => (log(what), work())): Promise<void> {
  if (await portOpen(config.temporal.address)) return refuseForeignServer(config);
  if (!usesEmbeddedServer(config)) {
    throw new Error(`Temporal is unreachable at ${config.temporal.address} (TEMPORAL_ADDRESS)`);
  }
  const binary = ensureTemporalBinary(config, log);
  const since = Date.now();
  await step(`starting the local Temporal server on ${config.temporal.address} (data in ${config.data_dir})`, () =>
    startDevServer({ binary, dataDir: config.data_dir, address: config.temporal.address, uiPort: config.temporal.ui_port }),
  );
  log(`the local Temporal server is up (${((Date.now() - since) / 1000).toFixed(1)} s); Temporal UI: http://127.0.0.1:${config.temporal.ui_port}`);
}

/** For commands that start nothing: the server must be up already, and this data directory's (or a cluster's). */
export async function requireServer(config: AppConfig): Promise<void> {
  if (!(await portOpen(config.temporal.address))) {
    throw new Error(`Temporal is unreachable at ${config.temporal.address}; run "deep-research server start" or set TEMPORAL_ADDRESS`);
  }
  await refuseForeignServer(config);
}

/**
 * The embedded server of another data directory (or one started by hand) is never used silently:
 * this data directory's sessions would run beside the other's, on its workers and their stores.
 */
async function refuseForeignServer(config: AppConfig): Promise<void> {
  if (!usesEmbeddedServer(config)) return;
  const other = await foreignServer(config.data_dir, config.temporal.address);
  if (!other) return;
  const whose = other.dataDir ? `the data directory ${other.dataDir}${other.pid ? ` (pid ${other.pid})` : ''}` : 'another data directory, or was started by hand';
  const port = await freeServerPort(config.temporal.address);
  throw new Error(
    `the Temporal server at ${config.temporal.address} belongs to ${whose}, not to this data directory (${config.data_dir}): ` +
      `give this one its own with DEEP_RESEARCH_TEMPORAL_PORT=${port ?? '<a free port>'} (its Web UI 1000 above, or DEEP_RESEARCH_TEMPORAL_UI_PORT), ` +
      `or use that one on purpose with TEMPORAL_ADDRESS=${config.temporal.address}`,
  );
}
