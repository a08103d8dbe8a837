// For scripts (bench, history recording): a private Temporal dev server, the harness and a worker,
// torn down whatever happens; and the histories of every run of one research session.
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { workflowIdFor } from '../../src/workflows/messages';
import { startEnvironment, startHarness, type EnvironmentOptions, type Harness, type HarnessOptions, type TestEnvironment } from './index';
import { startTestServer } from './temporal';

export function runStandalone(opts: HarnessOptions, fn: (env: TestEnvironment, harness: Harness) => Promise<void>, envOpts: EnvironmentOptions = {}): void {
  const main = async () => {
    const server = await startTestServer();
    const harness = await startHarness(opts);
    const env = await startEnvironment(harness, server.address, envOpts);
    try {
      await fn(env, harness);
    } finally {
      await env.close();
      await harness.close();
      await server.stop();
    }
  };
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

/** Every run of a session (continue-as-new makes several), oldest first, with its history. */
export async function sessionHistories(client: Client, researchId: string): Promise<{ runId: string; history: temporal.api.history.v1.IHistory }[]> {
  const runs = [];
  for await (const wf of client.workflow.list({ query: `WorkflowId = "${workflowIdFor(researchId)}"` })) runs.push(wf);
  runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
  return Promise.all(runs.map(async (wf) => ({ runId: wf.runId, history: await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory() })));
}
