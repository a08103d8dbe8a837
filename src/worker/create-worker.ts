import { Client, type Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { existsSync, readFileSync } from 'node:fs';
import pino, { type Logger } from 'pino';
import { createActivities } from '../activities';
import { prepareSharedStores } from '../stores/open';
import type { AppConfig } from '../config/schema';
import { ALL_SEARCH_PROVIDERS, searchAvailability, searchBurst, searchRate } from '../providers/registry';
import { dataConverterOf } from '../temporal/codec';
import { researchActivityInterceptor, SessionStatusGauge, startMemoryGauge, storeWaitReporter } from './metrics';
import { activityTracingInterceptors, tracingSinks, tracingRequested } from '../telemetry/tracing';
import { cachedWorkflowCode } from './bundle-cache';
import { planningTaskQueue, searchTaskQueue } from '../contract/names';
import { TokenBucket } from './token-bucket';
import { workflowCacheSize } from './cache-size';
import { buildIdOf, versioningOptions } from './versioning';
import { deploymentNameOf, promoteBuild, type BuildIdentity } from '../temporal/deployments';

export { WORKFLOWS_PATH } from './bundle-cache';

export interface ResearchWorkerOptions {
  config: AppConfig;
  connection: NativeConnection;
  /** A pre-built bundle (tests build one per file); otherwise the worker bundles on start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  overrides?: Partial<WorkerOptions>;
  /** Where activity failures and session saves are logged (silent when not given). */
  logger?: Logger;
  /** With a client connection: the namespace's session counts by status as metrics, refreshed after saves. */
  sessionCounts?: Connection;
}

/** Where and how this build makes itself the deployment's current version once its workers poll. */
interface Promotion {
  service: NativeConnection['workflowService'];
  namespace: string;
}

/** The main worker plus one rate-limited search worker per available provider, run and stopped together. */
export class ResearchWorkers {
  /** Settles once this build is the deployment's current version (or promotion is off, or failed). */
  readonly ready: Promise<void>;
  private markReady!: (err?: Error) => void;

  constructor(
    readonly main: Worker,
    readonly search: Worker[],
    readonly build: BuildIdentity,
    /** Sessions the main worker keeps in its workflow cache. */
    readonly cacheSize: number,
    private readonly promotion?: Promotion,
  ) {
    this.ready = new Promise<void>((resolve, reject) => (this.markReady = (err) => (err ? reject(err) : resolve())));
    this.ready.catch(() => undefined);
  }

  async run(): Promise<void> {
    const running = Promise.all([this.main, ...this.search].map((w) => w.run()));
    // The version exists once its workers poll: promote it beside them.
    (this.promotion ? promoteBuild(this.promotion.service, this.promotion.namespace, this.build) : Promise.resolve()).then(() => this.markReady(), (err: Error) => this.markReady(err));
    await running;
  }

  shutdown(): void {
    for (const w of [this.main, ...this.search]) if (w.getState() === 'RUNNING') w.shutdown();
  }

  getState(): ReturnType<Worker['getState']> {
    return this.main.getState();
  }
}

/**
 * A pre-built bundle (tests; or DEEP_RESEARCH_WORKFLOW_BUNDLE, written by `npm run bundle:workflows`)
 * spares the worker bundling at start, which costs seconds and ~200 MB of memory it never returns.
 */
/** Where `npm run bundle:workflows` writes the bundle with the tracing interceptors, beside the plain one. */
export function tracingBundlePath(codePath: string): string {
  return codePath.replace(/(\.js)?$/, '.tracing.js');
}

/**
 * The workflow code this worker runs, as a bundle: its hash is the build id. A bundle given (tests)
 * or written by `npm run bundle:workflows` is used as it is; otherwise the bundle of this code from
 * the data directory's cache, bundled (in a child process) on the first start of this code.
 */
async function workflowCode(bundle: WorkerOptions['workflowBundle'], config: AppConfig, logger: Logger): Promise<{ code: string; sourceMap?: string }> {
  if (bundle && 'code' in bundle) return bundle;
  return workerWorkflowCode(config, logger, bundle && 'codePath' in bundle ? bundle.codePath : undefined);
}

/** A worker's workflow code when none is given: DEEP_RESEARCH_WORKFLOW_BUNDLE's, or the cached bundle of this code. */
export async function workerWorkflowCode(config: AppConfig, logger: Logger, given?: string): Promise<{ code: string }> {
  const codePath = given ?? config.environment.worker.workflow_bundle;
  const tracing = tracingRequested(config.environment.telemetry);
  if (codePath) {
    if (!existsSync(codePath)) throw new Error(`DEEP_RESEARCH_WORKFLOW_BUNDLE: no bundle at ${codePath} (run npm run bundle:workflows)`);
    const traced = tracingBundlePath(codePath);
    return { code: readFileSync(tracing && existsSync(traced) ? traced : codePath, 'utf8') };
  }
  return { code: await cachedWorkflowCode(config, tracing, (line) => logger.info(line)) };
}

export async function createResearchWorker(opts: ResearchWorkerOptions): Promise<{ worker: ResearchWorkers; close(): Promise<void> }> {
  const { config } = opts;
  await prepareSharedStores(config);
  const logger = opts.logger ?? pino({ level: 'silent' });
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
  // What the browser does is logged with the worker's memory beside it.
  const onBrowser = (line: string) => logger.info({ worker_rss_mb: mb(process.memoryUsage.rss()) }, line);
  const { activities, browserMemory, close: closeActivities } = createActivities({ config, onStoreWait: storeWaitReporter(logger), onBrowser });
  const dataConverter = dataConverterOf(config.environment.temporal.payload_keys);
  const stopMemoryGauge = startMemoryGauge(browserMemory);
  const sessions = opts.sessionCounts ? new SessionStatusGauge(new Client({ connection: opts.sessionCounts, namespace: config.temporal.namespace, dataConverter }), logger) : undefined;
  sessions?.start();
  const close = async () => {
    sessions?.stop();
    stopMemoryGauge();
    await closeActivities();
  };
  const activityInterceptors = [...activityTracingInterceptors(), researchActivityInterceptor(logger, () => sessions?.soon())];
  const code = await workflowCode(opts.workflowBundle, config, logger);
  const build: BuildIdentity = { deploymentName: deploymentNameOf(config), buildId: buildIdOf(code.code, config) };
  const versioning = versioningOptions(build);
  const cacheSize = workflowCacheSize(config.temporal);
  const main = await Worker.create({
    connection: opts.connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.task_queue,
    workflowBundle: code.sourceMap ? { code: code.code, sourceMap: code.sourceMap } : { code: code.code },
    ...versioning,
    activities,
    dataConverter,
    interceptors: { activity: activityInterceptors },
    sinks: tracingSinks(),
    maxConcurrentActivityTaskExecutions: 20,
    // A round schedules its fetches (and then its parses) at once: the server hands them back in
    // its answer to the workflow task instead of one poll round trip after another.
    maxEagerActivityReservationsPerWorkflowTask: 20,
    maxCachedWorkflows: cacheSize,
    ...opts.overrides,
  });
  const search: Worker[] = [
    // New sessions' plans, on their own queue and slots (a flood of them leaves the main queue's to running research).
    await Worker.create({
      connection: opts.connection,
      namespace: config.temporal.namespace,
      taskQueue: planningTaskQueue(config.temporal.task_queue),
      activities: { decomposeQuery: activities.decomposeQuery },
      ...versioning,
      dataConverter,
      interceptors: { activity: activityInterceptors },
      maxConcurrentActivityTaskExecutions: config.temporal.planning_slots,
    }),
  ];
  for (const provider of ALL_SEARCH_PROVIDERS) {
    if (!searchAvailability(config, provider).ok) continue;
    const rate = searchRate(config, provider);
    const burst = rate ? searchBurst(config, provider) : 1;
    // With a burst, the task-queue limit (the same for all workers, but without a burst) is lifted
    // to the burst size and this worker's bucket keeps the average at the provider's rate.
    const bucket = rate && burst > 1 ? new TokenBucket(burst, rate) : undefined;
    const webSearch: typeof activities.webSearch = bucket
      ? async (input) => {
          const waited = await bucket.take();
          const out = await activities.webSearch(input);
          return { ...out, queued_ms: (out.queued_ms ?? 0) + waited };
        }
      : activities.webSearch;
    search.push(
      await Worker.create({
        connection: opts.connection,
        namespace: config.temporal.namespace,
        taskQueue: searchTaskQueue(config.temporal.task_queue, provider),
        activities: { webSearch },
        ...versioning,
        dataConverter,
        interceptors: { activity: activityInterceptors },
        // A round's searches go out at once (plans have up to 8 sub-questions).
        maxConcurrentActivityTaskExecutions: 8,
        ...(rate ? { maxTaskQueueActivitiesPerSecond: bucket ? Math.max(rate, burst) : rate } : {}),
      }),
    );
  }
  // DEEP_RESEARCH_PROMOTE_BUILD=0: the operator makes this build current (`temporal worker deployment set-current-version`).
  const promotion = config.environment.worker.promote_build ? { service: opts.connection.workflowService, namespace: config.temporal.namespace } : undefined;
  return { worker: new ResearchWorkers(main, search, build, cacheSize, promotion), close };
}
