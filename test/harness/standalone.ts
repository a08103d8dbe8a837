// For scripts (bench, history recording): a private Temporal dev server, the harness and a worker,
// torn down whatever happens; and the histories of every run of one research session.
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { workflowIdFor } from '../../src/contract/names';
import { startEnvironment, startHarness, type EnvironmentOptions, type Harness, type HarnessOptions, type TestEnvironment } from './index';
import { startTestServer } from './temporal';

export function runStandalone(opts: HarnessOptions, fn: (env: TestEnvironment, harness: Harness) => Promise<void>, envOpts: EnvironmentOptions | ((harness: Harness) => EnvironmentOptions) = {}): void {
  const main = async () => {
    const server = await startTestServer();
    const harness = await startHarness(opts);
    const env = await startEnvironment(harness, server.address, typeof envOpts === 'function' ? envOpts(harness) : envOpts);
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

/** Every run of a session, first to last, following its continue-as-new chain. */
export async function sessionHistories(client: Client, researchId: string): Promise<{ runId: string; history: temporal.api.history.v1.IHistory }[]> {
  const workflowId = workflowIdFor(researchId);
  const described = await client.workflow.getHandle(workflowId).describe();
  const runs: { runId: string; history: temporal.api.history.v1.IHistory }[] = [];
  let runId: string | undefined = described.raw.workflowExecutionInfo?.firstRunId ?? described.runId;
  while (runId) {
    const history: temporal.api.history.v1.IHistory = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    runs.push({ runId, history });
    const next: string | null | undefined = history.events?.find((e) => e.workflowExecutionContinuedAsNewEventAttributes)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    runId = next ?? undefined;
  }
  return runs;
}
