import { Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ResearchClient } from '../src/client/research-client';
import { PROJECT_ROOT } from '../src/config/load';
import { buildApp } from '../src/server/app';
import { ResearchService } from '../src/server/research-service';
import { createLogger } from '../src/telemetry/logging';
import { flushTracing, startTracing, stopTracing, tracingSinks } from '../src/telemetry/tracing';
import { writeWorkflowBundle } from '../scripts/bundle-workflows';
import { startHarness, testConfig, waitFor, type Harness } from './harness';
import { startChildWorker, type ChildWorker } from './harness/child-worker';

interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
}

interface OtlpJson {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: { spans?: { name: string; traceId: string; spanId: string; parentSpanId?: string }[] }[];
  }[];
}

/** A loopback OTLP/HTTP (JSON) collector: keeps every span it is sent. */
async function startCollector(): Promise<{ url: string; spans: ReceivedSpan[]; close(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url !== '/v1/traces' || !String(req.headers['content-type']).includes('json')) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString()) as OtlpJson;
      for (const rs of body.resourceSpans ?? []) {
        const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
        for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) spans.push({ service, name: s.name, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, spans, close: () => new Promise((r) => server.close(() => r())) };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** Prometheus text → value of the first sample whose name and labels match. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('telemetry: one trace from client to activities, worker metrics, JSON logs', () => {
  let harness: Harness;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let worker: ChildWorker | undefined;
  let connection: Connection;
  let client: ResearchClient;
  let metricsUrl: string;
  let researchId: string;

  beforeAll(async () => {
    harness = await startHarness({ model: { gapIterations: 0 } });
    collector = await startCollector();
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    // A price for the scripted model, so cost is counted too.
    const base = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'configs', 'config.json'), 'utf8')) as { models: { pricing: Record<string, unknown> } };
    base.models.pricing['openai:scripted-model'] = { input: 1, output: 2 };
    const { config, env } = testConfig(harness, inject('temporalAddress'), {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      DEEP_RESEARCH_METRICS_PORT: `127.0.0.1:${metricsPort}`,
      LOG_LEVEL: 'info',
    });
    const configFile = path.join(config.data_dir, 'config.json');
    writeFileSync(configFile, JSON.stringify(base));
    worker = await startChildWorker({ ...env, DEEP_RESEARCH_CONFIG: configFile });
    expect(startTracing('telemetry-test-client', config.environment.telemetry)).toBe(true);
    connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new ResearchClient(connection, config, true);
    ({ researchId } = await client.start({
      query: 'How are heat pumps priced?',
      autoApprove: true,
      settings: { max_sources: 4, max_search_results_per_query: 2, batch_size: 2, max_iterations: 1 },
    }));
    await client.waitForResult(researchId);
    await flushTracing();
  });
  afterAll(async () => {
    await worker?.kill('SIGTERM');
    await client?.close();
    await connection?.close();
    await stopTracing();
    await collector?.close();
    await harness?.close();
  });

  it('exports spans of the client start, the workflow and its activities in one trace', async () => {
    const start = collector.spans.find((s) => s.service === 'telemetry-test-client' && s.name === 'StartWorkflow:deep-research');
    expect(start, `client spans: ${collector.spans.map((s) => s.name).join(', ')}`).toBeDefined();
    const trace = await waitFor('workflow and activity spans', async () => {
      const inTrace = collector.spans.filter((s) => s.traceId === start?.traceId);
      const names = new Set(inTrace.map((s) => s.name));
      return names.has('RunWorkflow:deep-research') && names.has('RunActivity:webSearch') && names.has('RunActivity:fetchUrl') && names.has('RunActivity:persistSession') && inTrace;
    });
    const run = trace.find((s) => s.name === 'RunWorkflow:deep-research');
    expect(run?.service).toBe('deep-research-worker');
    // The workflow run hangs under the client's start; activities under the workflow's schedule spans.
    expect(run?.parentSpanId).toBe(start?.spanId);
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const search = trace.find((s) => s.name === 'RunActivity:webSearch');
    expect(byId.get(search?.parentSpanId ?? '')?.name).toBe('StartActivity:webSearch');
  });

  it('serves worker, SDK and research metrics on the Prometheus endpoint', async () => {
    const text = await waitFor('session counts in the metrics', async () => {
      const body = await (await fetch(metricsUrl)).text();
      return (sample(body, 'deep_research_sessions', { status: 'completed' }) ?? 0) >= 1 && body;
    });
    expect(sample(text, 'deep_research_model_tokens', { kind: 'input', model: 'openai:scripted-model' })).toBeGreaterThan(0);
    expect(sample(text, 'deep_research_model_tokens', { kind: 'output' })).toBeGreaterThan(0);
    expect(sample(text, 'deep_research_model_cost_usd', { model: 'openai:scripted-model' })).toBeGreaterThan(0);
    expect(sample(text, 'deep_research_searches', { provider: 'searxng', outcome: 'ok' })).toBeGreaterThan(0);
    expect(sample(text, 'deep_research_fetches', { outcome: 'fetched' })).toBeGreaterThan(0);
    // The worker's memory, and its browser's beside it (none started: no page here renders by script).
    expect(sample(text, 'deep_research_memory_bytes', { process: 'worker' })).toBeGreaterThan(50 * 2 ** 20);
    expect(sample(text, 'deep_research_memory_bytes', { process: 'browser' })).toBe(0);
    // Temporal's own worker metrics share the port.
    expect(sample(text, 'temporal_activity_execution_latency_count')).toBeGreaterThan(0);
    expect(sample(text, 'temporal_workflow_completed')).toBeGreaterThan(0);
  });

  it('writes JSON log lines that carry the research id', () => {
    const lines = (worker?.output() ?? '').split('\n').filter((l) => l.startsWith('{'));
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.find((r) => typeof r.msg === 'string' && r.msg.includes('worker polling'))).toMatchObject({ level: 'info', name: 'deep-research-worker' });
    const saved = records.filter((r) => r.research_id === researchId && r.msg === 'session saved');
    expect(saved.map((r) => r.status)).toContain('completed');
  });

  it('logs API requests as JSON with the research id of the route', async () => {
    const lines: string[] = [];
    const logger = createLogger('deep-research-serve', 'info', { write: (line: string) => void lines.push(line) });
    const service = new ResearchService(client);
    const app = await buildApp({ service, host: '127.0.0.1', loggerInstance: logger });
    try {
      const res = await app.inject({ method: 'GET', url: `/api/research/${researchId}` });
      // Started outside the service; on loopback with no token the local user is the operator and sees it.
      expect(res.statusCode).toBe(200);
      const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      const done = records.find((r) => r.msg === 'request completed');
      expect(done).toMatchObject({ name: 'deep-research-serve', research_id: researchId, level: 'info' });
    } finally {
      await app.close();
      await service.close();
    }
  });

  it('a workflow bundle with the tracing interceptors (as deploy/Dockerfile builds it) replays the committed histories', async () => {
    const codePath = await writeWorkflowBundle(path.join(PROJECT_ROOT, '.tmp', `bundle-${process.pid}.js`), { tracing: 'only' });
    const dir = path.join(__dirname, 'histories');
    const files = readdirSync(dir).filter((f) => /^(waiting-|completed-).*\.json$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(6);
    try {
      for (const file of files) {
        const history = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as unknown;
        await Worker.runReplayHistory({ workflowBundle: { codePath }, sinks: tracingSinks() }, history, file);
      }
    } finally {
      rmSync(codePath, { force: true });
    }
  });
});
