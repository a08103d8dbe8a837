// Worker metrics on one Prometheus endpoint (`deep-research worker --metrics-port`, or
// DEEP_RESEARCH_METRICS_PORT): Temporal Core's worker and SDK metrics (temporal_*) plus ours
// (deep_research_*), recorded through the runtime's metric meter so both share the port.
import type { Client } from '@temporalio/client';
import type { MetricMeter } from '@temporalio/common';
import { Runtime, type ActivityInterceptorsFactory } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { ModelUsage, PersistSessionInput, WebSearchInput } from '../activities/contracts';
import type { StoreWaitEvent } from '../activities/store-wait';
import { RESEARCH_STATUSES, STORE_FAILURE_TYPES, STORE_LABELS } from '../domain/names';
import { SEARCH_ATTRIBUTES } from '../contract/names';
import { createLogger, researchIdOf, PinoTemporalLogger } from '../telemetry/logging';
import { startTracing } from '../telemetry/tracing';
import type { AppConfig } from '../config/schema';
import { WORKER_HEARTBEAT_MS } from '../temporal/deployments';

const SESSION_STATUSES = RESEARCH_STATUSES;

/** "9464" → 127.0.0.1:9464 (loopback unless asked); "0.0.0.0:9464" as given. */
export function metricsBindAddress(value: string, what = 'metrics port', lowest = 1): string {
  const trimmed = value.trim();
  const match = /^(?:(.+):)?(\d{1,5})$/.exec(trimmed);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port < lowest || port > 65535) throw new Error(`${what}: expected a port or host:port, got "${value}"`);
  return `${match[1] ?? '127.0.0.1'}:${port}`;
}

/**
 * A worker process's telemetry, started from its slice of the config before anything connects: the
 * logger, the Temporal runtime of the process (logs through pino, Core's warnings forwarded, the
 * Prometheus endpoint when a metrics address is given; once per process) and the OTLP traces.
 * Returns the endpoint's bind address and whether traces go out.
 */
export function startWorkerTelemetry(telemetry: AppConfig['environment']['telemetry'], metricsAddress: string | undefined): { logger: Logger; metrics?: string; tracing: boolean } {
  const metrics = metricsAddress ? metricsBindAddress(metricsAddress) : undefined;
  const logger = createLogger('deep-research-worker', telemetry.log_level);
  Runtime.install({
    logger: new PinoTemporalLogger(logger),
    // Worker heartbeats tell Temporal (and `worker status`) which builds still have live workers.
    workerHeartbeatInterval: WORKER_HEARTBEAT_MS,
    telemetryOptions: {
      logging: { forward: {}, filter: { core: 'WARN', other: 'ERROR' } },
      ...(metrics ? { metrics: { prometheus: { bindAddress: metrics } } } : {}),
    },
  });
  return { logger, metrics, tracing: startTracing('deep-research-worker', telemetry) };
}

interface ResearchMeters {
  tokens: ReturnType<MetricMeter['createCounter']>;
  modelCalls: ReturnType<MetricMeter['createCounter']>;
  cost: ReturnType<MetricMeter['createGauge']>;
  searches: ReturnType<MetricMeter['createCounter']>;
  fetches: ReturnType<MetricMeter['createCounter']>;
  sessions: ReturnType<MetricMeter['createGauge']>;
  storeFailures: ReturnType<MetricMeter['createCounter']>;
  storeWaiting: ReturnType<MetricMeter['createGauge']>;
  memory: ReturnType<MetricMeter['createGauge']>;
}

let meters: ResearchMeters | undefined;

function researchMeters(): ResearchMeters {
  const meter = Runtime.instance().metricMeter;
  return (meters ??= {
    tokens: meter.createCounter('deep_research_model_tokens', 'tokens', 'Model tokens by model, role and kind (input, output)'),
    modelCalls: meter.createCounter('deep_research_model_calls', 'calls', 'Model calls that returned an answer'),
    cost: meter.createGauge('deep_research_model_cost_usd', 'float', 'USD', 'Model cost spent through this worker since it started'),
    searches: meter.createCounter('deep_research_searches', 'searches', 'Web searches by provider and outcome'),
    fetches: meter.createCounter('deep_research_fetches', 'fetches', 'Page fetches by outcome (fetched, cached, failed)'),
    sessions: meter.createGauge('deep_research_sessions', 'int', 'sessions', 'Research sessions in the namespace by status'),
    storeFailures: meter.createCounter('deep_research_store_failures', 'failures', 'Store calls that found the store unreachable, by store and activity'),
    storeWaiting: meter.createGauge('deep_research_store_waiting', 'int', 'activities', 'Activities of this worker waiting for an unreachable store, by store'),
    memory: meter.createGauge('deep_research_memory_bytes', 'int', 'bytes', 'Memory of this worker (resident) and of its browser (all its processes, proportional shares; 0 while none runs), by process'),
  });
}

function isUsage(value: unknown): value is ModelUsage {
  const u = value as ModelUsage | undefined;
  return !!u && typeof u.model === 'string' && typeof u.input_tokens === 'number' && typeof u.output_tokens === 'number';
}

/**
 * Records what activities did — tokens, cost, searches, fetches — and logs failures and session
 * status changes with the session's research_id.
 */
export function researchActivityInterceptor(logger: Logger, onSessionPersisted?: () => void): ActivityInterceptorsFactory {
  const costByModel = new Map<string, number>();
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        const type = ctx.info.activityType;
        const researchId = researchIdOf(ctx.info.workflowExecution?.workflowId);
        const m = researchMeters();
        const arg = input.args[0] as Record<string, unknown> | undefined;
        try {
          const result = (await next(input)) as Record<string, unknown> | undefined;
          const usage = result?.usage;
          if (isUsage(usage)) {
            const tags = { model: usage.model, role: usage.role ?? type };
            m.tokens.add(usage.input_tokens, { ...tags, kind: 'input' });
            m.tokens.add(usage.output_tokens, { ...tags, kind: 'output' });
            m.modelCalls.add(1, tags);
            if (usage.cost_usd) {
              const total = (costByModel.get(usage.model) ?? 0) + usage.cost_usd;
              costByModel.set(usage.model, total);
              m.cost.set(total, { model: usage.model });
            }
          }
          if (type === 'webSearch') m.searches.add(1, { provider: String((arg as WebSearchInput | undefined)?.provider ?? 'unknown'), outcome: 'ok' });
          if (type === 'fetchUrl') m.fetches.add(1, { outcome: result?.from_cache ? 'cached' : 'fetched' });
          if (type === 'persistSession') {
            const status = (arg as PersistSessionInput | undefined)?.snapshot?.status;
            logger.info({ research_id: researchId, status }, 'session saved');
            onSessionPersisted?.();
          }
          return result;
        } catch (err) {
          if ((err as { type?: unknown }).type === STORE_FAILURE_TYPES.unavailable) {
            m.storeFailures.add(1, { store: 'sessions', activity: type });
            logger.warn({ research_id: researchId, activity: type, attempt: ctx.info.attempt, err: (err as Error).message }, `waiting for the session store (attempt ${ctx.info.attempt}): ${(err as Error).message}`);
            throw err;
          }
          if (type === 'webSearch') m.searches.add(1, { provider: String((arg as WebSearchInput | undefined)?.provider ?? 'unknown'), outcome: 'failed' });
          if (type === 'fetchUrl') m.fetches.add(1, { outcome: 'failed' });
          logger.warn({ research_id: researchId, activity: type, attempt: ctx.info.attempt, err: (err as Error).message }, 'activity failed');
          throw err;
        }
      },
    },
  });
}

/**
 * Logs and counts an activity's wait for an unreachable store: one warning when it starts (then
 * every sixth try), one line when the store is back; the waiting gauge per store.
 */
export function storeWaitReporter(logger: Logger): (event: StoreWaitEvent) => void {
  const waiting = new Map<string, number>();
  return (event) => {
    const m = researchMeters();
    const fields = { research_id: researchIdOf(event.workflowId), activity: event.activity, attempt: event.attempt, store: event.store, tries: event.tries };
    const label = STORE_LABELS[event.store] ?? event.store;
    const change = event.phase === 'back' ? -1 : event.tries === 1 ? 1 : 0;
    if (change) {
      const n = Math.max(0, (waiting.get(event.store) ?? 0) + change);
      waiting.set(event.store, n);
      m.storeWaiting.set(n, { store: event.store });
    }
    if (event.phase === 'back') {
      logger.info({ ...fields, waited_ms: event.waitedMs }, `the ${label} is back after ${Math.round(event.waitedMs / 1000)} s; going on`);
      return;
    }
    m.storeFailures.add(1, { store: event.store, activity: event.activity });
    if (event.tries === 1 || event.tries % 6 === 0) logger.warn({ ...fields, err: event.error }, `waiting for the ${label} (try ${event.tries}: ${event.error})`);
  };
}

/**
 * Session counts by status from Temporal's visibility (the ResearchStatus search attribute), so
 * every worker reports the namespace's numbers. Refreshed after sessions are saved (at most once
 * a second) and every 30 s.
 */
export class SessionStatusGauge {
  private timer: NodeJS.Timeout | undefined;
  private pending: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: Client,
    private readonly logger: Logger,
    private readonly everyMs = 30_000,
  ) {}

  start(): void {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.everyMs);
    this.timer.unref();
  }

  /** Coalesces bursts of saves into one refresh. */
  soon(): void {
    if (this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      void this.refresh();
    }, 1_000);
    this.pending.unref();
  }

  async refresh(): Promise<void> {
    const gauge = researchMeters().sessions;
    try {
      for (const status of SESSION_STATUSES) {
        const { count } = await this.client.workflow.count(`${SEARCH_ATTRIBUTES.status} = '${status}'`);
        gauge.set(count, { status });
      }
    } catch (err) {
      this.logger.debug({ err: (err as Error).message }, 'session counts unavailable');
    }
  }

  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.pending);
  }
}

/**
 * The worker's memory and its browser's, side by side: the gauge deep_research_memory_bytes
 * {process="worker"|"browser"}, every 15 s. The browser is counted over all its processes.
 */
export function startMemoryGauge(browserMemory: () => Promise<{ bytes: number } | undefined>, everyMs = 15_000): () => void {
  const sample = async () => {
    const gauge = researchMeters().memory;
    gauge.set(process.memoryUsage.rss(), { process: 'worker' });
    gauge.set((await browserMemory().catch(() => undefined))?.bytes ?? 0, { process: 'browser' });
  };
  void sample();
  const timer = setInterval(() => void sample(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
