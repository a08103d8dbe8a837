// The stable workflow names (seed 000): new sessions run as `deep-research`, the metadata workflow
// as `research-metadata`; sessions and clients on the old names keep working, and a run under the
// new name replays from its own history.
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resolveSettings } from '../src/config/load';
import { LEGACY_WORKFLOW_TYPES, METADATA_WORKFLOW_TYPE, WORKFLOW_TYPE, workflowIdFor } from '../src/contract/names';
import type { ResearchInput, ResearchResult } from '../src/domain/types';
import { startEnvironment, startHarness, workflowBundle, type Harness, type TestEnvironment } from './harness';

const fast = { auto_approve: true, max_sources: 4, max_iterations: 1, batch_size: 2 };

describe('stable workflow names', () => {
  let harness: Harness;
  let env: TestEnvironment;

  beforeAll(async () => {
    harness = await startHarness({ model: { gapIterations: 0 } });
    env = await startEnvironment(harness, inject('temporalAddress'));
  });
  afterAll(async () => {
    await env?.close();
    await harness?.close();
  });

  it('starts new sessions as deep-research, and their history replays', async () => {
    expect(WORKFLOW_TYPE).toBe('deep-research');
    const { researchId } = await env.client.start({ query: 'Stable names: tidal power in Scotland', settings: fast });
    const result = (await env.client.waitForResult(researchId)) as ResearchResult;
    expect(result.status).toBe('completed');
    const handle = env.temporal.workflow.getHandle(workflowIdFor(researchId));
    expect((await handle.describe()).type).toBe('deep-research');
    const history = await handle.fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, researchId);
  });

  it('still serves a session started under the old name deepResearch', async () => {
    const researchId = `legacy-${Date.now()}`;
    const input: ResearchInput = { researchId, query: 'Legacy name: wave energy costs', settings: resolveSettings(env.config.research.settings, fast) };
    const handle = await env.temporal.workflow.start(LEGACY_WORKFLOW_TYPES.research, {
      taskQueue: env.config.temporal.task_queue,
      workflowId: workflowIdFor(researchId),
      args: [input],
    });
    const result = (await handle.result()) as ResearchResult;
    expect(result.status).toBe('completed');
    expect((await handle.describe()).type).toBe('deepResearch');
    expect((await env.client.state(researchId)).report_markdown).toContain('# Legacy name');
  });

  it('answers the metadata workflow under both names, and fails an unknown type at once', async () => {
    expect(METADATA_WORKFLOW_TYPE).toBe('research-metadata');
    const run = (type: string) =>
      env.temporal.workflow.execute(type, { taskQueue: env.config.temporal.task_queue, workflowId: `meta-${type}-${Date.now()}`, args: ['research-sessions'] });
    const stable = (await run('research-metadata')) as { research_settings_schema: Record<string, unknown> };
    const legacy = (await run(LEGACY_WORKFLOW_TYPES.metadata)) as { research_settings_schema: Record<string, unknown> };
    expect(stable.research_settings_schema).toEqual(legacy.research_settings_schema);
    expect(Object.keys(stable.research_settings_schema)).toContain('properties');
    await expect(run('deepResearchTypo')).rejects.toThrow(/Workflow execution failed/);
  });
});
