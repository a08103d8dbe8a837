// kill -9 of a worker in the middle of a web search costs seconds, not the search's 1-minute
// timeout: searches heartbeat, so Temporal gives the search to the other worker once the heartbeat
// timeout (8 s) passes. Two worker processes share one data directory; the test kills the one whose
// search is in flight at the (slow) search provider and measures when the provider is asked again.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startChildWorker, type ChildWorker } from './harness/child-worker';
import { startEnvironment, startHarness, waitFor, workflowBundle, type Harness, type TestEnvironment } from './harness';

const SEARCH_MS = 4_000;

describe('kill -9 during a search', () => {
  let harness: Harness;
  let env: TestEnvironment;
  const workers: ChildWorker[] = [];

  beforeAll(async () => {
    harness = await startHarness({ model: { gapIterations: 0 }, search: { delayMs: SEARCH_MS } });
    env = await startEnvironment(harness, inject('temporalAddress'), { worker: false });
    const bundle = path.join(mkdtempSync(path.join(os.tmpdir(), 'dr-kill-search-')), 'workflows.js');
    writeFileSync(bundle, (await workflowBundle()).code);
    workers.push(...(await Promise.all([0, 1].map(() => startChildWorker({ ...env.env, DEEP_RESEARCH_WORKFLOW_BUNDLE: bundle })))));
  });
  afterAll(async () => {
    for (const w of workers) await w.kill();
    await env?.close();
    await harness?.close();
  });

  it('the search is asked again within 15 s of the kill, and the session completes', async () => {
    const { researchId } = await env.client.start({ query: 'Kill during search: heat pumps', autoApprove: true, settings: { max_sources: 4, max_iterations: 1, batch_size: 2 } });
    // A search in flight at the provider, and the worker that runs it. Searches run side by side
    // and the provider cannot tell which worker asked, so every search in flight at the kill counts:
    // the victim's is one of them, and it alone is asked again.
    // Only when every started search has reached the provider: a worker whose search has started
    // but not yet asked would die with nothing in flight to be asked again.
    const { pid } = await waitFor('a search in flight', async () => {
      const inFlight = harness.recorder.of('search').filter((r) => r.end === undefined).length;
      if (!inFlight) return undefined;
      const described = await env.client.handle(researchId).describe();
      const started = described.raw.pendingActivities?.filter((a) => a.activityType?.name === 'webSearch' && a.lastWorkerIdentity && Number(a.state) === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED) ?? [];
      if (started.length > inFlight) return undefined;
      const search = started[0];
      const identity = Number(search?.lastWorkerIdentity?.split('@')[0]);
      return workers.some((w) => w.process.pid === identity) ? { pid: identity } : undefined;
    }, 120_000, 100);
    const victim = workers.find((w) => w.process.pid === pid) as ChildWorker;
    const killedAt = Date.now();
    await victim.kill('SIGKILL');
    // In flight at the moment of the kill (more may have started since the probe looked).
    const keys = new Set(harness.recorder.of('search').filter((r) => r.start <= killedAt && (r.end === undefined || r.end > killedAt)).map((r) => r.key));
    const again = await waitFor('the search asked again', async () => harness.recorder.of('search').find((r) => keys.has(r.key) && r.start > killedAt), 60_000, 100).catch(async (err: Error) => {
      // What the engine and the provider saw, so that a miss says why.
      const pending = (await env.client.handle(researchId).describe()).raw.pendingActivities?.map((a) => `${a.activityType?.name} state ${a.state} attempt ${a.attempt} on ${a.lastWorkerIdentity}: ${a.lastFailure?.message ?? ''}`);
      const searches = harness.recorder.of('search').map((r) => `${r.key} at ${r.start - killedAt} ms, ${r.end === undefined ? 'open' : `ended ${r.end - killedAt} ms`}`);
      throw new Error(`${err.message}; victim ${pid} (workers ${workers.map((w) => w.process.pid).join(', ')}), in flight at the kill ${[...keys].join(' | ')}; pending: ${pending?.join('; ')}; searches: ${searches.join('; ')}`);
    });
    const resumedMs = again.start - killedAt;
    console.log(`kill -9 during a search: asked again after ${(resumedMs / 1000).toFixed(1)} s`);
    expect(resumedMs).toBeLessThan(15_000);
    await env.client.waitForResult(researchId);
    expect((await env.client.state(researchId)).status).toBe('completed');
  }, 240_000);
});
