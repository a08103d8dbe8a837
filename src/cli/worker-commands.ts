// `deep-research worker status | stop`: is a worker really there, and which one.
import type { AppConfig } from '../config/schema';
import { activePollers, connect, readWorkerRecord, runningWorkerPid, stopBackgroundWorker } from './runtime';
import { providerFingerprint } from './workers';

const log = (line: string) => process.stderr.write(`${line}\n`);

export async function workerCommand(action: 'status' | 'stop', config: AppConfig, json?: boolean): Promise<void> {
  if (action === 'stop') {
    const stopped = await stopBackgroundWorker(config, log);
    if (json) process.stdout.write(`${JSON.stringify({ stopped })}\n`);
    else if (!stopped) log('no background worker of this data directory is running');
    return;
  }
  const pid = runningWorkerPid(config);
  const record = readWorkerRecord(config);
  let pollers: number | undefined;
  try {
    const client = await connect(config, { startServer: false, log });
    try {
      pollers = await activePollers(client);
    } finally {
      await client.close();
      await client.connection.close();
    }
  } catch {
    pollers = undefined;
  }
  const stale = !!pid && !!record?.fingerprint && record.fingerprint !== providerFingerprint(process.env);
  const status = { background_worker: pid ? { pid, started_at: record?.started_at, environment_changed: stale } : null, live_pollers: pollers ?? null, task_queue: config.temporal.task_queue };
  if (json) {
    process.stdout.write(`${JSON.stringify(status)}\n`);
    return;
  }
  const lines = [
    pid ? `background worker: pid ${pid}${record?.started_at ? `, since ${record.started_at}` : ''}${stale ? ' (provider environment changed since; the next start restarts it)' : ''}` : 'background worker: not running',
    pollers === undefined ? 'pollers: Temporal is unreachable' : `live workers polling "${config.temporal.task_queue}": ${pollers}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
