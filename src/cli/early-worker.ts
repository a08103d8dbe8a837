// On a cold start the background worker is the longest wait (it loads its code and its workflow
// bundle before it polls), so `research` and `start` launch it first thing, before the command loads
// the Temporal client and starts the local server. Only when the CLI would start it anyway: the
// embedded server is not up, no worker of ours runs, no serve owns the data directory's worker, and
// a model is configured (otherwise the command refuses, and starts nothing).
import { portOpen } from '../local/dev-server';
import { workerOwner } from '../local/worker-owner';
import { runningWorkerPid, usesEmbeddedServer } from '../local/worker-records';
import { startBackgroundWorker } from '../runtime/background-worker';
import { loadConfig } from './config';

export async function startWorkerEarly(log: (line: string) => void): Promise<void> {
  try {
    const config = loadConfig();
    if (!usesEmbeddedServer(config)) return;
    if (runningWorkerPid(config) || workerOwner(config.data_dir, config.temporal.task_queue)) return;
    (require('../providers/registry') as typeof import('../providers/registry')).checkModelConfigured(config);
    if (await portOpen(config.temporal.address)) return;
    startBackgroundWorker(config, log);
  } catch {
    // Whatever stops this (a config error, no model) the command itself reports.
  }
}
