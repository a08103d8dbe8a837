// Durability: kill -9 the worker in the middle of a fetch batch, kill -9 or restart the Temporal
// server itself; the run completes and nothing that had finished runs again.
import { Connection } from '@temporalio/client';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResearchClient } from '../src/client/research-client';
import type { RecordedRequest } from './harness/recorder';
import { startChildWorker, type ChildWorker } from './harness/child-worker';
import { startTestServer, type TestServer } from './harness/temporal';
import { startEnvironment, startHarness, testConfig, waitFor, type Harness, type TestEnvironment } from './harness';

/** Calls that ran twice, except those whose first attempt was still in flight when the worker died. */
function repeatedCompletedCalls(requests: Map<string, RecordedRequest[]>, killedAt: number): string[] {
  const graceMs = 1_500; // a response can finish at the server just before the process dies
  return [...requests]
    .filter(([key]) => key !== '/robots.txt') // cached per worker process: a new process reads it again
    .filter(([, list]) => list[0].end !== undefined && list[0].end < killedAt - graceMs)
    .map(([key]) => key);
}

describe('crash recovery', () => {
  let server: TestServer;
  let harness: Harness;
  const children: ChildWorker[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    harness = await startHarness({ model: { gapIterations: 1 }, web: { delayMs: 1500 } });
  });
  afterAll(async () => {
    for (const c of children) await c.kill();
    await harness?.close();
    await server?.stop();
  });

  it('kill -9 of the worker mid fetch batch: a new worker finishes the run, no finished call repeats', async () => {
    const { config, env } = testConfig(harness, server.address);
    const first = await startChildWorker(env);
    children.push(first);
    const connection = await Connection.connect({ address: server.address });
    const client = new ResearchClient(connection, config, true);
    try {
      const { researchId } = await client.start({
        query: 'Crash test: wind turbines',
        settings: { max_sources: 12, batch_size: 4, fetch_concurrency: 4, max_iterations: 2, auto_approve: true },
      });
      // Wait until one batch is analysed and the next batch's fetches are in flight.
      await waitFor('a fetch batch in flight after a finished batch', async () => {
        const s = await client.state(researchId);
        const inFlight = harness.recorder.of('web').filter((r) => r.end === undefined);
        return s.findings.length > 0 && inFlight.length > 0;
      }, 90_000, 50);
      const killedAt = Date.now();
      await first.kill('SIGKILL');
      const inFlightAtKill = harness.recorder.requests.filter((r) => r.start <= killedAt && (r.end === undefined || r.end >= killedAt - 1_500)).length;

      const second = await startChildWorker(env);
      children.push(second);
      await client.waitForResult(researchId);
      const s = await client.state(researchId);
      expect(s.status).toBe('completed');
      expect(s.sources.filter((x) => x.status === 'fetched').length).toBeGreaterThan(4);

      for (const server of ['model', 'search', 'web'] as const) {
        expect(repeatedCompletedCalls(harness.recorder.duplicates(server), killedAt), `${server} calls repeated after the crash`).toEqual([]);
      }
      // The kill really interrupted a batch: its unfinished fetches ran again on the new worker.
      const webRepeats = [...harness.recorder.duplicates('web').keys()].filter((k) => k !== '/robots.txt');
      expect(webRepeats.length).toBeGreaterThan(0);
      const repeated = webRepeats.length + [...harness.recorder.duplicates('model').values()].length;
      expect(repeated).toBeLessThanOrEqual(inFlightAtKill);
    } finally {
      await client.close();
      await connection.close();
    }
  // Each fetch takes 1.5 s on purpose and the run has two iterations: about 45 s on an idle machine, twice that on a loaded one.
  }, 300_000);

  it('kill -9 of the Temporal server mid-run: it comes back from its write-ahead log, the run completes, no finished call repeats', async () => {
    let env: TestEnvironment | undefined;
    const testStart = Date.now();
    try {
      env = await startEnvironment(harness, server.address);
      // The embedded server keeps its state in a write-ahead log (one disk sync per commit).
      expect(existsSync(path.join(server.dataDir, 'temporal.db-wal'))).toBe(true);
      const { researchId } = await env.client.start({
        query: 'Server crash test: geothermal heat',
        settings: { max_sources: 8, batch_size: 2, max_iterations: 1, auto_approve: true },
      });
      await waitFor('a finished analysis before the crash', async () => (await env!.client.state(researchId)).findings.length > 0, 90_000, 50);
      const killedAt = Date.now();
      await server.restart('SIGKILL');
      await env.client.waitForResult(researchId);
      const s = await env.client.state(researchId);
      expect(s.status).toBe('completed');
      expect(harness.recorder.requests.some((r) => r.start > killedAt), 'research went on after the crash').toBe(true);
      for (const kind of ['model', 'search', 'web'] as const) {
        expect(repeatedCompletedCalls(harness.recorder.duplicates(kind, testStart), killedAt), `${kind} calls repeated after the crash`).toEqual([]);
      }
    } finally {
      await env?.close();
    }
  });

  it('restart of the Temporal server mid-run: the run completes', async () => {
    let env: TestEnvironment | undefined;
    try {
      env = await startEnvironment(harness, server.address);
      const { researchId } = await env.client.start({
        query: 'Server restart test: tidal energy',
        settings: { max_sources: 8, batch_size: 2, max_iterations: 1, auto_approve: true },
      });
      await waitFor('research under way', async () => (await env!.client.state(researchId)).status === 'running', 60_000);
      const restartedAt = Date.now();
      await server.restart();
      await env.client.waitForResult(researchId);
      expect(harness.recorder.of('web').some((r) => r.start > restartedAt), 'research went on after the restart').toBe(true);
      const s = await env.client.state(researchId);
      expect(s.status).toBe('completed');
      expect(s.findings.length).toBeGreaterThan(0);
    } finally {
      await env?.close();
    }
  });
});
