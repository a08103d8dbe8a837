// A crash in the middle of the branch fan-out: kill -9 the worker while some branches have
// finished their analysis and others are still waiting for the model. A new worker resumes every
// branch; nothing that had finished runs again.
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ResearchClient } from '../src/client/research-client';
import type { RecordedRequest } from './harness/recorder';
import { startChildWorker, type ChildWorker } from './harness/child-worker';
import { startHarness, testConfig, waitFor, type Harness } from './harness';

function repeatedCompletedCalls(requests: Map<string, RecordedRequest[]>, killedAt: number): string[] {
  const graceMs = 1_500; // a response can finish at the server just before the process dies
  return [...requests]
    .filter(([key]) => key !== '/robots.txt')
    .filter(([, list]) => list[0].end !== undefined && list[0].end < killedAt - graceMs)
    .map(([key]) => key);
}

describe('crash during the branch fan-out', () => {
  let harness: Harness;
  const children: ChildWorker[] = [];

  beforeAll(async () => {
    // Analyses of later branches take longer, so some finish well before others.
    harness = await startHarness({
      model: {
        queries: 4,
        gapIterations: 0,
        delayFor: (name, prompt) => (name === 'source_analysis' ? 500 + Number(/<source id="S(\d+)"/.exec(prompt)?.[1] ?? 0) * 400 : 200),
      },
    });
  });
  afterAll(async () => {
    for (const c of children) await c.kill();
    await harness?.close();
  });

  it('kill -9 with branches half done: a new worker finishes every branch, no finished call repeats', async () => {
    const address = inject('temporalAddress');
    const { config, env } = testConfig(harness, address);
    const first = await startChildWorker(env);
    children.push(first);
    const connection = await Connection.connect({ address });
    const client = new ResearchClient(connection, config, true);
    try {
      const { researchId } = await client.start({
        query: 'Fan-out crash: geothermal',
        settings: { auto_approve: true, max_iterations: 1, max_search_results_per_query: 3, batch_size: 3, max_sources: 24, max_concurrency: 3, check_claims: false },
      });
      const analyses = () => harness.recorder.of('model').filter((_, i) => JSON.stringify(harness.model.requests[i]?.body ?? {}).includes('"name":"source_analysis"'));
      await waitFor('one branch analysed while another is still analysing', async () => {
        const list = analyses();
        return list.some((r) => r.end !== undefined) && list.some((r) => r.end === undefined);
      }, 120_000, 50);
      const killedAt = Date.now();
      const finishedBefore = analyses().filter((r) => r.end !== undefined && r.end <= killedAt).length;
      await first.kill('SIGKILL');

      const second = await startChildWorker(env);
      children.push(second);
      await client.waitForResult(researchId);
      const s = await client.state(researchId);
      expect(s.status).toBe('completed');
      for (const server of ['model', 'search', 'web'] as const) {
        expect(repeatedCompletedCalls(harness.recorder.duplicates(server), killedAt), `${server} calls repeated after the crash`).toEqual([]);
      }
      // Every branch (one per planned query) got its sources analysed and into the findings.
      const queries = new Set(s.sources.map((x) => x.query));
      expect(queries.size).toBe(4);
      for (const query of queries) {
        const ids = new Set(s.sources.filter((x) => x.query === query && x.status === 'fetched').map((x) => x.id));
        expect(s.findings.some((f) => f.source_ids.some((id) => ids.has(id))), `findings from the branch for "${query}"`).toBe(true);
      }
      expect(s.sources.filter((x) => x.status === 'fetched').every((x) => x.analyzed)).toBe(true);
      // The crash really fell mid fan-out: some analyses were done, the rest ran on the new worker.
      expect(finishedBefore).toBeGreaterThan(0);
      expect(analyses().filter((r) => r.start > killedAt).length).toBeGreaterThan(0);
      expect(s.findings.map((f) => f.id)).toEqual(s.findings.map((_, i) => `F${i + 1}`));
    } finally {
      client.close();
      await connection.close();
    }
  });
});
