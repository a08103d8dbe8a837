// Versions are Temporal's job: two builds of the worker on one task queue (Worker Deployments).
// A session waiting for a person moves to the build that is current when the answer comes; research
// under way finishes on the build it started on while the new build takes new sessions; research
// pinned to a build with no live worker left (a local upgrade) goes on from its last snapshot on
// the new build. `worker status` tells the builds apart and counts what each still runs.
import { NativeConnection } from '@temporalio/worker';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adoptOrphanedSessions, sessionsByBuild } from '../src/client/adoption';
import { createResearchWorker, type ResearchWorkers } from '../src/worker/create-worker';
import { deploymentBuilds, liveBuilds } from '../src/client/builds';
import { deploymentNameOf } from '../src/temporal/deployments';
import { configWith, startEnvironment, startHarness, waitFor, workflowBundle, type Harness, type TestEnvironment } from './harness';

interface RunningBuild {
  workers: ResearchWorkers;
  stop(): Promise<void>;
}

describe('worker versioning: one engine, many builds', () => {
  let harness: Harness;
  let env: TestEnvironment;
  const builds: RunningBuild[] = [];

  async function startBuild(buildId: string): Promise<RunningBuild> {
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const { worker, close } = await createResearchWorker({
      config: configWith(env, { DEEP_RESEARCH_BUILD_ID: buildId }),
      connection,
      workflowBundle: await workflowBundle(),
      overrides: { identity: `worker-${buildId}` },
    });
    const running = worker.run();
    await worker.ready;
    const build = {
      workers: worker,
      stop: async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running;
        await close();
        await connection.close();
      },
    };
    builds.push(build);
    return build;
  }

  /** The identities of the workers that ran each run's workflow tasks, run by run. */
  async function workersByRun(researchId: string): Promise<string[][]> {
    const runs: string[][] = [];
    let runId: string | undefined;
    const first = await env.temporal.workflow.getHandle(`research-${researchId}`).describe();
    runId = first.raw.workflowExecutionInfo?.firstRunId ?? first.runId;
    while (runId) {
      const history = JSON.parse(historyToJSON(await env.temporal.workflow.getHandle(`research-${researchId}`, runId).fetchHistory())) as { events: Record<string, Record<string, unknown>>[] };
      runs.push([...new Set(history.events.map((e) => e.workflowTaskStartedEventAttributes?.identity as string | undefined).filter((x): x is string => !!x))]);
      const next = history.events.find((e) => e.workflowExecutionContinuedAsNewEventAttributes)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId as string | undefined;
      runId = next;
    }
    return runs;
  }

  beforeAll(async () => {
    harness = await startHarness({ model: { gapIterations: 0 } });
    env = await startEnvironment(harness, inject('temporalAddress'), { worker: false });
  });
  afterAll(async () => {
    for (const b of builds) await b.stop().catch(() => undefined);
    await env?.close();
    await harness?.close();
  });

  it('a session waiting for approval on build A is approved after A stopped, and researches on B', async () => {
    const a = await startBuild('A');
    const { researchId } = await env.client.start({ query: 'How are heat pumps spreading in Europe?', settings: { max_iterations: 1, max_sources: 6 } });
    await waitFor('awaiting approval', async () => (await env.client.state(researchId)).status === 'awaiting_approval');
    await startBuild('B');
    await a.stop();
    // The wait is a run of its own that any build can pick up: the approval is answered by B.
    await env.client.approve(researchId);
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    const runs = await workersByRun(researchId);
    // Planned on A; the run that waited ends on B, and the research after it runs on B only.
    expect(runs[0]).toEqual(['worker-A']);
    const waited = runs.findIndex((r) => r.includes('worker-B'));
    expect(runs[waited].at(-1)).toBe('worker-B');
    expect(runs.length).toBeGreaterThan(waited + 1);
    expect(runs.slice(waited + 1).flat().every((w) => w === 'worker-B')).toBe(true);
    await builds.pop()?.stop();
  });

  it('research under way on A finishes on A while B takes new sessions; worker status counts both', async () => {
    const a = await startBuild('A2');
    harness.web.setDelay(700);
    const first = await env.client.start({ query: 'What limits grid-scale battery storage?', settings: { auto_approve: true, max_iterations: 1, max_sources: 8, batch_size: 2 } });
    await waitFor('research under way', async () => (await env.client.state(first.researchId)).sources.length > 0);
    const b = await startBuild('B2');
    const second = await env.client.start({ query: 'How is offshore wind financed?', settings: { auto_approve: true, max_iterations: 1, max_sources: 4 } });

    const counted = await sessionsByBuild(env.client);
    expect(counted.pinned.A2).toBe(1);
    // A worker counts as live from its first poll (before its first heartbeat).
    const summary = await waitFor('both builds live', async () => {
      const builds = await deploymentBuilds(env.client.connection.workflowService, env.config.temporal.namespace, deploymentNameOf(env.config));
      return builds.filter((x) => x.live_workers > 0).length >= 2 && builds;
    });
    expect(summary.find((x) => x.buildId === 'B2')).toMatchObject({ current: true, live_workers: 1 });
    expect(summary.find((x) => x.buildId === 'A2')).toMatchObject({ current: false, live_workers: 1 });

    harness.web.setDelay(0);
    await env.client.waitForResult(first.researchId);
    await env.client.waitForResult(second.researchId);
    expect((await env.client.state(first.researchId)).status).toBe('completed');
    expect((await env.client.state(second.researchId)).status).toBe('completed');
    expect((await workersByRun(first.researchId)).flat().every((w) => w === 'worker-A2')).toBe(true);
    expect((await workersByRun(second.researchId)).flat().every((w) => w === 'worker-B2')).toBe(true);
    await b.stop();
    await a.stop();
  });

  it('research pinned to a build that is gone goes on from its last snapshot on the new build', async () => {
    const a = await startBuild('A3');
    harness.web.setDelay(700);
    const { researchId } = await env.client.start({ query: 'How do cities cut traffic deaths?', settings: { auto_approve: true, max_iterations: 1, max_sources: 8, batch_size: 2 } });
    // The store's snapshot is what the new build goes on from: it holds every batch analysed so far.
    await waitFor('research persisted mid-way', async () => {
      const stored = await env.client.sessions().get(researchId);
      return stored?.status === 'running' && stored.sources.some((x) => x.analyzed);
    });
    // A local upgrade: the old worker stops, the new one starts.
    await a.stop();
    const readBefore = new Set((await env.client.sessions().get(researchId))?.sources.filter((x) => x.analyzed).map((x) => new URL(x.url).pathname));
    const stoppedAt = Date.now();
    harness.web.setDelay(0);
    const b = await startBuild('B3');
    const live = () => liveBuilds(env.client.connection.workflowService, env.config.temporal.namespace, b.workers.build.deploymentName);
    const moved = await adoptOrphanedSessions(env.client, b.workers.build, await live());
    expect(moved).toEqual([{ research_id: researchId, from: 'A3', outcome: 'adopted' }]);
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    expect((await env.client.events(researchId)).some((e) => e.data.kind === 'build_gone')).toBe(true);
    // What the old build read and analysed before it went is not fetched again (the citation check's HEADs aside).
    const fetchedAgain = harness.recorder.of('web').filter((r) => r.method === 'GET' && r.start >= stoppedAt && readBefore.has(r.path.split('?')[0]));
    expect(fetchedAgain.map((r) => `${r.method} ${r.path}`)).toEqual([]);
    // Nothing is left pinned to a build without workers.
    expect(await adoptOrphanedSessions(env.client, b.workers.build, await live())).toEqual([]);
    await b.stop();
  });
});
