import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createActivities } from '../activities';
import type { AppConfig } from '../config/schema';

/** The workflow entry point: compiled .js when built, the .ts source in development and tests. */
export const WORKFLOWS_PATH = ['index.js', 'index.ts']
  .map((file) => path.resolve(__dirname, '..', 'workflows', file))
  .find((file) => existsSync(file)) as string;

export interface ResearchWorkerOptions {
  config: AppConfig;
  connection: NativeConnection;
  env?: NodeJS.ProcessEnv;
  /** A pre-built bundle (tests build one per file); otherwise the worker bundles on start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  overrides?: Partial<WorkerOptions>;
}

export async function createResearchWorker(opts: ResearchWorkerOptions): Promise<{ worker: Worker; close(): void }> {
  const { activities, close } = createActivities({ config: opts.config, env: opts.env });
  const worker = await Worker.create({
    connection: opts.connection,
    namespace: opts.config.temporal.namespace,
    taskQueue: opts.config.temporal.task_queue,
    ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    activities,
    maxConcurrentActivityTaskExecutions: 20,
    ...opts.overrides,
  });
  return { worker, close };
}
